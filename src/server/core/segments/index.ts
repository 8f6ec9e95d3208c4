/**
 * Segments (spec part 2 §3 Segment, §7 Segments): list with member counts, create with members,
 * rename, add and remove members, and preview filters. Invisible segments (being built from filters by a job) are
 * neither listed nor editable until the job shows them.
 */
import { and, count, eq, ilike, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { checkFilters, requestAttributes, SEGMENT_EDIT_FILTER_ATTRIBUTES, SEGMENT_FILTER_ATTRIBUTES } from '../../../domain/segmentFilter.ts';
import { compileFilters, matchingContacts } from './filter.ts';
import { contactSampleShare, ESTIMATE_SAMPLE_CONTACTS, sampleScale } from '../contacts/index.ts';
import { contacts, segmentMembers, segments } from '../../db/schema.ts';
import { checkRequired } from '../../../domain/validation.ts';
import { BadRequest, FieldErrors, NotFound } from '../../errors.ts';
import { isoRequired, likePattern, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/segment.gen.ts';

type SegmentOut = components['schemas']['Segment'];
type SaveBody = operations['saveSegments']['requestBody']['content']['application/json'];
type ListQuery = NonNullable<operations['listSegments']['parameters']['query']>;

const SORTABLE = { name: segments.name, created_at: segments.createdAt };

/** The answer to editing a built-in segment (core/audience/policies.ts): the product keeps its members and name. */
const BUILT_IN = 'id: this is a built-in segment kept by the sunset policy; its name and members cannot be edited (change the policy instead)';

/** editable throws BadRequest (BUILT_IN) when segment `id` of the project is a built-in one. */
async function editable(db: Pick<Db, 'select'>, projectId: string, id: string): Promise<void> {
  const [row] = await db
    .select({ builtIn: segments.builtIn })
    .from(segments)
    .where(and(eq(segments.projectId, projectId), eq(segments.id, id.toLowerCase())));
  if (row?.builtIn) throw new BadRequest([BUILT_IN]);
}

function where(projectId: string, ids: string[], name?: string) {
  const search = name?.trim();
  return and(
    eq(segments.projectId, projectId),
    isNull(segments.archivedAt),
    eq(segments.invisible, false),
    ids.length ? inArray(segments.id, ids) : undefined,
    search ? ilike(segments.name, likePattern(search)) : undefined,
  );
}

/**
 * listSegments returns one page of visible segments with num_users (live members), newest first by default; `names`
 * or `search_value` filter by a name substring; `with_counts=false` skips the counting (num_users 0).
 */
export async function listSegments(db: Db, projectId: string, q: ListQuery): Promise<SegmentOut[]> {
  // Qualified by hand: drizzle renders a column of a one-table select unqualified, which inside this subquery would
  // resolve to contacts.id.
  const counted = sql<number>`(SELECT count(*)::int FROM ${segmentMembers} sm JOIN ${contacts} c ON c.id = sm.contact_id
    WHERE sm.segment_id = "segments"."id" AND c.archived_at IS NULL)`;
  const numUsers = q.with_counts === false ? sql<number>`0` : counted;
  const rows = await db
    .select({ id: segments.id, name: segments.name, createdAt: segments.createdAt, builtIn: segments.builtIn, numUsers })
    .from(segments)
    .where(where(projectId, uuidList(q.ids, 'ids'), q.search_value ?? q.names))
    .orderBy(...orderBy(q.sort_columns, { ...SORTABLE, num_users: counted }, 'created_at DESC'), segments.id)
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    num_users: Number(r.numUsers),
    created_at: isoRequired(r.createdAt),
    built_in: r.builtIn as 'sunset' | null,
  }));
}

/** countSegments counts live, visible segments (optionally those of `ids`, or whose name contains `name`). */
export async function countSegments(db: Db, projectId: string, ids?: string, name?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(segments)
    .where(where(projectId, uuidList(ids, 'ids'), name));
  return row.n;
}

/** oneSegment answers segment `id` of the project with its member count, or undefined. */
async function oneSegment(db: Db, projectId: string, id: string): Promise<SegmentOut | undefined> {
  const [out] = await listSegments(db, projectId, { ids: id.toLowerCase(), limit: 1, offset: 0 });
  return out;
}

/**
 * renameSegment sets a segment's name (PATCH /segment/segments/{id}). Throws BadRequest 'name: Required field' for a
 * blank name and NotFound "Couldn't find segment with id {id} to update" (spec part 2 §7) when the project has no
 * such visible segment.
 */
export async function renameSegment(db: Db, projectId: string, id: string, name: string): Promise<SegmentOut> {
  const errs = new FieldErrors();
  errs.add('name', checkRequired(name));
  errs.throwIfAny();
  await editable(db, projectId, id);
  const updated = await db
    .update(segments)
    .set({ name: name.trim() })
    .where(where(projectId, [id.toLowerCase()]))
    .returning({ id: segments.id });
  if (!updated.length) throw new NotFound([`Couldn't find segment with id ${id} to update`]);
  return (await oneSegment(db, projectId, id))!;
}

/**
 * removeSegmentUsers takes contacts out of a segment (DELETE /segment/segments/{id}/users/{ids}); the contacts stay.
 * `userIds` is the comma-separated path value (at most 1000 UUIDs, else BadRequest naming user_ids). Ids that are not
 * members are ignored. Throws NotFound for a segment that is not the project's.
 */
export async function removeSegmentUsers(db: Db, projectId: string, id: string, userIds: string): Promise<{ data: SegmentOut; num_removed: number }> {
  const ids = [...new Set(uuidList(userIds, 'user_ids'))];
  if (!ids.length) throw new BadRequest(['user_ids: Required field']);
  if (ids.length > 1000) throw new BadRequest(['user_ids: at most 1000 ids at a time']);
  await editable(db, projectId, id);
  const removed = await db.transaction(async (tx) => {
    const [segment] = await tx
      .select({ id: segments.id })
      .from(segments)
      .where(where(projectId, [id.toLowerCase()]))
      .for('update');
    if (!segment) throw new NotFound([`id: no segment ${id} in this project`]);
    return tx
      .delete(segmentMembers)
      .where(and(eq(segmentMembers.segmentId, segment.id), inArray(segmentMembers.contactId, ids)))
      .returning({ id: segmentMembers.contactId });
  });
  return { data: (await oneSegment(db, projectId, id))!, num_removed: removed.length };
}

/**
 * saveSegments creates segments with their members in one transaction. Every user id must be a live contact of the
 * project; otherwise BadRequest names `segments[i].user_ids` and nothing is written. A given id must be unused (by any
 * project: BadRequest `segments[i].id: id is already in use`, the same for this project's ids as for another's).
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
        const live = await tx
          .select({ id: contacts.id })
          .from(contacts)
          .where(and(eq(contacts.projectId, projectId), isNull(contacts.archivedAt), inArray(contacts.id, userIds)));
        const liveIds = new Set(live.map((r) => r.id));
        const missing = userIds.filter((id) => !liveIds.has(id));
        if (missing.length) {
          const e = new FieldErrors();
          e.add(`segments[${i}].user_ids`, `no such contacts in this project: ${missing.join(', ')}`);
          e.throwIfAny();
        }
      }
      if (s.id) {
        // Ids are global: one in use by any project (this one's included) is refused alike, so the answer tells nothing of other projects.
        const [taken] = await tx.select({ id: segments.id }).from(segments).where(eq(segments.id, s.id.toLowerCase()));
        if (taken) {
          const e = new FieldErrors();
          e.add(`segments[${i}].id`, 'id is already in use');
          e.throwIfAny();
        }
      }
      const [row] = await tx
        .insert(segments)
        .values({ projectId, name: s.name.trim(), ...(s.id ? { id: s.id.toLowerCase() } : {}) })
        .returning();
      if (userIds.length) await tx.insert(segmentMembers).values(userIds.map((contactId) => ({ segmentId: row.id, contactId })));
      out.push({ id: row.id, name: row.name, num_users: userIds.length, created_at: isoRequired(row.createdAt) });
    }
    return out;
  });
}

/**
 * addSegmentUsers adds live contacts of the project, by id and/or email, to segment `segmentId` (already-present
 * members are kept once) and returns the segment with its member count and how many were new. Throws NotFound for a
 * segment of another project, an archived or invisible one, and BadRequest naming user_ids or emails (nothing added)
 * when one is not a live contact of the project, or when neither is given.
 */
export async function addSegmentUsers(
  db: Db,
  projectId: string,
  segmentId: string,
  userIds: string[] = [],
  emails: string[] = [],
): Promise<{ data: SegmentOut; num_added: number }> {
  const ids = [...new Set(userIds.map((id) => id.toLowerCase()))];
  const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter(Boolean))];
  if (!ids.length && !wanted.length) throw new BadRequest(['user_ids: Required field']);
  await editable(db, projectId, segmentId);
  const added = await db.transaction(async (tx) => {
    const [segment] = await tx
      .select({ id: segments.id })
      .from(segments)
      .where(where(projectId, [segmentId.toLowerCase()]))
      .for('update');
    if (!segment) throw new NotFound([`id: no segment ${segmentId} in this project`]);
    const live = and(eq(contacts.projectId, projectId), isNull(contacts.archivedAt));
    const errors: string[] = [];
    const members = new Set<string>();
    if (ids.length) {
      const found = new Set(
        (
          await tx
            .select({ id: contacts.id })
            .from(contacts)
            .where(and(live, inArray(contacts.id, ids)))
        ).map((r) => r.id),
      );
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length) errors.push(`user_ids: no such contacts in this project: ${missing.join(', ')}`);
      for (const id of found) members.add(id);
    }
    if (wanted.length) {
      const rows = await tx
        .select({ id: contacts.id, email: contacts.email })
        .from(contacts)
        .where(and(live, inArray(sql`lower(${contacts.email})`, wanted)));
      const found = new Set(rows.map((r) => r.email.toLowerCase()));
      const missing = wanted.filter((e) => !found.has(e));
      if (missing.length) errors.push(`emails: no such contacts in this project: ${missing.join(', ')}`);
      for (const r of rows) members.add(r.id);
    }
    if (errors.length) throw new BadRequest(errors);
    return tx
      .insert(segmentMembers)
      .values([...members].map((contactId) => ({ segmentId: segment.id, contactId })))
      .onConflictDoNothing()
      .returning({ id: segmentMembers.contactId });
  });
  return { data: (await oneSegment(db, projectId, segmentId))!, num_added: added.length };
}

/** A filter request (openapi/segment.yaml FilterRequest). */
type FilterRequest = components['schemas']['FilterRequest'];

/**
 * filterUsers answers POST /segment/segments/filter_users: one page (newest first) of the project's live contacts
 * the filters match, and their total. With `total: 'estimate'` the total is counted over a sample of
 * about ESTIMATE_SAMPLE_CONTACTS (core/contacts) of the project's contacts (whole table pages at random, TABLESAMPLE SYSTEM) and scaled
 * up, `total_is_estimate` true — unless the planner's statistics put the project at no more contacts than that, when
 * it is counted exactly. Throws BadRequest naming user_filters when the filters fail the catalog checks.
 */
export async function filterUsers(
  query: QueryFn,
  projectId: string,
  body: FilterRequest,
): Promise<{
  users: Array<{ id: string; email: string; first_name: string | null; last_name: string | null; created_at: string }>;
  total_users: number;
  total_is_estimate: boolean;
}> {
  const checked = checkFilters(body.user_filters, requestAttributes(body.segment_edit ? SEGMENT_EDIT_FILTER_ATTRIBUTES : SEGMENT_FILTER_ATTRIBUTES));
  if ('errors' in checked) throw new BadRequest(checked.errors.map((e) => `user_filters: ${e}`));
  const where = compileFilters(checked.filters, body.conjunction ?? 'and', 2);
  const base = matchingContacts(where);
  const page = [Math.min(100, Math.max(1, Math.trunc(body.limit ?? 100))), Math.max(0, Math.trunc(body.offset ?? 0))];
  const n = where.params.length + 2;
  const total = async (): Promise<{ n: number; estimate: boolean }> => {
    if (body.total === 'estimate') {
      const share = await contactSampleShare(query, projectId, ESTIMATE_SAMPLE_CONTACTS);
      if (share < 1) {
        const [[sampled], scale] = await Promise.all([
          query<{ n: number }>(`SELECT count(*)::int AS n ${matchingContacts(where, share * 100)}`, [projectId, ...where.params]),
          sampleScale(query, projectId, share),
        ]);
        return { n: Math.round(sampled.n * scale), estimate: true };
      }
    }
    const [exact] = await query<{ n: number }>(`SELECT count(*)::int AS n ${base}`, [projectId, ...where.params]);
    return { n: exact.n, estimate: false };
  };
  const [users, counted] = await Promise.all([
    query<{ id: string; email: string; first_name: string | null; last_name: string | null; created_at: Date | string }>(
      `SELECT c.id, c.email, c.first_name, c.last_name, c.created_at ${base} ORDER BY c.created_at DESC, c.id LIMIT $${n} OFFSET $${n + 1}`,
      [projectId, ...where.params, ...page],
    ),
    total(),
  ]);
  return {
    users: users.map((u) => ({ ...u, created_at: new Date(u.created_at).toISOString() })),
    total_users: counted.n,
    total_is_estimate: counted.estimate,
  };
}
