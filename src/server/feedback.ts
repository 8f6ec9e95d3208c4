/**
 * Delivery feedback (issue 5): what happens after a send, recorded as events (spec part 1 §3 Event names) and applied
 * to the audience.
 * - opens and clicks (ses_event_open / ses_event_click) from the signed pixel and redirects;
 * - unsubscribes (user_unsubscribed) from the /u/ page or the RFC 8058 one-click POST; sets contacts.unsubscribed_at;
 * - bounces and complaints (ses_event_bounce / ses_event_complaint) from SES through SNS, the JSON feedback endpoint,
 *   SMTP 5xx answers at send time and the mailbox simulator. Hard bounces and complaints put the address on the
 *   project's suppression list and mark the contact (bounced_at / complained_at); later sends skip it.
 * Every function takes a QueryFn (one statement per call, or a transaction's) and the project id it is scoped to.
 */
import type { QueryFn } from './db/client.ts';
import { eventJson, suppresses, type Feedback } from '../domain/feedback.ts';
import { deviceOf } from '../domain/devices.ts';
import type { LinkTarget } from './mail/links.ts';

interface SentRow {
  id: string; email: string; contact_id: string | null; blast_id: string | null; template_id: string | null; message_id: string;
  workflow_id: string | null; workflow_hops: number | null;
}

async function sentRow(query: QueryFn, target: LinkTarget): Promise<SentRow | undefined> {
  const [row] = await query<SentRow>(
    'SELECT id, email, contact_id, blast_id, template_id, message_id, workflow_id, workflow_hops FROM outbox WHERE id = $1 AND project_id = $2',
    [String(target.outboxId), target.projectId]);
  return row;
}

/** The recipient's domain, lower-case ('' when the address has none). */
function toDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * recordEngagement records one open or click of a sent email: an ses_event_open / ses_event_click event with the
 * recipient, user_agent, device, to_domain, the link (clicks), and the email's blast, template and Message-ID.
 * Returns false (recording nothing) when the outbox row does not exist in that project.
 */
export async function recordEngagement(query: QueryFn, target: LinkTarget, kind: 'open' | 'click', userAgent: string, link?: string): Promise<boolean> {
  const row = await sentRow(query, target);
  if (!row) return false;
  const json: Record<string, unknown> = {
    user_agent: userAgent, device: deviceOf(userAgent), to_domain: toDomain(row.email),
    blast_id: row.blast_id, template_id: row.template_id, message_id: row.message_id,
    ...(row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {}),
  };
  if (kind === 'click') {
    json.link = link;
    json.click = { link };
  }
  await query(
    `INSERT INTO events (project_id, name, email, user_id, is_system, blast_id, template_id, json)
     VALUES ($1, $2, $3, $4, true, $5, $6, $7)`,
    [target.projectId, kind === 'open' ? 'ses_event_open' : 'ses_event_click', row.email, row.contact_id, row.blast_id, row.template_id, JSON.stringify(json)]);
  return true;
}

/**
 * The recipient an unsubscribe token names, for the confirmation page: whether they are unsubscribed already (the
 * contact's unsubscribed_at, or for a recipient who is not a contact an 'unsubscribed' suppression-list entry).
 */
export async function unsubscribeRecipient(query: QueryFn, target: LinkTarget): Promise<{ email: string; unsubscribed: boolean; company: string } | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const [state] = await query<{ unsubscribed: boolean; company: string }>(
    `SELECT (c.unsubscribed_at IS NOT NULL OR s.email IS NOT NULL) AS unsubscribed, co.name AS company
       FROM projects p JOIN companies co ON co.id = p.company_id
       LEFT JOIN contacts c ON c.id = $2 AND c.project_id = p.id
       LEFT JOIN suppressions s ON s.project_id = p.id AND s.email = lower($3) AND s.reason = 'unsubscribed'
      WHERE p.id = $1`,
    [target.projectId, row.contact_id, row.email]);
  return { email: row.email, unsubscribed: !!state?.unsubscribed, company: state?.company ?? '' };
}

/**
 * unsubscribe records that the recipient of one email asked to stop marketing mail: sets the contact's
 * unsubscribed_at (once; for a recipient who is not a contact, an 'unsubscribed' suppression-list entry) and records user_unsubscribed with how it was asked ('page' or 'one-click'). Asking again
 * changes nothing. Returns undefined when the row does not exist, else whether this call did the unsubscribing.
 */
export async function unsubscribe(query: QueryFn, target: LinkTarget, via: 'page' | 'one-click'): Promise<{ email: string; changed: boolean } | undefined> {
  const row = await sentRow(query, target);
  if (!row) return undefined;
  const contacts = await query<{ id: string; unsubscribed_at: Date | null }>(
    `SELECT id, unsubscribed_at FROM contacts WHERE project_id = $1 AND (id = $2 OR ($2::uuid IS NULL AND lower(email) = lower($3) AND archived_at IS NULL))`,
    [target.projectId, row.contact_id, row.email]);
  let changed: boolean;
  let contactId = row.contact_id;
  if (contacts.length) {
    const updated = await query<{ id: string }>(
      'UPDATE contacts SET unsubscribed_at = now(), updated_at = now() WHERE id = ANY($1::uuid[]) AND unsubscribed_at IS NULL RETURNING id',
      [contacts.map((c) => c.id)]);
    changed = updated.length > 0;
    contactId = contactId ?? contacts[0].id;
  } else {
    // A recipient who is not a contact (a single send): the suppression list keeps it, as 'unsubscribed' (which stops
    // only marketing mail, and still applies if the address becomes a contact later). The insert is the atomic
    // check, so two clicks at once record one event.
    const inserted = await query(
      `INSERT INTO suppressions (project_id, email, reason, detail) VALUES ($1, lower($2), 'unsubscribed', $3)
       ON CONFLICT (project_id, email) DO NOTHING RETURNING email`,
      [target.projectId, row.email, via]);
    changed = inserted.length > 0;
  }
  if (changed) {
    await query(
      `INSERT INTO events (project_id, name, email, user_id, is_system, blast_id, template_id, json)
       VALUES ($1, 'user_unsubscribed', $2, $3, true, $4, $5, $6)`,
      [target.projectId, row.email, contactId, row.blast_id, row.template_id,
        JSON.stringify({ via, blast_id: row.blast_id, template_id: row.template_id, message_id: row.message_id, ...(row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {}) })]);
  }
  return { email: row.email, changed };
}

/**
 * recordFeedback applies bounces and complaints to one project: one ses_event_bounce / ses_event_complaint event
 * each (tied to the email by its Message-ID when known, else to the contact by address), and for hard bounces and
 * complaints a suppression-list entry plus the contact's bounced_at / complained_at. `source` says where it came
 * from (sns, json, smtp, simulator) and is stored in the event's json. Returns how many addresses were suppressed.
 */
export async function recordFeedback(query: QueryFn, projectId: string, items: Array<Feedback & { suppress?: boolean }>, source: string): Promise<{ recorded: number; suppressed: number }> {
  let suppressed = 0;
  for (const f of items) {
    const email = f.email.trim();
    const [row] = f.messageId
      ? await query<{ contact_id: string | null; blast_id: string | null; template_id: string | null }>(
        'SELECT contact_id, blast_id, template_id FROM outbox WHERE project_id = $1 AND message_id = $2 AND lower(email) = lower($3) LIMIT 1',
        [projectId, f.messageId, email])
      : [];
    const [contact] = row?.contact_id ? [{ id: row.contact_id }] : await query<{ id: string }>(
      'SELECT id FROM contacts WHERE project_id = $1 AND lower(email) = lower($2) AND archived_at IS NULL LIMIT 1', [projectId, email]);
    const name = f.kind === 'complaint' ? 'ses_event_complaint' : 'ses_event_bounce';
    await query(
      `INSERT INTO events (project_id, name, email, user_id, is_system, blast_id, template_id, json, emitted_at)
       VALUES ($1, $2, $3, $4, true, $5, $6, $7, coalesce($8::timestamptz, now()))`,
      [projectId, name, email, contact?.id ?? null, row?.blast_id ?? null, row?.template_id ?? null,
        JSON.stringify({ ...eventJson(f), source, blast_id: row?.blast_id ?? null }), f.timestamp ?? null]);
    if (f.suppress ?? suppresses(f)) {
      const reason = f.kind === 'complaint' ? 'complaint' : 'bounce';
      const inserted = await query(
        `INSERT INTO suppressions (project_id, email, reason, detail) VALUES ($1, lower($2), $3, $4)
         ON CONFLICT (project_id, email) DO NOTHING RETURNING email`,
        [projectId, email, reason, f.diagnosticCode ?? f.feedbackType ?? null]);
      suppressed += inserted.length;
      await query(
        `UPDATE contacts SET ${reason === 'complaint' ? 'complained_at' : 'bounced_at'} = coalesce(${reason === 'complaint' ? 'complained_at' : 'bounced_at'}, now()), updated_at = now()
          WHERE project_id = $1 AND lower(email) = lower($2)`,
        [projectId, email]);
    }
  }
  return { recorded: items.length, suppressed };
}

/** One entry of a project's suppression list, as the API lists it. */
export interface SuppressionEntry { email: string; reason: 'bounce' | 'complaint' | 'manual' | 'unsubscribed'; detail: string | null; created_at: string }

/**
 * listSuppressions returns one page of the project's suppression list, newest first, and the total matching.
 * `emailLike` is an already-escaped ILIKE pattern (gateways/common.ts likePattern) or undefined for all.
 */
export async function listSuppressions(query: QueryFn, projectId: string, page: { limit: number; offset: number; emailLike?: string }): Promise<{ data: SuppressionEntry[]; total: number }> {
  const filter = page.emailLike ? 'AND email ILIKE $2' : '';
  const args = page.emailLike ? [projectId, page.emailLike] : [projectId];
  const [rows, [{ total }]] = await Promise.all([
    query<SuppressionEntry>(
      `SELECT email, reason, detail, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM suppressions WHERE project_id = $1 ${filter} ORDER BY created_at DESC, email
        LIMIT ${Number(page.limit)} OFFSET ${Number(page.offset)}`, args),
    query<{ total: number }>(`SELECT count(*)::int AS total FROM suppressions WHERE project_id = $1 ${filter}`, args),
  ]);
  return { data: rows, total };
}

/**
 * addManualSuppressions puts `emails` (already checked) on the project's suppression list with reason 'manual'; an
 * address already listed keeps its entry. Returns how many entries were added.
 */
export async function addManualSuppressions(query: QueryFn, projectId: string, emails: string[]): Promise<number> {
  if (!emails.length) return 0;
  const added = await query(
    `INSERT INTO suppressions (project_id, email, reason, detail)
     SELECT $1, e, 'manual', 'added by hand' FROM unnest($2::text[]) AS e
     ON CONFLICT (project_id, email) DO NOTHING RETURNING email`,
    [projectId, [...new Set(emails.map((e) => e.trim().toLowerCase()))]]);
  return added.length;
}

/**
 * removeSuppressions takes `emails` off the project's suppression list and clears the matching contacts'
 * bounced_at / complained_at, in one transaction's QueryFn. Returns how many entries were removed.
 */
export async function removeSuppressions(query: QueryFn, projectId: string, emails: string[]): Promise<number> {
  const list = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  const removed = await query('DELETE FROM suppressions WHERE project_id = $1 AND email = ANY($2::text[]) RETURNING email', [projectId, list]);
  await query(
    `UPDATE contacts SET bounced_at = NULL, complained_at = NULL, updated_at = now()
      WHERE project_id = $1 AND lower(email) = ANY($2::text[]) AND (bounced_at IS NOT NULL OR complained_at IS NOT NULL)`,
    [projectId, list]);
  return removed.length;
}
