/**
 * Returned emails applied: what came back to an email's return path — through the inbound SMTP
 * receiver or the bounce mailbox — is read (report.ts), tied to the one email it is about, and applied through the
 * one home of feedback (recordFeedback, suppress, unsubscribe in ./index.ts): the bounce and complaint events with the
 * receiver's words, the suppression list, the circuit-breaker, the reports and the webhooks.
 *
 * The email is found by the per-message return path first (mail/returnPath.ts: the envelope recipient names its
 * outbox row, and its signature is checked under that row's project's secret), else by the Message-ID in the returned
 * headers. A report only ever acts on that email's own recipient, in that email's own project: a report about an
 * address we never mailed, a forged token or an unknown Message-ID changes nothing (its outcome says why).
 *
 * What each class does (domain/bounces.ts):
 * - hard: a Permanent bounce; the address is suppressed at once;
 * - soft and undetermined: a Transient bounce; the address is suppressed once SOFT_BOUNCE_LIMIT of its emails in a row
 *   bounced soft, with no open or click by a person since the first of them (SOFT_BOUNCES_IN_A_ROW);
 * - sender: a Transient bounce with class 'sender': never suppresses the recipient (the receiver refused the sender);
 * - complaint: a complaint; the address is suppressed and unsubscribed from all marketing, except for the reports
 *   that do not express the recipient's will (auth-failure, not-spam: complaintClass);
 * - auto_reply and delivered: recorded as the outcome only, never a bounce.
 */
import type { Database, QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import { complaintClass } from '../../../domain/bounces.ts';
import { bounceSubType, type Feedback } from '../../../domain/feedback.ts';
import { parseReturnPath, verifyReturnPath } from '../../mail/returnPath.ts';
import type { ReputationLimits } from '../sending/reputation.ts';
import type { BlockWatch } from './blocks.ts';
import { parseFeedbackReport, type FeedbackReport, type ReportRecipient } from './report.ts';
import { recordFeedback, suppressAddresses, unsubscribe } from './index.ts';
import { SENT_ROW_COLUMNS, type SentRow } from './queries.ts';
import * as sql from './queries.ts';
import { EVENT } from '../../../domain/events.ts';
import { providerVerdict, type ProviderEvent } from '../../../domain/providerFeedback.ts';

/** What applying a returned email needs from the settings. */
export interface InboundSettings {
  reputation?: ReputationLimits;
  /** SOFT_BOUNCE_LIMIT. */
  softBounceLimit: number;
  /** The process's watch of sender-side blocks (blocks.ts; AppContext.blocks); without it no block alert is raised. */
  blocks?: BlockWatch;
}

/**
 * inboundSettings: the settings of applying feedback, from the config and the process's BlockWatch. Without
 * `checkReputation` the circuit-breaker is not looked at per report (the SMTP receiver looks once a second instead:
 * ReputationWatch).
 */
export function inboundSettings(
  config: Pick<Config, 'reputation' | 'softBounceLimit'>,
  blocks: BlockWatch | undefined,
  checkReputation = true,
): InboundSettings {
  return {
    ...(checkReputation ? { reputation: config.reputation } : {}),
    softBounceLimit: config.softBounceLimit,
    ...(blocks ? { blocks } : {}),
  };
}

/** The outcome of one returned email, for the log and the inbound metrics. */
export interface InboundOutcome {
  /** applied: feedback was recorded; ignored: nothing changed (reason says why). */
  outcome: 'applied' | 'ignored';
  reason?: 'no_email' | 'forged_token' | 'unknown_recipient' | 'auto_reply' | 'delivered' | 'delayed' | 'duplicate' | 'unreadable' | 'not_feedback';
  /** The kind of report (a returned email's) or 'webhook' (a provider's event). */
  kind: FeedbackReport['kind'] | 'webhook';
  /** The class applied (hard, soft, sender, undetermined, complaint). */
  class?: string;
  projectId?: string;
  suppressed: number;
  /** Set when the circuit-breaker paused the project's marketing sending now. */
  paused?: string;
}

/** The email a returned message is about. */
interface SentEmail extends SentRow {
  id: string;
  project_id: string;
  email: string;
  message_id: string;
  link_secret: string;
  /** The bounces and complaints already recorded for the email, as `event name:class` (SENT_EMAIL_COLUMNS). */
  earlier: string[];
}

/**
 * applyReturnedEmail reads one returned email (raw bytes) sent to `envelopeTo` (the SMTP envelope's recipients, or
 * the mailbox copy's Delivered-To/To) and applies it (see the module's comment) in one transaction of `db`. `source`
 * is stored on the events ('smtp', 'mailbox'). Never throws on malformed mail; throws only when the database fails.
 */
export async function applyReturnedEmail(
  db: Pick<Database, 'transaction'>,
  raw: Buffer,
  envelopeTo: string[],
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome> {
  const report = await parseFeedbackReport(raw, envelopeTo);
  const [outcome] = await applyReturnedEmails(db, [{ report, envelopeTo }], source, settings);
  return outcome;
}

/**
 * Feedback runs the same few statements for every report: prepared once per connection on PostgreSQL
 * (bench:feedback: PostgreSQL CPU 17.4 → 13.9 s for 10,000 DSNs).
 */
export const PREPARED = { prepared: true } as const;

/** A returned email already read (parseFeedbackReport) with the addresses it was sent to. */
export interface ReturnedEmail {
  report: FeedbackReport;
  envelopeTo: string[];
}

/**
 * applyReturnedEmails applies returned emails already read, in one transaction of `db`, with one statement per kind
 * of write for all of them (the SMTP receiver groups the messages that arrive together: one commit, and the events'
 * triggers run once; bench:feedback). Returns one outcome per email, in order; throws when the database fails
 * (nothing is applied then).
 */
export async function applyReturnedEmails(
  db: Pick<Database, 'transaction'>,
  emails: ReturnedEmail[],
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome[]> {
  return db.transaction(async (query) => {
    const claimed = emails.flatMap((e) => e.envelopeTo.map(parseReturnPath).filter((c) => !!c));
    const rows = claimed.length ? await query<SentEmail>(SENT_EMAILS_BY_IDS, [[...new Set(claimed.map((c) => c.outboxId))]]) : [];
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const entries: Array<Entry | InboundOutcome> = [];
    for (const e of emails) entries.push(await locate(query, e, byId));
    return applyEntries(query, entries, source, settings);
  }, PREPARED);
}

/** One recipient's entry of a report, tied to the email it is about. */
interface Entry {
  email: SentEmail;
  recipient: ReportRecipient;
  about: ReportOrigin;
}

/** What is known of the report an entry came from. */
interface ReportOrigin {
  kind: InboundOutcome['kind'];
  feedbackType?: string;
  reportingMta?: string;
}

/**
 * locate ties a returned email to the email it is about and to that email's recipient's entry (see the module's
 * comment), or says why it cannot: `byId` holds the outbox rows its return paths claim.
 */
async function locate(query: QueryFn, e: ReturnedEmail, byId: Map<number, SentEmail>): Promise<Entry | InboundOutcome> {
  const { report, envelopeTo } = e;
  let forged = false;
  let email: SentEmail | undefined;
  for (const address of envelopeTo) {
    const claimed = parseReturnPath(address);
    if (!claimed) continue;
    const row = byId.get(claimed.outboxId);
    if (row && verifyReturnPath(claimed.outboxId, claimed.signature, row.link_secret)) {
      email = row;
      break;
    }
    forged = true;
  }
  // Without a genuine return path (a feedback loop's fixed address, a relay that rewrote the envelope sender), the
  // returned Message-ID names the email — only an email of a project that owns the bounce domain it was sent to. A
  // forged return path gets no second chance.
  if (!email && !forged && report.original.messageId) {
    const domains = [...new Set(envelopeTo.map((a) => a.split('@').pop()!.toLowerCase()))];
    const rows = await query<SentEmail>(SENT_EMAIL_BY_MESSAGE_ID, [`<${report.original.messageId.replace(/^<|>$/g, '')}>`, domains]);
    if (rows.length === 1) email = rows[0];
  }
  if (!email)
    return { outcome: 'ignored', reason: forged ? 'forged_token' : report.kind === 'unknown' ? 'unreadable' : 'no_email', kind: report.kind, suppressed: 0 };
  const found = email;
  const recipient = pickRecipient(report, found, !forged && envelopeTo.some((a) => parseReturnPath(a)?.outboxId === Number(found.id)));
  if (!recipient)
    return {
      outcome: 'ignored',
      reason: report.kind === 'unknown' ? 'unreadable' : 'unknown_recipient',
      kind: report.kind,
      projectId: found.project_id,
      suppressed: 0,
    };
  return { email: found, recipient, about: { kind: report.kind, feedbackType: report.feedbackType, reportingMta: report.reportingMta } };
}

/**
 * applyProviderEvents applies a provider's webhook events (domain/providerFeedback.ts) to project `projectId`: each is
 * tied to the project's email with the Message-ID the provider passed back (and the event's recipient), else — for
 * providers that pass back only their own ids (Postmark, Resend) — to the project's latest email to that address in
 * the last 30 days; an event about an address the project never mailed changes nothing. Then applied as a returned
 * email's entry is (applyEntries). `source` is the provider's name. Returns one outcome per event, in order.
 */
export async function applyProviderEvents(
  query: QueryFn,
  projectId: string,
  events: ProviderEvent[],
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome[]> {
  const entries: Array<Entry | InboundOutcome> = [];
  for (const event of events) {
    if (event.type === 'other') {
      entries.push({ outcome: 'ignored', reason: 'not_feedback', kind: 'webhook', projectId, suppressed: 0 });
      continue;
    }
    const [email] = event.messageId
      ? await query<SentEmail>(SENT_EMAIL_IN_PROJECT, [projectId, `<${event.messageId}>`, event.email])
      : await query<SentEmail>(LATEST_EMAIL_TO, [projectId, event.email]);
    if (!email) {
      entries.push({ outcome: 'ignored', reason: 'no_email', kind: 'webhook', projectId, suppressed: 0 });
      continue;
    }
    const recipient: ReportRecipient = {
      email: email.email,
      status: event.status,
      replyCode: event.replyCode,
      diagnostic: event.diagnostic,
      remoteMta: event.remoteMta,
      verdict: providerVerdict(event),
    };
    entries.push({ email, recipient, about: { kind: 'webhook', feedbackType: event.feedbackType, reportingMta: source } });
  }
  return applyEntries(query, entries, source, settings);
}

/** An entry that changes something: the feedback to record, and what follows from its class. */
interface Plan {
  index: number;
  entry: Entry;
  feedback: Feedback & { suppress: boolean; sent: SentEmail };
  /** A complaint that expresses the recipient's will: it also unsubscribes. */
  unsubscribes: boolean;
  /** A soft (or undetermined) bounce: it counts towards SOFT_BOUNCE_LIMIT. */
  soft: boolean;
}

/**
 * decide says what one entry changes (see the module's comment): nothing (auto-replies, deliveries, delay warnings,
 * a report already recorded for the email — `seen` holds this group's, as `Message-ID event-name` → classes), or a
 * Plan.
 */
function decide(entry: Entry, index: number, seen: Map<string, string[]>): Plan | InboundOutcome {
  const { email, recipient, about } = entry;
  const verdict = recipient.verdict;
  const ignored = (reason: InboundOutcome['reason'], cls?: string): InboundOutcome => ({
    outcome: 'ignored',
    reason,
    kind: about.kind,
    ...(cls ? { class: cls } : {}),
    projectId: email.project_id,
    suppressed: 0,
  });
  if (verdict.class === 'auto_reply' || verdict.class === 'delivered') return ignored(verdict.class, verdict.class);
  // A delay warning (Action: delayed) is not a bounce: the receiver's MTA is still trying.
  if (recipient.action === 'delayed') return ignored('delayed');
  // The same report twice (an MTA that retried, a report sent to the return path and to the feedback loop address):
  // one email is complained about once, and bounced once — or twice when a hard bounce follows a soft one (an MTA's
  // warning read as a soft bounce, then its final verdict), which must still suppress.
  const name = verdict.class === 'complaint' ? EVENT.complaint : EVENT.bounce;
  const key = `${email.message_id} ${name}`;
  const earlier = [...email.earlier.filter((e) => e.startsWith(`${name}:`)).map((e) => e.slice(name.length + 1)), ...(seen.get(key) ?? [])];
  if (earlier.length && (verdict.class !== 'hard' || earlier.includes('hard'))) return ignored('duplicate');
  seen.set(key, [...(seen.get(key) ?? []), verdict.class]);

  const base = { email: email.email, messageId: email.message_id, sent: email };
  if (verdict.class === 'complaint') {
    const suppresses = complaintClass(about.feedbackType).suppresses;
    return {
      index,
      entry,
      feedback: { ...base, kind: 'complaint', feedbackType: about.feedbackType ?? 'abuse', suppress: suppresses },
      unsubscribes: suppresses,
      soft: false,
    };
  }
  return {
    index,
    entry,
    feedback: {
      ...base,
      kind: 'bounce',
      bounceType: verdict.class === 'hard' ? 'Permanent' : 'Transient',
      bounceSubType: bounceSubType(verdict),
      diagnosticCode: recipient.diagnostic ? `smtp; ${recipient.diagnostic}`.slice(0, 2000) : undefined,
      suppress: verdict.class === 'hard',
      classification: {
        class: verdict.class,
        reason: verdict.reason,
        status: recipient.status ?? verdict.status,
        reportingMta: about.reportingMta,
        remoteMta: recipient.remoteMta,
      },
    },
    unsubscribes: false,
    soft: verdict.class === 'soft' || verdict.class === 'undetermined',
  };
}

/**
 * applyEntries applies entries (and passes outcomes already decided through), per project with one recordFeedback
 * for all its entries (the one home of feedback: events, suppression list, block alert, circuit-breaker), then the
 * soft-bounce limit over the soft ones' addresses, then the complaints' unsubscribes. Returns one outcome per item.
 */
async function applyEntries(query: QueryFn, items: Array<Entry | InboundOutcome>, source: string, settings: InboundSettings): Promise<InboundOutcome[]> {
  const outcomes: InboundOutcome[] = [];
  const plans: Plan[] = [];
  const seen = new Map<string, string[]>();
  items.forEach((item, i) => {
    const decided = 'outcome' in item ? item : decide(item, i, seen);
    if ('outcome' in decided) outcomes[i] = decided;
    else plans.push(decided);
  });
  const projects = new Map<string, Plan[]>();
  for (const p of plans) projects.set(p.entry.email.project_id, [...(projects.get(p.entry.email.project_id) ?? []), p]);
  for (const [projectId, group] of projects) {
    const result = await recordFeedback(
      query,
      projectId,
      group.map((p) => p.feedback),
      source,
      settings.reputation,
      settings.blocks,
    );
    const newly = new Set(result.suppressedEmails);
    // An address's soft bounces in a row (SOFT_BOUNCE_LIMIT): suppressed once it reaches the limit.
    const soft = group.filter((p) => p.soft);
    if (soft.length) {
      const counts = await query<{ email: string; n: number }>(SOFT_BOUNCES_IN_A_ROW, [
        projectId,
        [...new Set(soft.map((p) => p.entry.email.email.toLowerCase()))],
      ]);
      const over = counts.filter((c) => c.n >= settings.softBounceLimit);
      const last = (address: string) => soft.filter((p) => p.entry.email.email.toLowerCase() === address).pop()!.entry.recipient;
      for (const address of await suppressAddresses(
        query,
        projectId,
        over.map((c) => ({
          email: c.email,
          reason: 'bounce' as const,
          detail:
            `${c.n} soft bounces in a row (SOFT_BOUNCE_LIMIT ${settings.softBounceLimit}); last: ${last(c.email).diagnostic ?? last(c.email).verdict.reason}`.slice(
              0,
              1000,
            ),
        })),
      ))
        newly.add(address);
    }
    for (const p of group.filter((g) => g.unsubscribes)) {
      const email = p.entry.email;
      const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [projectId, email.contact_id, email.email]);
      await unsubscribe(
        query,
        projectId,
        [
          {
            contactIds: contacts.map((c) => c.id),
            email: email.email,
            eventContactId: email.contact_id ?? contacts[0]?.id ?? null,
            json: { message_id: email.message_id },
          },
        ],
        'complaint',
      );
    }
    for (const p of group) {
      // Each newly suppressed address is counted once, on the first of its entries.
      const address = p.entry.email.email.toLowerCase();
      const suppressed = newly.delete(address) ? 1 : 0;
      outcomes[p.index] = {
        outcome: 'applied',
        kind: p.entry.about.kind,
        class: p.entry.recipient.verdict.class,
        projectId,
        suppressed,
        ...(result.paused ? { paused: result.paused } : {}),
      };
    }
  }
  return outcomes;
}

/**
 * pickRecipient: the report's entry for the email's own recipient. An ARF report is about the email whatever
 * address it shows (providers redact it); a report that reached the email's own signed return path with a single
 * recipient is about it too (a forwarded address fails under its new name). Anything else names a recipient we
 * never mailed from this email: none.
 */
function pickRecipient(report: FeedbackReport, email: SentEmail, byReturnPath: boolean): ReportRecipient | undefined {
  const own = report.recipients.find((r) => r.email.toLowerCase() === email.email.toLowerCase());
  if (own) return own;
  if (report.kind === 'arf' || (report.kind === 'ses' && report.recipients[0]?.verdict.class === 'complaint')) {
    return { email: email.email, verdict: { class: 'complaint', reason: 'feedback' } };
  }
  if (byReturnPath && report.recipients.length === 1) return report.recipients[0];
  return undefined;
}

/**
 * SENT_EMAIL_COLUMNS: a SentEmail's columns over outbox `o`, projects `p` and sender_personas `sp`: the row, its
 * project's link secret, the live contact with its address when the row names none, and the bounces and complaints
 * already recorded for its Message-ID as `name:class` (at most 10; events_feedback_message_idx).
 */
const SENT_EMAIL_COLUMNS = `o.id::text AS id, o.project_id, o.email, o.message_id, ${SENT_ROW_COLUMNS}, p.link_secret,
       CASE WHEN o.contact_id IS NULL THEN (SELECT c.id FROM contacts c WHERE c.project_id = o.project_id AND lower(c.email) = lower(o.email)
                                             AND c.archived_at IS NULL LIMIT 1) END AS live_contact_id,
       ARRAY(SELECT e.name || ':' || coalesce(e.json->'bounce'->>'class', '') FROM events e
              WHERE e.json->>'message_id' = o.message_id AND e.name IN ('${EVENT.bounce}', '${EVENT.complaint}') AND e.project_id = o.project_id
              LIMIT 10) AS earlier`;

/** SENT_EMAIL_FROM: the tables SENT_EMAIL_COLUMNS reads: an outbox row, its project and its sender persona. */
const SENT_EMAIL_FROM = `FROM outbox o JOIN projects p ON p.id = o.project_id LEFT JOIN sender_personas sp ON sp.id = o.sender_persona_id`;

/** SENT_EMAILS_BY_IDS: outbox rows by id, with their projects' link secrets (which sign their return paths). $1 outbox ids. */
const SENT_EMAILS_BY_IDS = `SELECT ${SENT_EMAIL_COLUMNS}
  ${SENT_EMAIL_FROM} WHERE o.id = ANY($1::bigint[])`;

/**
 * SENT_EMAIL_BY_MESSAGE_ID: the outbox rows with Message-ID $1 (as stored: in angle brackets; ours: one) of a project
 * one of whose bounce subdomains is among $2 (the domains the returned email was sent to).
 */
const SENT_EMAIL_BY_MESSAGE_ID = `SELECT ${SENT_EMAIL_COLUMNS}
  ${SENT_EMAIL_FROM}
 WHERE o.message_id = $1
   AND EXISTS (SELECT 1 FROM sending_domains d WHERE d.project_id = o.project_id AND coalesce(d.bounce_domain, 'bounces.' || d.domain) = ANY($2::text[]))
 LIMIT 2`;

/** SENT_EMAIL_IN_PROJECT: project $1's email with Message-ID $2 (stored form, in angle brackets) to address $3. */
const SENT_EMAIL_IN_PROJECT = `SELECT ${SENT_EMAIL_COLUMNS}
  ${SENT_EMAIL_FROM} WHERE o.project_id = $1 AND o.message_id = $2 AND lower(o.email) = lower($3) LIMIT 1`;

/** LATEST_EMAIL_TO: project $1's latest email sent to address $2 in the last 30 days. */
const LATEST_EMAIL_TO = `SELECT ${SENT_EMAIL_COLUMNS}
  ${SENT_EMAIL_FROM}
 WHERE o.project_id = $1 AND lower(o.email) = lower($2) AND o.status = 'sent' AND o.sent_at > now() - interval '30 days'
 ORDER BY o.sent_at DESC LIMIT 1`;

/**
 * SOFT_BOUNCES_IN_A_ROW: per address of $2 (lower case), how many of its emails in project $1 bounced soft (or
 * undetermined) in the last 30 days since its last open or click by a person (event_is_human): distinct Message-IDs
 * of its soft bounce events after its latest human engagement (events_address_feedback_idx). A mailbox full now and
 * then over a year, read without tracked opens (Apple Mail Privacy Protection), is never suppressed for it.
 */
const SOFT_BOUNCES_IN_A_ROW = `WITH soft AS (
    SELECT lower(e.email) AS email, e.json->>'message_id' AS message_id, e.emitted_at FROM events e
     WHERE e.project_id = $1 AND e.name = '${EVENT.bounce}' AND lower(e.email) = ANY($2::text[]) AND e.emitted_at > now() - interval '30 days'
       AND e.json->'bounce'->>'class' IN ('soft', 'undetermined')),
  engaged AS (
    SELECT lower(x.email) AS email, max(x.emitted_at) AS at FROM events x
     WHERE x.project_id = $1 AND x.name IN ('${EVENT.open}', '${EVENT.click}') AND lower(x.email) = ANY($2::text[])
       AND x.emitted_at > now() - interval '30 days' AND event_is_human(x.json)
     GROUP BY 1)
  SELECT s.email, count(DISTINCT s.message_id)::int AS n FROM soft s LEFT JOIN engaged g ON g.email = s.email
   WHERE s.emitted_at > coalesce(g.at, '-infinity') GROUP BY s.email`;
