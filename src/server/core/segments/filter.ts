/**
 * compileFilters turns checked segment filters (src/domain/segmentFilter.ts) into parameterised SQL over the contacts
 * table aliased `c`: a condition, and the joins it needs after `FROM contacts c`. Every value the client
 * sent is a bind parameter; the SQL text comes only from this file, chosen by attribute and operator names the catalog
 * has already checked (and, for counts, by whether the number is 0 or 1), so no text from the client ever becomes SQL.
 *
 * Semantics (what the API tests compute independently):
 * - text: contains / does_not_contain are case-insensitive substring tests (a missing value contains nothing);
 *   equals / not_equals compare case-insensitively (missing is not equal to any text); is_missing is NULL or ''.
 *   contact_city / contact_state read the metadata keys city / state; contact_json reads the metadata key given.
 * - dates compare by UTC day: equals — on that day; not_equals — has a date, not on that day; less_than (before) —
 *   before that day; greater_than (after) — after that day; is_missing — no date.
 * - counts: events of the contact — sends email_send_result_success, opens ses_event_open, clicks ses_event_click
 *   (opens and clicks by people only — event_is_human — unless the filter has include_machine) —
 *   restricted to a blast (events.blast_id), a template (events.template_id), a workflow (events.json workflow_id,
 *   written by the workflow engine) or a campaign (the events of its blasts, templates and workflows, as its reports
 *   count them), compared to the number.
 *   num_in_segment is 1 for a member, else 0; is_in_segment is membership.
 * - date_workflow_started / _completed: the contact's first workflow_started / workflow_completed event for that
 *   workflow (events.json workflow_id).
 *
 * How, so that a project of 1,000,000 contacts and 10,000,000 events answers within 500 ms (p95 of `npm run
 * bench:filter`; docs/architecture.md §13):
 * - num_sends / num_opens / num_clicks read the contact's row of contact_event_counts (one LEFT JOIN on its primary
 *   key), kept by triggers on events (migration 0006): counting events per contact cost an index probe per contact,
 *   seconds over a million contacts.
 * - A count per blast, template or workflow reads that one's events from its index (events_*_contact_idx); a
 *   campaign's, the events of its associations through the blast, template and workflow indexes.
 *   Joined by AND (or alone), "> 0" / "not equal 0" become EXISTS and "= 0" / "< 1" NOT EXISTS, which PostgreSQL runs
 *   as a semi- or anti-join: one hash join over the project for the total, index probes for the newest page. Any
 *   other number, and every such filter joined by OR (where EXISTS would become a subplan run per contact, neither
 *   hashed for a big set nor parallel), joins the per-contact count grouped once (LEFT JOIN … GROUP BY user_id).
 * - Segment membership likewise: EXISTS / NOT EXISTS under AND, a LEFT JOIN on segment_members (one row per member
 *   at most) under OR.
 * - The first workflow event is always a grouped LEFT JOIN.
 * - Case-insensitive text tests lower() both sides: the same as ILIKE in a UTF-8 database, which lowers the pattern
 *   again for every row.
 */
import type { CheckedFilter, Conjunction } from '../../../domain/segmentFilter.ts';
import { likePattern } from '../listing.ts';
import { EVENT } from '../../../domain/events.ts';
import { contactsSampleSql } from '../contacts/index.ts';

const TEXT_COLUMNS: Record<string, string> = {
  contact_email: 'c.email',
  contact_first_name: 'c.first_name',
  contact_last_name: 'c.last_name',
  contact_city: `(c.json->>'city')`,
  contact_state: `(c.json->>'state')`,
};
const DATE_COLUMNS: Record<string, string> = {
  contact_date_of_birth: 'c.date_of_birth',
  date_added: 'c.created_at',
  date_bounced: 'c.bounced_at',
  date_unsubscribed: 'c.unsubscribed_at',
};
const EVENT_NAMES: Record<string, string> = { num_sends: EVENT.sendSuccess, num_opens: EVENT.open, num_clicks: EVENT.click };
const COUNT_OPS: Record<string, string> = { equals: '=', not_equals: '<>', less_than: '<', greater_than: '>' };

/** A compiled filter list: `from` goes right after `FROM contacts c` (LEFT JOINs, or ''), `sql` is the condition, both with $n placeholders; `params` are the values to bind, in order. */
export interface Compiled {
  from: string;
  sql: string;
  params: unknown[];
}

/** How one filter is compiled: its values are bound through `bind`; `join` adds a LEFT JOIN (given its alias) and returns the alias; `semi` says EXISTS / NOT EXISTS may stand alone (AND, or a single filter). */
interface Ctx {
  bind: (v: unknown) => string;
  join: (sql: (alias: string) => string) => string;
  counts: () => string;
  semi: boolean;
}

/**
 * compileFilters joins the filters with AND or OR. `firstParam` is the number of the first placeholder to use (the
 * caller's own parameters come before). Throws Error for an attribute or operator outside the catalog (the caller
 * must have checked the filters).
 */
export function compileFilters(filters: CheckedFilter[], conjunction: Conjunction, firstParam: number): Compiled {
  const params: unknown[] = [];
  const joins: string[] = [];
  let countsAlias: string | undefined;
  const ctx: Ctx = {
    bind: (v) => {
      params.push(v);
      return `$${firstParam + params.length - 1}`;
    },
    join: (sql) => {
      const alias = `f${joins.length + 1}`;
      joins.push(` LEFT JOIN ${sql(alias)}`);
      return alias;
    },
    semi: conjunction === 'and' || filters.length === 1,
    // The contact's counts row (one per contact at most), joined once for every count filter that needs it.
    counts: () => (countsAlias ??= ctx.join((t) => `contact_event_counts ${t} ON ${t}.contact_id = c.id`)),
  };
  const parts = filters.map((f) => `(${compileOne(f, ctx)})`);
  return { from: joins.join(''), sql: parts.join(conjunction === 'or' ? ' OR ' : ' AND '), params };
}

function textCondition(col: string, op: string, value: string | undefined, bind: (v: unknown) => string): string {
  switch (op) {
    case 'contains':
      return `lower(COALESCE(${col}, '')) LIKE lower(${bind(likePattern(value!))})`;
    case 'does_not_contain':
      return `lower(COALESCE(${col}, '')) NOT LIKE lower(${bind(likePattern(value!))})`;
    case 'equals':
      return `lower(${col}) = lower(${bind(value)})`;
    case 'not_equals':
      return `lower(COALESCE(${col}, '')) <> lower(${bind(value)})`;
    case 'is_missing':
      return `COALESCE(${col}, '') = ''`;
    case 'is_not_missing':
      return `COALESCE(${col}, '') <> ''`;
    default:
      throw new Error(`no text operator ${op}`);
  }
}

function dateCondition(col: string, op: string, day: string | undefined, bind: (v: unknown) => string): string {
  if (op === 'is_missing') return `${col} IS NULL`;
  if (op === 'is_not_missing') return `${col} IS NOT NULL`;
  const start = `(${bind(day)}::date::timestamp AT TIME ZONE 'UTC')`;
  const onDay = `(${col} >= ${start} AND ${col} < ${start} + interval '1 day')`;
  switch (op) {
    case 'equals':
      return onDay;
    case 'not_equals':
      return `(${col} IS NOT NULL AND NOT ${onDay})`;
    case 'less_than':
      return `${col} < ${start}`;
    case 'greater_than':
      return `${col} >= ${start} + interval '1 day'`;
    default:
      throw new Error(`no date operator ${op}`);
  }
}

/** The shape a count comparison allows: 'some' when it means count ≥ 1, 'none' when it means count = 0, else 'compare'. */
function countShape(op: string, n: number): 'some' | 'none' | 'compare' {
  if ((op === 'greater_than' || op === 'not_equals') && n === 0) return 'some';
  if ((op === 'equals' && n === 0) || (op === 'less_than' && n === 1)) return 'none';
  return 'compare';
}

function compileOne(f: CheckedFilter, ctx: Ctx): string {
  const { bind } = ctx;
  const [a, b] = f.values;
  const op = f.operator!;
  if (f.spec.kind === 'text') return textCondition(TEXT_COLUMNS[f.attribute], op, a as string | undefined, bind);
  if (f.spec.kind === 'json') return textCondition(`(c.json->>${bind(a)})`, op, b as string | undefined, bind);
  if (f.spec.kind === 'date') {
    if (f.attribute in DATE_COLUMNS) return dateCondition(DATE_COLUMNS[f.attribute], op, a as string | undefined, bind);
    const name = f.attribute === 'date_workflow_started' ? EVENT.workflowStarted : EVENT.workflowCompleted;
    const first = ctx.join(
      (t) => `(SELECT e.project_id, e.user_id, min(e.emitted_at) AS at FROM events e
      WHERE e.name = '${name}' AND e.json->>'workflow_id' = ${bind(a)} GROUP BY e.project_id, e.user_id) ${t} ON ${t}.project_id = c.project_id AND ${t}.user_id = c.id`,
    );
    return dateCondition(`${first}.at`, op, b as string | undefined, bind);
  }
  // Subscribed to a topic: core/audience's opt-out rule for marketing mail of the topic — not
  // unsubscribed from everything (the contact's mark or an 'unsubscribed' suppression entry), not from the topic, and
  // not waiting for a double opt-in confirmation.
  if (f.attribute === 'is_subscribed_to_topic') {
    return `(c.unsubscribed_at IS NULL AND c.confirmation_pending_at IS NULL AND NOT (${bind(a)}::uuid = ANY(c.unsubscribed_topic_ids))
      AND NOT EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = c.project_id AND s.email = lower(c.email) AND s.reason = 'unsubscribed'))`;
  }
  if (f.spec.kind === 'membership' || f.attribute === 'num_in_segment') {
    // Membership is 1 or 0: under AND a test that holds for exactly one of them is EXISTS / NOT EXISTS.
    const cmp = f.spec.kind === 'membership' ? undefined : COUNT_OPS[op];
    if (f.spec.kind !== 'membership' && !cmp) throw new Error(`no count operator ${op}`);
    const holds = (m: number) => (cmp === undefined ? m === 1 : compare(m, op, b as number));
    if (ctx.semi && holds(1) !== holds(0)) {
      return `${holds(1) ? '' : 'NOT '}EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${bind(a)}::uuid AND m.contact_id = c.id)`;
    }
    const m = ctx.join((t) => `segment_members ${t} ON ${t}.segment_id = ${bind(a)}::uuid AND ${t}.contact_id = c.id`);
    return cmp === undefined ? `${m}.contact_id IS NOT NULL` : `(CASE WHEN ${m}.contact_id IS NULL THEN 0 ELSE 1 END) ${cmp} ${bind(b)}::int`;
  }
  // Counts.
  const cmp = COUNT_OPS[op];
  if (!cmp) throw new Error(`no count operator ${op}`);
  const base = f.attribute.replace(/_(via_campaign|via_scheduled_email_blast|via_workflow|with_template)$/, '');
  const name = EVENT_NAMES[base];
  if (!name) throw new Error(`no count attribute ${f.attribute}`);
  // Opens and clicks count people only unless the filter includes machines (event_is_human, core/events/sql).
  const peopleOnly = base !== 'num_sends' && !f.includeMachine;
  if (!f.spec.keys.length) {
    const k = ctx.counts();
    const column = peopleOnly ? (base === 'num_opens' ? 'num_human_opens' : 'num_human_clicks') : base;
    return `COALESCE(${k}.${column}, 0) ${cmp} ${bind(a)}::int`;
  }
  const human = peopleOnly ? ' AND event_is_human(e.json)' : '';
  const n = b as number;
  const scope = (id: string) => {
    if (f.attribute.endsWith('_via_scheduled_email_blast')) return `e.blast_id = ${id}::uuid`;
    if (f.attribute.endsWith('_with_template')) return `e.template_id = ${id}::uuid`;
    // A campaign's events are those of its blasts, templates and workflows (docs/architecture.md §14), as its reports
    // count them; the project is $1 (matchingContacts), so another project's campaign names no events.
    if (f.attribute.endsWith('_via_campaign')) {
      const assoc = (col: string, cast = '') => `ARRAY(SELECT unnest(${col})${cast} FROM campaigns WHERE id = ${id}::uuid AND project_id = $1)`;
      return `(e.blast_id = ANY(${assoc('scheduled_email_blast_group_ids')}) OR e.template_id = ANY(${assoc('template_ids')})
               OR e.json->>'workflow_id' = ANY(${assoc('workflow_ids', '::text')}))`;
    }
    return `e.json->>'workflow_id' = ${id}`;
  };
  const shape = countShape(op, n);
  if (ctx.semi && shape !== 'compare') {
    return `${shape === 'some' ? '' : 'NOT '}EXISTS (SELECT 1 FROM events e WHERE e.project_id = c.project_id AND e.user_id = c.id AND e.name = '${name}' AND ${scope(bind(a))}${human})`;
  }
  const counted = ctx.join(
    (t) => `(SELECT e.project_id, e.user_id, count(*)::int AS n FROM events e
    WHERE e.name = '${name}' AND ${scope(bind(a))}${human} GROUP BY e.project_id, e.user_id) ${t} ON ${t}.project_id = c.project_id AND ${t}.user_id = c.id`,
  );
  return `COALESCE(${counted}.n, 0) ${cmp} ${bind(n)}::int`;
}

/** compare applies a count operator to numbers, as SQL would. */
function compare(x: number, op: string, n: number): boolean {
  switch (op) {
    case 'equals':
      return x === n;
    case 'not_equals':
      return x !== n;
    case 'less_than':
      return x < n;
    case 'greater_than':
      return x > n;
    default:
      throw new Error(`no count operator ${op}`);
  }
}

/**
 * matchingContacts is `FROM contacts c … WHERE …` for the project's live contacts the compiled filters match: the
 * project id is $1, the filters' placeholders follow from `compiled` (compile with firstParam 2, or later when the
 * caller binds more before them). The preview, create_from_filters' count and its job's INSERT…SELECT share it. With
 * `samplePercent`, only a random sample of that share of the contacts table's pages is read (filterUsers' estimate).
 */
export function matchingContacts(compiled: Compiled, samplePercent?: number): string {
  // A sample (filterUsers' estimate): whole pages of the contacts table picked at random (core/contacts).
  const sample = samplePercent === undefined ? '' : contactsSampleSql(samplePercent);
  return `FROM contacts c${sample}${compiled.from} WHERE c.project_id = $1 AND c.archived_at IS NULL AND (${compiled.sql})`;
}
