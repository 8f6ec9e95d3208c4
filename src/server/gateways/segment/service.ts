/**
 * Segments, the part blast audiences need (spec part 2 §3 Segment, §7 Segments): list with member counts and create
 * with members. Filters and membership edits come with the segments issue.
 */
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { checkFilters, SEGMENT_EDIT_FILTER_ATTRIBUTES, SEGMENT_FILTER_ATTRIBUTES } from '../../../domain/segmentFilter.ts';
import { compileFilters } from '../../segmentFilter.ts';
import { contacts, segmentMembers, segments } from '../../db/schema.ts';
import { checkRequired } from '../../../domain/validation.ts';
import { BadRequest, FieldErrors, NotFound } from '../../errors.ts';
import { isoRequired, orderBy, uuidList } from '../common.ts';
import type { components, operations } from '../../../../generated/types/segment.gen.ts';

type SegmentOut = components['schemas']['Segment'];
type SaveBody = operations['saveSegments']['requestBody']['content']['application/json'];
type ListQuery = NonNullable<operations['listSegments']['parameters']['query']>;

const SORTABLE = { name: segments.name, created_at: segments.createdAt };

function where(projectId: string, ids: string[]) {
  return and(eq(segments.projectId, projectId), isNull(segments.archivedAt), ids.length ? inArray(segments.id, ids) : undefined);
}

/** listSegments returns one page of segments with num_users (live members), newest first by default. */
export async function listSegments(db: Db, projectId: string, q: ListQuery): Promise<SegmentOut[]> {
  // Qualified by hand: drizzle renders a column of a one-table select unqualified, which inside this subquery would
  // resolve to contacts.id.
  const numUsers = sql<number>`(SELECT count(*)::int FROM ${segmentMembers} sm JOIN ${contacts} c ON c.id = sm.contact_id
    WHERE sm.segment_id = "segments"."id" AND c.archived_at IS NULL)`;
  const rows = await db.select({ id: segments.id, name: segments.name, createdAt: segments.createdAt, numUsers }).from(segments)
    .where(where(projectId, uuidList(q.ids, 'ids')))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'created_at DESC'), segments.id).limit(q.limit ?? 10).offset(q.offset ?? 0);
  return rows.map((r) => ({ id: r.id, name: r.name, num_users: Number(r.numUsers), created_at: isoRequired(r.createdAt) }));
}

/** countSegments counts live segments. */
export async function countSegments(db: Db, projectId: string, ids?: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(segments).where(where(projectId, uuidList(ids, 'ids')));
  return row.n;
}

/**
 * saveSegments creates segments with their members in one transaction. Every user id must be a live contact of the
 * project; otherwise BadRequest names `segments[i].user_ids` and nothing is written.
 */
export async function saveSegments(db: Db, projectId: string, body: SaveBody): Promise<SegmentOut[]> {
  const errs = new FieldErrors();
  body.segments.forEach((s, i) => errs.add(`segments[${i}].name`, checkRequired(s.name)));
  errs.throwIfAny();
  return db.transaction(async (tx) => {
    const out: SegmentOut[] = [];
    for (const [i, s] of body.segments.entries()) {
      const userIds = [...new Set((s.user_ids ?? []).map((id) => id.toLowerCase()))];
      if (userIds.length) {
        const live = await tx.select({ id: contacts.id }).from(contacts)
          .where(and(eq(contacts.projectId, projectId), isNull(contacts.archivedAt), inArray(contacts.id, userIds)));
        const liveIds = new Set(live.map((r) => r.id));
        const missing = userIds.filter((id) => !liveIds.has(id));
        if (missing.length) { const e = new FieldErrors(); e.add(`segments[${i}].user_ids`, `no such contacts in this project: ${missing.join(', ')}`); e.throwIfAny(); }
      }
      const [row] = await tx.insert(segments).values({ projectId, name: s.name.trim(), ...(s.id ? { id: s.id } : {}) }).returning();
      if (userIds.length) await tx.insert(segmentMembers).values(userIds.map((contactId) => ({ segmentId: row.id, contactId })));
      out.push({ id: row.id, name: row.name, num_users: userIds.length, created_at: isoRequired(row.createdAt) });
    }
    return out;
  });
}

/**
 * addSegmentUsers adds live contacts of the project to segment `segmentId` (already-present members are kept once) and
 * returns the segment with its member count. Throws NotFound for a segment of another project or an archived one, and
 * BadRequest naming user_ids (nothing added) when an id is not a live contact of the project.
 */
export async function addSegmentUsers(db: Db, projectId: string, segmentId: string, userIds: string[]): Promise<SegmentOut> {
  const ids = [...new Set(userIds.map((id) => id.toLowerCase()))];
  await db.transaction(async (tx) => {
    const [segment] = await tx.select({ id: segments.id }).from(segments).where(where(projectId, [segmentId.toLowerCase()])).for('update');
    if (!segment) throw new NotFound([`id: no segment ${segmentId} in this project`]);
    const live = await tx.select({ id: contacts.id }).from(contacts)
      .where(and(eq(contacts.projectId, projectId), isNull(contacts.archivedAt), inArray(contacts.id, ids)));
    const liveIds = new Set(live.map((r) => r.id));
    const missing = ids.filter((id) => !liveIds.has(id));
    if (missing.length) throw new BadRequest([`user_ids: no such contacts in this project: ${missing.join(', ')}`]);
    await tx.insert(segmentMembers).values(ids.map((contactId) => ({ segmentId: segment.id, contactId }))).onConflictDoNothing();
  });
  const [out] = await listSegments(db, projectId, { ids: segmentId.toLowerCase(), limit: 1, offset: 0 });
  return out;
}

/** A filter request (openapi/segment.yaml FilterRequest). */
type FilterRequest = components['schemas']['FilterRequest'];

/**
 * filterUsers answers POST /segment/segments/filter_users: one page (newest first) of the project's live contacts
 * the filters match, and their total. Throws BadRequest naming user_filters when the filters fail the catalog checks.
 */
export async function filterUsers(query: QueryFn, projectId: string, body: FilterRequest): Promise<{ users: Array<{ id: string; email: string; first_name: string | null; last_name: string | null; created_at: string }>; total_users: number }> {
  const checked = checkFilters(body.user_filters, body.segment_edit ? SEGMENT_EDIT_FILTER_ATTRIBUTES : SEGMENT_FILTER_ATTRIBUTES);
  if ('errors' in checked) throw new BadRequest(checked.errors.map((e) => `user_filters: ${e}`));
  const where = compileFilters(checked.filters, body.conjunction ?? 'and', 2);
  const base = `FROM contacts c WHERE c.project_id = $1 AND c.archived_at IS NULL AND (${where.sql})`;
  const page = [Math.min(100, Math.max(1, Math.trunc(body.limit ?? 100))), Math.max(0, Math.trunc(body.offset ?? 0))];
  const n = where.params.length + 2;
  const [users, [total]] = await Promise.all([
    query<{ id: string; email: string; first_name: string | null; last_name: string | null; created_at: Date | string }>(
      `SELECT c.id, c.email, c.first_name, c.last_name, c.created_at ${base} ORDER BY c.created_at DESC, c.id LIMIT $${n} OFFSET $${n + 1}`,
      [projectId, ...where.params, ...page]),
    query<{ n: number }>(`SELECT count(*)::int AS n ${base}`, [projectId, ...where.params]),
  ]);
  return { users: users.map((u) => ({ ...u, created_at: new Date(u.created_at).toISOString() })), total_users: total.n };
}
