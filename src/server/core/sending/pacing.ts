/**
 * Relay pacing (the delivery governor's rate limit; SMTP_URL `max_rate`): every sender process together sends to a
 * relay no faster than its max_rate messages per second. The shared state is one row per relay (relay_pacing,
 * `next_at`: when the relay's next free send slot begins); a process reserves a few consecutive slots at a time with
 * one statement (the row lock orders concurrent reservations across processes) and hands them out spaced 1/rate
 * apart, so sends are spread evenly over each second instead of bursting at its start (a generic cell-rate
 * algorithm, as token buckets without the burst). Unused slots of a stopped process are simply lost.
 *
 * A throttling answer (core/sending/deferral.ts isThrottling) cuts this process's pace to 70 % at once; the pace then grows
 * back by a tenth of max_rate per second up to max_rate (additive increase, multiplicative decrease, as TCP's
 * congestion control; at most one cut per second, since answers to messages already sent at the old pace say
 * nothing new). A slowed process reserves longer slots, so the shared row spaces every process further apart.
 */
import { performance } from 'node:perf_hooks';
import type { QueryFn } from '../../db/client.ts';

/**
 * The multiplicative decrease on a throttling answer: the pace keeps 70 % (CUBIC's β, RFC 8312 §4.5). Halving, as
 * Reno does, was measured and not kept: a relay that counts per calendar second also throttles when transit jitter
 * moves a few sends into the next second, and halving then cost far more than the jitter
 * (`BENCH_SECONDS=1 npm run bench:governor`, docs/bench-log.md).
 */
const DECREASE = 0.7;

/**
 * RESERVE_SLOTS: reserves $2 consecutive slots of $3 seconds each on relay $1, from the later of now and its next free
 * slot, and notes the pace (1/$3 messages/s) for GET {scheduler}/sending_status; returns when the first reserved slot
 * begins, as epoch ms (UTC): an absolute instant, so that the statement's latency does not shift the slots and every
 * process places its slots on the same clock as the relay counts by.
 */
export const RESERVE_SLOTS = `INSERT INTO relay_pacing AS p (relay, next_at, rate) VALUES ($1, clock_timestamp() + make_interval(secs => $2::int * $3::float8), 1 / $3::float8)
     ON CONFLICT (relay) DO UPDATE SET next_at = greatest(p.next_at, clock_timestamp()) + make_interval(secs => $2::int * $3::float8), rate = 1 / $3::float8
     RETURNING (extract(epoch FROM p.next_at - make_interval(secs => $2::int * $3::float8)) * 1000)::float8 AS first_ms`;

/** Thrown by RelayPacer.permit when its signal aborts while it waits for a slot. */
export class PacingAborted extends Error {
  constructor() {
    super('stopped while waiting for a send slot');
  }
}

/** sleep waits `ms`, or rejects with PacingAborted as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new PacingAborted());
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const t = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(t);
      reject(new PacingAborted());
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * How long (ms) before its instant a reserved slot is handed to a waiting message. Slots are bound to messages only
 * this late, so a message that must go soon — one holding its mailbox provider's send slot — can be
 * served before messages that were waiting longer, a throttling answer slows every message still waiting, and a
 * stopping sender's waits end without slots handed out far ahead. Before, each of 128 sending slots took a slot as it
 * arrived, up to seconds ahead, and a provider's email that had its provider slot waited behind all of them.
 */
const HAND_OUT_LEAD_MS = 30;

/**
 * How many priority messages in a row the pump serves while another message waits: priority ones (an email holding
 * its provider's slot) go first, but never take every slot of the relay — after this many, one other is served.
 */
const PRIORITY_RUN = 4;

/** One message waiting for a slot: `priority` ones are served first, in arrival order among themselves. */
interface SlotWaiter {
  priority: boolean;
  give(at: number): void;
  fail(err: unknown): void;
}

/** RelayPacer hands out send permits for one relay at `maxRate` messages per second across all processes. */
export class RelayPacer {
  /** Slots reserved per statement: about 1/20 s of the rate, 1 to 20. */
  readonly chunk: number;
  /** Instants (epoch ms, UTC) of reserved slots not yet handed out, earliest first. */
  private slots: number[] = [];
  /** Messages waiting for a slot, in the order they are served. */
  private readonly waiting: SlotWaiter[] = [];
  private pumping = false;
  /** Wakes the pump early (throttled dropped the reserved slots). */
  private wakePump?: () => void;
  /** Priority messages served in a row since the last other one (PRIORITY_RUN). */
  private priorityRun = 0;
  /** The share of maxRate this process paces at now (0.05–1). */
  private factor = 1;
  /** When factor last changed (performance.now(), ms). */
  private adjustedAt = performance.now();
  /** When factor was last cut (performance.now(), ms). */
  private decreasedAt = -Infinity;

  /** `relay` names the relay's row (no credentials); `maxRate` is messages per second (> 0). */
  constructor(
    private readonly query: QueryFn,
    readonly relay: string,
    readonly maxRate: number,
  ) {
    this.chunk = Math.max(1, Math.min(20, Math.ceil(maxRate / 20)));
  }

  /**
   * permit resolves when this process may hand one more message to the relay (at its reserved slot). `ready`, when
   * given, is awaited after the slot's instant and before the check that the send still lands in the slot's second
   * (the sender takes a connection there, so the message never queues in the transport after the check); what it
   * resolves is released when the slot is dropped, and otherwise returned. `priority` messages are given slots before
   * the others waiting. Rejects with PacingAborted when `signal` aborts while it waits (the sender is stopping), and
   * with the database's error when slots cannot be reserved.
   */
  async permit<L extends { release(): void }>(ready?: () => Promise<L>, signal?: AbortSignal, priority = false): Promise<L | undefined> {
    for (;;) {
      const at = await this.nextSlot(priority, signal);
      const wait = at - Date.now();
      if (wait > 0) await sleep(wait, signal);
      const taken = ready ? await ready() : undefined;
      // A relay counts per calendar second. A slot used late within its own second changes nothing there, but one
      // whose send would land in the next second (a timer firing late, a stalled event loop) would add to that second's
      // own slots: it is dropped, and the caller takes the next one. Dropped slots are capacity lost, never a burst.
      if (Math.floor(Date.now() / 1000) !== Math.floor(at / 1000)) {
        taken?.release();
        this.lateDropped++;
        continue;
      }
      return taken;
    }
  }

  /** nextSlot waits in line for a slot and resolves its instant (epoch ms) about HAND_OUT_LEAD_MS before it. */
  private nextSlot(priority: boolean, signal?: AbortSignal): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (signal?.aborted) return reject(new PacingAborted());
      const abort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new PacingAborted());
      };
      const waiter: SlotWaiter = {
        priority,
        give: (at) => {
          signal?.removeEventListener('abort', abort);
          resolve(at);
        },
        fail: (err) => {
          signal?.removeEventListener('abort', abort);
          reject(err);
        },
      };
      signal?.addEventListener('abort', abort, { once: true });
      if (priority) {
        const firstOther = this.waiting.findIndex((w) => !w.priority);
        this.waiting.splice(firstOther < 0 ? this.waiting.length : firstOther, 0, waiter);
      } else this.waiting.push(waiter);
      this.pump();
    });
  }

  /**
   * pump hands reserved slots to the waiting messages in order, each about HAND_OUT_LEAD_MS before its instant,
   * reserving more (RESERVE_SLOTS) whenever none is left; runs while anyone waits. A slot whose calendar second has
   * passed (the event loop stalled) is dropped here rather than handed out. Priority messages go first, at most
   * PRIORITY_RUN in a row while another waits. A failed reservation fails the messages waiting then (each records a
   * deferral) and is tried again for the next.
   */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void (async () => {
      try {
        while (this.waiting.length) {
          if (!this.slots.length) {
            try {
              await this.reserve();
            } catch (err) {
              for (const w of this.waiting.splice(0)) w.fail(err);
            }
            continue;
          }
          const lead = this.slots[0] - HAND_OUT_LEAD_MS - Date.now();
          if (lead > 0) {
            await new Promise<void>((resolve) => {
              const t = setTimeout(() => {
                this.wakePump = undefined;
                resolve();
              }, lead);
              this.wakePump = () => {
                clearTimeout(t);
                this.wakePump = undefined;
                resolve();
              };
            });
            continue;
          }
          const at = this.slots.shift()!;
          if (Math.floor(at / 1000) < Math.floor(Date.now() / 1000)) {
            this.lateDropped++;
            continue;
          }
          let next = 0;
          if (this.waiting[0].priority && this.priorityRun >= PRIORITY_RUN)
            next = Math.max(
              0,
              this.waiting.findIndex((w) => !w.priority),
            );
          const [waiter] = this.waiting.splice(next, 1);
          this.priorityRun = waiter.priority && this.waiting.some((w) => !w.priority) ? this.priorityRun + 1 : 0;
          waiter.give(at);
        }
      } finally {
        this.pumping = false;
      }
    })();
  }

  /** Slots dropped because their send would have landed in a later calendar second than planned. */
  lateDropped = 0;

  /** The rate (messages/s) this process paces at now: maxRate, or less after throttling answers. */
  get rate(): number {
    return this.maxRate * this.factor;
  }

  /**
   * throttled cuts the pace to DECREASE of it at once (at least 5 % of maxRate is kept) and drops the slots reserved at the old pace.
   * The answers to messages already on their way at the old pace say nothing new: one cut per second at most.
   */
  throttled(): void {
    const now = performance.now();
    if (now - this.decreasedAt < 1000) return;
    this.grow();
    this.factor = Math.max(0.05, this.factor * DECREASE);
    this.decreasedAt = now;
    this.slots = [];
    this.wakePump?.();
  }

  /** grow adds back a tenth of maxRate per second since the last change, up to maxRate. */
  private grow(): void {
    const now = performance.now();
    this.factor = Math.min(1, this.factor + ((now - this.adjustedAt) / 1000) * 0.1);
    this.adjustedAt = now;
  }

  /** reserve takes the next `chunk` slots of the relay's row at this process's pace. */
  private async reserve(): Promise<void> {
    this.grow();
    const gap = 1 / this.rate;
    const [{ first_ms }] = await this.query<{ first_ms: number }>(RESERVE_SLOTS, [this.relay, this.chunk, gap]);
    const first = Number(first_ms);
    for (let i = 0; i < this.chunk; i++) this.slots.push(first + i * gap * 1000);
  }
}

/**
 * MARK_RELAY_DOWN: relay $1 is taken for down for $2 ms (text) from now, because of $3 (shown by sending_status; each
 * process keeps its own wait, this row is what the operator sees).
 */
export const MARK_RELAY_DOWN = `INSERT INTO relay_pacing AS p (relay, next_at, down_until, down_reason) VALUES ($1, now(), now() + ($2 || ' milliseconds')::interval, $3)
     ON CONFLICT (relay) DO UPDATE SET down_until = excluded.down_until, down_reason = excluded.down_reason`;

/** MARK_RELAY_UP: relay $1 took a message again. */
export const MARK_RELAY_UP = `UPDATE relay_pacing SET down_until = NULL, down_reason = NULL WHERE relay = $1 AND down_until IS NOT NULL`;

/** RELAY_STATES: the pacing rows of relays $1 (names): pace, and until when and why one was taken for down. */
export const RELAY_STATES = `SELECT relay, rate, down_until, down_reason, down_until > now() AS down FROM relay_pacing WHERE relay = ANY($1::text[])`;

/**
 * How long (s) before the end of a calendar second no provider slot begins: an email that has its provider's slot
 * still waits for its relay slot and a connection (tens of ms), and one sent in the next second would add to that
 * second's own slots, so the sender drops it. Slots that would begin this late begin at the next second
 * instead; at 5/s the slots then fall on 0.0, 0.2 … 0.8 of each second and none is lost, at 20/s one in 20.
 */
export const PROVIDER_SLOT_GUARD_S = 0.1;

/** guarded(t): instant `t`, or the start of the next second when `t` falls in the last $4 seconds of its own. */
const guarded = (t: string) =>
  `(CASE WHEN ${t} - date_trunc('second', ${t}) > make_interval(secs => 1 - $4::float8) THEN date_trunc('second', ${t}) + interval '1 second' ELSE ${t} END)`;

/**
 * RESERVE_IF_FREE: reserves one slot of $2 seconds on key $1 when its next free slot begins within $3 seconds, never
 * beginning in the last $4 seconds of a calendar second (PROVIDER_SLOT_GUARD_S); returns how long (ms, ≥ 0) until the
 * slot begins, or no row when none is free that soon.
 */
export const RESERVE_IF_FREE = `INSERT INTO relay_pacing AS p (relay, next_at, rate) VALUES ($1, ${guarded('clock_timestamp()')} + make_interval(secs => $2::float8), 1 / $2::float8)
     ON CONFLICT (relay) DO UPDATE SET next_at = ${guarded('greatest(p.next_at, clock_timestamp())')} + make_interval(secs => $2::float8), rate = 1 / $2::float8
       WHERE p.next_at <= clock_timestamp() + make_interval(secs => $3::float8)
     RETURNING greatest(0, extract(epoch FROM (p.next_at - make_interval(secs => $2::float8) - clock_timestamp())) * 1000)::float8 AS wait_ms`;

/**
 * SlotPacer paces one key (a provider group: `provider:<name>`) at `maxRate` messages per second over all processes
 * without ever making a caller wait long: tryPermit reserves the next slot only when it begins within `horizonMs`, so
 * a slow provider's emails step aside instead of holding sending slots (core/sending/providers.ts).
 */
export class SlotPacer {
  /** performance.now() (ms) before which no slot is free (learnt from a refused reservation): no statement till then. */
  private busyUntil = 0;

  constructor(
    private readonly query: QueryFn,
    readonly key: string,
    readonly maxRate: number,
    readonly horizonMs = 1000,
  ) {}

  /**
   * tryPermit resolves at this process's reserved slot (after waiting at most horizonMs) with the slot's instant
   * (epoch ms, UTC), or undefined at once when no slot is free within horizonMs (the caller puts the email back for
   * about that long). A provider counts per calendar second as a relay does: the caller drops a slot whose send would
   * land in a later second (the sender's check before delivery).
   */
  async tryPermit(): Promise<number | undefined> {
    if (performance.now() < this.busyUntil) return undefined;
    const rows = await this.query<{ wait_ms: number }>(RESERVE_IF_FREE, [this.key, 1 / this.maxRate, this.horizonMs / 1000, PROVIDER_SLOT_GUARD_S]);
    if (!rows.length) {
      this.busyUntil = performance.now() + this.horizonMs / 2;
      return undefined;
    }
    const wait = Number(rows[0].wait_ms);
    const at = Date.now() + wait;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return at;
  }
}
