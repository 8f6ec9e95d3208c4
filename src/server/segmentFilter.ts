/**
 * compileFilters turns checked segment filters (src/domain/segmentFilter.ts) into a parameterised SQL condition over
 * the contacts table aliased `c` (issue 3 §6). Every value the client sent is a bind parameter; the SQL text comes
 * only from this file, chosen by attribute and operator names the catalog has already checked, so no text from the
 * client ever becomes SQL.
 *
 * Semantics (what the API tests compute independently):
 * - text: contains / does_not_contain are case-insensitive substring tests (a missing value contains nothing);
 *   equals / not_equals compare case-insensitively (missing is not equal to any text); is_missing is NULL or ''.
 *   contact_city / contact_state read the metadata keys city / state; contact_json reads the metadata key given.
 * - dates compare by UTC day: equals — on that day; not_equals — has a date, not on that day; less_than (before) —
 *   before that day; greater_than (after) — after that day; is_missing — no date.
 * - counts: events of the contact — sends email_send_result_success, opens ses_event_open, clicks ses_event_click —
 *   restricted to a blast (events.blast_id), a template (events.template_id), or a campaign / workflow
 *   (events.json campaign_id / workflow_id, written by the campaign and workflow engines), compared to the number.
 *   num_in_segment is 1 for a member, else 0; is_in_segment is membership.
 * - date_workflow_started / _completed: the contact's first workflow_started / workflow_completed event for that
 *   workflow (events.json workflow_id).
 */
import type { CheckedFilter, Conjunction } from '../domain/segmentFilter.ts';

const TEXT_COLUMNS: Record<string, string> = {
  contact_email: 'c.email', contact_first_name: 'c.first_name', contact_last_name: 'c.last_name',
  contact_city: `(c.json->>'city')`, contact_state: `(c.json->>'state')`,
};
const DATE_COLUMNS: Record<string, string> = {
  contact_date_of_birth: 'c.date_of_birth', date_added: 'c.created_at', date_bounced: 'c.bounced_at', date_unsubscribed: 'c.unsubscribed_at',
};
const EVENT_NAMES: Record<string, string> = { num_sends: 'email_send_result_success', num_opens: 'ses_event_open', num_clicks: 'ses_event_click' };
const COMPARE: Record<string, string> = { equals: '=', not_equals: '<>', less_than: '<', greater_than: '>' };

/** A compiled condition: SQL text with $n placeholders and the values to bind, in order. */
export interface Compiled { sql: string; params: unknown[] }

/**
 * compileFilters joins the filters with AND or OR. `firstParam` is the number of the first placeholder to use (the
 * caller's own parameters come before). Throws Error for an attribute or operator outside the catalog (the caller
 * must have checked the filters).
 */
export function compileFilters(filters: CheckedFilter[], conjunction: Conjunction, firstParam: number): Compiled {
  const params: unknown[] = [];
  const bind = (v: unknown) => { params.push(v); return `$${firstParam + params.length - 1}`; };
  const parts = filters.map((f) => `(${compileOne(f, bind)})`);
  return { sql: parts.join(conjunction === 'or' ? ' OR ' : ' AND '), params };
}

function likePattern(v: string): string {
  return `%${v.replace(/[\\%_]/g, '\\$&')}%`;
}

function textCondition(col: string, op: string, value: string | undefined, bind: (v: unknown) => string): string {
  switch (op) {
    case 'contains': return `COALESCE(${col}, '') ILIKE ${bind(likePattern(value!))}`;
    case 'does_not_contain': return `COALESCE(${col}, '') NOT ILIKE ${bind(likePattern(value!))}`;
    case 'equals': return `lower(${col}) = lower(${bind(value)})`;
    case 'not_equals': return `lower(COALESCE(${col}, '')) <> lower(${bind(value)})`;
    case 'is_missing': return `COALESCE(${col}, '') = ''`;
    case 'is_not_missing': return `COALESCE(${col}, '') <> ''`;
    default: throw new Error(`no text operator ${op}`);
  }
}

function dateCondition(col: string, op: string, day: string | undefined, bind: (v: unknown) => string): string {
  if (op === 'is_missing') return `${col} IS NULL`;
  if (op === 'is_not_missing') return `${col} IS NOT NULL`;
  const start = `(${bind(day)}::date::timestamp AT TIME ZONE 'UTC')`;
  const onDay = `(${col} >= ${start} AND ${col} < ${start} + interval '1 day')`;
  switch (op) {
    case 'equals': return onDay;
    case 'not_equals': return `(${col} IS NOT NULL AND NOT ${onDay})`;
    case 'less_than': return `${col} < ${start}`;
    case 'greater_than': return `${col} >= ${start} + interval '1 day'`;
    default: throw new Error(`no date operator ${op}`);
  }
}

function compileOne(f: CheckedFilter, bind: (v: unknown) => string): string {
  const [a, b] = f.values;
  const op = f.operator!;
  if (f.spec.kind === 'membership') return `EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${bind(a)}::uuid AND m.contact_id = c.id)`;
  if (f.spec.kind === 'text') return textCondition(TEXT_COLUMNS[f.attribute], op, a as string | undefined, bind);
  if (f.spec.kind === 'json') return textCondition(`(c.json->>${bind(a)})`, op, b as string | undefined, bind);
  if (f.spec.kind === 'date') {
    if (f.attribute in DATE_COLUMNS) return dateCondition(DATE_COLUMNS[f.attribute], op, a as string | undefined, bind);
    const name = f.attribute === 'date_workflow_started' ? 'workflow_started' : 'workflow_completed';
    const col = `(SELECT min(e.emitted_at) FROM events e WHERE e.project_id = c.project_id AND e.user_id = c.id AND e.name = '${name}' AND e.json->>'workflow_id' = ${bind(a)})`;
    return dateCondition(col, op, b as string | undefined, bind);
  }
  // Counts.
  const cmp = COMPARE[op];
  if (!cmp) throw new Error(`no count operator ${op}`);
  if (f.attribute === 'num_in_segment') {
    return `(CASE WHEN EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${bind(a)}::uuid AND m.contact_id = c.id) THEN 1 ELSE 0 END) ${cmp} ${bind(b)}::int`;
  }
  const base = f.attribute.replace(/_(via_campaign|via_scheduled_email_blast|via_workflow|with_template)$/, '');
  const name = EVENT_NAMES[base];
  if (!name) throw new Error(`no count attribute ${f.attribute}`);
  let scope = '';
  let n = a;
  if (f.spec.keys.length) {
    n = b;
    if (f.attribute.endsWith('_via_scheduled_email_blast')) scope = ` AND e.blast_id = ${bind(a)}::uuid`;
    else if (f.attribute.endsWith('_with_template')) scope = ` AND e.template_id = ${bind(a)}::uuid`;
    else if (f.attribute.endsWith('_via_campaign')) scope = ` AND e.json->>'campaign_id' = ${bind(a)}`;
    else scope = ` AND e.json->>'workflow_id' = ${bind(a)}`;
  }
  return `(SELECT count(*) FROM events e WHERE e.project_id = c.project_id AND e.user_id = c.id AND e.name = '${name}'${scope}) ${cmp} ${bind(n)}::int`;
}
