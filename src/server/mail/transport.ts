/**
 * MailTransport: the one interface the sender delivers through (DESIGN.md §5, useSend's MailerTransport).
 * SmtpTransport speaks SMTP to SMTP_URL through this process's sessions with the relay (SmtpPool, ./smtpPool.ts);
 * CaptureTransport delivers nowhere and says so, for a machine with no relay.
 */
import { SmtpPool, smtpEndpoint, type SessionLimit, type SmtpLease } from './smtpPool.ts';

export type { SessionLimit } from './smtpPool.ts';

export interface Envelope {
  from: string;
  to: string[];
}

/** One connection taken for one message (SmtpLease): send once, then release. */
export type MailLease = SmtpLease;

/**
 * How long an idle SMTP session stays open (ms). Long enough that a steady stream of mail, however slow, reuses its
 * sessions; short enough that a process that stopped sending soon gives its part of a relay's max_connections back
 * (a share that shrinks closes its idle sessions at once: SmtpPool.rebalance).
 */
export const IDLE_SESSION_MS = 5000;
/** Messages one SMTP session carries before it is closed and replaced. */
export const MESSAGES_PER_SESSION = 1000;

export interface MailTransport {
  /** A short description for logs (no secrets). */
  readonly description: string;
  /** true when messages really leave the process. */
  readonly delivers: boolean;
  /** Connections the transport opens at most (its pool); undefined for no limit. */
  readonly connections?: number;
  /** SMTP sessions open now, from socket creation to its close (undefined for a transport without connections). */
  readonly openSessions?: number;
  /**
   * acquire (on a transport with connections of its own) takes a connection for one message: it resolves once one is idle or may be opened (and is open), so the
   * message never waits inside the transport, out of the governor's sight. Rejects with the connection's error
   * (err.command 'CONN') when a new one cannot be opened, and with AcquireAborted when `signal` aborts first.
   */
  acquire?(signal?: AbortSignal): Promise<MailLease>;
  /**
   * send hands one raw RFC 5322 message to the relay (acquire, send, release). Resolves with the relay's reply once it
   * accepted the message (SMTP 250 after DATA); rejects with the relay's error otherwise (err.responseCode holds the
   * SMTP code when known).
   */
  send(envelope: Envelope, raw: Buffer): Promise<{ response: string }>;
  /**
   * limitSessions makes the transport keep no more sessions open than `limit.allowed()` (a share of the relay's
   * max_connections over all processes), read at every open; call sessionLimitChanged() after it changes.
   */
  limitSessions?(limit: SessionLimit): void;
  sessionLimitChanged?(): void;
  close(): Promise<void>;
}

/**
 * takeConnection takes a connection of `transport` for one message (MailTransport.acquire), or for a transport
 * without connections of its own a lease that simply calls its send.
 */
export async function takeConnection(transport: MailTransport, signal?: AbortSignal): Promise<MailLease> {
  if (transport.acquire) return transport.acquire(signal);
  return { send: (envelope, raw) => transport.send(envelope, raw), release: () => undefined };
}

/** SmtpTransport delivers through this process's SMTP sessions with one relay (SmtpPool). */
export class SmtpTransport implements MailTransport {
  readonly delivers = true;
  readonly description: string;
  readonly connections: number;
  readonly pool: SmtpPool;

  /**
   * `url` is an smtp:// or smtps:// URL (smtpEndpoint); `maxConnections` sessions at most (default 5); `idleTimeoutMs`,
   * how long an idle session stays open (default IDLE_SESSION_MS).
   */
  constructor(url: string, maxConnections = 5, opts: { idleTimeoutMs?: number } = {}) {
    const endpoint = smtpEndpoint(url);
    this.connections = maxConnections;
    this.description = `SMTP ${new URL(url).protocol}//${endpoint.host}:${endpoint.port}`;
    this.pool = new SmtpPool(endpoint, maxConnections, { idleTimeoutMs: opts.idleTimeoutMs ?? IDLE_SESSION_MS, maxMessages: MESSAGES_PER_SESSION });
  }

  get openSessions(): number {
    return this.pool.open;
  }

  acquire(signal?: AbortSignal): Promise<MailLease> {
    return this.pool.acquire(signal);
  }

  async send(envelope: Envelope, raw: Buffer): Promise<{ response: string }> {
    const lease = await this.pool.acquire();
    try {
      return await lease.send(envelope, raw);
    } finally {
      lease.release();
    }
  }

  limitSessions(limit: SessionLimit): void {
    this.pool.limit = limit;
  }

  sessionLimitChanged(): void {
    this.pool.rebalance();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/**
 * CaptureTransport accepts every message without delivering it anywhere (the stored copy is the only trace) and logs
 * that it did so once, so an operator sees that SMTP_URL is unset.
 */
export class CaptureTransport implements MailTransport {
  readonly delivers = false;
  readonly description = 'local capture (SMTP_URL is not set: messages are stored, not delivered)';
  captured = 0;
  private warned = false;

  constructor(private readonly log: (msg: string) => void = (m) => console.warn(m)) {}

  async send(envelope: Envelope, _raw: Buffer): Promise<{ response: string }> {
    this.captured++;
    if (!this.warned) {
      this.warned = true;
      this.log(`mail: SMTP_URL is not set; captured the message to ${envelope.to.join(', ')} without delivering it (and every later one)`);
    }
    return { response: '250 captured locally, not delivered (SMTP_URL not set)' };
  }

  async close(): Promise<void> {}
}

/**
 * openTransport returns SmtpTransport for an SMTP_URL (at most `maxConnections` sessions, the relay's
 * max_connections; default 5), else CaptureTransport.
 */
export function openTransport(smtpUrl: string | undefined, maxConnections?: number): MailTransport {
  if (!smtpUrl) return new CaptureTransport();
  return new SmtpTransport(smtpUrl, maxConnections);
}
