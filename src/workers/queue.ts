/**
 * The job queue: pg-boss on the same database (PGlite through an executeSql adapter, or PostgreSQL). Jobs are claimed
 * with SKIP LOCKED, so any number of worker processes share them without double work.
 */
import PgBoss from 'pg-boss';
import type { Database } from '../server/db/client.ts';
import type { JobQueue } from '../server/context.ts';
import { JOB_NAMES, type JobName, type JobPayloads } from './jobs.ts';

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
  const boss = new PgBoss({ ...(database.bossOptions as PgBoss.ConstructorOptions), schema: 'pgboss' });
  // Workers of this process per queue: a job that is already due wakes them at once instead of waiting for their poll.
  const local = new Map<string, string[]>();
  boss.on('error', (err) => console.error('pg-boss:', err.message));
  await boss.start();
  for (const q of JOB_NAMES) await boss.createQueue(q);
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
