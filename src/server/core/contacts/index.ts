/**
 * Contacts (spec part 2 §3 Contact, §5 Contact, §7 Contacts): listing with search and segment filters, upsert by id or
 * email, archive by email. Every query is scoped to one project.
 */
import { and, count, eq, ilike, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { contacts, segmentMembers, segments } from '../../db/schema.ts';
import { classifySearch, splitList } from '../../../domain/validation.ts';
import { checkContactFields, dateOfBirth } from './rules.ts';
import { MERGE_CONTACT_METADATA } from './queries.ts';
import { upsertContactsSql, type UpsertRow } from './upsert.ts';
import { withAddressHashes } from '../privacy/key.ts';

export { dateOfBirth } from './rules.ts';
import { FieldErrors } from '../../errors.ts';
import { iso, isoRequired, likePattern, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/user.gen.ts';

export type ContactOut = components['schemas']['Contact'];
export type ContactIn = components['schemas']['ContactInput'];
type ListQuery = NonNullable<operations['listUsers']['parameters']['query']>;
type Row = typeof contacts.$inferSelect;

/** toContact maps a drizzle row to the API's Contact (through contactOut, the one mapping). */
export function toContact(r: Row): ContactOut {
  return contactOut({
    ...r,
    first_name: r.firstName,
    last_name: r.lastName,
    date_of_birth: r.dateOfBirth,
    unsubscribed_at: r.unsubscribedAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  });
}

const SORTABLE = {
  email: contacts.email,
  first_name: contacts.firstName,
  last_name: contacts.lastName,
  timezone: contacts.timezone,
  created_at: contacts.createdAt,
  updated_at: contacts.updatedAt,
};
const SEARCHABLE = { email: contacts.email, first_name: contacts.firstName, last_name: contacts.lastName, timezone: contacts.timezone };

/**
 * smartSearch is the `search_field=all` condition (spec part 2 §5 Search), read by classifySearch: a
 * UUID matches the contact's id or its metadata user_id; a date-like text matches contacts added (created_at) or
 * born (date_of_birth) on that UTC day; anything else is a case-insensitive substring of the email, first name, last
 * name or "first last".
 */
function smartSearch(raw: string): SQL {
  const s = classifySearch(raw);
  if (s.kind === 'id') return sql`(${contacts.id} = ${s.id}::uuid OR ${contacts.json}->>'user_id' = ${s.id})`;
  if (s.kind === 'date') {
    const start = sql`(${s.day}::date::timestamp AT TIME ZONE 'UTC')`;
    const onDay = (col: typeof contacts.createdAt | typeof contacts.dateOfBirth) => sql`(${col} >= ${start} AND ${col} < ${start} + interval '1 day')`;
    return sql`(${onDay(contacts.createdAt)} OR ${onDay(contacts.dateOfBirth)})`;
  }
  const p = likePattern(s.text);
  return sql`(${contacts.email} ILIKE ${p} OR ${contacts.firstName} ILIKE ${p} OR ${contacts.lastName} ILIKE ${p}
    OR (coalesce(${contacts.firstName}, '') || ' ' || coalesce(${contacts.lastName}, '')) ILIKE ${p})`;
}

function filters(projectId: string, q: Partial<ListQuery>): SQL {
  const where: SQL[] = [eq(contacts.projectId, projectId), isNull(contacts.archivedAt)];
  const ids = uuidList(q.ids, 'ids');
  if (ids.length) where.push(inArray(contacts.id, ids));
  if (q.search_value && q.search_value.trim()) {
    const field = q.search_field ?? 'all';
    where.push(field === 'all' ? smartSearch(q.search_value) : ilike(SEARCHABLE[field], likePattern(q.search_value.trim())));
  }
  const memberOf = (segmentIds: string[]) => sql`EXISTS (SELECT 1 FROM ${segmentMembers} sm JOIN ${segments} s ON s.id = sm.segment_id
    WHERE sm.contact_id = ${contacts.id} AND s.project_id = ${projectId} AND sm.segment_id IN (${sql.join(
      segmentIds.map((id) => sql`${id}`),
      sql`, `,
    )}))`;
  const inSeg = uuidList(q.in_segment_ids, 'in_segment_ids');
  if (inSeg.length) where.push(memberOf(inSeg));
  const notInSeg = uuidList(q.not_in_segment_ids, 'not_in_segment_ids');
  if (notInSeg.length) where.push(sql`NOT ${memberOf(notInSeg)}`);
  return and(...where) as SQL;
}

/** listContacts returns one page of live contacts matching the query (default sort email ASC). */
export async function listContacts(db: Db, projectId: string, q: ListQuery): Promise<ContactOut[]> {
  const rows = await db
    .select()
    .from(contacts)
    .where(filters(projectId, q))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'email ASC'), contacts.id)
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  return rows.map(toContact);
}

/** countContacts counts live contacts matching the same filters as listContacts. */
export async function countContacts(db: Db, projectId: string, q: Partial<ListQuery>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(contacts).where(filters(projectId, q));
  return row.n;
}

/** The fields of a contact the API may give; each one given is named in the upsert row's `clear` (given null clears). */
const GIVEN_FIELDS = ['first_name', 'last_name', 'timezone', 'date_of_birth', 'json'] as const;

/** A contact as the upsert statement returns it (snake_case columns). */
interface ContactSqlRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  timezone: string | null;
  date_of_birth: Date | string | null;
  unsubscribed_at: Date | string | null;
  json: Record<string, unknown> | string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/**
 * upsertContacts validates every input first (email rules, time zone, date of birth, duplicates, ids), then writes
 * them with the one contact upsert (./upsert.ts): a contact given by id is updated, else the live contact with the
 * email (case-insensitive), else a new one; a field given replaces the stored value (null clears it, metadata is
 * replaced), a field left out is kept. In the same statement the contacts written enter the project's user_upserted
 * workflows. With `erasureKey` (core/privacy/key.ts; every request from outside gives it) a contact whose address
 * was erased is skipped and its place returned in `erased`; without it (the demo account's own seed) none is checked.
 * Returns the contacts in the order given and how many workflow runs started. Throws BadRequest naming each failing
 * field (`users[i].field`); nothing is written then.
 */
export async function upsertContacts(
  query: QueryFn,
  projectId: string,
  input: ContactIn[],
  erasureKey?: string,
): Promise<{ data: ContactOut[]; entered: number; erased: number[] }> {
  const errs = new FieldErrors();
  const seen = new Map<string, number>();
  const rows: UpsertRow[] = input.map((u, i) => {
    const f = `users[${i}]`;
    // The one set of contact rules (./rules.ts), which the subscribe forms apply too.
    for (const p of checkContactFields(u)) errs.add(`${f}.${p.field}`, p.message);
    const email = (u.email ?? '').trim();
    const key = email.toLowerCase();
    if (email && seen.has(key)) errs.add(`${f}.email`, `appears twice in this request (also users[${seen.get(key)}])`);
    seen.set(key, i);
    const dob = dateOfBirth(u.date_of_birth);
    return {
      id: u.id ?? null,
      email,
      first_name: u.first_name ?? null,
      last_name: u.last_name ?? null,
      timezone: u.timezone || null,
      date_of_birth: dob ? dob.toISOString() : null,
      json: u.json ?? null,
      clear: GIVEN_FIELDS.filter((k) => u[k] !== undefined),
      match: true,
    };
  });
  errs.throwIfAny();
  await checkIds(query, projectId, rows);
  const written = await query<ContactSqlRow & { entered: number; ord: number }>(upsertContactsSql({ enterWorkflows: true, returnContacts: true }), [
    projectId,
    JSON.stringify(erasureKey ? withAddressHashes(erasureKey, rows) : rows),
  ]);
  // A row the statement skipped had an erased address (core/privacy): it is named by its place, nothing is stored.
  const done = new Set(written.map((w) => Number(w.ord)));
  const erased = rows.map((_, i) => i).filter((i) => !done.has(i + 1));
  return { data: written.map(contactOut), entered: Number(written[0]?.entered ?? 0), erased };
}

/**
 * checkIds: every id given is a live contact of the project, and no contact given by id takes an address another
 * live contact has. Throws BadRequest naming `users[i].id` / `users[i].email`.
 */
async function checkIds(query: QueryFn, projectId: string, rows: UpsertRow[]): Promise<void> {
  const byIdRows = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.id);
  if (!byIdRows.length) return;
  const found = await query<{ id: string; email: string }>(
    `SELECT id, email FROM contacts WHERE project_id = $1 AND archived_at IS NULL AND (id = ANY($2::uuid[]) OR lower(email) = ANY($3::text[]))`,
    [projectId, byIdRows.map(({ r }) => r.id), byIdRows.map(({ r }) => r.email.toLowerCase())],
  );
  const ids = new Set(found.map((c) => c.id));
  const byEmail = new Map(found.map((c) => [c.email.toLowerCase(), c.id]));
  const notFound = new FieldErrors();
  for (const { r, i } of byIdRows) {
    if (!ids.has(r.id!)) notFound.add(`users[${i}].id`, `no contact ${r.id} in this project`);
    const other = byEmail.get(r.email.toLowerCase());
    if (other && other !== r.id) notFound.add(`users[${i}].email`, `another contact already has the email ${r.email}`);
  }
  notFound.throwIfAny();
}

/**
 * contactOut maps a contact row of the upsert statement to the API's Contact. Timestamps come as Dates, or as
 * PostgreSQL's text when the statement ran through a drizzle transaction on PGlite (queryOf), which parses none.
 */
function contactOut(r: ContactSqlRow): ContactOut {
  const at = (v: Date | string | null) => (v === null ? null : new Date(v));
  return {
    id: r.id,
    email: r.email,
    first_name: r.first_name,
    last_name: r.last_name,
    timezone: r.timezone,
    date_of_birth: iso(at(r.date_of_birth)),
    unsubscribed_at: iso(at(r.unsubscribed_at)),
    json: typeof r.json === 'string' ? JSON.parse(r.json) : (r.json ?? {}),
    version: Number(r.version),
    created_at: isoRequired(at(r.created_at)!),
    updated_at: isoRequired(at(r.updated_at)!),
  };
}

/**
 * archiveContactsByEmail archives the live contacts with the given emails (case-insensitive). Returns the map
 * email → archived contact (null when none) and an error per email not found; the found ones are archived regardless.
 */
export async function archiveContactsByEmail(
  db: Db,
  projectId: string,
  emailList: string,
): Promise<{ map: Record<string, ContactOut | null>; errors: string[] }> {
  const emails = splitList(emailList);
  const rows = await db
    .update(contacts)
    .set({ archivedAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        eq(contacts.projectId, projectId),
        isNull(contacts.archivedAt),
        inArray(
          sql`lower(${contacts.email})`,
          emails.map((e) => e.toLowerCase()),
        ),
      ),
    )
    .returning();
  const found = new Map(rows.map((r) => [r.email.toLowerCase(), toContact(r)]));
  const map: Record<string, ContactOut | null> = {};
  const errors: string[] = [];
  for (const e of emails) {
    map[e] = found.get(e.toLowerCase()) ?? null;
    if (!map[e]) errors.push(`emails: no contact with email ${e}`);
  }
  return { map, errors };
}

/**
 * liveContactsByEmail returns the project's live (not archived) contacts whose address is one of `emails`
 * (case-insensitive), with their id and address as stored.
 */
export async function liveContactsByEmail(db: Db, projectId: string, emails: string[]): Promise<Array<{ id: string; email: string }>> {
  if (!emails.length) return [];
  return db
    .select({ id: contacts.id, email: contacts.email })
    .from(contacts)
    .where(
      and(
        eq(contacts.projectId, projectId),
        isNull(contacts.archivedAt),
        inArray(
          sql`lower(${contacts.email})`,
          emails.map((e) => e.toLowerCase()),
        ),
      ),
    );
}

/** About how many of a project's contacts an estimate reads (filter_users' and the blast preview's estimated counts). */
export const ESTIMATE_SAMPLE_CONTACTS = 10_000;

/**
 * contactsSampleSql is the TABLESAMPLE clause an estimate reads `contacts` through: `percent` % of the table's pages,
 * picked at random but REPEATABLE, so every statement of one estimate (the matches, the project's contacts) reads
 * the same pages while the table is unchanged.
 */
export const contactsSampleSql = (percent: number) => ` TABLESAMPLE SYSTEM (${Number(percent)}) REPEATABLE (24)`;

/** The planner's count of project $1's live contacts (EXPLAIN: statistics, no scan). */
async function plannedProjectContacts(query: QueryFn, projectId: string): Promise<number> {
  const [plan] = await query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
    'EXPLAIN (FORMAT JSON) SELECT 1 FROM contacts WHERE project_id = $1 AND archived_at IS NULL',
    [projectId],
  );
  return plan['QUERY PLAN'][0].Plan['Plan Rows'];
}

/**
 * contactSampleShare is the share (0–1] of the contacts table's pages an estimate reads (contactsSampleSql) so that
 * about `sample` of project `projectId`'s contacts are in it (a sample of p % of the pages holds about p % of the
 * project's contacts), from the planner's statistics; 1 when the project is that small (then it is counted exactly).
 * At least 0.1 % of the table. Used by filter_users (core/segments) and the blast preview (core/audience) with
 * `total`/`counts: estimate`.
 */
export async function contactSampleShare(query: QueryFn, projectId: string, sample: number): Promise<number> {
  const projectRows = await plannedProjectContacts(query, projectId);
  if (projectRows <= sample) return 1;
  return Math.min(1, Math.max(0.001, sample / projectRows));
}

/**
 * sampleScale is what a count over the sample of `share` (contactsSampleSql(share × 100)) is multiplied by to
 * estimate the whole: the project's live contacts (planner's statistics) over those on the sample's pages. A ratio
 * estimate: how many pages the sample happens to pick varies from run to run (±5 % at 2 %), and this cancels it. 1 /
 * share when the sample holds none of the project's contacts.
 */
export async function sampleScale(query: QueryFn, projectId: string, share: number): Promise<number> {
  const [[sampled], projectRows] = await Promise.all([
    query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts${contactsSampleSql(share * 100)} WHERE project_id = $1 AND archived_at IS NULL`, [projectId]),
    plannedProjectContacts(query, projectId),
  ]);
  return sampled.n ? projectRows / sampled.n : 1 / share;
}

/**
 * mergeContactMetadata merges `json` into the metadata (json column) of the project's live contacts `ids` (a
 * workflow's Update contact step). Resolves with the ids updated (archived or unknown ones are skipped).
 */
export async function mergeContactMetadata(query: QueryFn, projectId: string, ids: string[], json: Record<string, unknown>): Promise<string[]> {
  if (!ids.length) return [];
  return (await query<{ id: string }>(MERGE_CONTACT_METADATA, [projectId, ids, JSON.stringify(json)])).map((r) => r.id);
}
