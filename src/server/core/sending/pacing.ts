/**
 * Relay pacing (the delivery governor's rate limit; SMTP_URL `max_rate`): every sender process together sends to a
 * relay no faster than its max_rate messages per second. The shared state is one row per relay (relay_pacing,
 * `next_at`: when the relay's next free send slot begins); a process reserves a few consecutive slots at a time with
 * one statement (the row lock orders concurrent reservations across processes) and hands them out spaced 1/rate
 * apart, so sends are spread evenly over each second instead of bursting at its start (a generic cell-rate
 * algorithm, as token buckets without the burst). Unused slots of a stopped process are simply lost.
 */
import { performance } from 'node:perf_hooks';
import type { QueryFn } from '../../db/client.ts';

/**
 * RESERVE_SLOTS: reserves $2 consecutive slots of $3 seconds each on relay $1, from the later of now and its next free
 * slot; returns how long (ms, ≥ 0) until the first reserved slot begins.
 */
export const RESERVE_SLOTS = `INSERT INTO relay_pacing AS p (relay, next_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2::int * $3::float8))
     ON CONFLICT (relay) DO UPDATE SET next_at = greatest(p.next_at, clock_timestamp()) + make_interval(secs => $2::int * $3::float8)
     RETURNING greatest(0, extract(epoch FROM (p.next_at - make_interval(secs => $2::int * $3::float8) - clock_timestamp())) * 1000)::float8 AS wait_ms`;

/** RelayPacer hands out send permits for one relay at `maxRate` messages per second across all processes. */
export class RelayPacer {
  /** Slots reserved per statement: about 1/20 s of the rate, 1 to 20. */
  readonly chunk: number;
  /** Local instants (performance.now(), ms) of reserved slots not yet handed out, earliest first. */
  private slots: number[] = [];
  private reserving?: Promise<void>;

  /** `relay` names the relay's row (no credentials); `maxRate` is messages per second (> 0). */
  constructor(
    private readonly query: QueryFn,
    readonly relay: string,
    readonly maxRate: number,
  ) {
    this.chunk = Math.max(1, Math.min(20, Math.ceil(maxRate / 20)));
  }

  /** permit resolves when this process may hand one more message to the relay (at its reserved slot). */
  async permit(): Promise<void> {
    while (!this.slots.length) {
      this.reserving ??= this.reserve().finally(() => (this.reserving = undefined));
      await this.reserving;
    }
    const at = this.slots.shift()!;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  private async reserve(): Promise<void> {
    const gap = 1 / this.maxRate;
    const [{ wait_ms }] = await this.query<{ wait_ms: number }>(RESERVE_SLOTS, [this.relay, this.chunk, gap]);
    const first = performance.now() + Number(wait_ms);
    for (let i = 0; i < this.chunk; i++) this.slots.push(first + i * gap * 1000);
  }
}
