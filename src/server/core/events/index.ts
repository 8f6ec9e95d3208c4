/**
 * Events core (spec part 1 §3 Events): the only functions that record events. recordEvents writes the product's own
 * (system) events; recordApiEvents stores events posted through the API. Statements that record an event together
 * with another fact build their SQL with insertSystemEventsSql (./queries.ts).
 */
import { randomUUID } from 'node:crypto';
import type { QueryFn } from '../../db/client.ts';
import type { SystemEventName } from '../../../domain/events.ts';
import { RECORD_API_EVENTS, RECORD_SYSTEM_EVENTS } from './queries.ts';

export { insertSystemEventsSql, MARK_BOT_CLICKS, outboxEventsSql } from './queries.ts';

/** One system event to record: its name, recipient address, contact, blast, template, json and when (UTC ISO; default now). */
export interface SystemEvent {
  name: SystemEventName;
  email: string | null;
  contactId?: string | null;
  blastId?: string | null;
  templateId?: string | null;
  json: object;
  emittedAt?: string | null;
}

/**
 * recordEvents records system events of one project in one statement (nothing for an empty list). The events
 * triggers update reports, per-contact counts and event-triggered workflows in the same statement.
 */
export async function recordEvents(query: QueryFn, projectId: string, events: SystemEvent[]): Promise<void> {
  if (!events.length) return;
  await query(RECORD_SYSTEM_EVENTS, [
    projectId,
    events.map((e) => e.name),
    events.map((e) => e.email),
    events.map((e) => e.contactId ?? null),
    events.map((e) => e.blastId ?? null),
    events.map((e) => e.templateId ?? null),
    events.map((e) => JSON.stringify(e.json)),
    events.map((e) => e.emittedAt ?? null),
  ]);
}

/** One checked event posted through the API: name, address, metrics (metric1-3, null for none), json, emitted_at (UTC ISO or null = now). */
export interface ApiEvent {
  name: string;
  email: string;
  metrics: Array<number | null>;
  json: Record<string, unknown>;
  emittedAt: string | null;
}

/**
 * recordApiEvents stores checked API events in one multi-row INSERT (ids made here) and returns their ids in input
 * order. user_id is looked up from the project's live contacts by address.
 */
export async function recordApiEvents(query: QueryFn, projectId: string, events: ApiEvent[]): Promise<string[]> {
  const ids = events.map(() => randomUUID());
  await query(RECORD_API_EVENTS, [
    projectId,
    ids,
    events.map((e) => e.name),
    events.map((e) => e.email),
    events.map((e) => e.metrics[0]),
    events.map((e) => e.metrics[1]),
    events.map((e) => e.metrics[2]),
    events.map((e) => JSON.stringify(e.json)),
    events.map((e) => e.emittedAt),
  ]);
  return ids;
}
