/**
 * The console's one dataProvider (STYLE.md item 4): react-admin verbs mapped to gateway operations through one
 * table, the resource definitions of generated/resources.gen.ts (read from each list operation's `x-resource`) plus
 * the non-screen resource the console reads (events, for Recent emails).
 *
 * | Method           | Gateway call                                                                                   |
 * |------------------|------------------------------------------------------------------------------------------------|
 * | getList          | GET {list}?limit=&offset=&sort_columns=field DIR[&search_field=&search_value=][&other filters] |
 * |                  | → the answer's `data` (or its listKey, e.g. campaigns_with_metrics)                            |
 * |                  | + GET {count} with the same filters; total = the count body's num_* value                      |
 * | getOne           | GET {list}?ids={id} → data[0]                                                                  |
 * | getMany          | GET {list}?ids={id1},{id2}                                                                      |
 * | getManyReference | GET {list}?{target}={id} (as getList)                                                          |
 * | create, update   | POST {save} body {[saveBodyKey]: [record]}, or the record itself without saveBodyKey           |
 * |                  | → data[0] (array answer) or data (object answer)                                               |
 * | update (REST)    | {update} /{id} body record, when the resource declares an update operation → data              |
 * | updateMany       | POST {save} body {[saveBodyKey]: records}                                                      |
 * | delete           | DELETE {archive}: /{ids} path parameter, or ?emails= for resources archived by email           |
 * | deleteMany       | the same with the ids (or emails) comma-joined                                                 |
 * | callGateway      | any one operation by operationId, for custom screens (email viewer, reports), with an optional |
 * |                  | retry policy (RETRY.reports, RETRY.reportCacheClear…; default reads 2/250 ms, writes 2/200 ms) |
 *
 * Split A/B rows (campaign_metrics with split_templates=true) share their campaign's id; getList gives each one the id
 * `{campaign id}:{template_id}` so every row of a page has its own id, and keeps the campaign's id in `campaign_id`.
 *
 * The list filter `q` is the search text; `field` picks the searched column (default the resource's first search
 * field). Any other filter key is passed through as a query parameter (e.g. include_system_events, enabled_only).
 */
import type { DataProvider, Identifier, RaRecord } from 'react-admin';
import { resources, type ResourceDefinition } from '../../../generated/resources.gen';
import type { OperationId } from '../../../generated/operations.gen';
import type { CallArgs, OperationResponse, RetryPolicy } from './apiTypes';
import { callOperation, callOperationUnchecked, type UncheckedCallParams } from './gateway';

/** The part of a resource definition the dataProvider needs. */
export type DataResource = Pick<ResourceDefinition, 'name' | 'operations' | 'saveBodyKey' | 'archiveBy' | 'listKey'> & {
  list: { searchFields: string[]; defaultSort: { field: string; order: 'ASC' | 'DESC' } };
};

/** Resources without a screen of their own in this slice (no `x-resource`), read by pickers and the Insights page. */
const extraResources: DataResource[] = [
  {
    name: 'events',
    operations: { list: 'listEvents', count: 'countEvents' },
    list: { searchFields: ['name', 'email', 'emitted_at', 'combined'], defaultSort: { field: 'emitted_at', order: 'DESC' } },
  },
];

/** The mapping table: resource name → its definition. */
export const dataResources: Record<string, DataResource> = Object.fromEntries([...resources, ...extraResources].map((r) => [r.name, r]));

function resourceOf(name: string): DataResource {
  const def = dataResources[name];
  if (!def) throw new Error(`Unknown resource ${name}`);
  return def;
}

function requireOp(def: DataResource, key: keyof DataResource['operations']): OperationId {
  const op = def.operations[key];
  if (!op) throw new Error(`Resource ${def.name} has no ${key} operation`);
  return op;
}

type Query = NonNullable<UncheckedCallParams['query']>;

/** filterQuery turns a react-admin filter into the gateway's search_field/search_value and pass-through params. */
function filterQuery(def: DataResource, filter: Record<string, unknown> = {}): Query {
  const query: Query = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'q' || key === 'field' || value === undefined || value === null || value === '') continue;
    query[key] = Array.isArray(value) ? value.join(',') : (value as string | number | boolean);
  }
  const q = typeof filter.q === 'string' ? filter.q.trim() : '';
  if (q) {
    query.search_field = typeof filter.field === 'string' && filter.field ? filter.field : def.list.searchFields[0];
    query.search_value = q;
  }
  return query;
}

function countOf(body: unknown): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const fields = body as Record<string, unknown>;
  const key = Object.keys(fields).find((k) => k.startsWith('num_') && typeof fields[k] === 'number');
  return key ? (fields[key] as number) : undefined;
}

/** splitRowId gives a split A/B row (one with a template_id) an id of its own, keeping the campaign's in campaign_id. */
export function splitRowId(row: RaRecord): RaRecord {
  if (typeof row.template_id !== 'string' || !row.template_id) return row;
  return { ...row, id: `${row.id}:${row.template_id}`, campaign_id: row.id };
}

// The verbs below call a resource's operations, which are known only at run time (generated/resources.gen.ts), so they
// go through callOperationUnchecked and read the answers by the resource contract (rows under `data` or the listKey, a
// save's `data` and `errors`, a count's num_* field) rather than by one operation's generated type: this is the
// console's one remaining hand-stated answer shape, that of react-admin's records (RaRecord) under those keys.

async function listRecords(def: DataResource, query: Query): Promise<RaRecord[]> {
  const body = (await callOperationUnchecked(requireOp(def, 'list'), { query })) as Record<string, RaRecord[] | undefined>;
  const rows = body[def.listKey ?? 'data'] ?? [];
  return def.listKey === 'campaigns_with_metrics' ? rows.map(splitRowId) : rows;
}

/** The `errors` a save answered alongside its saved records (e.g. a persona's verification email that failed), by record. */
const warningsOf = new WeakMap<object, string[]>();

/**
 * saveWarnings returns what the save that returned `record` reported as not done although the record was saved
 * (the answer's `errors`), or [] when nothing was.
 */
export function saveWarnings(record: object): string[] {
  return warningsOf.get(record) ?? [];
}

async function saveRecords(def: DataResource, records: Record<string, unknown>[]): Promise<RaRecord[]> {
  const op = requireOp(def, 'save');
  const body = def.saveBodyKey ? { [def.saveBodyKey]: records } : records[0];
  const answer = (await callOperationUnchecked(op, { body })) as { data: RaRecord[] | RaRecord; errors?: unknown };
  const saved = Array.isArray(answer.data) ? answer.data : [answer.data];
  const errors = Array.isArray(answer.errors) ? answer.errors.map(String).filter(Boolean) : [];
  if (errors.length) for (const record of saved) warningsOf.set(record, errors);
  return saved;
}

async function archiveRecords(def: DataResource, ids: Identifier[], previous: Array<RaRecord | undefined>): Promise<void> {
  const op = requireOp(def, 'archive');
  if (def.archiveBy === 'email') {
    const emails = previous
      .map((r) => r?.email)
      .filter(Boolean)
      .join(',');
    await callOperationUnchecked(op, { query: { emails } });
  } else {
    await callOperationUnchecked(op, { path: { ids: ids.join(',') } });
  }
}

/** withoutReadOnly drops the server-managed fields a save body must not carry (the inputs forbid extra keys). */
function withoutReadOnly(record: Record<string, unknown>): Record<string, unknown> {
  const { created_at: _c, updated_at: _u, version: _v, ...rest } = record;
  return rest;
}

/**
 * The dataProvider type: react-admin's verbs plus `callGateway` for custom screens, which is callOperation: its
 * params ({body, query, path}) and its answer are the operation's, typed from generated/ by operationId.
 */
export type AppDataProvider = DataProvider & {
  callGateway: <Id extends OperationId>(operationId: Id, ...args: CallArgs<Id>) => Promise<OperationResponse<Id>>;
};

export type { RetryPolicy };

/** dataProvider maps react-admin calls to the gateways, as documented in the table above. */
export const dataProvider: AppDataProvider = {
  async getList(resource, params) {
    const def = resourceOf(resource);
    const { page, perPage } = params.pagination ?? { page: 1, perPage: 10 };
    const sort = params.sort?.field && params.sort.field !== 'id' ? params.sort : def.list.defaultSort;
    const filters = filterQuery(def, params.filter);
    const [data, countBody] = await Promise.all([
      listRecords(def, {
        ...filters,
        limit: perPage,
        offset: (page - 1) * perPage,
        sort_columns: `${sort.field} ${sort.order}`,
      }),
      def.operations.count ? callOperationUnchecked(def.operations.count, { query: filters }) : Promise.resolve({}),
    ]);
    const total = countOf(countBody) ?? (page - 1) * perPage + data.length;
    return { data: data as never[], total };
  },

  async getOne(resource, params) {
    const def = resourceOf(resource);
    const [record] = await listRecords(def, { ids: String(params.id), limit: 1 });
    if (!record) throw new Error(`No ${def.name} record with id ${params.id}`);
    return { data: record as never };
  },

  async getMany(resource, params) {
    const def = resourceOf(resource);
    if (params.ids.length === 0) return { data: [] };
    const data = await listRecords(def, { ids: params.ids.join(','), limit: Math.min(params.ids.length, 1000) });
    return { data: data as never[] };
  },

  async getManyReference(resource, params) {
    return dataProvider.getList(resource, { ...params, filter: { ...params.filter, [params.target]: params.id } });
  },

  async create(resource, params) {
    const def = resourceOf(resource);
    const [saved] = await saveRecords(def, [withoutReadOnly(params.data as Record<string, unknown>)]);
    return { data: saved as never };
  },

  async update(resource, params) {
    const def = resourceOf(resource);
    if (def.operations.update) {
      const { id: _id, ...body } = withoutReadOnly(params.data as Record<string, unknown>);
      const answer = (await callOperationUnchecked(def.operations.update, { path: { id: String(params.id) }, body })) as { data: RaRecord };
      return { data: answer.data as never };
    }
    const [saved] = await saveRecords(def, [withoutReadOnly({ ...(params.data as Record<string, unknown>), id: params.id })]);
    return { data: saved as never };
  },

  async updateMany(resource, params) {
    const def = resourceOf(resource);
    const saved = await saveRecords(
      def,
      params.ids.map((id) => withoutReadOnly({ ...(params.data as object), id })),
    );
    return { data: saved.map((r) => r.id) };
  },

  async delete(resource, params) {
    const def = resourceOf(resource);
    await archiveRecords(def, [params.id], [params.previousData]);
    return { data: (params.previousData ?? { id: params.id }) as never };
  },

  async deleteMany(resource, params) {
    const def = resourceOf(resource);
    const previous = def.archiveBy === 'email' ? (await dataProvider.getMany(resource, { ids: params.ids })).data : [];
    await archiveRecords(def, params.ids, previous);
    return { data: params.ids };
  },

  callGateway(operationId, ...args) {
    return callOperation(operationId, ...args);
  },
};
