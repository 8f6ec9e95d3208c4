/**
 * What an operator decided about the signed-in project (GET {companyauthwrapper}/account_status): out of
 * the sandbox or not, and whether all its sending is suspended and why. Read by the 15-second refresh
 * (useJobLogPolling) and kept in a tiny store so the banner re-renders. When the sandbox state differs from the
 * session's, the session's not_in_sandbox is updated (the cookie is rewritten then, and only then), so "(sandbox)"
 * drops from the header without a new sign-in.
 */
import { useSyncExternalStore } from 'react';
import type { paths } from '../../../generated/types/companyauthwrapper.gen';
import { getSession, setSession } from '../session';

export type AccountStatus = paths['/account_status']['get']['responses'][200]['content']['application/json'];

let current: AccountStatus | null = null;
const listeners = new Set<() => void>();

/** setAccountStatus stores a fresh read and brings the session's not_in_sandbox in line with it. */
export function setAccountStatus(status: AccountStatus): void {
  const session = getSession();
  if (session && session.not_in_sandbox !== status.not_in_sandbox) setSession({ ...session, not_in_sandbox: status.not_in_sandbox });
  if (JSON.stringify(status) === JSON.stringify(current)) return;
  current = status;
  for (const l of listeners) l();
}

/** useAccountStatus is the latest read (null before the first). */
export function useAccountStatus(): AccountStatus | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
