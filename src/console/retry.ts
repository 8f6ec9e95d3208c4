/**
 * Retries of spec part 1 §9 / part 2 §7 (count/delay), shared by the console's data layer and the public pages. Kept
 * free of react-admin so the public site's bundle does not pull it in.
 */

/**
 * Retry policies (count/delay): reads 2/250 ms, writes 2/200 ms, segment reads 6/800 ms (part 2 §7), report reads
 * 6/800 ms and the report cache clear before a campaign save 6/300 ms (part 1 §9, part 2 §7 Campaigns).
 */
export const RETRY = {
  read: { retries: 2, delayMs: 250 },
  write: { retries: 2, delayMs: 200 },
  segments: { retries: 6, delayMs: 800 },
  reports: { retries: 6, delayMs: 800 },
  reportCacheClear: { retries: 6, delayMs: 300 },
} as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * isRetryable is true for network failures (no HTTP status) and 5xx/429 answers; other HTTP errors (any thrown value
 * with a numeric `status` below 500) are final.
 */
export function isRetryable(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status > 0) return status >= 500 || status === 429;
  return true;
}

/** withRetry runs `attempt` and retries it `retries` times, `delayMs` apart, while the failure is retryable. */
export async function withRetry<T>(attempt: () => Promise<T>, policy: { retries: number; delayMs: number }): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= policy.retries || !isRetryable(error)) throw error;
      await sleep(policy.delayMs);
    }
  }
}
