/**
 * Work done at most once per key (issue 5: the events API's Idempotency-Key, SNS redeliveries by MessageId). Keys and
 * the first answer live in `event_batches` for 24 hours.
 */
import type { QueryFn } from './db/client.ts';

/**
 * oncePerKey runs `work` inside the caller's transaction (`run`) unless `key` was already used by the project, in
 * which case it returns the stored answer of the first run instead. A concurrent second call waits on the unique
 * index until the first commits, then replays it. Entries older than 24 hours are dropped first. Returns the answer
 * and whether it is a replay; errors from `work` roll the claim back with the transaction.
 */
export async function oncePerKey<T>(run: QueryFn, projectId: string, key: string, work: () => Promise<T>): Promise<{ result: T; replayed: boolean }> {
  await run(`DELETE FROM event_batches WHERE project_id = $1 AND created_at < now() - interval '24 hours'`, [projectId]);
  const claimed = await run(
    `INSERT INTO event_batches (project_id, idempotency_key, response) VALUES ($1, $2, '{}') ON CONFLICT (project_id, idempotency_key) DO NOTHING RETURNING 1`,
    [projectId, key]);
  if (!claimed.length) {
    const [prior] = await run<{ response: T }>('SELECT response FROM event_batches WHERE project_id = $1 AND idempotency_key = $2', [projectId, key]);
    return { result: prior.response, replayed: true };
  }
  const result = await work();
  await run('UPDATE event_batches SET response = $3 WHERE project_id = $1 AND idempotency_key = $2', [projectId, key, JSON.stringify(result)]);
  return { result, replayed: false };
}
