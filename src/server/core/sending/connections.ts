/**
 * Connection limits over all sender processes (`max_connections` of a relay or of a provider group):
 * each process holds a share of the limit in `connection_shares`, renewed every RENEW_MS by the plpgsql function
 * share_connections (core/sending/sql/share_connections.sql: a fair part, never more than the others leave).
 * A process records at least what it has open — for a relay, its SMTP sessions from socket creation until the socket
 * closes (`measure`, the transport's count: mail/smtpPool.ts), for a provider group its messages in flight — so a
 * process whose share shrinks holds the others back until its extra sessions are closed: together they never have
 * more than the limit open (counting messages in flight instead of sockets let a relay capped at 5 see 6).
 */
import { randomUUID } from 'node:crypto';
import type { QueryFn } from '../../db/client.ts';

/** How often a share is renewed (ms), and how long a lease lives without renewal (ms). */
export const RENEW_MS = 1000;
export const LEASE_TTL_MS = 5000;

/** Thrown by ConnectionShare.acquire when its signal aborts while it waits. */
export class ShareWaitAborted extends Error {
  constructor() {
    super('stopped while waiting for a connection');
  }
}

/**
 * ConnectionShare is this process's share of one key's connections (`relay:<name>`, `provider:<group>`): `granted` is
 * how many it may have open now. For a provider group it also limits the messages in flight (acquire, release); for a
 * relay the transport keeps its sessions within `granted` (MailTransport.limitSessions) and the share records them.
 */
export class ConnectionShare {
  /** Connections this process may use now (0 until the first renewal). */
  granted = 0;
  /** Messages in flight through acquire/release. */
  inFlight = 0;
  private readonly waiters: Array<() => void> = [];
  /** This share's holder id in connection_shares (one per sender, so two senders in one process count as two). */
  private readonly holder = randomUUID();
  private timer?: ReturnType<typeof setInterval>;
  private started?: Promise<void>;
  private renewing?: Promise<void>;

  /**
   * `max`: the limit over all processes (connections, > 0). `opts.measure`: what this process has open besides
   * inFlight (a relay's SMTP sessions, counted until their sockets close); `opts.onRenew`: called after each renewal
   * (the relay's transport applies the new share).
   */
  constructor(
    private readonly query: QueryFn,
    readonly key: string,
    readonly max: number,
    private readonly opts: { measure?: () => number; onRenew?: () => void } = {},
  ) {}

  /** tryAcquire takes a connection when one of this process's share is free; false otherwise (no wait). */
  async tryAcquire(): Promise<boolean> {
    await this.start();
    if (this.inFlight >= this.granted) return false;
    this.inFlight++;
    return true;
  }

  /**
   * acquire waits for a connection of this process's share (woken by a release or a renewal that grows the share);
   * rejects with ShareWaitAborted when `signal` aborts first.
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    await this.start();
    while (this.inFlight >= this.granted) {
      if (signal?.aborted) throw new ShareWaitAborted();
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          const i = this.waiters.indexOf(wake);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve();
        };
        this.waiters.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
    this.inFlight++;
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

  /** start makes the first renewal (once) and then renews every RENEW_MS; resolves after the first. */
  start(): Promise<void> {
    this.started ??= this.renew().then(() => {
      this.timer = setInterval(() => void this.renew(), RENEW_MS);
      this.timer.unref?.();
    });
    return this.started;
  }

  /** stop ends the renewals and gives the lease back. Never rejects. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.query('DELETE FROM connection_shares WHERE key = $1 AND holder = $2', [this.key, this.holder]).catch(() => undefined);
  }

  /** wake wakes as many waiters as there are free connections of the share (each checks again when it runs). */
  private wake(): void {
    for (let free = this.granted - this.inFlight; free > 0 && this.waiters.length; free--) this.waiters[0]();
  }

  /** renew asks for this process's share, recording what it has open; never rejects. */
  private renew(): Promise<void> {
    this.renewing ??= (async () => {
      const open = Math.max(this.inFlight, this.opts.measure?.() ?? 0);
      try {
        const [row] = await this.query<{ n: number }>('SELECT share_connections($1, $2, $3, $4, $5) AS n', [
          this.key,
          this.holder,
          this.max,
          open,
          LEASE_TTL_MS,
        ]);
        this.granted = Number(row.n);
        this.opts.onRenew?.();
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
