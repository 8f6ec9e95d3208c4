/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps every message it accepts, for tests and the
 * benchmark. `hold()` makes it stop answering DATA (messages stay unaccepted, as with a relay that stalls), and
 * `release()` resumes; a held message whose client disconnects is dropped, as a real relay drops it.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

export interface SinkMessage {
  /** The envelope sender (MAIL FROM; '' for the null sender). */
  envelopeFrom: string;
  envelopeTo: string[];
  raw: Buffer;
  /** When the sink accepted the message (Date.now(), ms). */
  receivedAt: number;
}

export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  private held: Array<() => void> = [];
  private holding = false;
  private server: SMTPServer;
  /** Recipients the sink refuses at RCPT TO, with the SMTP code and text it answers (e.g. 550 '5.1.1 user unknown'). */
  readonly refuse = new Map<string, { code: number; message: string }>();
  /** Count only, no bodies kept (for benchmarks). */
  countOnly = false;
  /**
   * A relay's rate limit, as Amazon SES enforces one: past this many messages in one calendar second (Date.now()),
   * a message is answered `454 Throttling failure` after DATA and not accepted. Undefined = no limit.
   */
  maxPerSecond?: number;
  /** Messages offered (accepted or throttled) per calendar second (epoch seconds → count). */
  readonly offeredPerSecond = new Map<number, number>();
  /** Messages answered 454 because of maxPerSecond. */
  throttled = 0;
  count = 0;
  /**
   * A relay's connection limit: past this many open SMTP connections, a new one is answered `421 4.7.0 Too many
   * connections` at connect and closed. Undefined = no limit.
   */
  maxConnections?: number;
  /** SMTP sessions (connections) the sink took since it started or since `sessions` was last reset. */
  sessions = 0;
  /** Open SMTP connections now, the most open at once, and connections refused for maxConnections. */
  openConnections = 0;
  maxOpenConnections = 0;
  refusedConnections = 0;
  /** How long (ms) the sink takes to accept a message after its DATA (default 0): a slower relay keeps connections busy. */
  acceptDelayMs = 0;
  private readonly counted = new Set<string>();

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      size: 50 * 1024 * 1024,
      onConnect: (session, callback) => {
        if (this.maxConnections !== undefined && this.openConnections >= this.maxConnections) {
          this.refusedConnections++;
          return callback(Object.assign(new Error('4.7.0 Too many connections, try again later'), { responseCode: 421 }));
        }
        this.counted.add(session.id);
        this.sessions++;
        this.openConnections++;
        this.maxOpenConnections = Math.max(this.maxOpenConnections, this.openConnections);
        callback();
      },
      onClose: (session) => {
        if (this.counted.delete(session.id)) this.openConnections--;
      },
      onRcptTo: (address, _session, callback) => {
        const refusal = this.refuse.get(address.address.toLowerCase());
        if (!refusal) return callback();
        callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => {
          if (!this.countOnly) chunks.push(c);
        });
        stream.on('end', () => {
          const second = Math.floor(Date.now() / 1000);
          const offered = (this.offeredPerSecond.get(second) ?? 0) + 1;
          this.offeredPerSecond.set(second, offered);
          if (this.maxPerSecond !== undefined && offered > this.maxPerSecond) {
            this.throttled++;
            callback(Object.assign(new Error('Throttling failure: Maximum sending rate exceeded.'), { responseCode: 454 }));
            return;
          }
          const accept = () => {
            this.count++;
            if (!this.countOnly)
              this.messages.push({
                envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                raw: Buffer.concat(chunks),
                receivedAt: Date.now(),
              });
            callback(null);
          };
          if (this.holding) this.held.push(accept);
          else if (this.acceptDelayMs) setTimeout(accept, this.acceptDelayMs);
          else accept();
        });
      },
    });
  }

  /** start listens on `port` of the loopback (default: a free one) and returns its smtp:// URL. */
  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  /** hold stops accepting messages until release(); returns how many are held so far via heldCount. */
  hold(): void {
    this.holding = true;
  }
  get heldCount(): number {
    return this.held.length;
  }

  /** release drops held messages (their clients are gone) and accepts new ones again. */
  release(opts: { acceptHeld?: boolean } = {}): void {
    this.holding = false;
    const held = this.held;
    this.held = [];
    if (opts.acceptHeld) for (const accept of held) accept();
  }

  /**
   * personaVerificationLinks returns the confirmation link of every sender persona verification email received so
   * far (src/server/core/personas/verification.ts), oldest first.
   */
  async personaVerificationLinks(): Promise<string[]> {
    return (await this.parsed())
      .filter((m) => /^Confirm .+ as a sender$/.test(m.subject ?? ''))
      .map((m) => /(https?:\/\/\S+\/v\/[A-Za-z0-9_.-]+)/.exec(m.text ?? '')?.[1])
      .filter((link): link is string => !!link);
  }

  /** parsed returns every accepted message parsed. */
  async parsed(): Promise<Array<ParsedMail & { envelopeTo: string[] }>> {
    return Promise.all(this.messages.map(async (m) => Object.assign(await simpleParser(m.raw), { envelopeTo: m.envelopeTo })));
  }

  /** waitFor resolves once `predicate` holds, polling every 50 ms; rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`SmtpSink.waitFor timed out after ${timeoutMs} ms (${this.count} accepted, ${this.held.length} held)`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * crash makes the relay go down as a crashed server does: it stops listening (new connections are refused) and
   * drops every open connection at once, messages in flight included; start(port) brings it back on the same port.
   */
  async crash(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.server.close(() => resolve()));
    for (const c of (this.server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) c._socket.destroy();
    await closed;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
