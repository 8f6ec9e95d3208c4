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
import type { QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import { complaintClass } from '../../../domain/bounces.ts';
import { bounceSubType, type Feedback } from '../../../domain/feedback.ts';
import { parseReturnPath, verifyReturnPath } from '../../mail/returnPath.ts';
import type { ReputationLimits } from '../sending/reputation.ts';
import { parseFeedbackReport, type FeedbackReport, type ReportRecipient } from './report.ts';
import { recordFeedback, suppress, unsubscribe } from './index.ts';
import * as sql from './queries.ts';
import { EVENT } from '../../../domain/events.ts';
import { providerVerdict, type ProviderEvent } from '../../../domain/providerFeedback.ts';

/** What applying a returned email needs from the settings. */
export interface InboundSettings {
  reputation?: ReputationLimits;
  /** SOFT_BOUNCE_LIMIT. */
  softBounceLimit: number;
  /** BLOCK_ALERT_RATE (blocks.ts). */
  blockAlertRate: number;
}

/**
 * inboundSettings: the settings of applying feedback, from the config. Without `checkReputation` the circuit-breaker
 * is not looked at per report (the SMTP receiver looks once a second instead: ReputationWatch).
 */
export function inboundSettings(config: Pick<Config, 'reputation' | 'softBounceLimit' | 'blockAlertRate'>, checkReputation = true): InboundSettings {
  return {
    ...(checkReputation ? { reputation: config.reputation } : {}),
    softBounceLimit: config.softBounceLimit,
    blockAlertRate: config.blockAlertRate,
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
interface SentEmail {
  id: string;
  project_id: string;
  email: string;
  message_id: string;
  contact_id: string | null;
  link_secret: string;
}

/**
 * applyReturnedEmail reads one returned email (raw bytes) sent to `envelopeTo` (the SMTP envelope's recipients, or
 * the mailbox copy's Delivered-To/To) and applies it (see the module's comment). `source` is stored on the events
 * ('smtp', 'mailbox'). Never throws on malformed mail; throws only when the database fails.
 */
export async function applyReturnedEmail(
  query: QueryFn,
  raw: Buffer,
  envelopeTo: string[],
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome> {
  let forged = false;
  let email: SentEmail | undefined;
  for (const address of envelopeTo) {
    const claimed = parseReturnPath(address);
    if (!claimed) continue;
    const [row] = await query<SentEmail>(SENT_EMAIL_BY_ID, [claimed.outboxId]);
    if (row && verifyReturnPath(claimed.outboxId, claimed.signature, row.link_secret)) {
      email = row;
      break;
    }
    forged = true;
  }
  const report = await parseFeedbackReport(raw, envelopeTo);
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

  const recipient = pickRecipient(report, email, !forged && envelopeTo.some((a) => parseReturnPath(a)?.outboxId === Number(email.id)));
  if (!recipient)
    return {
      outcome: 'ignored',
      reason: report.kind === 'unknown' ? 'unreadable' : 'unknown_recipient',
      kind: report.kind,
      projectId: email.project_id,
      suppressed: 0,
    };
  return applyToEmail(query, email, recipient, { kind: report.kind, feedbackType: report.feedbackType, reportingMta: report.reportingMta }, source, settings);
}

/**
 * applyProviderEvents applies a provider's webhook events (domain/providerFeedback.ts) to project `projectId`: each is
 * tied to the project's email with the Message-ID the provider passed back (and the event's recipient), else — for
 * providers that pass back only their own ids (Postmark, Resend) — to the project's latest email to that address in
 * the last 30 days; an event about an address the project never mailed changes nothing. Then applied as a returned
 * email's entry is (applyToEmail). `source` is the provider's name. Returns one outcome per event, in order.
 */
export async function applyProviderEvents(
  query: QueryFn,
  projectId: string,
  events: ProviderEvent[],
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome[]> {
  const outcomes: InboundOutcome[] = [];
  for (const event of events) {
    if (event.type === 'other') {
      outcomes.push({ outcome: 'ignored', reason: 'not_feedback', kind: 'webhook', projectId, suppressed: 0 });
      continue;
    }
    const [email] = event.messageId
      ? await query<SentEmail>(SENT_EMAIL_IN_PROJECT, [projectId, `<${event.messageId}>`, event.email])
      : await query<SentEmail>(LATEST_EMAIL_TO, [projectId, event.email]);
    if (!email) {
      outcomes.push({ outcome: 'ignored', reason: 'no_email', kind: 'webhook', projectId, suppressed: 0 });
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
    outcomes.push(await applyToEmail(query, email, recipient, { kind: 'webhook', feedbackType: event.feedbackType, reportingMta: source }, source, settings));
  }
  return outcomes;
}

/** What is known of the report an entry came from. */
interface ReportOrigin {
  kind: InboundOutcome['kind'];
  feedbackType?: string;
  reportingMta?: string;
}

/**
 * applyToEmail applies one recipient's entry of a report to the email it is about (see the module's comment): the
 * one place where a returned email, a mailbox copy and a provider's webhook event change anything.
 */
async function applyToEmail(
  query: QueryFn,
  email: SentEmail,
  recipient: ReportRecipient,
  about: ReportOrigin,
  source: string,
  settings: InboundSettings,
): Promise<InboundOutcome> {
  const verdict = recipient.verdict;
  if (verdict.class === 'auto_reply' || verdict.class === 'delivered') {
    return { outcome: 'ignored', reason: verdict.class, kind: about.kind, class: verdict.class, projectId: email.project_id, suppressed: 0 };
  }
  // A delay warning (Action: delayed) is not a bounce: the receiver's MTA is still trying.
  if (recipient.action === 'delayed') return { outcome: 'ignored', reason: 'delayed', kind: about.kind, projectId: email.project_id, suppressed: 0 };
  // The same report twice (an MTA that retried, a report sent to the return path and to the feedback loop address):
  // one email is complained about once, and bounced once — or twice when a hard bounce follows a soft one (an MTA's
  // warning read as a soft bounce, then its final verdict), which must still suppress.
  const name = verdict.class === 'complaint' ? EVENT.complaint : EVENT.bounce;
  const earlier = (await query<{ class: string | null }>(EARLIER_REPORTS, [email.project_id, name, email.message_id])).map((r) => r.class);
  if (earlier.length && (verdict.class !== 'hard' || earlier.includes('hard'))) {
    return { outcome: 'ignored', reason: 'duplicate', kind: about.kind, projectId: email.project_id, suppressed: 0 };
  }

  const base = { email: email.email, messageId: email.message_id };
  if (verdict.class === 'complaint') {
    const suppresses = complaintClass(about.feedbackType).suppresses;
    const { suppressed, paused } = await recordFeedback(
      query,
      email.project_id,
      [{ ...base, kind: 'complaint', feedbackType: about.feedbackType ?? 'abuse', suppress: suppresses }],
      source,
      settings.reputation,
    );
    if (suppresses) {
      const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [email.project_id, email.contact_id, email.email]);
      await unsubscribe(
        query,
        email.project_id,
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
    return { outcome: 'applied', kind: about.kind, class: 'complaint', projectId: email.project_id, suppressed, ...(paused ? { paused } : {}) };
  }

  const feedback: Feedback & { suppress: boolean } = {
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
  };
  const result = await recordFeedback(query, email.project_id, [feedback], source, settings.reputation, settings.blockAlertRate);
  let suppressed = result.suppressed;
  if (verdict.class === 'soft' || verdict.class === 'undetermined') {
    const [{ n }] = await query<{ n: number }>(SOFT_BOUNCES_IN_A_ROW, [email.project_id, email.email]);
    if (n >= settings.softBounceLimit) {
      suppressed += await suppress(query, email.project_id, [
        {
          email: email.email,
          reason: 'bounce',
          detail: `${n} soft bounces in a row (SOFT_BOUNCE_LIMIT ${settings.softBounceLimit}); last: ${recipient.diagnostic ?? verdict.reason}`.slice(0, 1000),
        },
      ]);
    }
  }
  return {
    outcome: 'applied',
    kind: about.kind,
    class: verdict.class,
    projectId: email.project_id,
    suppressed,
    ...(result.paused ? { paused: result.paused } : {}),
  };
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

/** EARLIER_REPORTS: project $1's events named $2 (bounces or complaints) for Message-ID $3, with their class. */
const EARLIER_REPORTS = `SELECT json->'bounce'->>'class' AS class FROM events WHERE project_id = $1 AND name = $2 AND json->>'message_id' = $3 LIMIT 10`;

/** SENT_EMAIL_BY_ID: an outbox row and its project's link secret (which signs its return path). $1 outbox id. */
const SENT_EMAIL_BY_ID = `SELECT o.id::text AS id, o.project_id, o.email, o.message_id, o.contact_id, p.link_secret
  FROM outbox o JOIN projects p ON p.id = o.project_id WHERE o.id = $1`;

/**
 * SENT_EMAIL_BY_MESSAGE_ID: the outbox rows with Message-ID $1 (as stored: in angle brackets; ours: one) of a project
 * one of whose bounce subdomains is among $2 (the domains the returned email was sent to).
 */
const SENT_EMAIL_BY_MESSAGE_ID = `SELECT o.id::text AS id, o.project_id, o.email, o.message_id, o.contact_id, p.link_secret
  FROM outbox o JOIN projects p ON p.id = o.project_id
 WHERE o.message_id = $1
   AND EXISTS (SELECT 1 FROM sending_domains d WHERE d.project_id = o.project_id AND coalesce(d.bounce_domain, 'bounces.' || d.domain) = ANY($2::text[]))
 LIMIT 2`;

/** SENT_EMAIL_IN_PROJECT: project $1's email with Message-ID $2 (stored form, in angle brackets) to address $3. */
const SENT_EMAIL_IN_PROJECT = `SELECT o.id::text AS id, o.project_id, o.email, o.message_id, o.contact_id, p.link_secret
  FROM outbox o JOIN projects p ON p.id = o.project_id WHERE o.project_id = $1 AND o.message_id = $2 AND lower(o.email) = lower($3) LIMIT 1`;

/** LATEST_EMAIL_TO: project $1's latest email sent to address $2 in the last 30 days. */
const LATEST_EMAIL_TO = `SELECT o.id::text AS id, o.project_id, o.email, o.message_id, o.contact_id, p.link_secret
  FROM outbox o JOIN projects p ON p.id = o.project_id
 WHERE o.project_id = $1 AND lower(o.email) = lower($2) AND o.status = 'sent' AND o.sent_at > now() - interval '30 days'
 ORDER BY o.sent_at DESC LIMIT 1`;

/**
 * SOFT_BOUNCES_IN_A_ROW: how many of address $2's emails in project $1 bounced soft (or undetermined) in the last 30
 * days since its last open or click by a person (event_is_human): distinct Message-IDs of its soft bounce events
 * after its latest human engagement (events_address_feedback_idx). A mailbox full now and then over a year, read
 * without tracked opens (Apple Mail Privacy Protection), is never suppressed for it.
 */
const SOFT_BOUNCES_IN_A_ROW = `WITH soft AS (
    SELECT e.json->>'message_id' AS message_id, e.emitted_at FROM events e
     WHERE e.project_id = $1 AND e.name = 'ses_event_bounce' AND lower(e.email) = lower($2) AND e.emitted_at > now() - interval '30 days'
       AND e.json->'bounce'->>'class' IN ('soft', 'undetermined')),
  engaged AS (
    SELECT max(x.emitted_at) AS at FROM events x
     WHERE x.project_id = $1 AND x.name IN ('ses_event_open', 'ses_event_click') AND x.emitted_at >= (SELECT min(emitted_at) FROM soft)
       AND lower(x.email) = lower($2) AND event_is_human(x.json))
  SELECT count(DISTINCT s.message_id)::int AS n FROM soft s WHERE s.emitted_at > coalesce((SELECT at FROM engaged), '-infinity')`;
