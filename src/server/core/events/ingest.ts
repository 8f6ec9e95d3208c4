/**
 * The public events API (`POST {event}/events`; spec part 1 §7, part 2 §2): customers post batches of
 * events {name, email, metric1..3, json}. Each event is checked on its own; the valid ones are stored in one
 * statement (user_id resolved from the project's contacts by email), the bad ones are reported by index and field.
 * An Idempotency-Key makes a retried batch store nothing twice. The statement triggers on events (report
 * aggregates, per-contact counts, workflow entry) run in the same statement (docs/architecture.md §6).
 */
import type { Database, QueryFn } from '../../db/client.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { oncePerKey, requestFingerprint } from '../../idempotency.ts';
import { recordApiEvents, type ApiEvent } from './index.ts';
import { EVENT } from '../../../domain/events.ts';

/**
 * The event names only the product records (src/domain/events.ts EVENT: sends, failures, bounces, complaints, opens,
 * clicks, unsubscribes, workflow runs), lower case. The events API refuses them: on a shared service
 * a customer posting its own "sends" could dilute its bounce rate and hide from the circuit-breaker that protects
 * every customer's reputation, and its reports and bill would count them.
 */
const SYSTEM_EVENT_NAMES = new Set<string>(Object.values(EVENT).map((n) => n.toLowerCase()));

/** Largest batch: events per request and bytes of request body. */
export const EVENT_BATCH_LIMITS = { events: 1000, bytes: 1024 * 1024 } as const;

/** The result of one batch, as the API answers it (EventBatchResult). */
export interface EventBatchResult {
  stored: number;
  ids: string[];
  failed: Array<{ index: number; errors: string[] }>;
  errors: string[];
}

interface ValidEvent extends ApiEvent {
  index: number;
}

/**
 * checkEvent validates one posted event; returns its problems as `events[i].field: message` strings, or the
 * normalised event. json: an object is kept as is, any other value is wrapped as {value}.
 */
export function checkEvent(raw: unknown, index: number): { errors: string[] } | { event: ValidEvent } {
  const at = (field: string, msg: string) => `events[${index}].${field}: ${msg}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { errors: [`events[${index}]: must be an object`] };
  const e = raw as Record<string, unknown>;
  const errors: string[] = [];
  if (typeof e.name !== 'string' || !e.name.trim()) errors.push(at('name', 'Required field'));
  else if (e.name.length > 200) errors.push(at('name', 'at most 200 characters'));
  else if (SYSTEM_EVENT_NAMES.has(e.name.trim().toLowerCase())) {
    errors.push(
      at(
        'name',
        `"${e.name.trim()}" is an event Mailwright records itself (sends, failures, bounces, complaints, opens, clicks, unsubscribes and workflow runs) and cannot be posted; report bounces and complaints from another relay to POST /api/event/feedback, and name your own events differently`,
      ),
    );
  }
  const emailError = typeof e.email === 'string' || e.email == null ? checkEmail(e.email) : 'must be a string';
  if (emailError) errors.push(at('email', emailError));
  const metrics = (['metric1', 'metric2', 'metric3'] as const).map((m) => {
    const v = e[m];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      errors.push(at(m, 'must be a number'));
      return null;
    }
    return v;
  });
  let emittedAt: string | null = null;
  if (e.emitted_at !== undefined && e.emitted_at !== null) {
    const d = typeof e.emitted_at === 'string' ? new Date(e.emitted_at) : undefined;
    if (!d || Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(e.emitted_at as string)) errors.push(at('emitted_at', 'must be an ISO 8601 date-time'));
    else emittedAt = d.toISOString();
  }
  if (errors.length) return { errors };
  const json =
    e.json === undefined || e.json === null
      ? {}
      : typeof e.json === 'object' && !Array.isArray(e.json)
        ? (e.json as Record<string, unknown>)
        : { value: e.json };
  return { event: { index, name: (e.name as string).trim(), email: (e.email as string).trim(), metrics, json, emittedAt } };
}

/**
 * ingestEvents checks and stores one batch for a project. Returns the HTTP status (200 when at least one event was
 * stored, 400 when none), the result, and whether it is a replay of an earlier batch with the same idempotency key.
 * Nothing is half-written: the events and the idempotency record commit together. Throws KeyReused (422) when the
 * key was used in the last 24 hours for a different batch.
 */
export async function ingestEvents(
  database: Database,
  projectId: string,
  batch: unknown[],
  idempotencyKey?: string,
): Promise<{ status: number; result: EventBatchResult; replayed: boolean }> {
  const failed: EventBatchResult['failed'] = [];
  const valid: ValidEvent[] = [];
  batch.forEach((raw, i) => {
    const checked = checkEvent(raw, i);
    if ('errors' in checked) failed.push({ index: i, errors: checked.errors });
    else valid.push(checked.event);
  });
  const errors = failed.flatMap((f) => f.errors);
  if (!valid.length) return { status: 400, result: { stored: 0, ids: [], failed, errors }, replayed: false };
  const store = async (run: QueryFn) => {
    const ids = await recordApiEvents(run, projectId, valid);
    return { stored: ids.length, ids, failed, errors };
  };
  if (!idempotencyKey) return { status: 200, result: await store(database.query.bind(database) as QueryFn), replayed: false };
  return database.transaction(async (run) => {
    const { result, replayed } = await oncePerKey(run, projectId, idempotencyKey, () => store(run), requestFingerprint(batch));
    return { status: 200, result, replayed };
  });
}
