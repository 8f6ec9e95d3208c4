/**
 * SMTP submission (RFC 6409; openapi/email.yaml describes the credentials): applications send mail the way most
 * software does — a host, port 587 with STARTTLS (SUBMISSION_PORT) or 465 with implicit TLS (SUBMISSION_TLS_PORT, RFC
 * 8314), a user name and password — and each message goes through core/sending/submission.ts like the sending API's.
 * Built on smtp-server.
 *
 * - AUTH PLAIN and LOGIN, only over TLS except from a loopback address (`538 5.7.11` before STARTTLS otherwise). A wrong
 *   user name or password is `535 5.7.8`; after SUBMISSION_AUTH_FAILURES failures in 15 minutes a client address gets
 *   `421 4.7.0` until they age. A credential revoked while a connection is open is refused at its next message
 *   (`535 5.7.8`: at MAIL FROM, or at the end of DATA when the revocation came within the last second).
 * - The recipients are the envelope's (RCPT TO): To, Cc and Bcc all get a copy; a Bcc is never written in a header. At
 *   most 50 per message (`452 4.5.3` past that). SIZE is announced (SUBMISSION_MAX_BYTES); a larger message is
 *   `552 5.3.4`.
 * - A message the core refuses is a 5xx naming why — `550 5.7.1` for a From that is not the project's (or a
 *   recipient the sandbox refuses), `554 5.6.0` for content (a missing From, a malformed address, a header that
 *   would inject another) — and nothing is queued. The credential's messages per minute over it are `451 4.7.1`.
 * - X-Mailwright-Stream, X-Mailwright-Tag (repeatable, or comma-separated) and X-Mailwright-Metadata (JSON object of
 *   strings) file the message and are not sent on. The `250` answer names the message's Message-ID (the first
 *   recipient's; each copy has its own, listed in the message activity).
 */
import { erasureKey } from '../../core/privacy/key.ts';
import { SMTPServer, type SMTPServerAddress, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import libmime from 'libmime';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { authenticate, liveCredential, type SmtpPrincipal } from '../../core/sending/smtpCredentials.ts';
import { MAX_RECIPIENTS, queueSubmission, ShortCache, SubmissionRefused, type Mailbox, type SubmissionInput } from '../../core/sending/submission.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { capHeapGrowth } from '../../heap.ts';
import { readSmtpData, smtpError } from '../smtpServer.ts';

/** A running submission server: its ports (undefined when off) and how to stop it. */
export interface SubmissionServer {
  port?: number;
  tlsPort?: number;
  close(): Promise<void>;
}

/** isLoopback: whether a client address is 127.0.0.0/8 or ::1 (also IPv4-mapped). */
function isLoopback(address: string | undefined): boolean {
  const a = (address ?? '').replace(/^::ffff:/, '');
  return a === '::1' || a.startsWith('127.');
}

/**
 * authNeedsTls: whether AUTH must be refused (`538 5.7.11`) on a session that is not encrypted (`secure` false) from
 * `remoteAddress`: a password never crosses a network in clear; only a loopback client may sign in without TLS.
 */
export function authNeedsTls(secure: boolean, remoteAddress: string | undefined): boolean {
  return !secure && !isLoopback(remoteAddress);
}

/** The header fields a submitted message keeps besides those the service writes (others are dropped). */
const KEPT_HEADERS = /^(in-reply-to|references|x-(?!mailwright-).+|list-id|auto-submitted|precedence|importance|priority|x-priority)$/i;

/**
 * messageInput reads a parsed message into what the core takes: From, the To and Cc header lists, Reply-To, subject,
 * bodies, attachments, the fields kept (KEPT_HEADERS, raw values unfolded), and the X-Mailwright-* filing; the
 * recipients are the envelope's. Throws SubmissionRefused for X-Mailwright-Metadata that is not a JSON object of strings.
 */
export function messageInput(parsed: ParsedMail, recipients: string[], defaultStream: string): SubmissionInput {
  const list = (a: AddressObject | AddressObject[] | undefined): Mailbox[] =>
    (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) => o.value).map((v) => ({ address: v.address ?? '', ...(v.name ? { name: v.name } : {}) }));
  const headers: Array<[string, string]> = [];
  // The filing headers, a repeated one as a list, their encoded words decoded (mailparser leaves X- fields as sent;
  // nodemailer encodes a value with quotes).
  const decoded = (key: string): string[] => {
    const v = parsed.headers.get(key) as unknown;
    return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => libmime.decodeWords(String(x)).trim());
  };
  const stream = decoded('x-mailwright-stream')[0]?.toLowerCase();
  const tags = decoded('x-mailwright-tag').flatMap((v) =>
    v
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  );
  let metadata: Record<string, string> = {};
  const meta = decoded('x-mailwright-metadata')[0];
  if (meta !== undefined) {
    try {
      const json = JSON.parse(meta) as unknown;
      if (!json || typeof json !== 'object' || Array.isArray(json) || Object.values(json).some((v) => typeof v !== 'string')) throw new Error();
      metadata = json as Record<string, string>;
    } catch {
      throw new SubmissionRefused(['X-Mailwright-Metadata: must be a JSON object of strings, e.g. {"order":"1234"}']);
    }
  }
  for (const { key, line } of parsed.headerLines) {
    if (!KEPT_HEADERS.test(key)) continue;
    const value = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers.push([line.slice(0, line.indexOf(':')).trim(), value]);
  }
  const [from] = list(parsed.from);
  return {
    from: from ?? { address: '' },
    to: list(parsed.to),
    cc: list(parsed.cc),
    bcc: [],
    recipients,
    replyTo: list(parsed.replyTo),
    subject: parsed.subject ?? '',
    ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    headers,
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? 'attachment',
      content: a.content.toString('base64'),
      contentType: a.contentType,
      ...(a.related && a.cid ? { cid: a.cid } : {}),
    })),
    tags,
    metadata,
    stream: stream ?? defaultStream,
  };
}

/** The reply to a refused message: 550 5.7.1 for the sender or a recipient, 554 5.6.0 for content, 535 for a revoked credential. */
function refusal(err: SubmissionRefused): Error {
  if (err.kind === 'revoked') return smtpError(535, '5.7.8 Authentication credentials revoked');
  const text = err.errors
    .join('; ')
    .replace(/[\r\n]+/g, ' ')
    .slice(0, 400);
  return err.kind === 'content' ? smtpError(554, `5.6.0 ${text}`) : smtpError(550, `5.7.1 ${text}`);
}

/**
 * startSubmissionServer listens on SUBMISSION_PORT (STARTTLS) and SUBMISSION_TLS_PORT (implicit TLS) when set (0: a
 * free port, for tests), else returns undefined. Throws when the TLS port is set without SUBMISSION_TLS_CERT and
 * _KEY, or a port cannot be bound.
 */
export async function startSubmissionServer(ctx: AppContext): Promise<SubmissionServer | undefined> {
  const settings = ctx.config.submission;
  if (settings.port === undefined && settings.tlsPort === undefined) return undefined;
  if (settings.tlsPort !== undefined && !settings.tls) throw new Error('SUBMISSION_TLS_PORT needs SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY');
  capHeapGrowth();
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const failures = new RateLimiterMemory({ points: settings.authFailures, duration: 15 * 60 });
  const perCredential = new Map<string, RateLimiterMemory>();
  const credentials = new ShortCache<SmtpPrincipal | undefined>(1000);
  const limiterFor = (p: SmtpPrincipal) => {
    let l = perCredential.get(p.credentialId);
    if (!l || l.points !== p.ratePerMinute) perCredential.set(p.credentialId, (l = new RateLimiterMemory({ points: p.ratePerMinute, duration: 60 })));
    return l;
  };
  type Session = SMTPServerSession & { user?: SmtpPrincipal };

  const make = (secure: boolean) =>
    new SMTPServer({
      name: settings.hostname,
      banner: 'Mailwright submission',
      logger: false,
      secure,
      size: settings.maxBytes,
      authMethods: ['PLAIN', 'LOGIN'],
      // Checked in onAuth: over TLS, or from loopback (smtp-server's own check would refuse loopback without TLS too).
      allowInsecureAuth: true,
      ...(settings.tls ? { key: settings.tls.key, cert: settings.tls.cert } : { hideSTARTTLS: true }),
      onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, callback: (err: Error | null | undefined, response?: { user: unknown }) => void) {
        if (authNeedsTls(session.secure, session.remoteAddress)) return callback(smtpError(538, '5.7.11 Encryption required: issue STARTTLS first'));
        const client = session.remoteAddress || 'unknown';
        void failures.get(client).then(async (seen) => {
          if (seen && seen.consumedPoints >= settings.authFailures)
            return callback(smtpError(421, '4.7.0 Too many failed sign-ins from your address; try again later'));
          const principal = await authenticate(query, auth.username ?? '', auth.password ?? '').catch((err: Error) => {
            console.error('submission: checking credentials failed:', err.message);
            return null;
          });
          if (principal === null) return callback(smtpError(454, '4.7.0 Temporary authentication failure'));
          if (!principal) {
            await failures.consume(client).catch(() => undefined);
            return callback(smtpError(535, '5.7.8 Authentication credentials invalid'));
          }
          callback(null, { user: principal });
        });
      },
      onMailFrom(_address: SMTPServerAddress, session: Session, callback: (err?: Error | null) => void) {
        const user = session.user;
        if (!user) return callback(smtpError(530, '5.7.0 Authentication required'));
        // Remembered 1 s: the message's own statement refuses a credential revoked meanwhile (queueSubmission).
        credentials
          .get(
            user.credentialId,
            () => liveCredential(query, user.credentialId),
            () => true,
          )
          .then(
            async (live) => {
              if (!live) return callback(smtpError(535, '5.7.8 Authentication credentials revoked'));
              session.user = live;
              try {
                await limiterFor(live).consume(live.credentialId);
              } catch {
                return callback(smtpError(451, `4.7.1 Over this credential's ${live.ratePerMinute} messages a minute; try again later`));
              }
              callback();
            },
            (err: Error) => {
              console.error('submission: checking a credential failed:', err.message);
              callback(smtpError(451, '4.3.0 Temporary failure; try again later'));
            },
          );
      },
      onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
        if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
          return callback(smtpError(452, `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message`));
        const problem = checkEmail(address.address);
        if (problem) return callback(smtpError(553, `5.1.3 <${address.address}>: ${problem}`));
        callback();
      },
      onData(stream, session: Session, callback) {
        const user = session.user!;
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        readSmtpData(stream, settings.maxBytes)
          .then(async (data) => {
            if (data === 'too_big') throw smtpError(552, `5.3.4 Message too big: at most ${settings.maxBytes} bytes`);
            const parsed = await simpleParser(data, { skipTextToHtml: true, skipTextLinks: true });
            return queueSubmission(
              ctx.database,
              user.project,
              messageInput(parsed, recipients, user.stream),
              { kind: 'smtp', credentialId: user.credentialId },
              erasureKey(ctx.config),
            );
          })
          .then(
            (result) => {
              ctx.notifySender();
              const more = result.recipients.length > 1 ? ` (+${result.recipients.length - 1} more)` : '';
              callback(null, `2.0.0 Ok: queued as ${result.message_id}${more}`);
            },
            (err: Error) => {
              if ('responseCode' in err) return callback(err);
              if (err instanceof SubmissionRefused) return callback(refusal(err));
              console.error('submission: queueing a message failed:', err.message);
              callback(smtpError(451, '4.3.0 Temporary failure; try again later'));
            },
          );
      },
    });

  const servers: Array<{ server: SMTPServer; port: number }> = [];
  const listen = async (server: SMTPServer, port: number) => {
    server.on('error', (err) => console.error('submission: SMTP session error:', err.message));
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, settings.host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.server.address() as AddressInfo).port;
    servers.push({ server, port: bound });
    return bound;
  };
  const port = settings.port !== undefined ? await listen(make(false), settings.port) : undefined;
  const tlsPort = settings.tlsPort !== undefined ? await listen(make(true), settings.tlsPort) : undefined;
  return {
    port,
    tlsPort,
    close: async () => {
      await Promise.all(
        servers.map(
          ({ server }) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 5000);
              server.close(() => {
                clearTimeout(timer);
                resolve();
              });
            }),
        ),
      );
    },
  };
}
