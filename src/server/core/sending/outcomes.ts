/**
 * What becomes of a claimed email (spec part 1 §3 email_send_result_success and _failure; docs/architecture.md
 * "Deferrals"): one the relay accepted is recorded as sent (./sentRecorder.ts) and counted for the circuit-breaker
 * (./reputation.ts); a failure is classified — a deferral (any 4xx, a refused connection, a throttle) goes back to pending
 * with back-off until DEFER_MAX_AGE (./deferral.ts), a relay that refused is taken for down and the email goes to
 * another one, anything else fails for good, and a relay's 5xx is also recorded as a bounce (core/feedback). Every
 * write is fenced by the row's claim token (./queries.ts).
 */
import type { QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import type { BlockWatch } from '../feedback/blocks.ts';
import { recordFeedback } from '../feedback/index.ts';
import { smtpBounce, type SmtpRefusal } from '../../../domain/feedback.ts';
import { sendMetrics, stageClass, type DeferralReason, type FailureReason } from '../../metrics.ts';
import { isDeferral, isRelayDown, isThrottling, nextAttemptDelay } from './deferral.ts';
import { FAIL_SEND, RETRY_SEND_LATER } from './queries.ts';
import type { Relay, RelaySet } from './relayChoice.ts';
import { ReputationWatch } from './reputation.ts';
import { SentRecorder, type DailyCount } from './sentRecorder.ts';

/** How soon (ms) an email the relay throttled (454, 4.7.x, "rate") is tried again: the pacer has slowed down meanwhile. */
export const THROTTLED_RETRY_MS = 1000;
/** The longest back-off between two attempts of a deferred email (ms). */
export const MAX_RETRY_DELAY_MS = 30 * 60_000;

/**
 * PermanentError marks a failure that retrying cannot fix (a missing or unverified persona, a missing template, a
 * suppressed or unsubscribed recipient); `kind` is its class in the failed-emails metric.
 */
export class PermanentError extends Error {
  constructor(
    message: string,
    readonly kind: FailureReason = 'other',
  ) {
    super(message);
  }
}

/** The fields of a claimed outbox row a failure needs. */
export interface FailedRow {
  id: string | number;
  project_id: string;
  email: string;
  message_id: string;
  attempts: number;
  /** When the email was due: its deferrals count their age from here. */
  send_at: Date;
}

/** Outcomes records what became of one sender's emails. */
export class Outcomes {
  private readonly recorder: SentRecorder;
  /** The circuit-breaker, evaluated as sends are recorded. */
  private readonly reputation: ReputationWatch;

  /**
   * `paused(projectId)` is told when the circuit-breaker paused a project; `recordWindowMs` is the longest wait before
   * accepted messages are recorded as sent, batched into one statement.
   */
  constructor(
    private readonly query: QueryFn,
    private readonly config: Pick<Config, 'deferMaxAgeMs' | 'deferRetryMs' | 'reputation'>,
    private readonly relays: RelaySet,
    private readonly blocks: BlockWatch,
    private readonly paused: (projectId: string) => void,
    recordWindowMs: number,
  ) {
    this.recorder = new SentRecorder(query, recordWindowMs);
    this.reputation = new ReputationWatch(query, config.reputation, paused);
  }

  /**
   * delivered records an email the relay (or the mailbox simulator, whose feedback is then recorded) accepted at
   * `acceptedAt` (epoch ms): its sent mark under claim `token` with its event (`sent`, compose.ts sentEvent) and the
   * daily_sends count it adds to. Resolves once written; never rejects (a mark that cannot be written is logged and
   * its row left in `sending`, re-claimed after the lease, never reported as a failed delivery).
   */
  delivered(
    row: FailedRow,
    token: string,
    sent: { location: string; json: Record<string, unknown> },
    how: { via: 'smtp' | 'capture' | 'simulator'; acceptedAt: number; daily?: DailyCount; simulated?: Parameters<typeof recordFeedback>[2][number] },
  ): Promise<void> {
    return this.recorder
      .markSent(row.id, token, sent.location, sent.json, how.daily)
      .then(async () => {
        this.reputation.sent(row.project_id);
        sendMetrics.sent.inc({ transport: how.via });
        sendMetrics.latency.observe(Math.max(0, how.acceptedAt - new Date(row.send_at).getTime()) / 1000);
        if (how.simulated) await this.feedback(row.project_id, [{ ...how.simulated, messageId: row.message_id }], 'simulator');
      })
      .catch((err) => console.error(`sender: email ${row.id} was delivered but could not be recorded as sent:`, (err as Error).message));
  }

  /** stop ends the circuit-breaker's periodic work. */
  async stop(): Promise<void> {
    await this.reputation.stop();
  }

  /**
   * failed records a failed attempt of `row` at `stage` ('render', 'store' or 'deliver') through `relay` (if it got
   * that far): a deferral puts the row back to pending with back-off (or, past DEFER_MAX_AGE, fails it), anything
   * else fails it at once (a relay's 5xx is also a bounce). Counts the outcome in sendMetrics by reason class.
   */
  async failed(row: FailedRow, token: string, stage: string, err: unknown, relay?: Relay): Promise<void> {
    const e = err as Error & { responseCode?: number };
    const reason = `${stage}: ${e.message ?? String(err)}`;
    const failure = { responseCode: typeof e.responseCode === 'number' ? e.responseCode : undefined, stage, permanent: err instanceof PermanentError };
    if (isDeferral(failure)) return this.deferred(row, token, stage, err, reason, relay);
    await this.query(FAIL_SEND, [row.id, token, reason]);
    sendMetrics.failed.inc({ reason: err instanceof PermanentError ? err.kind : stageClass(stage) });
    // A relay's 5xx is a hard bounce; a recipient refused as a bad address is also suppressed (smtpBounce).
    const bounce = stage === 'deliver' ? smtpBounce(row.email, err as SmtpRefusal) : undefined;
    if (bounce) await this.feedback(row.project_id, [{ ...bounce, messageId: row.message_id, relay: relay?.name }], 'smtp');
  }

  /** feedback records bounces or complaints (core/feedback recordFeedback) and reports a pause of the project. */
  async feedback(projectId: string, items: Parameters<typeof recordFeedback>[2], source: string): Promise<void> {
    const { paused } = await recordFeedback(this.query, projectId, items, source, this.config.reputation, this.blocks);
    if (paused) this.paused(projectId);
  }

  /** deferred handles a temporary failure (see failed). */
  private async deferred(row: FailedRow, token: string, stage: string, err: unknown, reason: string, relay?: Relay): Promise<void> {
    const e = err as Error & { responseCode?: number };
    // The relay asks us to slow down: this process's pace is cut at once (./pacing.ts).
    const throttled = stage === 'deliver' && isThrottling({ responseCode: e.responseCode, stage, message: e.message });
    if (throttled) relay?.pacer?.throttled();
    // The relay refused the connection or the session: it is taken for down for a while and, when another relay is
    // up, the email goes to it at once (it was certainly not accepted here).
    const down = stage === 'deliver' && isRelayDown(err as { command?: string; code?: string });
    if (down && relay) {
      this.relays.wentDown(relay, e.message, reason);
      if (this.relays.anyUp()) return this.retry(row, token, reason, 0, 'relay_down');
    }
    // Tried again with back-off until it has waited DEFER_MAX_AGE since it was due; only then does it fail, with the
    // last reason. A throttled email is tried again after THROTTLED_RETRY_MS, not on the growing back-off: the relay
    // is up and only asked for a slower pace, which the pacer now keeps.
    const { deferMaxAgeMs, deferRetryMs } = this.config;
    const delay = nextAttemptDelay(throttled ? 1 : row.attempts, Date.now() - new Date(row.send_at).getTime(), {
      retryMs: throttled ? Math.min(THROTTLED_RETRY_MS, deferRetryMs) : deferRetryMs,
      maxDelayMs: MAX_RETRY_DELAY_MS,
      maxAgeMs: deferMaxAgeMs,
    });
    if (delay === 'expired') return this.expired(row, token, reason);
    const cls = stageClass(stage);
    await this.retry(row, token, reason, delay, throttled ? 'throttled' : down ? 'relay_down' : cls === 'render' ? 'other' : cls);
  }

  /**
   * whileDown puts a row back until `relay` (the one back the soonest, every relay being down) is tried again, with
   * the reason it was taken for down; a row that has waited DEFER_MAX_AGE since it was due fails instead.
   */
  async whileDown(row: FailedRow, token: string, relay: Relay): Promise<void> {
    const reason = `deliver: relay ${relay.name} is down (${relay.downReason ?? 'it refused the connection'}); tried again when it is back`;
    if (Date.now() - new Date(row.send_at).getTime() >= this.config.deferMaxAgeMs) return this.expired(row, token, reason);
    await this.retry(row, token, reason, Math.ceil(relay.downUntil - performance.now()), 'relay_down');
  }

  private async retry(row: FailedRow, token: string, reason: string, delayMs: number, why: DeferralReason): Promise<void> {
    await this.query(RETRY_SEND_LATER, [row.id, token, reason, String(delayMs)]);
    sendMetrics.deferred.inc({ reason: why });
  }

  private async expired(row: FailedRow, token: string, reason: string): Promise<void> {
    await this.query(FAIL_SEND, [row.id, token, `deferred for longer than DEFER_MAX_AGE (${row.attempts} attempts); last: ${reason}`]);
    sendMetrics.failed.inc({ reason: 'expired' });
  }
}
