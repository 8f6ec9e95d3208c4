/**
 * The events table's monthly partitions (migration 0031, sql/event_partitions.sql) and the raw events retention lets
 * go (core/privacy/retention.ts). A month whose events all belong to projects that keep raw events for less time than
 * has passed since the month's end is dropped as a table: no row-by-row delete, no trigger, the report aggregates and
 * the contacts' counts untouched. Otherwise a project's expired rows are deleted in batches, with `mailwright.retention`
 * set so the count triggers leave what they counted (core/contacts/sql/contact_event_counts.sql).
 */
import type { Database, QueryFn } from '../../db/client.ts';

/** How many months ahead partitions are made (by the migration, at start and by each retention run). */
export const PARTITION_MONTHS_AHEAD = 12;

/** Rows deleted per statement when a project's expired events cannot go as a whole month. */
const DELETE_BATCH = 10_000;

/** ensureEventPartitions makes the monthly partitions missing from `now`'s month to PARTITION_MONTHS_AHEAD after; returns how many. */
export async function ensureEventPartitions(query: QueryFn, now = new Date()): Promise<number> {
  const [{ made }] = await query<{ made: number }>(
    `SELECT events_ensure_partitions(($1::timestamptz AT TIME ZONE 'UTC')::date, (($1::timestamptz AT TIME ZONE 'UTC') + make_interval(months => $2))::date) AS made`,
    [now.toISOString(), PARTITION_MONTHS_AHEAD],
  );
  return Number(made);
}

/** A monthly partition: its table and bounds (UTC). */
export interface EventPartition {
  name: string;
  from: Date;
  to: Date;
}

/** eventPartitions lists the monthly partitions, oldest first (events_default is not one). */
export async function eventPartitions(query: QueryFn): Promise<EventPartition[]> {
  const rows = await query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`,
  );
  return rows
    .map((r) => /^events_y(\d{4})m(\d{2})$/.exec(r.name))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ name: m[0], from: new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)), to: new Date(Date.UTC(Number(m[1]), Number(m[2]), 1)) }));
}

/** What expireEvents did: the partitions dropped and the rows deleted one by one. */
export interface ExpiredEvents {
  dropped: string[];
  deleted: number;
}

/**
 * expireEvents lets go of the raw events older than each project's cutoff (`cutoffs`: project id → the time before
 * which its events go; a project not in the map keeps its events). A month partition is dropped when every project
 * with events in it has a cutoff at or after the month's end; else each such project's expired rows in it are
 * deleted in batches, as are expired rows in events_default. Report aggregates and contact counts are untouched.
 */
export async function expireEvents(database: Database, cutoffs: Map<string, Date>): Promise<ExpiredEvents> {
  const result: ExpiredEvents = { dropped: [], deleted: 0 };
  if (!cutoffs.size) return result;
  const query = database.query.bind(database) as QueryFn;
  const latest = Math.max(...[...cutoffs.values()].map((d) => d.getTime()));
  for (const p of await eventPartitions(query)) {
    if (p.from.getTime() >= latest) break;
    const projects = (await query<{ project_id: string }>(`SELECT project_id FROM "${p.name}" GROUP BY project_id`)).map((r) => r.project_id);
    if (!projects.length) continue;
    if (projects.every((id) => (cutoffs.get(id)?.getTime() ?? -Infinity) >= p.to.getTime())) {
      // The whole month goes as a table; a writer holding the parent makes this wait at most the lock time-out.
      await database.transaction(async (tx) => {
        await tx(`SET LOCAL lock_timeout = '5s'`);
        await tx(`DROP TABLE "${p.name}"`);
      });
      result.dropped.push(p.name);
      continue;
    }
    for (const id of projects) {
      const cutoff = cutoffs.get(id);
      if (cutoff && cutoff > p.from) result.deleted += await deleteExpired(database, id, p.from, new Date(Math.min(cutoff.getTime(), p.to.getTime())));
    }
  }
  // Events dated outside the monthly partitions.
  for (const [id, cutoff] of cutoffs) result.deleted += await deleteExpired(database, id, new Date(0), cutoff, 'events_default');
  return result;
}

/** deleteExpired deletes project `projectId`'s events in [from, to) from `table` (events: all partitions), in batches; returns how many. */
async function deleteExpired(database: Database, projectId: string, from: Date, to: Date, table = 'events'): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await database.transaction(async (tx) => {
      await tx(`SET LOCAL mailwright.retention = 'on'`);
      const rows = await tx<{ n: number }>(
        `WITH gone AS (DELETE FROM events WHERE (id, emitted_at) IN (
            SELECT id, emitted_at FROM "${table}" WHERE project_id = $1 AND emitted_at >= $2 AND emitted_at < $3 LIMIT ${DELETE_BATCH})
          RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [projectId, from.toISOString(), to.toISOString()],
      );
      return Number(rows[0].n);
    });
    deleted += n;
    if (n < DELETE_BATCH) return deleted;
  }
}
