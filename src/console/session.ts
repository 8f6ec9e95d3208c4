/**
 * The console session (spec part 1 §3 Session, §4, §9): the login response kept in the `user_info` cookie
 * (JSON, URI-encoded, 24 h, SameSite=Strict), refreshed while used, with a tiny store so React re-renders on change.
 */
import { useSyncExternalStore } from 'react';
import type { components } from '../../generated/types/login.gen';

export type Session = components['schemas']['Session'];

const COOKIE = 'user_info';
const MAX_AGE_SECONDS = 24 * 60 * 60;

const listeners = new Set<() => void>();
let cached: Session | null | undefined;

function readCookie(): Session | null {
  const entry = document.cookie.split('; ').find((c) => c.startsWith(`${COOKIE}=`));
  if (!entry) return null;
  try {
    const value = JSON.parse(decodeURIComponent(entry.slice(COOKIE.length + 1))) as Session;
    if (!value || typeof value.api_client_key !== 'string' || !value.endpoints) return null;
    return value;
  } catch {
    return null;
  }
}

function writeCookie(session: Session, maxAge: number): void {
  const value = encodeURIComponent(JSON.stringify(session));
  document.cookie = `${COOKIE}=${value}; Max-Age=${maxAge}; Path=/; SameSite=Strict`;
}

function emit(): void {
  for (const l of listeners) l();
}

/** getSession returns the session stored in the user_info cookie, or null when logged out (spec part 1 §3). */
export function getSession(): Session | null {
  const current = readCookie();
  if (JSON.stringify(current) !== JSON.stringify(cached ?? null)) cached = current;
  return cached ?? null;
}

/** setSession stores a fresh login response in the user_info cookie for 24 h (spec part 1 §4, §9). */
export function setSession(session: Session): void {
  writeCookie(session, MAX_AGE_SECONDS);
  cached = session;
  emit();
}

/** refreshSession re-sets the cookie so its 24 h lifetime starts again while the console is used (spec part 1 §4). */
export function refreshSession(): void {
  const session = readCookie();
  if (session) writeCookie(session, MAX_AGE_SECONDS);
  else if (cached) {
    cached = null;
    emit();
  }
}

/** clearSession deletes the user_info cookie, which logs the user out (spec part 1 §2 /logout). */
export function clearSession(): void {
  document.cookie = `${COOKIE}=; Max-Age=0; Path=/; SameSite=Strict`;
  cached = null;
  emit();
}

/** useSession is the current session as React state; components re-render on login and logout. */
export function useSession(): Session | null {
  return useSyncExternalStore((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, getSession);
}

/** gatewayUrl returns the base URL of one service's gateway from the session, falling back to /api/<service>. */
export function gatewayUrl(service: string, session: Session | null = getSession()): string {
  const endpoints = (session?.endpoints ?? {}) as Record<string, string | undefined>;
  return endpoints[`api_${service}_gateway`] ?? `/api/${service}`;
}
