/**
 * A person's data as one JSON document (openapi/user.yaml exportContact; README "Privacy"): the answer to a data
 * subject's access request (GDPR Art. 15 and 20), the same for the customer's export and the person's own download
 * from the preference centre. Read in one snapshot (a transaction); every export is recorded in the privacy audit.
 */
import type { Database } from '../../db/client.ts';
import { NotFound } from '../../errors.ts';
import type { components } from '../../../../generated/types/user.gen.ts';

export type ContactExport = components['schemas']['ContactExport'];
type ExportedEvent = components['schemas']['ExportedEvent'];

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/** The contact row with its state. */
const CONTACT = `SELECT id, email, first_name, last_name, timezone, date_of_birth, json, created_at, updated_at, unsubscribed_at,
       bounced_at, complained_at, confirmation_pending_at, unsubscribed_topic_ids
  FROM contacts WHERE project_id = $1 AND id = $2`;

/** Its emails (by contact, or by address for those queued before it existed), oldest first. */
const MESSAGES = `SELECT o.message_id, o.subject, o.stream, o.status, o.created_at, o.sent_at,
       (SELECT e.json->>'subject' FROM events e WHERE e.project_id = o.project_id AND e.json->>'message_id' = o.message_id
          AND e.name = 'email_send_result_success' LIMIT 1) AS sent_subject
  FROM outbox o WHERE o.project_id = $1 AND (o.contact_id = $2 OR lower(o.email) = lower($3)) ORDER BY o.id`;

/** Its events: by contact, or by address. */
const EVENTS = `SELECT name, emitted_at, json FROM events
  WHERE project_id = $1 AND (user_id = $2 OR lower(email) = lower($3)) ORDER BY emitted_at, id`;

/**
 * exportContact returns everything project `projectId` holds about contact `contactId` (see ContactExport) and
 * records the export (`actor`) in the privacy audit. Throws NotFound when it is not a contact of the project.
 */
export async function exportContact(database: Database, projectId: string, contactId: string, actor: string): Promise<ContactExport> {
  return database.transaction(async (tx) => {
    const [c] = await tx<Record<string, unknown> & { email: string; unsubscribed_topic_ids: string[] | string }>(CONTACT, [projectId, contactId]);
    if (!c) throw new NotFound([`id: no contact ${contactId} in this project`]);
    const raw = c.unsubscribed_topic_ids;
    // PGlite inside a drizzle transaction returns arrays as PostgreSQL's text ({a,b}).
    const topicIds: string[] = Array.isArray(raw) ? raw : String(raw).replace(/[{}]/g, '').split(',').filter(Boolean);
    const [consents, topics, segments, messages, events] = [
      await tx<Record<string, unknown>>(
        `SELECT form_id, consent_text, submitted_at, submitted_ip, confirmed_at, confirmed_ip FROM consents
          WHERE project_id = $1 AND contact_id = $2 ORDER BY submitted_at`,
        [projectId, contactId],
      ),
      await tx<{ id: string; name: string }>(`SELECT id, name FROM topics WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY name`, [projectId, topicIds]),
      await tx<{ id: string; name: string }>(
        `SELECT s.id, s.name FROM segment_members m JOIN segments s ON s.id = m.segment_id WHERE m.contact_id = $2 AND s.project_id = $1 ORDER BY s.name`,
        [projectId, contactId],
      ),
      await tx<Record<string, unknown> & { message_id: string }>(MESSAGES, [projectId, contactId, c.email]),
      await tx<{ name: string; emitted_at: Date | string; json: Record<string, unknown> | string }>(EVENTS, [projectId, contactId, c.email]),
    ];
    const byMessage = new Map<string, ExportedEvent[]>();
    const other: ExportedEvent[] = [];
    for (const e of events) {
      const data = typeof e.json === 'string' ? (JSON.parse(e.json) as Record<string, unknown>) : e.json;
      const event = { name: e.name, at: iso(e.emitted_at)!, data };
      const id = typeof data.message_id === 'string' ? data.message_id : undefined;
      if (id) byMessage.set(id, [...(byMessage.get(id) ?? []), event]);
      else other.push(event);
    }
    const known = new Set(messages.map((m) => m.message_id));
    for (const [id, list] of byMessage) if (!known.has(id)) other.push(...list);
    other.sort((a, b) => a.at.localeCompare(b.at));
    await tx(`INSERT INTO privacy_audit (project_id, action, actor, contacts) VALUES ($1, 'export', $2, 1)`, [projectId, actor]);
    const json = typeof c.json === 'string' ? (JSON.parse(c.json) as Record<string, unknown>) : ((c.json as Record<string, unknown>) ?? {});
    return {
      exported_at: new Date().toISOString(),
      contact: {
        id: c.id as string,
        email: c.email,
        first_name: (c.first_name as string | null) ?? null,
        last_name: (c.last_name as string | null) ?? null,
        timezone: (c.timezone as string | null) ?? null,
        date_of_birth: iso(c.date_of_birth as Date | null),
        json,
        created_at: iso(c.created_at as Date)!,
        updated_at: iso(c.updated_at as Date)!,
        unsubscribed_at: iso(c.unsubscribed_at as Date | null),
        bounced_at: iso(c.bounced_at as Date | null),
        complained_at: iso(c.complained_at as Date | null),
        confirmation_pending_at: iso(c.confirmation_pending_at as Date | null),
      },
      consents: consents.map((r) => ({
        form_id: (r.form_id as string | null) ?? null,
        consent_text: r.consent_text as string,
        submitted_at: iso(r.submitted_at as Date)!,
        submitted_ip: (r.submitted_ip as string | null) ?? null,
        confirmed_at: iso(r.confirmed_at as Date | null),
        confirmed_ip: (r.confirmed_ip as string | null) ?? null,
      })),
      topics,
      segments,
      messages: messages.map((m) => ({
        message_id: m.message_id,
        subject: ((m.sent_subject ?? m.subject) as string | null) ?? null,
        stream: m.stream as string,
        status: m.status as string,
        queued_at: iso(m.created_at as Date)!,
        sent_at: iso(m.sent_at as Date | null),
        events: byMessage.get(m.message_id) ?? [],
      })),
      events: other,
    };
  });
}
