/**
 * The events table's monthly partitions (migration 0031, sql/event_partitions.sql) and the raw events retention lets
 * go (core/privacy/retention.ts). A month whose events all belong to projects that keep raw events for less time than
 * has passed since the month's end is dropped as a table: no row-by-row delete, no trigger, the report aggregates and
 * the contacts' counts untouched. Otherwise a project's expired rows are deleted in batches, with `mailwright.retention`
 * set so the count triggers leave what they counted (core/contacts/sql/contact_event_counts.sql).
 */
import type { Database, QueryFn } from '../../db/client.ts';

/**
 * How many months ahead partitions are made (at start and by each retention run; the migration made a year ahead).
 * Every partition, empty or not, is planned for each query that cannot prune by date: the lists of recent opens and
 * clicks planned in 1.3–1.7 ms over 18 partitions, 0.6 ms over 9 (docs/bench-log.md, 2026-11-29 reports before and
 * after), so the retention run drops empty ones further ahead (trimFuturePartitions).
 */
export const PARTITION_MONTHS_AHEAD = 2;

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

/**
 * analyseEvents refreshes the planner's statistics of the events table as a whole (`ANALYZE events`, which samples
 * the partitions and analyses each of them too; about 2 s for 11 M rows here). Autovacuum analyses each month's table
 * but never the partitioned parent (PostgreSQL manual, "Routine Vacuuming": partitioned tables are not processed by
 * autovacuum), so the nightly retention run does it, and the start when it was never done (the rebuild into
 * partitions leaves no statistics at all: a report over one campaign then took 148 ms at p95 instead of 8 ms;
 * docs/bench-log.md, 2026-11-29 reports before and after). `onlyIfNever` skips it when the parent has statistics.
 */
export async function analyseEvents(query: QueryFn, onlyIfNever = false): Promise<void> {
  if (onlyIfNever) {
    // The statistics themselves (a catalogue, kept across restarts), not the activity counters: PGlite forgets those
    // at every start, which made every start analyse again. An empty table gets none, and its ANALYZE costs nothing.
    const [{ has }] = await query<{ has: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'events' AND inherited) AS has`);
    if (has) return;
  }
  await query('ANALYZE events');
}

/**
 * trimFuturePartitions drops the monthly partitions that start more than PARTITION_MONTHS_AHEAD months after `now`'s
 * month and hold no row (checked under the table's lock, so a row written meanwhile keeps it); returns their names.
 * ensureEventPartitions makes them again as their month comes near.
 */
export async function trimFuturePartitions(database: Database, now = new Date()): Promise<string[]> {
  const query = database.query.bind(database) as QueryFn;
  const limit = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + PARTITION_MONTHS_AHEAD, 1);
  const dropped: string[] = [];
  for (const p of await eventPartitions(query)) {
    if (p.from.getTime() <= limit) continue;
    const gone = await database.transaction(async (tx) => {
      await tx(`SET LOCAL lock_timeout = '5s'`);
      await tx(`LOCK TABLE "${p.name}" IN ACCESS EXCLUSIVE MODE`);
      const [{ empty }] = await tx<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM "${p.name}") AS empty`);
      if (empty) await tx(`DROP TABLE "${p.name}"`);
      return empty;
    });
    if (gone) dropped.push(p.name);
  }
  return dropped;
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
    const projects = (await query<{ project_id: string }>(projectsIn(p.name))).map((r) => r.project_id);
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

/**
 * projectsIn: SQL listing the projects with events in partition `table`, by skipping through its (project_id,
 * emitted_at) index, one probe per project, rather than reading a month's rows (a GROUP BY over 1,000,000 rows).
 */
const projectsIn = (table: string) => `WITH RECURSIVE p AS (
    (SELECT project_id FROM "${table}" ORDER BY project_id LIMIT 1)
    UNION ALL
    SELECT (SELECT project_id FROM "${table}" WHERE project_id > p.project_id ORDER BY project_id LIMIT 1) FROM p WHERE p.project_id IS NOT NULL)
  SELECT project_id FROM p WHERE project_id IS NOT NULL`;

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
