/**
 * The bounce mailbox, for installs that cannot receive SMTP: the bounce subdomains' MX points at the operator's own
 * mail server (INBOUND_MX_HOST), which delivers everything for them into one IMAP mailbox (BOUNCE_MAILBOX_URL). This
 * reader, built on imapflow, takes each unread message there, applies it exactly as the inbound SMTP receiver does
 * (core/feedback/inbound.ts applyReturnedEmail: the same parser, classification and rules), then flags it \Seen and
 * moves it to BOUNCE_MAILBOX_DONE_FOLDER, so that it is never read twice. A message whose applying fails (the
 * database) stays unread and is tried again by the next run, not by the same one (a message the database keeps
 * refusing costs one try and one error line a run, and never holds back the others). A run takes no new message after
 * MAX_RUN_MS: a large backlog is read over several runs, each well inside the job's expiry (pg-boss: 15 minutes), so
 * two readers never overlap.
 *
 * It runs as the pg-boss job 'bounce-mailbox' (core/jobs/registry.ts), on BOUNCE_MAILBOX_CRON (default every minute; one run
 * at a time across all worker processes): each run reads what is waiting, then waits on IDLE for new messages for
 * BOUNCE_MAILBOX_IDLE_S seconds (imapflow polls with NOOP where the server has no IDLE), so mail is read within
 * seconds, and the schedule is the fallback when a connection drops. The envelope recipient the receiver would have
 * seen is read from the copy's Delivered-To, X-Original-To and To headers (the return path a bounce was sent to).
 * Each message is counted in mailwright_inbound_messages_total{source="mailbox"}.
 */
import { ImapFlow } from 'imapflow';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { BounceMailboxSettings } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { applyReturnedEmail, type InboundSettings } from './inbound.ts';
import { inboundMetrics, type InboundResult } from '../../metrics.ts';

/** What one run did: messages read and applied (the rest changed nothing, or failed and stay unread). */
export interface MailboxRun {
  read: number;
  applied: number;
  failed: number;
}

/** isLoopback: a host name or address of this machine. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || /^127\./.test(host) || host === '::1' || host === '[::1]';
}

/** The largest message read (bytes): INBOUND_MAX_BYTES's default; returned mail is a few kB. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How long one run takes new messages (ms), its IDLE wait included. */
export const MAX_RUN_MS = 10 * 60_000;

/** The headers that name the address a copy was delivered to, most precise first. */
const RECIPIENT_HEADERS = ['delivered-to', 'x-original-to', 'to'];

/**
 * recipientsOf reads the addresses of the Delivered-To, X-Original-To and To headers (in that order, unfolded) from a
 * header block; at most 20.
 */
export function recipientsOf(headers: string): string[] {
  const unfolded = headers.replace(/\r?\n[ \t]+/g, ' ');
  const found: string[] = [];
  for (const name of RECIPIENT_HEADERS) {
    for (const line of unfolded.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== name) continue;
      for (const a of addressparser(line.slice(colon + 1))) if ('address' in a && a.address) found.push(a.address.toLowerCase());
    }
  }
  return [...new Set(found)].slice(0, 20);
}

/**
 * readBounceMailbox connects to the mailbox, applies every unread message, then waits on IDLE for `idleSeconds`
 * (settings.idleSeconds unless given; 0: no wait) applying new ones as they arrive, and logs out; after `maxRunMs`
 * (MAX_RUN_MS unless given) it takes no new message. Throws when the mailbox cannot be reached or the login is
 * refused; a message that cannot be applied stays unread (counted as failed).
 */
export async function readBounceMailbox(
  db: Pick<Database, 'transaction'>,
  settings: BounceMailboxSettings,
  apply: InboundSettings,
  idleSeconds = settings.idleSeconds,
  maxRunMs = MAX_RUN_MS,
): Promise<MailboxRun> {
  const deadline = Date.now() + maxRunMs;
  const client = new ImapFlow({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: { user: settings.user, pass: settings.password },
    logger: false,
    // imap:// upgrades with STARTTLS, required except on this machine (a password never crosses the network in clear).
    ...(settings.secure || isLoopback(settings.host) ? {} : { doSTARTTLS: true }),
    // Let go of the connection quickly when the server stops answering.
    socketTimeout: 120_000,
  });
  client.on('error', (err: Error) => console.error('bounce mailbox:', err.message));
  const run: MailboxRun = { read: 0, applied: 0, failed: 0 };
  const count = (result: InboundResult) => inboundMetrics.messages.inc({ source: 'mailbox', result });
  await client.connect();
  try {
    if (settings.doneFolder !== settings.folder) {
      const folders = await client.list();
      if (!folders.some((f) => f.path === settings.doneFolder)) await client.mailboxCreate(settings.doneFolder);
    }
    const lock = await client.getMailboxLock(settings.folder);
    try {
      let arrived = false;
      let wake: (() => void) | undefined;
      client.on('exists', () => {
        arrived = true;
        wake?.();
      });
      // Messages whose applying failed in this run: left for the next one.
      const failed = new Set<number>();
      const readUnseen = async () => {
        arrived = false;
        const uids = (await client.search({ seen: false }, { uid: true })) || [];
        for (const uid of uids) {
          if (Date.now() >= deadline) return;
          if (failed.has(uid)) continue;
          // A message bigger than any report is never downloaded: it is set aside, as the SMTP receiver refuses it.
          const meta = await client.fetchOne(String(uid), { size: true }, { uid: true });
          if (meta && (meta.size ?? 0) > MAX_MESSAGE_BYTES) {
            count('too_big');
            console.warn(`bounce mailbox: message ${uid} is ${meta.size} bytes (over ${MAX_MESSAGE_BYTES}); moved unread`);
            if (settings.doneFolder !== settings.folder) await client.messageMove(String(uid), settings.doneFolder, { uid: true });
            else await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
            continue;
          }
          const message = await client.fetchOne(String(uid), { source: true, headers: RECIPIENT_HEADERS }, { uid: true });
          if (!message || !message.source) continue;
          run.read++;
          try {
            const outcome = await applyReturnedEmail(db, message.source, recipientsOf(message.headers?.toString('latin1') ?? ''), 'mailbox', apply);
            count(outcome.outcome === 'applied' ? ((outcome.class ?? 'undetermined') as InboundResult) : (outcome.reason ?? 'unreadable'));
            if (outcome.outcome === 'applied') run.applied++;
            else console.warn(`bounce mailbox: ignored message ${uid} (${outcome.kind}): ${outcome.reason}`);
          } catch (err) {
            // The database failed: the message stays unread, for the next run.
            failed.add(uid);
            run.failed++;
            count('error');
            console.error(`bounce mailbox: applying message ${uid} failed:`, (err as Error).message);
            continue;
          }
          await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
          if (settings.doneFolder !== settings.folder) await client.messageMove(String(uid), settings.doneFolder, { uid: true });
        }
      };
      await readUnseen();
      const end = Math.min(deadline, Date.now() + idleSeconds * 1000);
      while (Date.now() < end) {
        const idling = client.idle();
        if (!arrived) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.max(0, end - Date.now()));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        wake = undefined;
        // Any command ends the IDLE.
        await readUnseen();
        await idling.catch(() => undefined);
      }
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
  return run;
}
