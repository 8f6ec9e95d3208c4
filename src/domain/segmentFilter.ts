/**
 * Segment filters (spec part 2 §3 Filters, §5 Segment): the catalog of attributes, which operators each
 * allows and which values it takes, and the checks the builder and the server share. The server compiles a checked
 * filter list to parameterised SQL (src/server/core/segments/filter.ts); workflow filter nodes use the same two.
 *
 * A filter is {attribute, operator, values}. Value lists by attribute:
 * - text (contact_email, contact_first_name, contact_last_name, contact_city, contact_state): [text]; none for the
 *   missing tests. contact_json: [key, text]; [key] for the missing tests.
 * - dates (contact_date_of_birth, date_added, date_bounced, date_unsubscribed): [date]; none for the missing tests.
 *   date_workflow_started / date_workflow_completed: [workflow_id, date]; [workflow_id] for the missing tests.
 * - counts (num_sends, num_opens, num_clicks): [number]; opens and clicks count people only (not machine
 *   opens nor bot clicks) unless the filter has include_machine: true; per campaign, blast, workflow or template
 *   (num_sends_via_campaign, …_via_scheduled_email_blast, …_via_workflow, …_with_template): [id, number];
 *   num_in_segment: [segment_id, number].
 * - is_in_segment (the segment-edit set only): [segment_id], no operator (it is sent as num_in_segment > 0).
 * - is_subscribed_to_topic: [topic_id], no operator: the contact gets marketing mail of that topic.
 * Dates compare by UTC day: ISO timestamps are cut to midnight UTC.
 */
import { UUID_RE } from './validation.ts';

export type Conjunction = 'and' | 'or';
export type FilterOperator = 'contains' | 'does_not_contain' | 'equals' | 'not_equals' | 'less_than' | 'greater_than' | 'is_missing' | 'is_not_missing';
export type ValueType = 'string' | 'date' | 'number' | 'campaign_id' | 'scheduled_email_blast_id' | 'workflow_id' | 'template_id' | 'segment_id' | 'topic_id';
export type AttributeKind = 'text' | 'json' | 'date' | 'count' | 'membership';

/** One filter as the console sends it. */
export interface UserFilter {
  attribute: string;
  operator?: string | null;
  values?: Array<string | number | null>;
  /** Opens and clicks filters (num_opens*, num_clicks*): count machine opens and bot clicks too (default false: people only). */
  include_machine?: boolean | null;
}

/** What an attribute is: its kind, the values before the compared value (e.g. a template id), the compared value's type. */
export interface AttributeSpec {
  kind: AttributeKind;
  /** Values that pick what is compared (a json key, a campaign, a segment…), before the compared value. */
  keys: ValueType[];
  /** The compared value's type (absent for membership). */
  value?: ValueType;
}

const TEXT_OPS: FilterOperator[] = ['contains', 'does_not_contain', 'equals', 'not_equals', 'is_missing', 'is_not_missing'];
const DATE_OPS: FilterOperator[] = ['equals', 'not_equals', 'less_than', 'greater_than', 'is_missing', 'is_not_missing'];
const COUNT_OPS: FilterOperator[] = ['equals', 'not_equals', 'less_than', 'greater_than'];

/** The operators each kind allows (spec: text — contains, equals and missing tests; dates — equals, comparison and missing; counts — equals and comparison). */
export const OPERATORS: Record<AttributeKind, FilterOperator[]> = { text: TEXT_OPS, json: TEXT_OPS, date: DATE_OPS, count: COUNT_OPS, membership: [] };

/** The labels of the comparison operators: dates say before/after (spec part 2 §3). */
export function operatorLabel(op: FilterOperator, kind: AttributeKind): string {
  if (kind === 'date' && op === 'less_than') return 'before';
  if (kind === 'date' && op === 'greater_than') return 'after';
  return op.replace(/_/g, ' ');
}

const COUNT_VARIANTS: Array<[string, ValueType]> = [
  ['via_campaign', 'campaign_id'],
  ['via_scheduled_email_blast', 'scheduled_email_blast_id'],
  ['via_workflow', 'workflow_id'],
  ['with_template', 'template_id'],
];

/** Every attribute of the catalog (the full set of the Filter Contacts screen, plus is_in_segment). */
export const FILTER_ATTRIBUTES: Readonly<Record<string, AttributeSpec>> = {
  contact_email: { kind: 'text', keys: [], value: 'string' },
  contact_first_name: { kind: 'text', keys: [], value: 'string' },
  contact_last_name: { kind: 'text', keys: [], value: 'string' },
  contact_city: { kind: 'text', keys: [], value: 'string' },
  contact_state: { kind: 'text', keys: [], value: 'string' },
  contact_json: { kind: 'json', keys: ['string'], value: 'string' },
  contact_date_of_birth: { kind: 'date', keys: [], value: 'date' },
  date_added: { kind: 'date', keys: [], value: 'date' },
  date_bounced: { kind: 'date', keys: [], value: 'date' },
  date_unsubscribed: { kind: 'date', keys: [], value: 'date' },
  date_workflow_started: { kind: 'date', keys: ['workflow_id'], value: 'date' },
  date_workflow_completed: { kind: 'date', keys: ['workflow_id'], value: 'date' },
  ...Object.fromEntries(
    ['num_sends', 'num_opens', 'num_clicks'].flatMap((base) => [
      [base, { kind: 'count', keys: [], value: 'number' } satisfies AttributeSpec],
      ...COUNT_VARIANTS.map(([suffix, key]) => [`${base}_${suffix}`, { kind: 'count', keys: [key], value: 'number' } satisfies AttributeSpec]),
    ]),
  ),
  num_in_segment: { kind: 'count', keys: ['segment_id'], value: 'number' },
  is_in_segment: { kind: 'membership', keys: ['segment_id'] },
  // Subscribed to a topic — not unsubscribed from everything and not from that topic.
  is_subscribed_to_topic: { kind: 'membership', keys: ['topic_id'] },
};

/** The attributes of the Filter Contacts screen (all but is_in_segment). */
export const SEGMENT_FILTER_ATTRIBUTES = Object.keys(FILTER_ATTRIBUTES).filter((a) => a !== 'is_in_segment');
/** The segment-edit set: drops num_in_segment, contact_state, contact_city, contact_json and the workflow dates; adds is_in_segment. */
export const SEGMENT_EDIT_FILTER_ATTRIBUTES = Object.keys(FILTER_ATTRIBUTES).filter(
  (a) => !['num_in_segment', 'contact_state', 'contact_city', 'contact_json', 'date_workflow_started', 'date_workflow_completed'].includes(a),
);

/**
 * requestAttributes is what a request may carry for a screen's attribute set: the set itself plus num_in_segment when
 * it offers is_in_segment, which the builder sends as num_in_segment greater_than 0 (spec part 2 §5 Segment).
 */
export function requestAttributes(allowed: readonly string[]): readonly string[] {
  return allowed.includes('is_in_segment') && !allowed.includes('num_in_segment') ? [...allowed, 'num_in_segment'] : allowed;
}

/** valueTypes lists the value types a filter of this attribute and operator takes, in order. */
export function valueTypes(spec: AttributeSpec, op: FilterOperator | undefined): ValueType[] {
  if (spec.kind === 'membership') return spec.keys;
  if (op === 'is_missing' || op === 'is_not_missing') return spec.keys;
  return [...spec.keys, spec.value!];
}

const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** dayOf cuts a date value to its UTC day 'YYYY-MM-DD' (spec: ISO timestamps are truncated to midnight UTC), or undefined. */
export function dayOf(value: unknown): string | undefined {
  const s = String(value ?? '').trim();
  if (DATE.test(s)) return Number.isNaN(Date.parse(`${s}T00:00:00Z`)) ? undefined : s;
  if (ISO_TIMESTAMP.test(s)) {
    const t = Date.parse(s);
    return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
  }
  return undefined;
}

/** A filter after checking: the attribute's spec, the operator and the values converted to their types. */
export interface CheckedFilter {
  attribute: string;
  spec: AttributeSpec;
  operator?: FilterOperator;
  values: Array<string | number>;
  /** Count machine opens and bot clicks too (num_opens*, num_clicks* only); absent: people only. */
  includeMachine?: boolean;
}

/**
 * checkFilters validates a filter list for the attribute set `allowed`. Returns `{filters}` or `{errors}`: 'you must
 * provide at least 1 filter'; per filter (1-based N) an unknown attribute, an operator its type does not allow (both
 * naming them), or 'filter N is not fully filled out' (missing operator, missing or extra values, a value of the wrong
 * type: a number below 0 or not an integer, a date that is not a date, an id that is not a UUID).
 */
export function checkFilters(
  filters: UserFilter[],
  allowed: readonly string[] = SEGMENT_FILTER_ATTRIBUTES,
): { filters: CheckedFilter[] } | { errors: string[] } {
  if (!filters.length) return { errors: ['you must provide at least 1 filter'] };
  const errors: string[] = [];
  const checked: CheckedFilter[] = [];
  filters.forEach((f, i) => {
    const n = i + 1;
    const spec = FILTER_ATTRIBUTES[f.attribute];
    if (!spec || !allowed.includes(f.attribute)) return void errors.push(`filter ${n}: unknown attribute "${f.attribute}"`);
    let operator: FilterOperator | undefined;
    if (spec.kind !== 'membership') {
      if (!f.operator) return void errors.push(`filter ${n} is not fully filled out`);
      if (!OPERATORS[spec.kind].includes(f.operator as FilterOperator)) {
        return void errors.push(`filter ${n}: the operator "${f.operator}" does not apply to ${f.attribute} (use ${OPERATORS[spec.kind].join(', ')})`);
      }
      operator = f.operator as FilterOperator;
    }
    const types = valueTypes(spec, operator);
    const raw = f.values ?? [];
    if (raw.length !== types.length) return void errors.push(`filter ${n} is not fully filled out`);
    const values: Array<string | number> = [];
    for (let k = 0; k < types.length; k++) {
      const v = raw[k];
      const t = types[k];
      if (v === null || v === undefined || String(v).trim() === '') return void errors.push(`filter ${n} is not fully filled out`);
      if (t === 'number') {
        const num = typeof v === 'number' ? v : Number(String(v).trim());
        if (!Number.isInteger(num) || num < 0) return void errors.push(`filter ${n} is not fully filled out`);
        values.push(num);
      } else if (t === 'date') {
        const day = dayOf(v);
        if (!day) return void errors.push(`filter ${n} is not fully filled out`);
        values.push(day);
      } else if (t === 'string') {
        values.push(String(v));
      } else {
        if (!UUID_RE.test(String(v).trim())) return void errors.push(`filter ${n} is not fully filled out`);
        values.push(String(v).trim().toLowerCase());
      }
    }
    checked.push({ attribute: f.attribute, spec, operator, values, ...(f.include_machine === true ? { includeMachine: true } : {}) });
  });
  return errors.length ? { errors } : { filters: checked };
}

/** isBlankFilter is true for a builder row with nothing chosen (the builder strips these and keeps one blank trailing row). */
export function isBlankFilter(f: UserFilter): boolean {
  return !f.attribute && !f.operator && !(f.values ?? []).some((v) => v !== null && v !== undefined && String(v) !== '');
}

/** A row of the filter builder: what the user has picked so far (values as typed, '' when empty). */
export interface BuilderRow {
  attribute: string;
  operator: string;
  values: string[];
  /** An opens or clicks row counts machine opens and bot clicks too (sent as include_machine: true). */
  includeMachine?: boolean;
}

/** countsMachines says whether an attribute counts opens or clicks, which people or machines make: only those rows offer include_machine. */
export function countsMachines(attribute: string): boolean {
  return /^num_(opens|clicks)(_|$)/.test(attribute);
}

/** BLANK_ROW is the builder's empty trailing row. */
export const BLANK_ROW: BuilderRow = { attribute: '', operator: '', values: [] };

/**
 * normalizeRows applies the builder rule of spec part 2 §4 Segment: blank rows are stripped on every change and
 * exactly one blank row is kept at the end. Returns a new array.
 */
export function normalizeRows(rows: BuilderRow[]): BuilderRow[] {
  const filled = rows.filter((r) => !isBlankFilter(r));
  return [...filled, { ...BLANK_ROW, values: [] }];
}

/**
 * toUserFilters turns the builder's filled rows into the filters sent to filter_users / create_from_filters: numbers
 * for number values, dates as typed (ISO timestamps are cut to midnight UTC by the server's checks), and segment
 * membership (is_in_segment) sent as num_in_segment greater_than 0 (spec part 2 §5 Segment). Blank rows are dropped.
 */
export function toUserFilters(rows: BuilderRow[]): UserFilter[] {
  return rows
    .filter((r) => !isBlankFilter(r))
    .map((r) => {
      const spec = FILTER_ATTRIBUTES[r.attribute];
      if (r.attribute === 'is_in_segment') return { attribute: 'num_in_segment', operator: 'greater_than', values: [r.values[0] ?? '', 0] };
      const types = spec ? valueTypes(spec, (r.operator || undefined) as FilterOperator | undefined) : [];
      const values = types.map((t, i) => {
        const v = (r.values[i] ?? '').trim();
        if (t === 'number' && v !== '' && !Number.isNaN(Number(v))) return Number(v);
        if (t === 'date' && v) return dayOf(v) ?? v;
        return v;
      });
      return {
        attribute: r.attribute,
        operator: r.operator || null,
        values,
        ...(r.includeMachine && countsMachines(r.attribute) ? { include_machine: true } : {}),
      };
    });
}

/**
 * builderErrors checks the builder's rows as the server will, for the screen's 'Filter errors: ...' line; `allowed`
 * is the attribute set of the screen (is_in_segment is checked as the num_in_segment it is sent as). Returns [] when
 * the filters can be sent.
 */
export function builderErrors(rows: BuilderRow[], allowed: readonly string[] = SEGMENT_FILTER_ATTRIBUTES): string[] {
  const out = checkFilters(toUserFilters(rows), requestAttributes(allowed));
  return 'errors' in out ? out.errors : [];
}

/**
 * aboutCount words an estimated total (filter_users with total: estimate) as people read one: three
 * significant figures with thousands separators ("296,988" → "297,000"); below 1,000 the number as it is.
 */
export function aboutCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  const step = 10 ** (Math.floor(Math.log10(n)) - 2);
  return (Math.round(n / step) * step).toLocaleString('en-US');
}
