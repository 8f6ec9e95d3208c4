/**
 * Retention (README "Privacy"; openapi/companyauthwrapper.yaml getRetention, setRetention): each project chooses how
 * many days it keeps raw events (the reports keep their aggregates), the stored copies of sent emails, sign-ups never
 * confirmed and its job log; unset keeps them for ever. `applyRetention` is the nightly 'retention' job
 * (core/jobs/registry.ts, RETENTION_CRON): it makes the coming months' event partitions, then lets go of what each
 * project keeps no longer — old months of events as whole partitions where it can (core/events/partitions.ts) — and
 * refreshes the events table's statistics, which autovacuum never does for a partitioned table (analyseEvents).
 */
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { decodeLocation } from '../../../domain/location.ts';
import { analyseEvents, ensureEventPartitions, expireEvents, trimFuturePartitions } from '../events/partitions.ts';
import { EXPIRED_COPIES, FORGET_COPIES } from '../sending/retention.ts';
import { deleteUnconfirmed } from '../subscriptions/index.ts';

/** A project's retention settings, in days (null: kept for ever). */
export interface Retention {
  events_days: number | null;
  copies_days: number | null;
  unconfirmed_days: number | null;
  job_log_days: number | null;
}

/** The range a retention setting may take, in days (1 day to 10 years). */
export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 3650;

const DAY_MS = 86_400_000;
/** Stored copies deleted per round (one storage call, one statement). */
const COPIES_BATCH = 1000;

/** getRetention returns project `projectId`'s settings. */
export async function getRetention(query: QueryFn, projectId: string): Promise<Retention> {
  const [r] = await query<Retention>(
    `SELECT events_retention_days AS events_days, copies_retention_days AS copies_days, unconfirmed_retention_days AS unconfirmed_days,
            job_log_retention_days AS job_log_days FROM projects WHERE id = $1`,
    [projectId],
  );
  return r;
}

/** setRetention saves project `projectId`'s settings (the spec's validator has checked the range) and returns them. */
export async function setRetention(query: QueryFn, projectId: string, r: Retention): Promise<Retention> {
  await query(
    `UPDATE projects SET events_retention_days = $2, copies_retention_days = $3, unconfirmed_retention_days = $4, job_log_retention_days = $5 WHERE id = $1`,
    [projectId, r.events_days, r.copies_days, r.unconfirmed_days, r.job_log_days],
  );
  return getRetention(query, projectId);
}

/** What one retention run let go. */
export interface RetentionRun {
  partitionsMade: number;
  /** Empty partitions of months further ahead than needed (trimFuturePartitions). */
  partitionsTrimmed: string[];
  /** Past months dropped whole because no project keeps their events. */
  partitionsDropped: string[];
  eventsDeleted: number;
  copiesDeleted: number;
  unconfirmedDeleted: number;
  jobLogDeleted: number;
}

/**
 * applyRetention runs retention once at `now` (see the module comment) for every project with a setting. Throws
 * what the database or the storage throws; what was done before stays done (each step is idempotent).
 */
export async function applyRetention(ctx: Pick<AppContext, 'database' | 'storage'>, now = new Date()): Promise<RetentionRun> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const run: RetentionRun = {
    partitionsMade: 0,
    partitionsTrimmed: [],
    partitionsDropped: [],
    eventsDeleted: 0,
    copiesDeleted: 0,
    unconfirmedDeleted: 0,
    jobLogDeleted: 0,
  };
  run.partitionsMade = await ensureEventPartitions(query, now);
  run.partitionsTrimmed = await trimFuturePartitions(ctx.database, now);
  const projects = await query<Retention & { id: string }>(
    `SELECT id, events_retention_days AS events_days, copies_retention_days AS copies_days, unconfirmed_retention_days AS unconfirmed_days,
            job_log_retention_days AS job_log_days FROM projects
      WHERE events_retention_days IS NOT NULL OR copies_retention_days IS NOT NULL OR unconfirmed_retention_days IS NOT NULL OR job_log_retention_days IS NOT NULL`,
  );
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const cutoffs = new Map(projects.filter((p) => p.events_days !== null).map((p) => [p.id, before(p.events_days!)]));
  const expired = await expireEvents(ctx.database, cutoffs);
  run.partitionsDropped = expired.dropped;
  run.eventsDeleted = expired.deleted;
  await analyseEvents(query);
  for (const p of projects) {
    if (p.copies_days !== null) run.copiesDeleted += await expireCopies(ctx, p.id, before(p.copies_days));
    if (p.unconfirmed_days !== null) run.unconfirmedDeleted += await deleteUnconfirmed(query, p.id, before(p.unconfirmed_days));
    if (p.job_log_days !== null) {
      const gone = await query(`DELETE FROM job_log WHERE project_id = $1 AND started_at < $2 AND ended_at IS NOT NULL RETURNING id`, [
        p.id,
        before(p.job_log_days).toISOString(),
      ]);
      run.jobLogDeleted += gone.length;
    }
  }
  return run;
}

/** expireCopies deletes project `projectId`'s stored copies of emails sent before `cutoff` from storage, then forgets their locations; returns how many. */
async function expireCopies(ctx: Pick<AppContext, 'database' | 'storage'>, projectId: string, cutoff: Date): Promise<number> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  let n = 0;
  for (;;) {
    const rows = await query<{ id: string; location: string }>(EXPIRED_COPIES, [projectId, cutoff.toISOString(), COPIES_BATCH]);
    if (!rows.length) return n;
    const byBucket = new Map<string, string[]>();
    for (const r of rows) {
      const at = decodeLocation(r.location);
      if (at) byBucket.set(at.bucket, [...(byBucket.get(at.bucket) ?? []), at.key]);
    }
    for (const [bucket, keys] of byBucket) await ctx.storage.deleteMany(bucket, keys);
    await query(FORGET_COPIES, [projectId, rows.map((r) => r.id)]);
    n += rows.length;
    if (rows.length < COPIES_BATCH) return n;
  }
}
