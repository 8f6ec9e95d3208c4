/**
 * Connection limits over all sender processes (issue 21 §1 `max_connections` of a relay, §4 of a provider group):
 * each process holds a share of the limit in `connection_shares`, renewed every RENEW_MS by the plpgsql function
 * share_connections (core/sending/sql/share_connections.sql: a fair part, never more than the others leave), and
 * sends at most its share of messages at once. A process records at least the connections it may still have open
 * (the most it had in flight over the last idle timeout, after which its pool closes an idle connection), so a
 * process whose share shrinks holds the others back until its extra connections are closed: together they never
 * have more than the limit open.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { QueryFn } from '../../db/client.ts';

/** How often a share is renewed (ms), and how long a lease lives without renewal (ms). */
export const RENEW_MS = 1000;
export const LEASE_TTL_MS = 5000;
/** How long the relay transport keeps an idle pooled connection (ms) when the relay has max_connections. */
export const IDLE_CONNECTION_MS = 1000;

/** ConnectionShare limits the messages this process has in flight to one key (`relay:<name>`, `provider:<group>`). */
export class ConnectionShare implements ConnectionLimit {
  /** Connections this process may use now (0 until the first renewal). */
  granted = 0;
  /** Messages in flight. */
  inFlight = 0;
  private readonly waiters: Array<() => void> = [];
  /**
   * The most in flight in each of the last three intervals of at least IDLE_CONNECTION_MS (the last is the current
   * one): a connection busy at any time then may still be open, since an idle one closes IDLE_CONNECTION_MS after its
   * last message; three intervals leave a margin of at least one for the close itself.
   */
  private peaks = [0, 0, 0];
  /** This share's holder id in connection_shares (one per sender, so two senders in one process count as two). */
  private readonly holder = randomUUID();
  private timer?: ReturnType<typeof setInterval>;
  private started?: Promise<void>;
  private renewing?: Promise<void>;
  private lastRenewal = 0;

  /** `max`: the limit over all processes (connections, > 0). */
  constructor(
    private readonly query: QueryFn,
    readonly key: string,
    readonly max: number,
  ) {}

  /** tryAcquire takes a connection when one of this process's share is free; false otherwise (no wait). */
  async tryAcquire(): Promise<boolean> {
    await this.start();
    if (this.inFlight >= this.granted) return false;
    this.take();
    return true;
  }

  /** acquire waits for a connection of this process's share (woken by a release or a renewal that grows the share). */
  async acquire(): Promise<void> {
    await this.start();
    while (this.inFlight >= this.granted) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.take();
  }

  /** How many wait in acquire. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** release gives a connection back (the message's SMTP transaction is over). */
  release(): void {
    this.inFlight--;
    this.wake();
  }

  /** stop ends the renewals and gives the lease back. Never rejects. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.query('DELETE FROM connection_shares WHERE key = $1 AND holder = $2', [this.key, this.holder]).catch(() => undefined);
  }

  private take(): void {
    this.inFlight++;
    this.peaks[2] = Math.max(this.peaks[2], this.inFlight);
  }

  /** wake wakes as many waiters as there are free connections of the share (each checks again when it runs). */
  private wake(): void {
    for (let free = this.granted - this.inFlight; free > 0 && this.waiters.length; free--) this.waiters.shift()!();
  }

  private start(): Promise<void> {
    this.started ??= this.renew().then(() => {
      this.timer = setInterval(() => void this.renew(), RENEW_MS);
      this.timer.unref?.();
    });
    return this.started;
  }

  /** renew asks for this process's share, recording what it may still have open; never rejects. */
  private renew(): Promise<void> {
    this.renewing ??= (async () => {
      const open = Math.max(this.inFlight, ...this.peaks);
      try {
        const [row] = await this.query<{ n: number }>('SELECT share_connections($1, $2, $3, $4, $5) AS n', [
          this.key,
          this.holder,
          this.max,
          open,
          LEASE_TTL_MS,
        ]);
        this.granted = Number(row.n);
        // Keep the peak of the last interval of at least IDLE_CONNECTION_MS: connections idle for less may be open.
        if (performance.now() - this.lastRenewal >= IDLE_CONNECTION_MS) {
          this.peaks = [this.peaks[1], this.peaks[2], this.inFlight];
          this.lastRenewal = performance.now();
        }
        this.wake();
      } catch (err) {
        console.error(`sender: renewing the connection share of ${this.key} failed:`, (err as Error).message);
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }
}

/** A limit on connections in use: a share over all processes (ConnectionShare) or this process's own (LocalConnections). */
export interface ConnectionLimit {
  acquire(): Promise<void>;
  release(): void;
}

/**
 * LocalConnections limits the messages in flight in this process to a transport's pool size, so that a message is
 * handed over only when a connection is free (it never waits in the transport's own queue, out of the pacer's sight).
 */
export class LocalConnections implements ConnectionLimit {
  inFlight = 0;
  private readonly waiters: Array<() => void> = [];

  /** `size`: connections (Infinity for no limit). */
  constructor(readonly size: number) {}

  /** acquire waits for a free connection. */
  async acquire(): Promise<void> {
    while (this.inFlight >= this.size) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.inFlight++;
  }

  /** release frees a connection and wakes the first waiter. */
  release(): void {
    this.inFlight--;
    this.waiters.shift()?.();
  }
}
