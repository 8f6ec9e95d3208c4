/**
 * The contract under hostile input, derived from openapi/*.yaml for every operation of every gateway:
 * - no key or a wrong key → 401; a body in a media type the spec does not list → 415; `Content-Type:
 *   application/json` with no body on an operation that takes none answers as without the header; no body at all, or
 *   an empty JSON body, → 400 naming the body where the spec requires one, else the same answer either way;
 * - each body field of the wrong type, and null for each required one → 400 naming the field;
 * - absurd numbers (1e400, -1, 2^64) for every integer parameter and body field → 400 naming it;
 * - broken percent-encoding in a path → 400;
 * - the sample request (openapi-sampler) → anything but a 5xx;
 * - another project's id, wherever a request names a record, → the same answer as an id nobody has (or, where an
 *   unknown id creates a record, a 4xx), and that project's records are left as they were.
 * Every answer is checked as it arrives: never a 5xx, and every 4xx carries a non-empty `errors` list of strings.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sample } from 'openapi-sampler';
import { API_DB, OPERATOR_CLI_SECRET, startHarness, type Harness, type Tenant } from './harness.ts';
import { createOperator, OPERATOR_COOKIE, operatorLogin } from '../../src/server/core/operator/index.ts';
import type { Json } from '../helpers/json.ts';
import { bodyFields, fieldName, specOperations, typesOf, withValue, type Operation, type Parameter, type Schema } from '../helpers/specOperations.ts';
import { displayToTree } from '../../src/domain/workflowGraph.ts';

const OPS = specOperations();
const OPERATOR = { email: 'ops@contract.example.com', password: 'operator-password-1' };
let operatorToken = '';
let h: Harness;
let a: Tenant;
let b: Tenant;

interface Answer {
  status: number;
  body: Json;
}

/** A request to one operation; unset parts come from the spec's samples. */
interface Request {
  key?: string | null;
  path?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON value sent as the body, or a string sent as it is. */
  body?: unknown;
  contentType?: string | null;
}

/** sampleValue returns openapi-sampler's value for a parameter, as text. */
function sampleValue(p: Parameter): string {
  const v = sample(p.schema as never, { quiet: true });
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** urlOf builds the request URL: path parameters and required query parameters from samples unless given. */
function urlOf(op: Operation, r: Request): string {
  let url = `/api/${op.service}${op.path}`;
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    url = url.replace(`{${p.name}}`, r.path?.[p.name] ?? encodeURIComponent(sampleValue(p)));
  }
  const query: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'query' && x.required)) query[p.name] = sampleValue(p);
  Object.assign(query, r.query);
  const qs = new URLSearchParams(query).toString();
  return qs ? `${url}?${qs}` : url;
}

/** send makes one request as tenant A (unless `key` says otherwise) and checks what every answer must be. */
async function send(op: Operation, r: Request = {}): Promise<Answer> {
  const key = r.key === undefined ? a.apiKey : r.key;
  // The operator gateway takes no x-api-key: its calls carry the operator's session cookie (a new session for
  // sign-out, which ends the one it is sent with) and the back-office's X-Requested-With header (without it a
  // cookie's change is refused as forged: plugins/crossSiteGuard.ts), and /cli the server's secret, unless the test
  // sends only a key.
  const operator: Record<string, string> = {};
  if (op.service === 'operator' && r.key === undefined) {
    operator.cookie = `${OPERATOR_COOKIE}=${op.operationId === 'operatorLogout' ? (await operatorLogin(h.runtime.database.query.bind(h.runtime.database), OPERATOR.email, OPERATOR.password)).token : operatorToken}`;
    operator['x-requested-with'] = 'mailwright-operator';
    operator['x-operator-secret'] = OPERATOR_CLI_SECRET;
  }
  const body = 'body' in r ? r.body : op.sampleBody;
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = r.contentType === undefined ? (payload === undefined ? undefined : 'application/json') : r.contentType;
  const url = urlOf(op, r);
  const res = await h.app.inject({
    method: op.method as never,
    url,
    payload,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(contentType ? { 'content-type': contentType } : {}), ...operator },
  });
  let parsed: unknown;
  try {
    parsed = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    parsed = res.body;
  }
  const where = `${op.operationId} ${op.method} ${url} ${payload?.slice(0, 300) ?? ''} → ${res.statusCode} ${res.body.slice(0, 500)}`;
  expect(res.statusCode, where).toBeLessThan(500);
  if (res.statusCode >= 400) {
    const errors = (parsed as { errors?: unknown } | undefined)?.errors;
    expect(Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === 'string' && e.length > 0), `errors list: ${where}`).toBe(true);
  }
  return { status: res.statusCode, body: parsed };
}

/** names tells whether one of the answer's errors is about `field` (the field itself or something inside it). */
const names = (res: Answer, field: string) =>
  (res.body?.errors ?? []).some((e: string) => e.startsWith(`${field}:`) || e.startsWith(`${field}.`) || e.startsWith(`${field}[`));

/** A value of a JSON type the schema does not allow (undefined when it allows every type we can send). */
function wrongValue(types: string[]): unknown {
  const candidates: Array<[string, unknown]> = [
    ['boolean', true],
    ['number', 12345.5],
    ['string', 'not-a-valid-value'],
    ['object', { wrong: true }],
    ['array', []],
  ];
  return candidates.find(([t]) => !types.includes(t))?.[1];
}

/** rawJson serialises `body` with the value at `at` replaced by the JSON number text `number` (e.g. 1e400). */
function rawJson(body: unknown, at: Array<string | number>, number: string): string {
  return JSON.stringify(withValue(body, at, '__absurd_number__')).replace('"__absurd_number__"', number);
}

const ABSURD = ['1e400', '-1', '18446744073709551616'];

beforeAll(async () => {
  h = await startHarness({ workers: true });
  a = await h.tenant({ activated: true });
  b = await h.tenant({ activated: true });
  const query = h.runtime.database.query.bind(h.runtime.database);
  await createOperator(query, OPERATOR.email, OPERATOR.password, 'cli (test)');
  operatorToken = (await operatorLogin(query, OPERATOR.email, OPERATOR.password)).token;
});
afterAll(async () => {
  await h?.close();
});

describe(`every operation under bad input (${API_DB})`, () => {
  it('reads every operation of every gateway', () => {
    expect(OPS.length).toBeGreaterThan(60);
  });

  it('bounds every integer a request can carry (parameters and body fields), so 2^64 and -1 are refused by the schema', () => {
    const unbounded: string[] = [];
    for (const op of OPS) {
      const check = (s: Schema, where: string) => {
        if (!typesOf(s).includes('integer') || s.const !== undefined || s.enum) return;
        if (s.minimum === undefined || s.maximum === undefined || s.minimum < 0) unbounded.push(`${op.operationId} ${where}`);
      };
      for (const p of op.parameters) check(p.schema, p.name);
      for (const f of bodyFields(op)) check(f.schema, fieldName(f.path));
    }
    expect(unbounded).toEqual([]);
  });

  it.each(OPS.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    // The x-api-key comes first: no key or a wrong one is a 401 whatever else is wrong.
    if (op.secured) {
      for (const key of [null, 'mk_not-a-real-key']) {
        const res = await send(op, { key });
        expect(res.status, `${op.operationId} with key ${key}`).toBe(401);
      }
    }

    if (op.bodyTypes.length) {
      const other = op.bodyTypes.includes('text/plain') ? 'application/xml' : 'text/plain';
      const res = await send(op, { body: JSON.stringify(op.sampleBody ?? {}), contentType: other });
      expect(res.status, `${op.operationId} as ${other}`).toBe(415);
      expect(res.body.errors[0]).toMatch(/^content-type: /);
      // No body at all (no Content-Type either), or an empty JSON body: a 400 naming the body where the spec requires
      // one, else the same answer either way (it was a 500 where a body is required and no Content-Type was sent).
      const none = await send(op, { body: undefined, contentType: null });
      const empty = await send(op, { body: undefined, contentType: 'application/json' });
      if (op.bodyRequired) {
        for (const [what, res2] of [
          ['no body', none],
          ['an empty JSON body', empty],
        ] as const) {
          expect(res2.status, `${op.operationId} with ${what}`).toBe(400);
          expect(res2.body.errors[0], `${op.operationId} with ${what}`).toMatch(/^body: /);
        }
      } else {
        expect(empty.status, `${op.operationId} with an empty JSON body: ${JSON.stringify(empty.body)}`).toBe(none.status);
      }
    } else {
      // The spec's call shape sends Content-Type: application/json on every call: with no body it changes nothing.
      const plain = await send(op, { body: undefined, contentType: null });
      const declared = await send(op, { body: undefined, contentType: 'application/json' });
      expect(declared.status, `${op.operationId} with an empty JSON body: ${JSON.stringify(declared.body)}`).toBe(plain.status);
    }

    if (op.bodySchema && op.sampleBody !== undefined) {
      for (const field of bodyFields(op)) {
        const name = fieldName(field.path);
        const types = typesOf(field.schema);
        if (!types.length) continue;
        const wrong = wrongValue(types);
        if (wrong !== undefined) {
          const res = await send(op, { body: withValue(op.sampleBody, field.path, wrong) });
          expect(res.status, `${op.operationId} ${name} = ${JSON.stringify(wrong)}`).toBe(400);
          expect(names(res, name), `${op.operationId} ${name} = ${JSON.stringify(wrong)}: ${JSON.stringify(res.body)}`).toBe(true);
        }
        if (field.required && !types.includes('null')) {
          const res = await send(op, { body: withValue(op.sampleBody, field.path, null) });
          expect(res.status, `${op.operationId} ${name} = null`).toBe(400);
          expect(names(res, name), `${op.operationId} ${name} = null: ${JSON.stringify(res.body)}`).toBe(true);
        }
        if (types.includes('integer') && field.schema.const === undefined) {
          for (const n of ABSURD) {
            const res = await send(op, { body: rawJson(op.sampleBody, field.path, n), contentType: 'application/json' });
            expect(res.status, `${op.operationId} ${name} = ${n}`).toBe(400);
            expect(names(res, name), `${op.operationId} ${name} = ${n}: ${JSON.stringify(res.body)}`).toBe(true);
          }
        }
      }
    }

    for (const p of op.parameters.filter((x) => typesOf(x.schema).includes('integer'))) {
      for (const n of ABSURD) {
        const res = await send(op, p.in === 'path' ? { path: { [p.name]: n } } : { query: { [p.name]: n } });
        expect(res.status, `${op.operationId} ${p.name}=${n}`).toBe(400);
        expect(names(res, p.name), `${op.operationId} ${p.name}=${n}: ${JSON.stringify(res.body)}`).toBe(true);
      }
    }

    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      const res = await send(op, { path: { [p.name]: '%E0%A4%A' } });
      expect(res.status, `${op.operationId} ${p.name} with broken percent-encoding`).toBe(400);
    }

    // The sample request as it is: any answer but a 5xx (send checks that).
    await send(op);
  });
});

/** The kinds of record a request can name by id. */
type Kind =
  | 'contact'
  | 'segment'
  | 'template'
  | 'persona'
  | 'blast'
  | 'campaign'
  | 'workflow'
  | 'event'
  | 'joblog'
  | 'admin'
  | 'topic'
  | 'form'
  | 'webhook'
  | 'delivery'
  | 'domain'
  | 'smtp_credential'
  | 'message';

/** The record kind a field or parameter names, by its name; null for ids that name no record of a project. */
const KIND_BY_NAME: Record<string, Kind | null> = {
  user_ids: 'contact',
  to_user_ids: 'contact',
  cc_to_user_ids: 'contact',
  bcc_to_user_ids: 'contact',
  user_id: 'contact',
  contact_id: 'contact',
  in_segment_ids: 'segment',
  not_in_segment_ids: 'segment',
  segment_id: 'segment',
  to_segment_ids: 'segment',
  template_id: 'template',
  template_ids: 'template',
  sender_persona_id: 'persona',
  sender_persona_ids: 'persona',
  workflow_id: 'workflow',
  workflow_ids: 'workflow',
  campaign_id: 'campaign',
  scheduled_email_group_id: 'blast',
  scheduled_email_blast_group_ids: 'blast',
  job_log_id: 'joblog',
  topic_id: 'topic',
  // Not a record of a project: workflow node ids, message ids, the sign-up's and captcha's own ids.
  root_node_id: null,
  message_id: null,
  channel_id: null,
  product_package_id: null,
  captcha_id: null,
  company_id: null,
  project_id: null,
};

/** What an `id` / `ids` names: by the list it sits in, else by the path's first segment. */
const KIND_BY_COLLECTION: Record<string, Kind | null> = {
  users: 'contact',
  contacts: 'contact',
  segments: 'segment',
  sender_personas: 'persona',
  templates: 'template',
  scheduler: 'blast',
  campaign: 'campaign',
  campaigns: 'campaign',
  campaign_metrics: 'campaign',
  workflows: 'workflow',
  all_events: 'event',
  joblog: 'joblog',
  company_user: 'admin',
  topics: 'topic',
  forms: 'form',
  endpoints: 'webhook',
  deliveries: 'delivery',
  domains: 'domain',
  smtp_credentials: 'smtp_credential',
  messages: 'message',
  tree: null,
  root_node: null,
  children: null,
};

/** One place a request names a record: `request(id, base)` puts the id there, in the full or the minimal sample body. */
interface Slot {
  where: string;
  kind: Kind;
  request(id: string, base: 'sample' | 'minimal'): Request;
}

/** baseBody is the body a slot's id goes into: the full sample (every field, most naming nothing) or only the required fields. */
const baseBody = (op: Operation, base: 'sample' | 'minimal') => (base === 'sample' ? op.sampleBody : op.minimalBody);

/** slotsOf lists every place a request to `op` names a record by id, with the kind of record; throws on an unknown name. */
function slotsOf(op: Operation): Slot[] {
  const slots: Slot[] = [];
  // A gateway's own records at its root (/api/messages/{id}) are named by the gateway.
  const first = op.path.split('/')[1].startsWith('{') ? op.service : op.path.split('/')[1];
  const kindOf = (name: string, container: string | undefined, where: string): Kind | null => {
    const kind = name === 'id' || name === 'ids' ? KIND_BY_COLLECTION[container ?? first] : KIND_BY_NAME[name];
    if (kind === undefined) throw new Error(`${op.operationId}: no record kind for ${where}; add it to KIND_BY_NAME or KIND_BY_COLLECTION`);
    return kind;
  };
  for (const p of op.parameters) {
    if (!/(^|_)ids?$/.test(p.name) && p.schema.format !== 'uuid') continue;
    const kind = kindOf(p.name, undefined, p.name);
    if (kind)
      slots.push({
        where: `${p.in} ${p.name}`,
        kind,
        request: (id, base) => ({
          ...(p.in === 'path' ? { path: { [p.name]: id } } : { query: { [p.name]: id } }),
          body: baseBody(op, base),
        }),
      });
  }
  for (const f of bodyFields(op)) {
    const keys = f.path.filter((x): x is string => typeof x === 'string');
    const name = keys[keys.length - 1];
    const inArray = typeof f.path[f.path.length - 1] === 'number';
    if (inArray || (!/(^|_)ids?$/.test(name) && f.schema.format !== 'uuid')) continue;
    if (typesOf(f.schema).includes('array')) continue; // its element is the slot
    const container = keys.length > 1 ? keys[keys.length - 2] : undefined;
    const kind = kindOf(name, container, fieldName(f.path));
    if (kind) slots.push({ where: `body ${fieldName(f.path)}`, kind, request: (id, base) => ({ body: withValue(baseBody(op, base), f.path, id) }) });
  }
  // Elements of id arrays (to_user_ids[0], …).
  for (const f of bodyFields(op)) {
    const last = f.path[f.path.length - 1];
    const name = f.path[f.path.length - 2];
    if (typeof last !== 'number' || typeof name !== 'string' || !/(^|_)ids$/.test(name)) continue;
    const kind = kindOf(name, undefined, fieldName(f.path));
    if (kind) slots.push({ where: `body ${fieldName(f.path)}`, kind, request: (id, base) => ({ body: withValue(baseBody(op, base), f.path, id) }) });
  }
  return slots;
}

describe(`another project's ids (${API_DB})`, () => {
  const theirs = {} as Record<Kind, string>;
  let before: string;

  /** snapshot reads everything tenant B has, through B's own key. */
  async function snapshot(): Promise<string> {
    const get = async (url: string) => (await h.call('GET', url, { key: b.apiKey, query: { limit: 1000 } })).body;
    const parts = await Promise.all([
      get('/api/user/users'),
      get('/api/segment/segments'),
      get('/api/template/templates'),
      get('/api/senderpersonawrapper/sender_personas'),
      get('/api/scheduler/scheduler'),
      get('/api/campaign/campaigns'),
      get('/api/workflowwrapper/workflows'),
      get('/api/event/all_events'),
      get('/api/joblog/joblog'),
      (async () => (await h.call('GET', '/api/companyauthwrapper/company_users', { key: b.apiKey })).body)(),
      (async () => (await h.call('GET', '/api/subscriptions/topics', { key: b.apiKey })).body)(),
      (async () => (await h.call('GET', '/api/subscriptions/forms', { key: b.apiKey })).body)(),
      // Their sending domains' names and bounce subdomains (the DNS check may change the statuses at any time).
      (async () =>
        ((await h.call('GET', '/api/domains/dkim', { key: b.apiKey })).body.data as Array<Record<string, unknown>>).map(({ domain, bounce_domain }) => ({
          domain,
          bounce_domain,
        })))(),
      (async () => {
        const endpoints = (await h.call('GET', '/api/webhooks/endpoints', { key: b.apiKey })).body;
        // The dispatcher's attempts (to an address that does not answer here) change the deliveries' state, not what
        // another project's calls may change: the endpoints' settings.
        return (endpoints.data as Array<Record<string, unknown>>).map(({ url, description, event_types, secret_hint, enabled }) => ({
          url,
          description,
          event_types,
          secret_hint,
          enabled,
        }));
      })(),
    ]);
    return JSON.stringify(parts);
  }

  beforeAll(async () => {
    const call = async (method: string, url: string, body: unknown) => {
      const res = await h.call(method, url, { key: b.apiKey, body });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    };
    theirs.contact = (await call('POST', '/api/user/users', { users: [{ email: `them-${randomUUID()}@b.example.com` }] })).data[0].id;
    theirs.segment = (await call('POST', '/api/segment/segments', { segments: [{ name: 'Theirs', user_ids: [theirs.contact] }] })).data[0].id;
    theirs.template = (
      await call('POST', '/api/template/templates', { templates: [{ name: 'Theirs', subject: 'Hi', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Hi</p>' }] })
    ).data[0].id;
    theirs.persona = (await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: b.email, first_name: 'B' }] })).data[0].id;
    await h.confirmPersonas();
    theirs.blast = randomUUID();
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 16);
    await call('POST', '/api/scheduler/scheduler', {
      id: theirs.blast,
      name: 'Theirs',
      template_id: theirs.template,
      sender_persona_id: theirs.persona,
      to_user_ids: [theirs.contact],
      send_at: later,
      timezone: 'UTC',
    });
    theirs.campaign = (
      await call('POST', '/api/campaign/campaigns', {
        campaign: { name: 'Theirs', type: 'scheduled_email_group', scheduled_email_blast_group_ids: [theirs.blast] },
      })
    ).campaign.id;
    const display = { nodes: [{ id: 't', type: 'event' as const, position: { x: 0, y: 0 }, properties: { eventName: 'theirs' } }], links: [] };
    theirs.workflow = randomUUID();
    const saved = await call('POST', '/api/workflowwrapper/workflows', { id: theirs.workflow, name: 'Theirs', display, tree: displayToTree(display).tree });
    theirs.joblog = String(saved.data.job_log_entry_id);
    await call('POST', '/api/event/events', { events: [{ name: 'theirs', email: `them-${randomUUID()}@b.example.com` }] });
    theirs.event = (await h.call('GET', '/api/event/all_events', { key: b.apiKey })).body.data[0].id;
    theirs.admin = (await h.call('GET', '/api/companyauthwrapper/company_users', { key: b.apiKey })).body.data[0].id;
    theirs.topic = (await call('POST', '/api/subscriptions/topics', { name: 'Theirs' })).data.id;
    theirs.form = (
      await call('POST', '/api/subscriptions/forms', {
        name: 'Theirs',
        segment_id: theirs.segment,
        sender_persona_id: theirs.persona,
        heading: 'Theirs',
        consent_text: 'Yes',
      })
    ).data.id;
    // A public address (nothing answers it here; the endpoint is registered, not reached).
    theirs.webhook = (await call('POST', '/api/webhooks/endpoints', { url: 'https://93.184.215.14/hooks', event_types: ['email.sent'] })).data.id;
    theirs.delivery = (await call('POST', `/api/webhooks/endpoints/${theirs.webhook}/test`, undefined)).data.id;
    theirs.domain = (await call('POST', '/api/domains/domains', { domain: 'theirs-contract.example' })).data.id;
    theirs.smtp_credential = (await call('POST', '/api/email/smtp_credentials', { name: 'Theirs' })).data.id;
    await call('POST', '/api/event/emit_send_single_email_event', {
      mailer_payload: { from: { user_id: theirs.persona }, to: [{ email: `them-${randomUUID()}@b.example.com` }], subject: 'Theirs', body: '<p>Theirs</p>' },
    });
    theirs.message = (await h.call('GET', '/api/messages', { key: b.apiKey })).body.data[0].id;
    for (const [kind, id] of Object.entries(theirs)) expect(id, kind).toBeTruthy();
    // Wait for the workflow's save job, so the snapshot does not change under the test.
    for (
      let i = 0;
      i < 100 && !(await h.call('GET', '/api/joblog/joblog', { key: b.apiKey })).body.data.every((j: { ended_at: string | null }) => j.ended_at);
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    before = await snapshot();
  });

  // Operators see every project by design (tests/api/operator.api.test.ts checks their 404s for unknown ids).
  const secured = OPS.filter((op) => op.secured && op.service !== 'operator');
  it.each(secured.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    for (const [slot, base] of slotsOf(op).flatMap((s) => (['sample', 'minimal'] as const).map((b) => [s, b] as const))) {
      const foreign = theirs[slot.kind];
      // An unknown id first, so whatever the first call of an operation changes (a cache cleared, a job queued) is
      // behind both calls compared: theirs and a second unknown id.
      const first = await send(op, slot.request(randomUUID(), base));
      const unknown = randomUUID();
      const withTheirs = await send(op, slot.request(foreign, base));
      const withUnknown = await send(op, slot.request(unknown, base));
      const where = `${op.operationId} ${slot.where} (${base}): theirs → ${withTheirs.status} ${JSON.stringify(withTheirs.body)}; unknown → ${withUnknown.status} ${JSON.stringify(withUnknown.body)}`;
      if (first.status < 300 && withTheirs.status >= 400) continue; // an unknown id creates a record; theirs cannot
      expect(withTheirs.status, where).toBe(withUnknown.status);
      // Ids and instants the server makes (a job-log entry's id, created_at) differ between any two calls, and so does
      // whether a queued workflow job waits behind the one before (the workers may or may not have run it yet).
      const text = (x: Answer) =>
        JSON.stringify(x.body ?? null)
          .split(foreign)
          .join('<id>')
          .split(unknown)
          .join('<id>')
          .replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"<made>"')
          .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<instant>"')
          .replace(/"behind_another_job":(true|false)/g, '"behind_another_job":"<timing>"');
      expect(text(withTheirs), where).toBe(text(withUnknown));
    }
  });

  it("leaves the other project's records as they were", async () => {
    expect(await snapshot()).toBe(before);
  });
});
