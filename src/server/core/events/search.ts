/**
 * Events (spec part 1 §3 Event, §5 search rules, §7) and single sends (part 2 §7 test email): listing with the
 * combined search, counting, and queueing one email to a few recipients.
 */
import { randomUUID } from 'node:crypto';
import { and, count, eq, gte, ilike, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { DateTime } from 'luxon';
import type { Db } from '../../db/client.ts';
import { contacts, events, outbox, senderPersonas, templates } from '../../db/schema.ts';
import { checkEmail, splitList, UUID_RE } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { BadRequest, FieldErrors } from '../../errors.ts';
import type { ProjectScope } from '../../gateways/types.ts';
import { isoRequired, likePattern, orderBy, uuidList } from '../../gateways/common.ts';
import type { components, operations } from '../../../../generated/types/event.gen.ts';
import { EVENT } from '../../../domain/events.ts';

type EventOut = components['schemas']['Event'];
type ListQuery = NonNullable<operations['listEvents']['parameters']['query']>;
type SendRequest = components['schemas']['EmailSendRequest'];

/** Names of the product's own events; the rest are customer events. */
export const SYSTEM_EVENT_PREFIXES = ['email_send_result_', 'ses_event_', EVENT.unsubscribed];

const SORTABLE = { emitted_at: events.emittedAt, name: events.name, email: events.email, id: events.id, user_id: events.userId };


/** Date formats the event search understands besides ISO 8601 (Luxon tokens). */
const DATE_FORMATS = ['M/d/yyyy', 'd MMM yyyy', 'MMM d yyyy', 'MMM d, yyyy', 'd MMMM yyyy', 'MMMM d, yyyy', 'MMMM d yyyy'];

/**
 * dayRange returns [start, end) of the UTC day a date-like string names (ISO 8601 such as 2026-11-20 or a timestamp,
 * or 11/20/2026, 20 Nov 2026, Nov 20, 2026), or undefined when it is not one of those.
 */
export function dayRange(value: string): [Date, Date] | undefined {
  const text = value.trim();
  let parsed = DateTime.fromISO(text, { zone: 'UTC' });
  for (const f of DATE_FORMATS) {
    if (parsed.isValid) break;
    parsed = DateTime.fromFormat(text, f, { zone: 'UTC', locale: 'en-US' });
  }
  if (!parsed.isValid) return undefined;
  const start = parsed.startOf('day');
  return [start.toJSDate(), start.plus({ days: 1 }).toJSDate()];
}

function filters(projectId: string, q: Partial<ListQuery>): SQL {
  const where: (SQL | undefined)[] = [eq(events.projectId, projectId)];
  const ids = uuidList(q.ids, 'ids');
  if (ids.length) where.push(inArray(events.id, ids));
  if (!q.include_system_events) where.push(eq(events.isSystem, false));
  const names = splitList(q.include_events);
  if (names.length) where.push(inArray(events.name, names));
  const value = q.search_value?.trim();
  if (value) {
    const field = q.search_field ?? 'combined';
    if (field === 'email') where.push(ilike(events.email, likePattern(value)));
    else if (field === 'name') where.push(ilike(events.name, likePattern(value)));
    else if (field === 'emitted_at') {
      const range = dayRange(value);
      if (!range) throw new BadRequest([`search_value: not a date: ${value}`]);
      where.push(gte(events.emittedAt, range[0]), lt(events.emittedAt, range[1]));
    } else if (UUID_RE.test(value)) {
      where.push(or(eq(events.id, value.toLowerCase()), eq(events.userId, value.toLowerCase())));
    } else if (value.length > 6 && dayRange(value)) {
      const range = dayRange(value) as [Date, Date];
      where.push(gte(events.emittedAt, range[0]), lt(events.emittedAt, range[1]));
    } else {
      where.push(or(ilike(events.email, likePattern(value)), ilike(events.name, likePattern(value))));
    }
  }
  return and(...where) as SQL;
}

/** listEvents returns one page of events (default emitted_at DESC). */
export async function listEvents(db: Db, projectId: string, q: ListQuery): Promise<EventOut[]> {
  const rows = await db.select().from(events).where(filters(projectId, q))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'emitted_at DESC'), events.id).limit(q.limit ?? 10).offset(q.offset ?? 0);
  return rows.map((r) => ({
    id: r.id, name: r.name, email: r.email, user_id: r.userId, emitted_at: isoRequired(r.emittedAt), created_at: isoRequired(r.createdAt),
    metric1: r.metric1, metric2: r.metric2, metric3: r.metric3, json: r.json ?? {},
  }));
}

/** countEvents counts events matching the same filters. */
export async function countEvents(db: Db, projectId: string, q: Partial<ListQuery>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(events).where(filters(projectId, q));
  return row.n;
}

/**
 * queueSingleEmail validates a send request and queues one outbox row per recipient (to, cc and bcc each get their
 * own copy), due now. The sender persona is from.user_id or the persona whose email is from.email; the content is
 * template_id, or subject + body. In the sandbox every recipient must be allowed. Throws BadRequest naming
 * `mailer_payload.<field>`; nothing is queued then. Returns the number of rows queued.
 */
export async function queueSingleEmail(db: Db, project: ProjectScope, m: SendRequest): Promise<number> {
  const errs = new FieldErrors();
  const recipients = [...(m.to ?? []), ...(m.cc ?? []), ...(m.bcc ?? [])];
  recipients.forEach((r, i) => errs.add(`mailer_payload.to[${i}].email`, checkEmail(r.email)));
  if (!m.template_id && (!m.subject || !m.body)) errs.add('mailer_payload.template_id', 'missing template');
  if (!m.from?.user_id && !m.from?.email) errs.add('mailer_payload.from', 'missing sender');
  if (!recipients.length) errs.add('mailer_payload.to', 'missing recipient');
  errs.throwIfAny();

  const personas = await db.select().from(senderPersonas).where(and(eq(senderPersonas.projectId, project.id), isNull(senderPersonas.archivedAt)));
  const persona = personas.find((p) => (m.from?.user_id ? p.id === m.from.user_id : p.email.toLowerCase() === m.from?.email?.toLowerCase()));
  if (!persona) throw new BadRequest(['mailer_payload.from: missing sender: no such sender persona in this project']);
  if (m.template_id) {
    if (!UUID_RE.test(m.template_id)) throw new BadRequest(['mailer_payload.template_id: missing template']);
    const [t] = await db.select({ id: templates.id }).from(templates).where(and(eq(templates.id, m.template_id), eq(templates.projectId, project.id), isNull(templates.archivedAt)));
    if (!t) throw new BadRequest(['mailer_payload.template_id: missing template: no such template in this project']);
  }
  if (!project.notInSandbox) {
    const rejected = recipients.map((r) => sandboxRejection(r.email, personas.map((p) => p.email))).filter((x): x is string => !!x);
    if (rejected.length) throw new BadRequest(rejected.map((msg) => `mailer_payload.to: ${msg}`));
  }
  const emails = recipients.map((r) => r.email.trim());
  const known = await db.select({ id: contacts.id, email: contacts.email }).from(contacts)
    .where(and(eq(contacts.projectId, project.id), isNull(contacts.archivedAt), inArray(sql`lower(${contacts.email})`, emails.map((e) => e.toLowerCase()))));
  const contactByEmail = new Map(known.map((c) => [c.email.toLowerCase(), c.id]));
  const domain = persona.email.split('@')[1];
  const now = new Date();
  await db.insert(outbox).values(emails.map((email) => ({
    projectId: project.id, blastId: null, contactId: contactByEmail.get(email.toLowerCase()) ?? null, email,
    templateId: m.template_id ?? null, senderPersonaId: persona.id, subject: m.template_id ? null : m.subject ?? null,
    body: m.template_id ? null : m.body ?? null, isTest: m.is_test_email ?? false, sendAt: now, nextAttemptAt: now,
    messageId: `<${randomUUID()}@${domain}>`,
  })));
  return emails.length;
}
