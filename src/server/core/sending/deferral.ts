/**
 * Deferrals (RFC 5321 §4.2.5 and §4.5.4.1: a 4yz reply is a transient failure the client retries; a 5yz is permanent):
 * what a failed delivery attempt means for its email and when the next attempt is due. Mail is never dropped because
 * a relay was slow, busy or away: a deferred email goes back to pending with back-off until it has waited
 * DEFER_MAX_AGE since it was due (as an MTA's queue lifetime), and only then fails, with the last reason. Pure.
 */

/** An attempt's failure as the sender saw it: the SMTP reply code when the relay gave one, the stage it failed at. */
export interface AttemptFailure {
  /** The relay's SMTP reply code (421, 451, 454, 550 …), when it answered. */
  responseCode?: number;
  /** Where the attempt failed: 'render' and 'store' are ours; 'deliver' is the relay conversation (or connection). */
  stage: string;
  /** A failure retrying cannot fix (a missing sender persona or template). */
  permanent?: boolean;
}

/**
 * isDeferral says whether a failed attempt is transient: any 4xx (or other non-5xx reply), a refused or timed-out
 * connection (no reply code), or a failure to store the copy. A 5xx, a render failure and a failure marked permanent
 * are not.
 */
export function isDeferral(f: AttemptFailure): boolean {
  if (f.permanent || f.stage === 'render') return false;
  return f.responseCode === undefined || f.responseCode < 500;
}

/**
 * isThrottling says whether a deferral is the relay asking the sender to slow down: 454 (Amazon SES "Throttling
 * failure"), a 4.7.x enhanced status code with 421 or 451 (policy: too many messages or connections), or a reply
 * that speaks of a rate or throttling. The pacer then halves its rate (core/sending/pacing.ts).
 */
export function isThrottling(f: AttemptFailure & { message?: string }): boolean {
  if (!isDeferral(f) || f.responseCode === undefined) return false;
  if (f.responseCode === 454) return true;
  const text = f.message ?? '';
  if ((f.responseCode === 421 || f.responseCode === 451) && /\b4\.7\.\d{1,3}\b/.test(text)) return true;
  return /rate|throttl/i.test(text);
}

/**
 * isRelayDown says whether an attempt failed before the relay took anything: the connection was refused, timed out
 * or dropped, or the relay turned the session away at its greeting (nodemailer's `command: 'CONN'`, or
 * `code: 'ECONNECTION'`). Such an email was certainly not accepted, so another relay may take it at once.
 */
export function isRelayDown(err: { command?: string; code?: string }): boolean {
  return err.command === 'CONN' || err.code === 'ECONNECTION';
}

/** Back-off limits: the first delay (ms, doubled per attempt), the longest delay (ms) and the queue lifetime (ms). */
export interface DeferralPolicy {
  retryMs: number;
  maxDelayMs: number;
  maxAgeMs: number;
}

/**
 * nextAttemptDelay returns, for an email deferred at its `attempts`-th attempt that has waited `ageMs` since it was
 * due, how long (ms) until the next attempt — retryMs × 2^(attempts − 1), at most maxDelayMs and never past the end
 * of its lifetime, so a last attempt is made as the lifetime ends — or 'expired' once it has waited maxAgeMs.
 */
export function nextAttemptDelay(attempts: number, ageMs: number, policy: DeferralPolicy): number | 'expired' {
  const left = policy.maxAgeMs - ageMs;
  if (left <= 0) return 'expired';
  const backoff = Math.min(policy.retryMs * 2 ** Math.max(0, attempts - 1), policy.maxDelayMs);
  return Math.max(0, Math.min(backoff, left));
}

/**
 * parseDuration reads a duration setting: a number of seconds ("259200") or a number with a unit s, m, h or d
 * ("72h", "30m"). Returns milliseconds. Throws naming `setting` when the value is not one of these or is not > 0.
 */
export function parseDuration(setting: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/i.exec(value);
  const unit = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m?.[2] ?? '').toLowerCase() as '' | 's' | 'm' | 'h' | 'd'];
  const ms = m ? Number(m[1]) * unit : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`${setting} must be a duration such as 72h, 30m, 45s or a number of seconds, got "${value}"`);
  return ms;
}
