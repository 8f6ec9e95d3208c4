/**
 * The job queue: pg-boss on the same database (PGlite through an executeSql adapter, or PostgreSQL). Jobs are claimed
 * with SKIP LOCKED, so any number of worker processes share them without double work.
 */
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import type { Database, QueryFn } from '../../db/client.ts';
import type { JobQueue } from '../../context.ts';
import { JOB_NAMES, JOBS } from './registry.ts';
import type { JobName, JobPayloads } from './payloads.ts';

/** The schema pg-boss keeps its tables in (openQueue). */
const BOSS_SCHEMA = 'pgboss';

/** The pg-boss schema version this pg-boss needs (its version.json; pg-boss migrates to it when it starts). */
const BOSS_SCHEMA_VERSION: number = createRequire(import.meta.url)('pg-boss/version.json').schema;

export interface Queue extends JobQueue {
  boss: PgBoss;
  /** work runs `handler` for jobs of `name` (batches of up to `batchSize`), polling every `pollingIntervalSeconds` (≥0.5); a job this process enqueues already due wakes it at once. */
  work<N extends JobName>(
    name: N,
    opts: { batchSize?: number; pollingIntervalSeconds?: number },
    handler: (data: JobPayloads[N]) => Promise<void>,
  ): Promise<void>;
  stop(): Promise<void>;
}

/** openQueue starts pg-boss (creating its schema on first use) and every queue of the registry (jobs.ts). */
export async function openQueue(database: Database): Promise<Queue> {
  const boss = new PgBoss({ ...(database.bossOptions as PgBoss.ConstructorOptions), schema: BOSS_SCHEMA });
  // Workers of this process per queue: a job that is already due wakes them at once instead of waiting for their poll.
  const local = new Map<string, string[]>();
  boss.on('error', (err) => console.error('pg-boss:', err.message));
  await boss.start();
  for (const q of JOB_NAMES) await boss.createQueue(q, JOBS[q].policy ? { name: q, policy: JOBS[q].policy } : undefined);
  return {
    boss,
    async enqueue(name, data, opts = {}) {
      await boss.send(name, data, {
        startAfter: opts.startAfter,
        singletonKey: opts.singletonKey,
        retryLimit: 10,
        retryDelay: 5,
        retryBackoff: true,
      });
      if (!opts.startAfter || opts.startAfter.getTime() <= Date.now()) for (const id of local.get(name) ?? []) boss.notifyWorker(id);
    },
    async work(name, opts, handler) {
      const id = await boss.work(name, { batchSize: opts.batchSize ?? 1, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1 }, async (jobs) => {
        for (const job of jobs) await handler(job.data as never);
      });
      local.set(name, [...(local.get(name) ?? []), id]);
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}

/**
 * QUEUE_DEPTHS: jobs not finished per queue and state (created: waiting for its start_after or a worker; retry: failed
 * and waiting to be tried again; active: a worker holds it). pg-boss's job states are an enum ordered created < retry
 * < active < completed, as its own indexes use them.
 */
export const QUEUE_DEPTHS = `SELECT name, state::text AS state, count(*)::int AS jobs FROM ${BOSS_SCHEMA}.job WHERE state < 'completed' GROUP BY name, state`;

/** queueDepths counts unfinished jobs by queue and state (QUEUE_DEPTHS): rows {name, state, jobs}. Rejects when the database does. */
export async function queueDepths(query: QueryFn): Promise<Array<{ name: string; state: string; jobs: number }>> {
  return (await query<{ name: string; state: string; jobs: number }>(QUEUE_DEPTHS)).map((r) => ({ ...r, jobs: Number(r.jobs) }));
}

/** QUEUE_INSTALLED: whether pg-boss's version table exists (a statement naming a missing table would fail to plan). */
const QUEUE_INSTALLED = `SELECT to_regclass('${BOSS_SCHEMA}.version') IS NOT NULL AS installed`;
/** QUEUE_VERSION: the installed pg-boss schema version (no row: none recorded). */
const QUEUE_VERSION = `SELECT version::int AS version FROM ${BOSS_SCHEMA}.version LIMIT 1`;

/**
 * queueProblem says why the queue is not usable on this database, or undefined when it is: pg-boss's schema is missing
 * or older than this pg-boss needs (it is installed and migrated when a process starts pg-boss). Rejects when the
 * database does not answer.
 */
export async function queueProblem(query: QueryFn): Promise<string | undefined> {
  const [{ installed }] = await query<{ installed: boolean }>(QUEUE_INSTALLED);
  const version = installed ? (await query<{ version: number }>(QUEUE_VERSION))[0]?.version : undefined;
  if (version === undefined || version === null) return `queue: pg-boss's schema ${BOSS_SCHEMA} is not installed`;
  if (Number(version) < BOSS_SCHEMA_VERSION) return `queue: pg-boss's schema is at version ${version}, this pg-boss needs ${BOSS_SCHEMA_VERSION}`;
  return undefined;
}
