/**
 * Event search (spec part 1 §3 Event, §5 search rules, §7): listing with the combined search, and counting.
 */
import { and, count, eq, gte, ilike, inArray, lt, or, type SQL } from 'drizzle-orm';
import { DateTime } from 'luxon';
import type { Db } from '../../db/client.ts';
import { events } from '../../db/schema.ts';
import { splitList, UUID_RE } from '../../../domain/validation.ts';
import { BadRequest } from '../../errors.ts';
import { isoRequired, likePattern, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/event.gen.ts';
import { EVENT } from '../../../domain/events.ts';

type EventOut = components['schemas']['Event'];
type ListQuery = NonNullable<operations['listEvents']['parameters']['query']>;

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
  const rows = await db
    .select()
    .from(events)
    .where(filters(projectId, q))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'emitted_at DESC'), events.id)
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    user_id: r.userId,
    emitted_at: isoRequired(r.emittedAt),
    created_at: isoRequired(r.createdAt),
    metric1: r.metric1,
    metric2: r.metric2,
    metric3: r.metric3,
    json: r.json ?? {},
  }));
}

/** countEvents counts events matching the same filters. */
export async function countEvents(db: Db, projectId: string, q: Partial<ListQuery>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(events).where(filters(projectId, q));
  return row.n;
}
