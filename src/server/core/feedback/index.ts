/**
 * Delivery feedback core (spec part 1 §3 Events; RFC 8058): what happens after a send, recorded as events and applied
 * to the audience. The only functions that unsubscribe (unsubscribe) and suppress (suppress) an address:
 * - opens and clicks (ses_event_open / ses_event_click) from the signed pixel and redirects (recordEngagement);
 * - unsubscribes (user_unsubscribed) from the /u/ page, the RFC 8058 one-click POST (unsubscribeByLink) and workflow
 *   unsubscriber nodes: contacts.unsubscribed_at, or for a recipient who is not a contact an 'unsubscribed'
 *   suppression-list entry (marketing mail only); and from one subscription topic (the preference
 *   centre, leaveTopicByLink and savePreferencesByLink; contacts.unsubscribed_topic_ids);
 * - bounces and complaints (ses_event_bounce / ses_event_complaint) from SES through SNS, the JSON feedback endpoint,
 *   SMTP 5xx answers at send time and the mailbox simulator (recordFeedback). Hard bounces and complaints put the
 *   address on the suppression list and mark the contact (bounced_at / complained_at); later sends skip it (who a
 *   blast leaves out: core/audience).
 * Every function takes a QueryFn (one statement per call, or a transaction's) and the project id it is scoped to.
 */
import type { QueryFn } from '../../db/client.ts';
import { eventJson, suppresses, type Feedback } from '../../../domain/feedback.ts';
import { deviceOf } from '../../../domain/devices.ts';
import { EVENT } from '../../../domain/events.ts';
import type { LinkTarget } from '../../mail/links.ts';
import { insertSystemEventsSql, MARK_BOT_CLICKS, recordEvents } from '../events/index.ts';
import { classifyClick, classifyOpen, isOpenProxyAgent, linkBurst, type IpRanges } from '../../../domain/engagement.ts';
import { checkReputation, type ReputationLimits } from '../sending/reputation.ts';
import * as sql from './queries.ts';
import type { BlockWatch } from './blocks.ts';

interface SentRow {
  id: string;
  email: string;
  contact_id: string | null;
  blast_id: string | null;
  template_id: string | null;
  message_id: string;
  workflow_id: string | null;
  workflow_hops: number | null;
  /** ms since the relay accepted it (null when it was never sent). */
  ms_since_sent: number | null;
}

async function sentRow(query: QueryFn, target: LinkTarget): Promise<SentRow | undefined> {
  const [row] = await query<SentRow>(sql.SENT_ROW, [String(target.outboxId), target.projectId]);
  return row;
}

/** The recipient's domain, lower-case ('' when the address has none). */
function toDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** The workflow fields of an email's events (none for a blast's email). */
function workflowJson(row: SentRow): Record<string, unknown> {
  return row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {};
}

/** What the tracking endpoint knows of one open or click request: the client's user agent and address. */
export interface EngagementRequest {
  userAgent: string;
  ip?: string;
  /** The followed link; absent for an open and for the honeypot. */
  link?: string;
  /** The hidden honeypot link (src/server/mail/links.ts honeypotUrl). */
  honeypot?: boolean;
  /** Apple's egress ranges (APPLE_PROXY_RANGES_FILE), when the operator supplied them. */
  appleRanges?: IpRanges;
}

/**
 * recordEngagement records one open or click of a sent email: an ses_event_open / ses_event_click event with the
 * recipient, blast, template, workflow, user agent, device, recipient domain, and the verdict of
 * src/domain/engagement.ts — json {machine, machine_reason} for an open, {bot, bot_reason} for a click (the honeypot
 * has json.honeypot and no link). After recording a click it reads the email's clicks again: two different links
 * within a second mark every such click bot ('all_links_at_once'), earlier ones too (checked after the insert, so two
 * clicks arriving together both see each other). Returns false when the token names no email of the project.
 */
export async function recordEngagement(query: QueryFn, target: LinkTarget, kind: 'open' | 'click', req: EngagementRequest): Promise<boolean> {
  const row = await sentRow(query, target);
  if (!row) return false;
  const msSinceDelivery = row.ms_since_sent === null ? null : Number(row.ms_since_sent);
  const json: Record<string, unknown> = {
    user_agent: req.userAgent,
    device: deviceOf(req.userAgent),
    to_domain: toDomain(row.email),
    blast_id: row.blast_id,
    template_id: row.template_id,
    message_id: row.message_id,
    ...workflowJson(row),
  };
  if (kind === 'open') {
    Object.assign(
      json,
      classifyOpen({
        userAgent: req.userAgent,
        ip: req.ip,
        msSinceDelivery,
        // The email's earlier opens are read only for an image proxy's fetch, the one rule that needs them.
        proxyOpenedBefore:
          isOpenProxyAgent(req.userAgent) &&
          !!row.message_id &&
          (await query<Engagement>(sql.EMAIL_ENGAGEMENT, [target.projectId, row.message_id])).some(
            (e) => e.name === EVENT.open && isOpenProxyAgent(e.user_agent),
          ),
        appleRanges: req.appleRanges,
      }),
    );
  } else {
    if (req.honeypot) json.honeypot = true;
    else {
      json.link = req.link;
      json.click = { link: req.link };
    }
    Object.assign(json, classifyClick({ userAgent: req.userAgent, msSinceDelivery, honeypot: !!req.honeypot }));
  }
  const [recorded] = await query<{ id: string }>(
    `${insertSystemEventsSql(
      { project_id: '$1::uuid', name: '$2::text', email: '$3::text', user_id: '$4::uuid', blast_id: '$5::uuid', template_id: '$6::uuid', json: '$7::jsonb' },
      '(SELECT 1) AS one',
    )} RETURNING id`,
    [target.projectId, kind === 'open' ? EVENT.open : EVENT.click, row.email, row.contact_id, row.blast_id, row.template_id, JSON.stringify(json)],
  );
  if (kind === 'click' && !req.honeypot && row.message_id) {
    const clicks = (await query<Engagement>(sql.EMAIL_ENGAGEMENT, [target.projectId, row.message_id]))
      .filter((e) => e.name === EVENT.click)
      .map((e) => ({ id: e.id, link: e.link, at: Number(e.at), human: e.human }));
    const self = clicks.find((c) => c.id === recorded.id);
    const burst = self ? linkBurst(self, clicks) : [];
    if (burst.length) await query(MARK_BOT_CLICKS, [target.projectId, burst, 'all_links_at_once']);
  }
  return true;
}

/** One of an email's recorded opens and clicks (EMAIL_ENGAGEMENT). */
interface Engagement {
  id: string;
  name: string;
  at: number;
  link: string | null;
  user_agent: string;
  human: boolean;
}

/**
 * The recipient an unsubscribe token names, for the confirmation page: whether they are unsubscribed already (the
 * contact's unsubscribed_at, or for a recipient who is not a contact an 'unsubscribed' suppression-list entry).
 */
export async function unsubscribeRecipient(query: QueryFn, target: LinkTarget): Promise<{ email: string; unsubscribed: boolean; company: string } | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const [state] = await query<{ unsubscribed: boolean; company: string }>(sql.UNSUBSCRIBE_STATE, [target.projectId, row.contact_id, row.email]);
  return { email: row.email, unsubscribed: !!state?.unsubscribed, company: state?.company ?? '' };
}

/** One recipient to unsubscribe: its contacts (empty for an address that is no contact), address, and its event's fields. */
export interface UnsubscribeRequest {
  /** The live contacts the recipient is; empty for a recipient that is not a contact. */
  contactIds: string[];
  /** The address: suppressed as 'unsubscribed' when there is no contact; the event's email. */
  email: string;
  /** The event's email when it differs from `email` (default `email`). */
  eventEmail?: string | null;
  /** The event's user_id. */
  eventContactId: string | null;
  blastId?: string | null;
  templateId?: string | null;
  /** Extra fields of the user_unsubscribed event's json (after `via`). */
  json: Record<string, unknown>;
}

/**
 * unsubscribe is the one definition of unsubscribing (marketing mail stops; spec part 1 §3 user_unsubscribed): sets
 * unsubscribed_at once on each request's contacts, or for a request without contacts adds an 'unsubscribed'
 * suppression-list entry for its address (which still applies if the address becomes a contact later), and records
 * one user_unsubscribed event, json {via, ...json}, per request that this call changed. Asking again changes nothing.
 * Returns, per request, whether this call did the unsubscribing.
 */
export async function unsubscribe(
  query: QueryFn,
  projectId: string,
  requests: UnsubscribeRequest[],
  via: 'page' | 'one-click' | 'workflow' | 'complaint',
): Promise<boolean[]> {
  const ids = [...new Set(requests.flatMap((r) => r.contactIds))];
  const updated = new Set(ids.length ? (await query<{ id: string }>(sql.UNSUBSCRIBE_CONTACTS, [projectId, ids])).map((r) => r.id) : []);
  const loose = requests.filter((r) => !r.contactIds.length).map((r) => r.email);
  const suppressed = new Set(
    loose.length
      ? (await query<{ email: string }>(sql.SUPPRESS_ADDRESSES, [projectId, loose, loose.map(() => 'unsubscribed'), loose.map(() => via)])).map((r) => r.email)
      : [],
  );
  const changed = requests.map((r) => (r.contactIds.length ? r.contactIds.some((id) => updated.has(id)) : suppressed.has(r.email.toLowerCase())));
  await recordEvents(
    query,
    projectId,
    requests
      .filter((_, i) => changed[i])
      .map((r) => ({
        name: EVENT.unsubscribed,
        email: r.eventEmail ?? r.email,
        contactId: r.eventContactId,
        blastId: r.blastId ?? null,
        templateId: r.templateId ?? null,
        json: { via, ...r.json },
      })),
  );
  return changed;
}

/**
 * unsubscribeByLink unsubscribes the recipient of one email from its signed /u/ link or RFC 8058 one-click POST
 * (unsubscribe). Returns undefined when the outbox row does not exist, else whether this call did the unsubscribing.
 */
export async function unsubscribeByLink(
  query: QueryFn,
  target: LinkTarget,
  via: 'page' | 'one-click',
): Promise<{ email: string; changed: boolean } | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [target.projectId, row.contact_id, row.email]);
  const [changed] = await unsubscribe(
    query,
    target.projectId,
    [
      {
        contactIds: contacts.map((c) => c.id),
        email: row.email,
        eventContactId: row.contact_id ?? contacts[0]?.id ?? null,
        blastId: row.blast_id,
        templateId: row.template_id,
        json: { blast_id: row.blast_id, template_id: row.template_id, message_id: row.message_id, ...workflowJson(row) },
      },
    ],
    via,
  );
  return { email: row.email, changed };
}

/** One topic in a recipient's preference centre. */
export interface TopicPreference {
  id: string;
  name: string;
  description: string;
  subscribed: boolean;
}

/** What the preference centre shows for one email's recipient. */
export interface Preferences {
  email: string;
  company: string;
  /** Unsubscribed from all marketing mail. */
  unsubscribed: boolean;
  /** Whether the recipient is a contact (only a contact can choose topics). */
  isContact: boolean;
  /** The email's topic, if it has one. */
  topic: { id: string; name: string } | null;
  topics: TopicPreference[];
}

/** emailTopic is the topic of the email a link names (EMAIL_TOPIC), or null. */
export async function emailTopic(query: QueryFn, target: LinkTarget): Promise<{ id: string; name: string } | null> {
  const [t] = await query<{ id: string; name: string }>(sql.EMAIL_TOPIC, [target.projectId, String(target.outboxId)]);
  return t ?? null;
}

/** preferences reads the preference centre of the recipient an unsubscribe link names; undefined when the email does not exist. */
export async function preferences(query: QueryFn, target: LinkTarget): Promise<Preferences | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [target.projectId, row.contact_id, row.email]);
  const contactId = row.contact_id ?? contacts[0]?.id ?? null;
  const [state] = await query<{ unsubscribed: boolean; company: string }>(sql.UNSUBSCRIBE_STATE, [target.projectId, contactId, row.email]);
  const topics = await query<{ id: string; name: string; description: string; left_topic: boolean }>(sql.PREFERENCES, [target.projectId, contactId]);
  return {
    email: row.email,
    company: state?.company ?? '',
    unsubscribed: !!state?.unsubscribed,
    isContact: !!contactId,
    topic: await emailTopic(query, target),
    topics: topics.map((t) => ({ id: t.id, name: t.name, description: t.description, subscribed: !t.left_topic })),
  };
}

/**
 * leaveTopicByLink: the recipient of one email leaves the email's topic (the preference centre's first button, and the
 * RFC 8058 one-click POST of an email with a topic): the topic is added once to the contacts' unsubscribed_topic_ids
 * and one user_unsubscribed event is recorded, json {via, topic_id, topic, blast_id, template_id, message_id}, which
 * the reports count per topic. A recipient who is no contact, or an email without a topic, is unsubscribed from
 * everything instead (unsubscribeByLink). Returns undefined when the email does not exist, else whether this changed.
 */
export async function leaveTopicByLink(
  query: QueryFn,
  target: LinkTarget,
  via: 'page' | 'one-click',
): Promise<{ email: string; changed: boolean; topic: { id: string; name: string } | null } | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const topic = await emailTopic(query, target);
  const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [target.projectId, row.contact_id, row.email]);
  if (!topic || !contacts.length) {
    const all = await unsubscribeByLink(query, target, via);
    return all && { ...all, topic: null };
  }
  const changed = (await query<{ id: string }>(sql.LEAVE_TOPIC, [target.projectId, contacts.map((c) => c.id), topic.id])).length > 0;
  if (changed) {
    await recordEvents(query, target.projectId, [
      {
        name: EVENT.unsubscribed,
        email: row.email,
        contactId: row.contact_id ?? contacts[0].id,
        blastId: row.blast_id,
        templateId: row.template_id,
        json: {
          via,
          topic_id: topic.id,
          topic: topic.name,
          blast_id: row.blast_id,
          template_id: row.template_id,
          message_id: row.message_id,
          ...workflowJson(row),
        },
      },
    ]);
  }
  return { email: row.email, changed, topic };
}

/**
 * savePreferencesByLink: the preference centre's "Save" — the recipient's contacts are subscribed to exactly the
 * topics `subscribedTopicIds`. For a recipient unsubscribed from everything, saving with at least one topic ticked
 * (`resubscribe`, the page's hidden field) subscribes them to marketing mail again — unsubscribed_at cleared and an
 * 'unsubscribed' suppression-list entry of the address removed — and saving with none changes nothing. Leaving a
 * topic this way records one user_unsubscribed event per topic left, as leaveTopicByLink does, but only for a
 * recipient who was getting that topic. Returns undefined when the email does not exist.
 */
export async function savePreferencesByLink(
  query: QueryFn,
  target: LinkTarget,
  subscribedTopicIds: string[],
  resubscribe: boolean,
): Promise<boolean | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const contacts = await query<{ id: string }>(sql.RECIPIENT_CONTACTS, [target.projectId, row.contact_id, row.email]);
  const contactId = row.contact_id ?? contacts[0]?.id ?? null;
  const [state] = await query<{ unsubscribed: boolean }>(sql.UNSUBSCRIBE_STATE, [target.projectId, contactId, row.email]);
  const unsubscribed = !!state?.unsubscribed;
  if (!contactId) {
    if (resubscribe && unsubscribed) await query(sql.RESUBSCRIBE_ADDRESS, [target.projectId, row.email]);
    return true;
  }
  const before = await query<{ id: string; name: string; left_topic: boolean }>(sql.PREFERENCES, [target.projectId, contactId]);
  const keep = subscribedTopicIds.filter((id) => before.some((t) => t.id === id));
  if (unsubscribed && (!resubscribe || !keep.length)) return true; // nothing ticked: they stay unsubscribed
  const again = unsubscribed && resubscribe;
  await query(sql.SET_TOPICS, [target.projectId, contacts.map((c) => c.id), keep, again]);
  if (again) await query(sql.RESUBSCRIBE_ADDRESS, [target.projectId, row.email]);
  const left = unsubscribed ? [] : before.filter((t) => !t.left_topic && !keep.includes(t.id));
  await recordEvents(
    query,
    target.projectId,
    left.map((t) => ({
      name: EVENT.unsubscribed,
      email: row.email,
      contactId,
      blastId: row.blast_id,
      templateId: row.template_id,
      json: {
        via: 'page',
        topic_id: t.id,
        topic: t.name,
        blast_id: row.blast_id,
        template_id: row.template_id,
        message_id: row.message_id,
        ...workflowJson(row),
      },
    })),
  );
  return true;
}

/** Why an address is on the suppression list (besides 'unsubscribed', which unsubscribe writes). */
export type SuppressionReason = 'bounce' | 'complaint' | 'manual';

/**
 * suppress is the one definition of suppressing addresses (spec part 2 contacts: bounced and complained addresses get
 * no mail): each address goes on the project's suppression list with its reason and detail (an address already
 * listed keeps its entry), and for bounces and complaints the project's contacts with the address get bounced_at /
 * complained_at (kept when set). Returns how many entries were added.
 */
export async function suppress(
  query: QueryFn,
  projectId: string,
  entries: Array<{ email: string; reason: SuppressionReason; detail: string | null }>,
): Promise<number> {
  return (await suppressAddresses(query, projectId, entries)).length;
}

/** suppressAddresses is suppress returning the addresses added (lower case) instead of their number. */
export async function suppressAddresses(
  query: QueryFn,
  projectId: string,
  entries: Array<{ email: string; reason: SuppressionReason; detail: string | null }>,
): Promise<string[]> {
  if (!entries.length) return [];
  const added = await query<{ email: string }>(sql.SUPPRESS_ADDRESSES, [
    projectId,
    entries.map((e) => e.email.trim()),
    entries.map((e) => e.reason),
    entries.map((e) => e.detail),
  ]);
  const of = (reason: SuppressionReason) => [...new Set(entries.filter((e) => e.reason === reason).map((e) => e.email.trim().toLowerCase()))];
  if (of('bounce').length) await query(sql.MARK_CONTACTS_BOUNCED, [projectId, of('bounce')]);
  if (of('complaint').length) await query(sql.MARK_CONTACTS_COMPLAINED, [projectId, of('complaint')]);
  return added.map((r) => r.email);
}

/** withoutNul: a JSON value with every NUL character removed from its strings (PostgreSQL's text refuses them). */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('\u0000', '') as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNul(v)])) as T;
  return value;
}

/**
 * recordFeedback applies bounces and complaints to one project: one ses_event_bounce / ses_event_complaint event
 * each (tied to the email by its Message-ID when known, else to the contact by address; with the email's sending
 * domain and relay when known), and for hard bounces and complaints suppress(); with `blocks`, a sender-side
 * bounce may raise the block alert of its domain (blocks.ts BlockWatch); with `reputation`, then the circuit-breaker's check (core/sending/reputation.ts), and
 * `paused` says why when it paused the project. `source` says where it came from (sns, json, smtp, simulator) and is stored in the event's
 * json. Returns how many were recorded, how many addresses were newly suppressed and which (lower case).
 */
export async function recordFeedback(
  query: QueryFn,
  projectId: string,
  items: Array<Feedback & { suppress?: boolean; sent?: sql.SentRow }>,
  source: string,
  reputation?: ReputationLimits,
  blocks?: BlockWatch,
): Promise<{ recorded: number; suppressed: number; suppressedEmails: string[]; paused?: string }> {
  const blockedDomains = new Set<string>();
  const events: Parameters<typeof recordEvents>[2] = [];
  const suppressions: Parameters<typeof suppress>[2] = [];
  for (const f of items) {
    const email = f.email.trim();
    // The email's row, read here unless the caller read it already (returned mail: core/feedback/inbound.ts).
    const [row] = f.sent ? [f.sent] : f.messageId ? await query<sql.SentRow>(sql.SENT_ROW_BY_MESSAGE_ID, [projectId, f.messageId, email]) : [];
    const relay = f.relay ?? row?.relay ?? null;
    if (f.classification?.class === 'sender' && row?.sending_domain) blockedDomains.add(row.sending_domain);
    const known = row?.contact_id ?? row?.live_contact_id;
    const [contact] = known !== undefined ? (known ? [{ id: known }] : []) : await query<{ id: string }>(sql.LIVE_CONTACT_BY_EMAIL, [projectId, email]);
    events.push({
      name: f.kind === 'complaint' ? EVENT.complaint : EVENT.bounce,
      email,
      contactId: contact?.id ?? null,
      blastId: row?.blast_id ?? null,
      templateId: row?.template_id ?? null,
      // Receivers' words come from outside: a NUL (which PostgreSQL refuses in text) is dropped.
      json: withoutNul({
        ...eventJson(f),
        source,
        blast_id: row?.blast_id ?? null,
        ...(row?.sending_domain ? { sending_domain: row.sending_domain } : {}),
        ...(relay ? { relay } : {}),
      }),
      emittedAt: f.timestamp ?? null,
    });
    if (f.suppress ?? suppresses(f)) {
      const detail = f.diagnosticCode ?? f.feedbackType ?? null;
      suppressions.push({ email, reason: f.kind === 'complaint' ? 'complaint' : 'bounce', detail: detail && withoutNul(detail) });
    }
  }
  // One statement each for all the items: the events' triggers (reports, webhooks, workflows) run once.
  await recordEvents(query, projectId, events);
  const suppressedEmails = await suppressAddresses(query, projectId, suppressions);
  // Receivers refusing the sender (blocklists, policy): a spike raises a notification (core/feedback/blocks.ts).
  if (blocks) for (const domain of blockedDomains) await blocks.blocked(query, projectId, domain);
  // Bounces and complaints move the project's rates: the circuit-breaker may pause its marketing sending now.
  const paused = reputation && items.length ? await checkReputation(query, projectId, reputation) : undefined;
  return { recorded: items.length, suppressed: suppressedEmails.length, suppressedEmails, ...(paused ? { paused } : {}) };
}

/** One entry of a project's suppression list, as the API lists it. */
export interface SuppressionEntry {
  email: string;
  reason: 'bounce' | 'complaint' | 'manual' | 'unsubscribed';
  detail: string | null;
  created_at: string;
}

/**
 * listSuppressions returns one page of the project's suppression list, newest first, and the total matching.
 * `emailLike` is an already-escaped ILIKE pattern (core/listing.ts likePattern) or undefined for all.
 */
export async function listSuppressions(
  query: QueryFn,
  projectId: string,
  page: { limit: number; offset: number; emailLike?: string },
): Promise<{ data: SuppressionEntry[]; total: number }> {
  const text = sql.listSuppressionsSql(!!page.emailLike, page.limit, page.offset);
  const args = page.emailLike ? [projectId, page.emailLike] : [projectId];
  const [rows, [{ total }]] = await Promise.all([query<SuppressionEntry>(text.page, args), query<{ total: number }>(text.count, args)]);
  return { data: rows, total };
}

/**
 * addManualSuppressions puts `emails` (already checked) on the project's suppression list with reason 'manual'
 * (suppress); an address already listed keeps its entry. Returns how many entries were added.
 */
export async function addManualSuppressions(query: QueryFn, projectId: string, emails: string[]): Promise<number> {
  const list = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  return suppress(
    query,
    projectId,
    list.map((email) => ({ email, reason: 'manual' as const, detail: 'added by hand' })),
  );
}

/**
 * removeSuppressions takes `emails` off the project's suppression list and clears the matching contacts'
 * bounced_at / complained_at, in one transaction's QueryFn. Returns how many entries were removed.
 */
export async function removeSuppressions(query: QueryFn, projectId: string, emails: string[]): Promise<number> {
  const list = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  const removed = await query(sql.UNSUPPRESS_ADDRESSES, [projectId, list]);
  await query(sql.CLEAR_CONTACT_BOUNCES, [projectId, list]);
  return removed.length;
}
