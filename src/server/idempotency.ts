/**
 * Work done at most once per key (the events API's Idempotency-Key, SNS redeliveries by MessageId). Keys, a fingerprint of the request and the first answer live in `event_batches` for 24 hours. The rules follow
 * the IETF httpapi Idempotency-Key draft: the same key with the same request replays the first answer; the same key
 * with a different request is refused with 422 and stores nothing.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { QueryFn } from './db/client.ts';
import { HttpError } from './errors.ts';

/** KeyReused: 422, an Idempotency-Key already used (within 24 hours) for a different request. */
export class KeyReused extends HttpError {
  constructor(readonly key: string) {
    super(422, [`Idempotency-Key: "${key}" was already used for a different request in the last 24 hours; use a new key for a new batch`]);
  }
}

/**
 * requestFingerprint returns the SHA-256 (hex) of a request body's canonical JSON (RFC 8785: keys sorted, numbers and
 * strings in one form), so the same batch sent again with its keys in another order is the same request.
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(canonicalize(body) ?? 'undefined')
    .digest('hex');
}

/**
 * claimKey claims `key` for the project: true the first time in 24 hours, false when it was claimed before (a
 * webhook's replayed token or signature, a repeated Idempotency-Key). Entries older than 24 hours are dropped first;
 * `fingerprint` is stored with the claim (oncePerKey). Inside a transaction, a concurrent claim waits for it.
 */
export async function claimKey(run: QueryFn, projectId: string, key: string, fingerprint?: string): Promise<boolean> {
  await run(`DELETE FROM event_batches WHERE project_id = $1 AND created_at < now() - interval '24 hours'`, [projectId]);
  const claimed = await run(
    `INSERT INTO event_batches (project_id, idempotency_key, request_hash, response) VALUES ($1, $2, $3, '{}')
     ON CONFLICT (project_id, idempotency_key) DO NOTHING RETURNING 1`,
    [projectId, key, fingerprint ?? null],
  );
  return claimed.length > 0;
}

/**
 * oncePerKey runs `work` inside the caller's transaction (`run`) unless `key` was already used by the project, in
 * which case it returns the stored answer of the first run instead. With a `fingerprint` (requestFingerprint of the
 * request), a key first used for a request with another fingerprint throws KeyReused (422) instead of replaying; a key
 * stored without one (SNS MessageIds) always replays. A concurrent second call waits on the unique index until the
 * first commits, then replays it or is refused. Entries older than 24 hours are dropped first. Returns the answer
 * and whether it is a replay; errors from `work` roll the claim back with the transaction.
 */
export async function oncePerKey<T>(
  run: QueryFn,
  projectId: string,
  key: string,
  work: () => Promise<T>,
  fingerprint?: string,
): Promise<{ result: T; replayed: boolean }> {
  if (!(await claimKey(run, projectId, key, fingerprint))) {
    const [prior] = await run<{ response: T; request_hash: string | null }>(
      'SELECT response, request_hash FROM event_batches WHERE project_id = $1 AND idempotency_key = $2',
      [projectId, key],
    );
    if (fingerprint && prior.request_hash && prior.request_hash !== fingerprint) throw new KeyReused(key);
    return { result: prior.response, replayed: true };
  }
  const result = await work();
  await run('UPDATE event_batches SET response = $3 WHERE project_id = $1 AND idempotency_key = $2', [projectId, key, JSON.stringify(result)]);
  return { result, replayed: false };
}

/** KeyInFlight: 409, the first request with this Idempotency-Key is still being handled. */
export class KeyInFlight extends HttpError {
  constructor(readonly key: string) {
    super(409, [`Idempotency-Key: a request with "${key}" is still being handled; retry after it answers`]);
  }
}

/** A claim left in flight longer than this (ms) is taken for abandoned (its process died): the key may be used again. */
const IN_FLIGHT_ABANDONED_MS = 5 * 60_000;

/**
 * oncePerKeyOutside runs `work` at most once per `key` of the project when `work` runs its own transactions (the
 * sending API, whose queueing must not wait behind a claim's transaction): the key is claimed in flight in a statement
 * of its own first, so a concurrent request with the same key is answered at once — KeyInFlight (409) while the first
 * is under way, its stored answer (`replayed`) once it finished, KeyReused (422) for a different `fingerprint`. When
 * `work` throws, the claim is dropped (a retry may run) and the error rethrown. A claim left in flight over 5 minutes
 * (a process that died) is dropped and taken anew. Keys are kept 24 hours.
 */
export async function oncePerKeyOutside<T>(
  run: QueryFn,
  projectId: string,
  key: string,
  fingerprint: string,
  work: () => Promise<T>,
): Promise<{ result: T; replayed: boolean }> {
  await run(
    `DELETE FROM event_batches WHERE project_id = $1 AND (created_at < now() - interval '24 hours'
       OR (idempotency_key = $2 AND in_flight AND created_at < now() - ($3 || ' milliseconds')::interval))`,
    [projectId, key, String(IN_FLIGHT_ABANDONED_MS)],
  );
  const claimed = await run(
    `INSERT INTO event_batches (project_id, idempotency_key, request_hash, response, in_flight) VALUES ($1, $2, $3, '{}', true)
     ON CONFLICT (project_id, idempotency_key) DO NOTHING RETURNING 1`,
    [projectId, key, fingerprint],
  );
  if (!claimed.length) {
    const [prior] = await run<{ response: T; request_hash: string | null; in_flight: boolean }>(
      'SELECT response, request_hash, in_flight FROM event_batches WHERE project_id = $1 AND idempotency_key = $2',
      [projectId, key],
    );
    if (!prior) return oncePerKeyOutside(run, projectId, key, fingerprint, work);
    if (prior.request_hash !== fingerprint) throw new KeyReused(key);
    if (prior.in_flight) throw new KeyInFlight(key);
    return { result: prior.response, replayed: true };
  }
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await run('DELETE FROM event_batches WHERE project_id = $1 AND idempotency_key = $2 AND in_flight', [projectId, key]);
    throw err;
  }
  await run('UPDATE event_batches SET response = $3, in_flight = false WHERE project_id = $1 AND idempotency_key = $2', [
    projectId,
    key,
    JSON.stringify(result),
  ]);
  return { result, replayed: false };
}
