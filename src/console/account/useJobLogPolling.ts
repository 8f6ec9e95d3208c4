/**
 * The logged-in periodic refresh (spec part 1 §4 "a periodic refresh action (argument 100) runs every 15 seconds and
 * once at start", §7 "polling uses the latest 100", §9): reads the latest 100 job-log entries at mount and every 15 s,
 * and shows a toast for each job that has ended since the previous read. Entries already ended at the first read are
 * only remembered, never announced. The same refresh reads the project's account_status, so an
 * operator's activation drops "(sandbox)" from the header within 15 s, without a new sign-in (accountStatus.ts).
 *
 * It uses the generated openapi-fetch client rather than the console's gateway helper on purpose: that helper
 * refreshes the 24 h session cookie on every call (spec §4 "refreshed while used"), and a background poll is not use,
 * so an idle open tab must still let the session expire. A failed poll is silent (the next one retries); the poll stops
 * when the layout unmounts, which happens on logout.
 */
import { useEffect } from 'react';
import { useNotify } from 'react-admin';
import { createGatewayClient } from '../../../generated/client.gen';
import { gatewayUrl, useSession } from '../session';
import { JOB_POLL_LIMIT, JOB_POLL_MS, jobStatus, jobToast, type JobLogEntry } from './jobLog';
import { setAccountStatus } from './accountStatus';

/** useJobLogPolling runs the 15 s job-log poll for the current session (none while logged out). */
export function useJobLogPolling(): void {
  const session = useSession();
  const notify = useNotify();
  const apiKey = session?.api_client_key;
  const baseUrl = session ? gatewayUrl('joblog', session) : undefined;
  const accountUrl = session ? gatewayUrl('companyauthwrapper', session) : undefined;

  useEffect(() => {
    if (!apiKey || !baseUrl) return;
    const client = createGatewayClient<'joblog'>(baseUrl, apiKey);
    // The same refresh reads what an operator decided (activation, suspension): accountStatus.ts.
    const account = createGatewayClient<'companyauthwrapper'>(accountUrl!, apiKey);
    let ended: Set<string> | undefined; // ids of entries seen ended; undefined until the first read
    let stopped = false;
    let busy = false;

    const poll = async (): Promise<void> => {
      if (busy || stopped) return;
      busy = true;
      try {
        const [{ data }, status] = await Promise.all([
          client.GET('/joblog', { params: { query: { limit: JOB_POLL_LIMIT } } }),
          account.GET('/account_status').catch(() => undefined),
        ]);
        if (!stopped && status?.data) setAccountStatus(status.data);
        if (stopped || !data) return;
        const endedNow = data.data.filter((e: JobLogEntry) => !!e.ended_at);
        if (ended) {
          const fresh = endedNow.filter((e) => !ended!.has(e.id)).reverse(); // oldest first
          for (const entry of fresh) {
            const status = jobStatus(entry);
            notify(jobToast(entry), { type: status === 'failed' ? 'error' : 'success' });
          }
        }
        ended = new Set(endedNow.map((e) => e.id));
      } catch {
        // A network failure: the next poll tries again.
      } finally {
        busy = false;
      }
    };

    void poll();
    const timer = setInterval(() => void poll(), JOB_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [apiKey, baseUrl, accountUrl, notify]);
}
