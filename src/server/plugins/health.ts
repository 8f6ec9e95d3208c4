/**
 * Health endpoints for orchestrators and load balancers:
 * - `GET /healthz`: the process is up and serving HTTP (liveness; touches nothing else). 200 {ok, database}.
 * - `GET /readyz`: the process can do its work (readiness): the database answers `SELECT 1` within READY_TIMEOUT_MS,
 *   the job queue's tables are there at the version this pg-boss needs, and every migration of this build is applied.
 *   200 {ready: true} when all hold, else 503 {errors: [...]} with one message per check that failed, named by what it
 *   is about (`database: …`, `queue: …`, `migrations: …`). Neither needs a key: they say nothing about any tenant.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import type { QueryFn } from '../db/client.ts';
import { pendingMigrations, readJournal } from '../db/migrationState.ts';
import { queueProblem } from '../core/jobs/queue.ts';

/** How long (ms) each readiness check may take before it counts as failed. */
export const READY_TIMEOUT_MS = 2000;

/**
 * withTimeout resolves as `promise` does, or rejects with "did not answer within <ms> ms" after `ms` (the promise
 * itself runs on; only the wait ends).
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * readiness runs the /readyz checks over `query` and returns what is not ready, one message each (empty when
 * ready). `journal` is the build's migrations (db/migrationState.ts readJournal); each check waits at most
 * `timeoutMs` (ms). Never rejects.
 */
export async function readiness(query: QueryFn, journal: ReturnType<typeof readJournal>, timeoutMs = READY_TIMEOUT_MS): Promise<string[]> {
  try {
    await withTimeout(query('SELECT 1'), timeoutMs);
  } catch (err) {
    // The other checks need the database too: one message says it all.
    return [`database: not answering (${(err as Error).message})`];
  }
  const [queue, migrations] = await Promise.all([
    withTimeout(queueProblem(query), timeoutMs).catch((err: Error) => `queue: cannot read pg-boss's schema (${err.message})`),
    withTimeout(pendingMigrations(query, journal), timeoutMs).then(
      (pending) => (pending.length ? `migrations: ${pending.length} not applied (${pending.join(', ')}); a server start applies them` : undefined),
      (err: Error) => `migrations: cannot read the applied migrations (${err.message})`,
    ),
  ]);
  return [queue, migrations].filter((m): m is string => !!m);
}

/** registerHealth adds GET /healthz and GET /readyz over `ctx`'s database. */
export async function registerHealth(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const journal = readJournal();
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  app.get('/healthz', async () => ({ ok: true, database: ctx.database.kind }));
  app.get('/readyz', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    const problems = await readiness(query, journal);
    if (problems.length) return reply.code(503).send({ errors: problems });
    return { ready: true };
  });
}
