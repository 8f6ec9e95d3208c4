/**
 * MailTransport: the one interface the sender delivers through (DESIGN.md §5, useSend's MailerTransport).
 * SmtpTransport speaks SMTP to SMTP_URL through a nodemailer connection pool; CaptureTransport delivers nowhere and
 * says so, for a machine with no relay.
 */
import { IDLE_CONNECTION_MS } from '../core/sending/connections.ts';
import nodemailer, { type Transporter } from 'nodemailer';

export interface Envelope {
  from: string;
  to: string[];
}

export interface MailTransport {
  /** A short description for logs (no secrets). */
  readonly description: string;
  /** true when messages really leave the process. */
  readonly delivers: boolean;
  /** Connections the transport opens at most (its pool); undefined for no limit. */
  readonly connections?: number;
  /**
   * send hands one raw RFC 5322 message to the relay. Resolves with the relay's reply once it accepted the message
   * (SMTP 250 after DATA); rejects with the relay's error otherwise (err.responseCode holds the SMTP code when known).
   */
  send(envelope: Envelope, raw: Buffer): Promise<{ response: string }>;
  close(): Promise<void>;
}

/** SmtpTransport delivers through a pooled nodemailer SMTP transport. */
export class SmtpTransport implements MailTransport {
  readonly delivers = true;
  readonly description: string;
  readonly connections: number;
  private readonly transporter: Transporter;

  /**
   * `url` is an smtp:// or smtps:// URL; `maxConnections` parallel SMTP sessions (default 5); `idleTimeoutMs`, how long
   * an idle pooled connection stays open (default nodemailer's 4 min; a relay with max_connections gets 1 s, so a
   * process whose connection share shrinks closes its extra ones: core/sending/connections.ts).
   */
  constructor(url: string, maxConnections = 5, opts: { idleTimeoutMs?: number } = {}) {
    const u = new URL(url);
    this.connections = maxConnections;
    this.description = `SMTP ${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? 465 : 25)}`;
    const secure = u.protocol === 'smtps:';
    this.transporter = nodemailer.createTransport({
      pool: true,
      maxConnections,
      maxMessages: 1000,
      ...(opts.idleTimeoutMs ? { idleTimeout: opts.idleTimeoutMs } : {}),
      host: u.hostname,
      port: Number(u.port || (secure ? 465 : 25)),
      secure,
      auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
      tls: { rejectUnauthorized: u.searchParams.get('tls_reject_unauthorized') !== 'false' },
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 60_000,
      // A relay on loopback offers no certificate worth checking; STARTTLS is used when offered elsewhere.
      ignoreTLS: u.searchParams.get('ignore_tls') === 'true',
    });
  }

  async send(envelope: Envelope, raw: Buffer): Promise<{ response: string }> {
    const info: { response?: string } = await this.transporter.sendMail({ envelope: { from: envelope.from, to: envelope.to }, raw });
    return { response: String(info.response ?? '') };
  }

  async close(): Promise<void> {
    this.transporter.close();
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
 * openTransport returns SmtpTransport for an SMTP_URL (with `maxConnections`, the relay's max_connections: a pool of
 * that many that closes idle connections after IDLE_CONNECTION_MS), else CaptureTransport.
 */
export function openTransport(smtpUrl: string | undefined, maxConnections?: number): MailTransport {
  if (!smtpUrl) return new CaptureTransport();
  return maxConnections ? new SmtpTransport(smtpUrl, maxConnections, { idleTimeoutMs: IDLE_CONNECTION_MS }) : new SmtpTransport(smtpUrl);
}
