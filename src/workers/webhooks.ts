/**
 * The webhook dispatcher (docs/architecture.md §22): in every worker process, claims due webhook messages
 * (core/webhooks CLAIM_DUE: FOR UPDATE SKIP LOCKED with a claim token and a lease, as the sender claims the outbox),
 * POSTs each to its endpoint (core/webhooks attempt: signed, WEBHOOK_TIMEOUT_MS) and records the answer (recordAttempt:
 * delivered, retried on the schedule, or failed after WEBHOOK_RETRY_FOR). It runs beside the sender, never in its
 * way: a slow endpoint holds one of this loop's slots, not a sending slot, and messages to other endpoints go on.
 *
 * Not pg-boss: the messages are written by database triggers in the transaction of the event they report, and a
 * contact's messages to an endpoint must go in order, one at a time — a claim query over the messages' own table
 * expresses both; pg-boss jobs could be made only from Node, after the fact, and in no order.
 *
 * A worker killed after the receiver answered but before the answer was recorded leaves the message claimed until the
 * lease ends; another worker then sends it again with the same webhook-id, which receivers deduplicate by.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { attempt, CLAIM_DUE, NEXT_DUE_IN_MS, recordAttempt, type ClaimedMessage } from '../server/core/webhooks/index.ts';

/** Messages in flight at once per process (each claimed as a slot frees, never waiting for a whole batch). */
export const WEBHOOK_SLOTS = 20;

/** WebhookDispatcher delivers due webhook messages until stopped. */
export class WebhookDispatcher {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly query: QueryFn;

  constructor(private readonly ctx: AppContext) {
    this.query = ctx.database.query.bind(ctx.database) as QueryFn;
  }

  /** start begins the loop. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** stop ends the loop after the attempts in flight are recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  /**
   * tick claims due messages for the free slots and starts their attempts (each records its answer when it ends and
   * frees its slot, waking the loop); returns how many it claimed.
   */
  async tick(): Promise<number> {
    const free = WEBHOOK_SLOTS - this.inFlight.size;
    if (free <= 0) return 0;
    const opts = this.ctx.config.webhooks;
    const claim = randomUUID();
    const messages = await this.query<ClaimedMessage>(CLAIM_DUE, [free, claim, String(opts.leaseMs)]);
    for (const m of messages) {
      const one: Promise<void> = (async () => {
        const result = await attempt(m, { timeoutMs: opts.timeoutMs, allowPrivate: opts.allowPrivate });
        await recordAttempt(this.query, claim, m, result, opts);
      })()
        .catch((err) => console.warn(`webhooks: ${(err as Error).message}`))
        .finally(() => {
          this.inFlight.delete(one);
          this.wake?.();
        });
      this.inFlight.add(one);
    }
    return messages.length;
  }

  private async run(): Promise<void> {
    const { pollMs } = this.ctx.config.webhooks;
    while (this.running) {
      let claimed = 0;
      let sleepMs = pollMs;
      try {
        claimed = await this.tick();
        if (!claimed && this.inFlight.size < WEBHOOK_SLOTS) {
          const [next] = await this.query<{ ms: number | null }>(NEXT_DUE_IN_MS);
          // Due later: sleep until then (at most the poll). Due now but not claimable (blocked behind a contact's
          // earlier message, or its endpoint's slots all busy): the poll, never a busy loop.
          if (next?.ms !== null && next?.ms !== undefined && Number(next.ms) > 0) sleepMs = Math.min(pollMs, Math.max(10, Number(next.ms)));
        }
      } catch (err) {
        if (this.running) console.warn(`webhooks: ${(err as Error).message}`);
      }
      if (claimed || !this.running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
