/**
 * The authProvider (spec part 1 §3 Session, §4, §6): logged in while the user_info cookie holds a session; logout
 * clears it; a 401 from any gateway call logs out.
 */
import type { AuthProvider } from 'react-admin';
import { clearSession, getSession, refreshSession } from '../session';

/** authProvider answers react-admin's auth questions from the user_info cookie. */
export const authProvider: AuthProvider = {
  async login() {
    // Login happens on the public /login page, which stores the session itself.
  },
  async logout() {
    clearSession();
    return '/login';
  },
  async checkAuth() {
    if (!getSession()) throw new Error('Not logged in');
    refreshSession();
  },
  async checkError(error: { status?: number }) {
    if (error?.status === 401) throw new Error('Session expired');
  },
  async getIdentity() {
    const session = getSession();
    if (!session) throw new Error('Not logged in');
    const { email, first_name, last_name } = session.user;
    return { id: email, fullName: [first_name, last_name].filter(Boolean).join(' ') || email };
  },
  async getPermissions() {
    return 'admin';
  },
};
