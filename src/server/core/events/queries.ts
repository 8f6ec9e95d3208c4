/**
 * The events table's writes (spec part 1 §3 Events): the only file with `INSERT INTO events`. Statements elsewhere
 * that record events in the same statement as another fact (a send mark, a failure, a refused recipient, a finished
 * workflow run) build their INSERT with insertSystemEventsSql, so the column list and the `is_system` rule live here.
 *
 * Triggers on events (see core/reports/sql, core/workflows/sql, core/segments/sql) fold every inserted event into the
 * report aggregates, the per-contact counts and the event-triggered workflows, whichever statement wrote it.
 */

/** A column of an event row that a system event sets. */
export type EventColumn = 'project_id' | 'name' | 'email' | 'user_id' | 'blast_id' | 'template_id' | 'json' | 'emitted_at';

/**
 * insertSystemEventsSql returns `INSERT INTO events (…, is_system) SELECT …, true FROM <from>`: system events (the
 * product's own, is_system = true) from any row source. `values` maps each column to an SQL expression over `from`
 * (project_id, name and email are required; unset columns take their defaults: emitted_at now(), the rest NULL).
 * Expressions are SQL text written by the caller, never user input.
 */
export function insertSystemEventsSql(
  values: Partial<Record<EventColumn, string>> & { project_id: string; name: string; email: string },
  from: string,
): string {
  const cols = Object.keys(values) as EventColumn[];
  return `INSERT INTO events (${cols.join(', ')}, is_system) SELECT ${cols.map((c) => values[c]).join(', ')}, true FROM ${from}`;
}

/**
 * outboxEventsSql: one system event named `name` (an SQL expression, e.g. a quoted literal) per row of `from`, an
 * outbox row source with project_id, email, contact_id, blast_id and template_id columns (an UPDATE's or INSERT's
 * RETURNING); `json` is the event's json as SQL over it. What a send mark, a failed send and a recipient refused at
 * expansion write (core/sending MARK_SENT and FAIL_SEND, core/blasts queueAudienceChunkSql).
 */
export function outboxEventsSql(name: string, json: string, from: string): string {
  return insertSystemEventsSql(
    { project_id: 'project_id', name, email: 'email', user_id: 'contact_id', blast_id: 'blast_id', template_id: 'template_id', json },
    from,
  );
}

/**
 * RECORD_SYSTEM_EVENTS: system events of one project from parallel arrays. $1 project id, $2 names, $3 emails,
 * $4 contact ids, $5 blast ids, $6 template ids, $7 json documents, $8 emitted_at (NULL = now).
 */
export const RECORD_SYSTEM_EVENTS = insertSystemEventsSql(
  {
    project_id: '$1',
    name: 'u.name',
    email: 'u.email',
    user_id: 'u.user_id',
    blast_id: 'u.blast_id',
    template_id: 'u.template_id',
    json: 'u.json',
    emitted_at: 'coalesce(u.emitted_at, now())',
  },
  'unnest($2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::jsonb[], $8::timestamptz[]) AS u(name, email, user_id, blast_id, template_id, json, emitted_at)',
);

/**
 * RECORD_API_EVENTS: events posted through POST {event}/events (spec part 1 §3), not system events. Ids are made by
 * the caller (no RETURNING needed); user_id is the project's live contact with the address, if any. $1 project id,
 * $2 ids, $3 names, $4 emails, $5-$7 metric1-3, $8 json documents, $9 emitted_at (NULL = now).
 */
export const RECORD_API_EVENTS = `INSERT INTO events (id, project_id, name, email, user_id, metric1, metric2, metric3, json, emitted_at, is_system)
     SELECT i.id, $1, i.name, i.email,
            (SELECT c.id FROM contacts c WHERE c.project_id = $1 AND lower(c.email) = lower(i.email) AND c.archived_at IS NULL LIMIT 1),
            i.metric1, i.metric2, i.metric3, i.json, coalesce(i.emitted_at, now()), false
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $8::jsonb[], $9::timestamptz[])
         AS i(id, name, email, metric1, metric2, metric3, json, emitted_at)`;

/** MARK_BOT_CLICKS: marks clicks bot with a reason (the events_report_update trigger moves the human counters). $1 project, $2 event ids, $3 reason. */
export const MARK_BOT_CLICKS = `UPDATE events SET json = json || jsonb_build_object('bot', true, 'bot_reason', $3::text)
  WHERE project_id = $1 AND id = ANY($2::uuid[]) AND name = 'ses_event_click' AND event_is_human(json)`;
