/**
 * Named SQL of workflow entry (spec part 2 §5 triggers, §7 Run segment). Every statement enters through the SQL
 * function enter_workflows (./sql/enter_workflows.sql), the one definition of what entering is; these statements only
 * say who enters which workflow.
 */
import { USER_UPSERTED_TRIGGER } from '../../../domain/events.ts';

/**
 * The enabled, live workflows of project $1 triggered by contacts created or updated, with a trigger node (as a
 * FROM item named w: id, project_id).
 */
const UPSERT_TRIGGERED = `(SELECT id, project_id FROM workflows
        WHERE project_id = $1 AND trigger_type = '${USER_UPSERTED_TRIGGER}' AND enabled AND archived_at IS NULL AND root_node IS NOT NULL) w`;

/** ENTER_SEGMENT: every live contact of segment $3 enters workflow $2 of project $1. Returns n, the runs started. */
export const ENTER_SEGMENT = `SELECT enter_workflows(array_agg($1::uuid), array_agg($2::uuid), array_agg(c.id), array_agg(c.email), NULL, NULL, NULL) AS n
       FROM segment_members m JOIN contacts c ON c.id = m.contact_id
      WHERE m.segment_id = $3 AND c.project_id = $1 AND c.archived_at IS NULL`;

/**
 * enterUpsertedFrom returns a SELECT that enters the contacts of `source` (a FROM item with columns id and email,
 * e.g. a CTE of contacts written by the same statement) into the user_upserted workflows of project $1. The
 * addresses are taken from `source`, so rows the same statement wrote need not be visible to enter_workflows.
 */
export function enterUpsertedFrom(source: string): string {
  return `SELECT enter_workflows(array_agg(w.project_id), array_agg(w.id), array_agg(s.id), array_agg(s.email), NULL, NULL, NULL) AS n
       FROM ${UPSERT_TRIGGERED} CROSS JOIN ${source} s`;
}

/** ANY_UPSERT_TRIGGERED: whether project $1 has an enabled, live user_upserted workflow (one indexed probe). */
export const ANY_UPSERT_TRIGGERED = `SELECT EXISTS (SELECT 1 FROM workflows WHERE project_id = $1 AND trigger_type = '${USER_UPSERTED_TRIGGER}'
       AND enabled AND archived_at IS NULL) AS entering`;

/**
 * ENTER_HANDED_ON: runs handed from one workflow to workflow $2 of project $1 (a send_to_workflow node): contacts
 * $3 (NULL for none), addresses $4, trigger events $5 (NULL for none), hop counts $6. Returns n.
 */
export const ENTER_HANDED_ON = `SELECT enter_workflows(array_fill($1::uuid, ARRAY[cardinality($4::text[])]), array_fill($2::uuid, ARRAY[cardinality($4::text[])]),
       $3::uuid[], $4::text[], NULL, $5::jsonb[], $6::int[]) AS n`;

/** LIVE_SEGMENT: a row when segment $1 is a live segment of project $2 whose members may be changed (not a built-in one). */
export const LIVE_SEGMENT = 'SELECT 1 FROM segments WHERE id = $1 AND project_id = $2 AND archived_at IS NULL AND built_in IS NULL';

/** ADD_SEGMENT_MEMBERS / REMOVE_SEGMENT_MEMBERS: contacts $2 join / leave segment $1. */
export const ADD_SEGMENT_MEMBERS =
  'INSERT INTO segment_members (segment_id, contact_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT (segment_id, contact_id) DO NOTHING';
export const REMOVE_SEGMENT_MEMBERS = 'DELETE FROM segment_members WHERE segment_id = $1 AND contact_id = ANY($2::uuid[])';

/** HANDOFF_TARGET: the trigger node of workflow $1 of project $2 when it is enabled and live (no row otherwise). */
export const HANDOFF_TARGET = `SELECT root_node->>'id' AS root_id FROM workflows WHERE id = $1 AND project_id = $2 AND enabled AND archived_at IS NULL`;

/** MACHINE_EVENTS: of events $2 of project $1, those judged a machine's or a bot's now (not event_is_human). */
export const MACHINE_EVENTS = 'SELECT id FROM events WHERE project_id = $1 AND id = ANY($2::uuid[]) AND NOT event_is_human(json)';
