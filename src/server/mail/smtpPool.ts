/**
 * SmtpPool: the SMTP sessions (connections) of one relay in this process, spoken with nodemailer's SMTPConnection
 * (RFC 5321). What it adds over nodemailer's own pool is that it counts what the relay counts:
 * - a session counts from the moment its socket is created until the socket's `close` event — while it connects,
 *   sends, idles and while its QUIT is on its way — so `open` is what the relay sees open from this process;
 * - a message goes to an idle session of its own (the most recently used first, so that the others idle out) or, when
 *   none is idle and fewer than the allowance are open, to a new one; otherwise it waits. nodemailer's pool released a
 *   session a tick after its callback, so the next message often found none idle and opened another (one process
 *   opened its whole pool whatever its share of max_connections, and a relay capped at 5 saw 6 open at once and 287
 *   sessions for 749 messages);
 * - the allowance is read at every open (`SessionLimit`: a relay's share of max_connections over all processes,
 *   core/sending/connections.ts), and when it shrinks the idle sessions beyond it are closed at once;
 * - a message is never queued or retried out of the caller's sight, with one exception that cannot send twice: a
 *   session that had been idle and turns out closed by the relay before any byte of the message left (the relay ended
 *   an idle session) is replaced once by a new one.
 * Idle sessions close after `idleTimeoutMs`; a session closes after `maxMessages` messages.
 */
import net from 'node:net';
import { Readable } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

/** Where and how to reach the relay (from an smtp:// or smtps:// URL: smtpEndpoint). */
export interface SmtpEndpoint {
  host: string;
  port: number;
  /** Implicit TLS (smtps://); otherwise STARTTLS when the relay offers it, unless ignoreTLS. */
  secure: boolean;
  ignoreTLS: boolean;
  rejectUnauthorized: boolean;
  auth?: { user: string; pass: string };
}

/**
 * smtpEndpoint reads an SMTP_URL: smtp://[user:pass@]host[:port] (port 25) or smtps://… (port 465); query
 * `tls_reject_unauthorized=false` accepts any certificate, `ignore_tls=true` never upgrades with STARTTLS.
 */
export function smtpEndpoint(url: string): SmtpEndpoint {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: Number(u.port || (secure ? 465 : 25)),
    secure,
    ignoreTLS: u.searchParams.get('ignore_tls') === 'true',
    rejectUnauthorized: u.searchParams.get('tls_reject_unauthorized') !== 'false',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
  };
}

/** How many sessions this process may have open now (read at every open and every rebalance). */
export interface SessionLimit {
  allowed(): number;
  /** Resolves once allowed() means something (the first renewal of a share); awaited before a session is taken. */
  ready?(): Promise<void>;
}

/** The envelope of one message (RFC 5321 MAIL FROM and RCPT TO). */
export interface SmtpEnvelope {
  from: string;
  to: string[];
}

/** One session taken for one message: send it, then release (always, whatever the outcome). */
export interface SmtpLease {
  /** Resolves with the relay's reply to the message (250 after DATA); rejects with its error (responseCode, code, command). */
  send(envelope: SmtpEnvelope, raw: Buffer): Promise<{ response: string }>;
  release(): void;
}

/** Thrown by acquire when its signal aborts while it waits (the sender is stopping). */
export class AcquireAborted extends Error {
  constructor() {
    super('stopped while waiting for an SMTP session');
  }
}

interface Session {
  id: number;
  conn: SMTPConnection;
  messages: number;
  state: 'connecting' | 'idle' | 'busy' | 'closing';
  idleTimer?: ReturnType<typeof setTimeout>;
}

/** One acquire waiting: given an idle session (handed over busy), or nothing when there may be room for a new one. */
interface Waiter {
  give(session?: Session): void;
}

/** The socket timeouts (ms): connecting with the greeting, and any one reply. */
const CONNECTION_TIMEOUT_MS = 15_000;
const SOCKET_TIMEOUT_MS = 60_000;

/** How long (ms) an RSET after a refused message may take before the session is given up. */
const RESET_TIMEOUT_MS = 10_000;

/**
 * untilEnd runs one SMTPConnection operation and settles with its callback, or rejects (ECONNECTION) when the
 * connection ends first or `timeoutMs` passes: nodemailer drops the callbacks still queued when it closes a
 * connection (a relay that hangs up after refusing a recipient, or a close of the pool), which would leave the
 * caller waiting for ever.
 */
function untilEnd<T>(s: Session, start: (done: (err: Error | null, value?: T) => void) => void, timeoutMs?: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, value?: T) => {
      if (settled) return;
      settled = true;
      s.conn.removeListener('end', ended);
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value as T);
    };
    const ended = () => finish(Object.assign(new Error('Connection closed before the relay answered'), { code: 'ECONNECTION', command: 'CONN' }));
    const timer = timeoutMs
      ? setTimeout(() => finish(Object.assign(new Error('No answer from the relay in time'), { code: 'ETIMEDOUT' })), timeoutMs)
      : undefined;
    s.conn.once('end', ended);
    if ((s.conn as unknown as { destroyed: boolean }).destroyed) return ended();
    start(finish);
  });
}

/** True for an error that says the connection itself failed (no SMTP reply to blame): nodemailer's transient codes. */
function isConnectionError(err: { code?: string; responseCode?: number }): boolean {
  return err.responseCode === undefined && (err.code === 'ECONNECTION' || err.code === 'ESOCKET' || err.code === 'ETIMEDOUT');
}

export class SmtpPool {
  /** Sessions whose socket has not closed yet, whatever their state. */
  private readonly sessions = new Set<Session>();
  /** Idle sessions, the most recently used last. */
  private readonly idle: Session[] = [];
  private readonly waiters: Waiter[] = [];
  private nextId = 0;
  private closed = false;
  /** Sessions opened since the pool was made. */
  opened = 0;
  /** The allowance over all processes (undefined: `size`). */
  limit?: SessionLimit;

  /**
   * `size`: sessions this process opens at most; `idleTimeoutMs`: how long an idle session stays open;
   * `maxMessages`: messages per session before it is closed and replaced.
   */
  constructor(
    private readonly endpoint: SmtpEndpoint,
    readonly size: number,
    private readonly opts: { idleTimeoutMs: number; maxMessages: number },
  ) {}

  /** Sessions open now: from socket creation to its close (connecting, busy, idle or quitting). */
  get open(): number {
    return this.sessions.size;
  }

  /** Sessions sending a message now. */
  get busy(): number {
    let n = 0;
    for (const s of this.sessions) if (s.state === 'busy' || s.state === 'connecting') n++;
    return n;
  }

  private allowed(): number {
    return Math.min(this.size, this.limit ? this.limit.allowed() : this.size);
  }

  /**
   * acquire takes a session for one message: an idle one (most recently used first), else a new one when fewer than
   * the allowance are open, else it waits for either. Rejects with the connection's error when a new session cannot
   * be opened (err.command 'CONN': the relay refused or dropped the connection, or did not greet in time), and with
   * AcquireAborted when `signal` aborts first.
   */
  async acquire(signal?: AbortSignal): Promise<SmtpLease> {
    return this.lease(await this.take(signal));
  }

  /** take is acquire's wait: resolves a busy session (see acquire). */
  private async take(signal?: AbortSignal): Promise<Session> {
    await this.limit?.ready?.();
    let wokenForRoom = false;
    for (;;) {
      if (this.closed) throw Object.assign(new Error('the SMTP pool is closed'), { code: 'ECONNECTION', command: 'CONN' });
      if (signal?.aborted) throw new AcquireAborted();
      const idle = this.takeIdle();
      if (idle) return idle;
      // Waiters first: room for a new session goes to the oldest waiter, not to whoever asks next.
      if ((wokenForRoom || !this.waiters.length) && this.sessions.size < this.allowed()) return this.connect();
      const given = await new Promise<Session | undefined>((resolve) => {
        const waiter: Waiter = {
          give: (session) => {
            signal?.removeEventListener('abort', abort);
            resolve(session);
          },
        };
        const abort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve(undefined);
        };
        this.waiters.push(waiter);
        signal?.addEventListener('abort', abort, { once: true });
      });
      if (given) return given;
      wokenForRoom = true;
    }
  }

  /**
   * rebalance applies a changed allowance: idle sessions beyond it are closed (QUIT), and waiters are woken when
   * there is room for new sessions. Called by whoever keeps the allowance, after each renewal.
   */
  rebalance(): void {
    let excess = this.sessions.size - this.allowed();
    // Close the least recently used idle sessions first.
    while (excess > 0 && this.idle.length) {
      this.quit(this.idle.shift()!);
      excess--;
    }
    this.wakeForRoom();
  }

  /** close quits idle sessions, closes the others once their message ends, and resolves when every socket closed (or after 2 s). */
  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.idle.splice(0)) this.quit(s);
    for (const w of this.waiters.splice(0)) w.give();
    const end = Date.now() + 2000;
    while (this.sessions.size && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    for (const s of this.sessions) s.conn.close();
  }

  private takeIdle(): Session | undefined {
    for (;;) {
      const s = this.idle.pop();
      if (!s) return undefined;
      clearTimeout(s.idleTimer);
      // The relay may have closed it meanwhile (its idle timeout): its socket's close removes it soon; skip it.
      if ((s.conn as unknown as { destroyed: boolean }).destroyed) continue;
      s.state = 'busy';
      return s;
    }
  }

  /** wakeForRoom wakes as many waiters as there are sessions that may be opened now. */
  private wakeForRoom(): void {
    for (let room = this.allowed() - this.sessions.size; room > 0 && this.waiters.length; room--) this.waiters.shift()!.give();
  }

  /** connect opens a new session (counted from now until its socket closes) and resolves it busy, ready for MAIL FROM. */
  private connect(): Promise<Session> {
    const socket = new net.Socket();
    const conn = new SMTPConnection({
      socket,
      host: this.endpoint.host,
      port: this.endpoint.port,
      secure: this.endpoint.secure,
      ignoreTLS: this.endpoint.ignoreTLS,
      tls: { rejectUnauthorized: this.endpoint.rejectUnauthorized },
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: CONNECTION_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
      logger: false,
    });
    const session: Session = { id: ++this.nextId, conn, messages: 0, state: 'connecting' };
    this.sessions.add(session);
    this.opened++;
    let settled = false;
    const gone = () => {
      if (!this.sessions.delete(session)) return;
      clearTimeout(session.idleTimer);
      const i = this.idle.indexOf(session);
      if (i >= 0) this.idle.splice(i, 1);
      this.wakeForRoom();
    };
    socket.once('close', gone);
    return new Promise<Session>((resolve, reject) => {
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        conn.close();
        // A socket destroyed before it connected should still emit close; never count it for longer than a second after.
        setTimeout(() => socket.destroyed && gone(), 1000).unref();
        reject(err);
      };
      // Errors outside a command (the relay dropping an idle session) are the socket's close; never unhandled.
      conn.on('error', (err: Error) => fail(err));
      conn.once('end', () => {
        if (!settled) fail(Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION', command: 'CONN' }));
      });
      conn.connect((err?: Error) => {
        if (err) return fail(err);
        const ready = () => {
          if (settled) return;
          settled = true;
          session.state = 'busy';
          resolve(session);
        };
        const auth = this.endpoint.auth;
        if (!auth || !conn.allowsAuth) return ready();
        conn.login({ user: auth.user, pass: auth.pass }, (loginErr) => (loginErr ? fail(Object.assign(loginErr, { command: 'CONN' })) : ready()));
      });
    });
  }

  /** lease wraps a busy session for one message. */
  private lease(first: Session): SmtpLease {
    let session: Session | undefined = first;
    // A lease released unused (its send slot was dropped, or the sender stopped) keeps a good session.
    let reusable = true;
    return {
      send: async (envelope, raw) => {
        for (let replaced = false; ; replaced = true) {
          const s = session!;
          const reused = s.messages > 0;
          const body = Readable.from([raw], { objectMode: false });
          try {
            const info = await untilEnd<{ response: string }>(s, (done) =>
              s.conn.send({ from: envelope.from, to: envelope.to, size: raw.length }, body, (err, result) =>
                done(err ?? null, { response: String(result?.response ?? '') }),
              ),
            );
            s.messages++;
            return info;
          } catch (err) {
            const e = err as Error & { code?: string; responseCode?: number };
            s.messages++;
            // A refusal of this message (RCPT or DATA answered 4xx/5xx other than 421): the session stays usable
            // after RSET. Anything else ends the session.
            if ((e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && e.responseCode !== 421 && !(s.conn as unknown as { destroyed: boolean }).destroyed) {
              reusable = await untilEnd<boolean>(s, (done) => s.conn.reset((resetErr) => done(null, !resetErr)), RESET_TIMEOUT_MS).catch(() => false);
              throw err;
            }
            reusable = false;
            // The relay had ended this idle session before any byte of the message left (its connection closed, not
            // a time-out: a relay that hangs is not tried again behind the sender's back): nothing was sent, so a new
            // session takes it (once).
            if (reused && !replaced && !body.readableDidRead && isConnectionError(e) && e.code !== 'ETIMEDOUT') {
              this.discard(s);
              session = undefined;
              session = await this.take();
              reusable = true;
              continue;
            }
            throw err;
          }
        }
      },
      release: () => {
        if (!session) return;
        const s = session;
        session = undefined;
        if (reusable && !this.closed) this.makeIdle(s);
        else this.discard(s);
      },
    };
  }

  /** makeIdle returns a session: to the oldest waiter at once, else to the idle stack with its idle timer. */
  private makeIdle(s: Session): void {
    if (s.messages >= this.opts.maxMessages || this.sessions.size > this.allowed() || (s.conn as unknown as { destroyed: boolean }).destroyed) {
      this.quit(s);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter.give(s);
      return;
    }
    s.state = 'idle';
    this.idle.push(s);
    s.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(s);
      if (i >= 0) {
        this.idle.splice(i, 1);
        this.quit(s);
      }
    }, this.opts.idleTimeoutMs);
    s.idleTimer.unref?.();
  }

  /** quit ends a session politely (QUIT); it counts until its socket closes. */
  private quit(s: Session): void {
    clearTimeout(s.idleTimer);
    s.state = 'closing';
    if ((s.conn as unknown as { destroyed: boolean }).destroyed) return;
    try {
      s.conn.quit();
    } catch {
      s.conn.close();
    }
  }

  /** discard drops a session that failed: its socket is closed now. */
  private discard(s: Session): void {
    clearTimeout(s.idleTimer);
    s.state = 'closing';
    s.conn.close();
    this.wakeForRoom();
  }
}
