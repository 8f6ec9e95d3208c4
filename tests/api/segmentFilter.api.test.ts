/**
 * Segment filters against an independent computation: a seeded project of
 * contacts with names, metadata, dates, events (sends, opens, clicks per blast, template and workflow; campaigns by association) and
 * segment memberships; for every attribute of the catalog and every operator it allows, POST filter_users must
 * return exactly the contacts a plain TypeScript predicate over the seed selects (and their total); and/or joins; and
 * bad filters get a 400 naming them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../helpers/random.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';
import { FILTER_ATTRIBUTES, OPERATORS, valueTypes, type FilterOperator, type UserFilter } from '../../src/domain/segmentFilter.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let t: Tenant;
let query: QueryFn;

interface Seed {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  json: Record<string, unknown>;
  date_of_birth: string | null;
  created_at: string;
  bounced_at: string | null;
  unsubscribed_at: string | null;
  events: Array<{ name: string; blast_id: string | null; template_id: string | null; workflow_id?: string; at: string }>;
  segments: string[];
  /** Subscription topics the contact left. */
  left_topics: string[];
}
const seed: Seed[] = [];
const BLASTS = [randomUUID(), randomUUID()];
const TEMPLATES = [randomUUID(), randomUUID()];
const CAMPAIGNS = [randomUUID(), randomUUID()];
const WORKFLOWS = [randomUUID(), randomUUID()];
let SEGMENTS: string[] = [];
const TOPICS: string[] = [];
const DAYS = ['2026-01-15', '2026-03-01', '2026-06-30'];
const day = (iso: string | null) => iso?.slice(0, 10) ?? null;

const rnd = seededRandom(42);

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant();
  query = h.runtime.ctx.database.query.bind(h.runtime.ctx.database) as QueryFn;
  const firsts = ['Ann', 'anna', 'Bob', null, '', 'Zoë', '100%_sure'];
  const lasts = ['Lee', 'LEE', 'Smith', null, 'Ng'];
  const users = Array.from({ length: 40 }, (_, i) => ({
    email: `${['ann', 'bob', 'cy', 'dee'][i % 4]}${i}@${['example.com', 'mail.test', 'Example.org'][i % 3]}`,
    first_name: firsts[rnd(firsts.length)],
    last_name: lasts[rnd(lasts.length)],
    json: Object.fromEntries(
      [
        ['city', ['Paris', 'paris', 'Lyon', null][rnd(4)]],
        ['state', ['CA', 'NY', ''][rnd(3)]],
        ['plan', ['pro', 'free', 7][rnd(3)]],
      ].filter(([, v]) => v !== null && rnd(5) > 0),
    ),
    date_of_birth: rnd(3) ? `19${70 + rnd(30)}-0${1 + rnd(9)}-1${rnd(9)}` : null,
  }));
  const res = await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const seg = await h.call('POST', '/api/segment/segments', {
    key: t.apiKey,
    body: {
      segments: [
        { name: 'S1', user_ids: [] },
        { name: 'S2', user_ids: [] },
      ],
    },
  });
  expect(seg.status, JSON.stringify(seg.body)).toBe(200);
  SEGMENTS = seg.body.data.map((s: { id: string }) => s.id);
  for (const name of ['T1', 'T2']) TOPICS.push((await h.call('POST', '/api/subscriptions/topics', { key: t.apiKey, body: { name } })).body.data.id);
  for (const c of res.body.data as Array<Record<string, Json>>) {
    const s: Seed = {
      id: c.id,
      email: c.email,
      first_name: c.first_name,
      last_name: c.last_name,
      json: c.json,
      date_of_birth: c.date_of_birth,
      created_at: `${DAYS[rnd(3)]}T${String(rnd(24)).padStart(2, '0')}:30:00.000Z`,
      bounced_at: rnd(3) === 0 ? `${DAYS[rnd(3)]}T23:59:59.000Z` : null,
      unsubscribed_at: rnd(3) === 0 ? `${DAYS[rnd(3)]}T00:00:00.000Z` : null,
      events: [],
      segments: SEGMENTS.filter(() => rnd(2) === 0),
      left_topics: TOPICS.filter(() => rnd(3) === 0),
    };
    for (let k = rnd(6); k > 0; k--) {
      s.events.push({
        name: [EVENT.sendSuccess, EVENT.open, EVENT.click, EVENT.workflowStarted, EVENT.workflowCompleted][rnd(5)],
        blast_id: rnd(2) ? BLASTS[rnd(2)] : null,
        template_id: rnd(2) ? TEMPLATES[rnd(2)] : null,
        ...(rnd(2) ? { workflow_id: WORKFLOWS[rnd(2)] } : {}),
        at: `${DAYS[rnd(3)]}T12:00:00.000Z`,
      });
    }
    await query('UPDATE contacts SET created_at = $2, bounced_at = $3, unsubscribed_at = $4, unsubscribed_topic_ids = $5::uuid[] WHERE id = $1', [
      s.id,
      s.created_at,
      s.bounced_at,
      s.unsubscribed_at,
      s.left_topics,
    ]);
    for (const e of s.events) {
      await query(
        `INSERT INTO events (project_id, name, email, user_id, blast_id, template_id, json, emitted_at, is_system) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, true)`,
        [t.projectId, e.name, s.email, s.id, e.blast_id, e.template_id, JSON.stringify({ workflow_id: e.workflow_id }), e.at],
      );
    }
    for (const sid of s.segments) await query('INSERT INTO segment_members (segment_id, contact_id) VALUES ($1, $2)', [sid, s.id]);
    seed.push(s);
  }
  for (const c of CAMPAIGN_ASSOCIATIONS()) {
    await query(
      `INSERT INTO campaigns (id, project_id, name, type, scheduled_email_blast_group_ids, template_ids, workflow_ids) VALUES ($1, $2, $3, $4, $5::uuid[], $6::uuid[], $7::uuid[])`,
      [c.id, t.projectId, `Campaign ${c.id.slice(0, 8)}`, c.type, c.blasts, c.templates, c.workflows],
    );
  }
  // Another tenant's contact that matches everything must never appear.
  const other = await h.tenant();
  await h.call('POST', '/api/user/users', { key: other.apiKey, body: { users: [{ email: 'ann999@example.com', first_name: 'Ann' }] } });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/**
 * The campaigns of the seed, by association (a campaign's events are those of its blasts, templates and workflows):
 * CAMPAIGNS[0] groups BLASTS[0]; CAMPAIGNS[1] groups TEMPLATES[1] and WORKFLOWS[1] is not in it.
 */
const CAMPAIGN_ASSOCIATIONS = () => [
  { id: CAMPAIGNS[0], type: 'scheduled_email_group', blasts: [BLASTS[0]] as string[], templates: [] as string[], workflows: [] as string[] },
  { id: CAMPAIGNS[1], type: 'template', blasts: [] as string[], templates: [TEMPLATES[1]] as string[], workflows: [] as string[] },
];
function inCampaign(e: Seed['events'][number], campaignId: string): boolean {
  const c = CAMPAIGN_ASSOCIATIONS().find((x) => x.id === campaignId);
  return (
    !!c &&
    ((!!e.blast_id && c.blasts.includes(e.blast_id)) ||
      (!!e.template_id && c.templates.includes(e.template_id)) ||
      (!!e.workflow_id && c.workflows.includes(e.workflow_id)))
  );
}

/** The independent computation: what a filter means, in plain TypeScript over the seed. */
function matches(c: Seed, f: { attribute: string; operator?: FilterOperator; values: Array<string | number> }): boolean {
  const op = f.operator;
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const textTest = (actual: unknown, value?: string | number) => {
    const a = text(actual);
    switch (op) {
      case 'contains':
        return a.toLowerCase().includes(String(value).toLowerCase());
      case 'does_not_contain':
        return !a.toLowerCase().includes(String(value).toLowerCase());
      case 'equals':
        return actual !== null && actual !== undefined && a.toLowerCase() === String(value).toLowerCase();
      case 'not_equals':
        return a.toLowerCase() !== String(value).toLowerCase();
      case 'is_missing':
        return a === '';
      case 'is_not_missing':
        return a !== '';
      default:
        throw new Error(String(op));
    }
  };
  const dateTest = (actual: string | null, value?: string | number) => {
    const d = day(actual);
    switch (op) {
      case 'is_missing':
        return d === null;
      case 'is_not_missing':
        return d !== null;
      case 'equals':
        return d === value;
      case 'not_equals':
        return d !== null && d !== value;
      case 'less_than':
        return d !== null && d < String(value);
      case 'greater_than':
        return d !== null && d > String(value);
      default:
        throw new Error(String(op));
    }
  };
  const countTest = (n: number, value: number) =>
    ({ equals: n === value, not_equals: n !== value, less_than: n < value, greater_than: n > value })[op as 'equals'];
  const [a, b] = f.values;
  switch (f.attribute) {
    case 'contact_email':
      return textTest(c.email, a);
    case 'contact_first_name':
      return textTest(c.first_name, a);
    case 'contact_last_name':
      return textTest(c.last_name, a);
    case 'contact_city':
      return textTest(c.json.city, a);
    case 'contact_state':
      return textTest(c.json.state, a);
    case 'contact_json':
      return textTest(c.json[String(a)], b);
    case 'contact_date_of_birth':
      return dateTest(c.date_of_birth, a);
    case 'date_added':
      return dateTest(c.created_at, a);
    case 'date_bounced':
      return dateTest(c.bounced_at, a);
    case 'date_unsubscribed':
      return dateTest(c.unsubscribed_at, a);
    case 'date_workflow_started':
    case 'date_workflow_completed': {
      const name = f.attribute === 'date_workflow_started' ? EVENT.workflowStarted : EVENT.workflowCompleted;
      const times = c.events
        .filter((e) => e.name === name && e.workflow_id === a)
        .map((e) => e.at)
        .sort();
      return dateTest(times[0] ?? null, b);
    }
    case 'num_in_segment':
      return countTest(c.segments.includes(String(a)) ? 1 : 0, Number(b));
    case 'is_in_segment':
      return c.segments.includes(String(a));
    case 'is_subscribed_to_topic':
      return !c.unsubscribed_at && !c.left_topics.includes(String(a));
    default: {
      const m = /^num_(sends|opens|clicks)(?:_(via_campaign|via_scheduled_email_blast|via_workflow|with_template))?$/.exec(f.attribute)!;
      const name = { sends: EVENT.sendSuccess, opens: EVENT.open, clicks: EVENT.click }[m[1]];
      const n = c.events.filter(
        (e) =>
          e.name === name &&
          (!m[2] ||
            (m[2] === 'via_campaign' && inCampaign(e, String(a))) ||
            (m[2] === 'via_scheduled_email_blast' && e.blast_id === a) ||
            (m[2] === 'via_workflow' && e.workflow_id === a) ||
            (m[2] === 'with_template' && e.template_id === a)),
      ).length;
      return countTest(n, Number(m[2] ? b : a));
    }
  }
}

/** Values to try for one value type: ones that split the seed, and edge cases. */
function samples(type: string, attribute: string): Array<string | number> {
  switch (type) {
    case 'string':
      return attribute === 'contact_json' ? ['plan', 'city'] : ['ann', 'LEE', 'Paris', 'a', '100%_', 'example.com', 'ann0@example.com'];
    case 'date':
      return [...DAYS, '2026-03-01T23:30:00+00:00', '1985-05-12'];
    case 'number':
      return [0, 1, 2];
    case 'campaign_id':
      return CAMPAIGNS;
    case 'scheduled_email_blast_id':
      return BLASTS;
    case 'workflow_id':
      return WORKFLOWS;
    case 'template_id':
      return TEMPLATES;
    case 'segment_id':
      return SEGMENTS;
    case 'topic_id':
      return TOPICS;
    default:
      throw new Error(type);
  }
}

/** Every combination of sample values for the attribute's value types (capped, first ones first). */
function valueLists(attribute: string, op: FilterOperator | undefined): Array<Array<string | number>> {
  const types = valueTypes(FILTER_ATTRIBUTES[attribute], op);
  let lists: Array<Array<string | number>> = [[]];
  for (const type of types) lists = lists.flatMap((l) => samples(type, attribute).map((v) => [...l, v]));
  return lists.slice(0, 12);
}

async function filterUsers(body: Record<string, unknown>) {
  return h.call('POST', '/api/segment/segments/filter_users', { key: t.apiKey, body });
}

describe(`segment filters (${API_DB})`, () => {
  for (const [attribute, spec] of Object.entries(FILTER_ATTRIBUTES)) {
    const ops: Array<FilterOperator | undefined> = spec.kind === 'membership' ? [undefined] : OPERATORS[spec.kind];
    it(`${attribute}: every operator matches the independent computation`, async () => {
      let nonEmpty = 0;
      for (const operator of ops) {
        for (const values of valueLists(attribute, operator)) {
          const f: UserFilter = { attribute, ...(operator ? { operator } : {}), values };
          const res = await filterUsers({ user_filters: [f], segment_edit: attribute === 'is_in_segment' });
          expect(res.status, `${JSON.stringify(f)} ${JSON.stringify(res.body)}`).toBe(200);
          const normalised = values.map((v) => (typeof v === 'string' && /T\d\d:/.test(v) ? new Date(v).toISOString().slice(0, 10) : v));
          const expected = seed
            .filter((c) => matches(c, { attribute, operator, values: normalised }))
            .map((c) => c.email)
            .sort();
          expect(res.body.users.map((u: { email: string }) => u.email).sort(), JSON.stringify(f)).toEqual(expected);
          expect(res.body.total_users, JSON.stringify(f)).toBe(expected.length);
          if (expected.length > 0 && expected.length < seed.length) nonEmpty++;
        }
      }
      // The seed must make the attribute discriminate, or the comparison above proves little.
      expect(nonEmpty).toBeGreaterThan(0);
    });
  }

  // Joined by OR, filters on events and segment membership compile to per-contact joins instead of EXISTS
  // (src/server/core/segments/filter.ts): each must still select exactly its contacts beside a filter that matches nobody.
  it('under OR, every filter on events or segments matches the independent computation', async () => {
    const nobody: UserFilter = { attribute: 'contact_email', operator: 'equals', values: ['nobody@nowhere.invalid'] };
    const attributes = Object.entries(FILTER_ATTRIBUTES).filter(
      ([a, spec]) => spec.kind === 'membership' || (spec.kind === 'count' && spec.keys.length) || a.startsWith('date_workflow_'),
    );
    for (const [attribute, spec] of attributes) {
      for (const operator of spec.kind === 'membership' ? [undefined] : OPERATORS[spec.kind]) {
        for (const values of valueLists(attribute, operator).slice(0, 6)) {
          const f: UserFilter = { attribute, ...(operator ? { operator } : {}), values };
          const res = await filterUsers({ conjunction: 'or', user_filters: [f, nobody], segment_edit: attribute === 'is_in_segment' });
          expect(res.status, `${JSON.stringify(f)} ${JSON.stringify(res.body)}`).toBe(200);
          const normalised = values.map((v) => (typeof v === 'string' && /T\d\d:/.test(v) ? new Date(v).toISOString().slice(0, 10) : v));
          const expected = seed
            .filter((c) => matches(c, { attribute, operator, values: normalised }))
            .map((c) => c.email)
            .sort();
          expect(res.body.users.map((u: { email: string }) => u.email).sort(), JSON.stringify(f)).toEqual(expected);
          expect(res.body.total_users, JSON.stringify(f)).toBe(expected.length);
        }
      }
    }
  }, 60_000);

  it('joins with and / or, pages newest first, and counts all matches', async () => {
    const a: UserFilter = { attribute: 'contact_email', operator: 'contains', values: ['ann'] };
    const b: UserFilter = { attribute: 'num_opens', operator: 'greater_than', values: [0] };
    const pick = (fn: (c: Seed) => boolean) =>
      seed
        .filter(fn)
        .map((c) => c.email)
        .sort();
    const ma = (c: Seed) => matches(c, { attribute: a.attribute, operator: 'contains', values: ['ann'] });
    const mb = (c: Seed) => matches(c, { attribute: b.attribute, operator: 'greater_than', values: [0] });
    const and = await filterUsers({ conjunction: 'and', user_filters: [a, b] });
    expect(and.body.users.map((u: { email: string }) => u.email).sort()).toEqual(pick((c) => ma(c) && mb(c)));
    const or = await filterUsers({ conjunction: 'or', user_filters: [a, b] });
    expect(or.body.users.map((u: { email: string }) => u.email).sort()).toEqual(pick((c) => ma(c) || mb(c)));
    const page = await filterUsers({ conjunction: 'or', user_filters: [a, b], limit: 3, offset: 1 });
    const newestFirst = seed.filter((c) => ma(c) || mb(c)).sort((x, y) => y.created_at.localeCompare(x.created_at) || x.id.localeCompare(y.id));
    expect(page.body.users.map((u: { email: string }) => u.email)).toEqual(newestFirst.slice(1, 4).map((c) => c.email));
    expect(page.body.total_users).toBe(newestFirst.length);
  });

  it('total: estimate gives the page at once and a flagged total from a sample on a large project, exact on a small one', async () => {
    const filter = { attribute: 'contact_email', operator: 'contains', values: ['@big3.'] };
    // A small project is counted exactly even when an estimate is asked for.
    const small = await filterUsers({ user_filters: [{ attribute: 'contact_email', operator: 'contains', values: ['ann'] }], total: 'estimate' });
    expect(small.status).toBe(200);
    expect(small.body.total_is_estimate).toBe(false);
    // A large one (60,000 contacts, a seventh of them on one domain): sampled, flagged, close to the exact count.
    const big = await h.tenant();
    await h.runtime.database.query(
      `INSERT INTO contacts (project_id, email) SELECT $1, 'c' || g || '@big' || (g % 7) || '.example.com' FROM generate_series(1, 60000) g`,
      [big.projectId],
    );
    await h.runtime.database.query('ANALYZE contacts');
    const ask = (total: string) => h.call('POST', '/api/segment/segments/filter_users', { key: big.apiKey, body: { user_filters: [filter], limit: 5, total } });
    const exact = await ask('exact');
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ total_users: 8572, total_is_estimate: false });
    const estimate = await ask('estimate');
    expect(estimate.status).toBe(200);
    expect(estimate.body.total_is_estimate).toBe(true);
    expect(estimate.body.users).toEqual(exact.body.users); // the same page
    expect(Math.abs(estimate.body.total_users - 8572) / 8572).toBeLessThan(0.15);
    expect((await ask('roughly')).status).toBe(400);
  });

  it('create_from_filters counts now, then a job adds exactly the previewed contacts and shows the segment', async () => {
    const body = {
      name: ' Openers named Ann ',
      conjunction: 'and',
      user_filters: [
        { attribute: 'contact_email', operator: 'contains', values: ['ann'] },
        { attribute: 'num_opens', operator: 'greater_than', values: [0] },
      ],
    };
    const preview = await filterUsers({ conjunction: body.conjunction, user_filters: body.user_filters });
    expect(preview.body.total_users).toBeGreaterThan(0);
    const res = await h.call('POST', '/api/segmentwrapper/segments/create_from_filters', { key: t.apiKey, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ num_users: preview.body.total_users, errors: [] });
    let entry: { ended_at: string | null; success: boolean; end_details: { num_users: number; segment_id: string } } | undefined;
    for (let i = 0; i < 200 && !entry?.ended_at; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const log = await h.call('GET', '/api/joblog/joblog', { key: t.apiKey });
      entry = log.body.data.find((e: { id: string }) => String(e.id) === res.body.job_log_id);
    }
    expect(entry).toMatchObject({
      job_name: 'JOB_CREATE_SEGMENT_FROM_FILTERS',
      success: true,
      end_details: { segment_id: res.body.segment_id, num_users: preview.body.total_users },
    });
    const [segment] = (await h.call('GET', '/api/segment/segments', { key: t.apiKey, query: { ids: res.body.segment_id } })).body.data;
    expect(segment).toMatchObject({ name: 'Openers named Ann', num_users: preview.body.total_users });
    const members = await h.call('GET', '/api/user/users', { key: t.apiKey, query: { in_segment_ids: res.body.segment_id, limit: 1000 } });
    expect(members.body.data.map((u: { email: string }) => u.email).sort()).toEqual(preview.body.users.map((u: { email: string }) => u.email).sort());
    // Bad requests name the field; nothing is created.
    const before = (await h.call('GET', '/api/segment/segments/count', { key: t.apiKey })).body.num_segments;
    const bad = await h.call('POST', '/api/segmentwrapper/segments/create_from_filters', { key: t.apiKey, body: { name: '', user_filters: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['name: Required field', 'user_filters: you must provide at least 1 filter']);
    expect((await h.call('GET', '/api/segment/segments/count', { key: t.apiKey })).body.num_segments).toBe(before);
  });

  // num_sends / num_opens / num_clicks are read from contact_event_counts, kept by triggers on events (migration 0006): deleting and
  // re-inserting several contacts' events in one statement each must leave every count as the events say.
  it('counts follow events deleted and inserted many at a time', async () => {
    const counts = ['num_sends', 'num_opens', 'num_clicks'];
    const check = async () => {
      for (const attribute of counts) {
        for (const [operator, n] of [
          ['greater_than', 0],
          ['equals', 1],
          ['less_than', 2],
        ] as const) {
          const res = await filterUsers({ user_filters: [{ attribute, operator, values: [n] }] });
          const expected = seed
            .filter((c) => matches(c, { attribute, operator, values: [n] }))
            .map((c) => c.email)
            .sort();
          expect(res.body.users.map((u: { email: string }) => u.email).sort(), `${attribute} ${operator} ${n}`).toEqual(expected);
        }
      }
    };
    const some = seed.filter((c) => c.events.length > 0).slice(0, 5);
    await query('DELETE FROM events WHERE user_id = ANY($1::uuid[])', [some.map((c) => c.id)]);
    const removed = some.map((c) => c.events.splice(0));
    await check();
    const rows = some.flatMap((c, i) => removed[i].map((e) => [c.id, c.email, e.name, e.at]));
    await query(
      `INSERT INTO events (project_id, user_id, email, name, emitted_at, is_system)
      SELECT $1, u, m, n, a::timestamptz, true FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS r(u, m, n, a)`,
      [t.projectId, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
    );
    some.forEach((c, i) => c.events.push(...removed[i].map((e) => ({ ...e, blast_id: null, template_id: null, workflow_id: undefined }))));
    await check();
  });

  it('refuses bad filters with 400s naming them, and never runs client text as SQL', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await filterUsers(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.errors as string[];
    };
    expect(await bad({ user_filters: [] })).toEqual(['user_filters: you must provide at least 1 filter']);
    expect(await bad({ user_filters: [{ attribute: 'contact_phone', operator: 'equals', values: ['1'] }] })).toEqual([
      'user_filters: filter 1: unknown attribute "contact_phone"',
    ]);
    expect(await bad({ user_filters: [{ attribute: 'num_sends', operator: 'contains', values: ['1'] }] })).toEqual([
      'user_filters: filter 1: the operator "contains" does not apply to num_sends (use equals, not_equals, less_than, greater_than)',
    ]);
    expect(
      await bad({
        user_filters: [
          { attribute: 'contact_email', operator: 'equals', values: ['a'] },
          { attribute: 'num_opens', operator: 'less_than', values: [-1] },
        ],
      }),
    ).toEqual(['user_filters: filter 2 is not fully filled out']);
    expect(await bad({ user_filters: [{ attribute: 'date_added', operator: 'equals', values: ['yesterday'] }] })).toEqual([
      'user_filters: filter 1 is not fully filled out',
    ]);
    expect(await bad({ user_filters: [{ attribute: 'num_sends_with_template', operator: 'equals', values: ['1'] }] })).toEqual([
      'user_filters: filter 1 is not fully filled out',
    ]);
    expect(await bad({ user_filters: [{ attribute: 'is_in_segment', values: [SEGMENTS[0]] }] })).toEqual([
      'user_filters: filter 1: unknown attribute "is_in_segment"',
    ]);
    expect(await bad({ user_filters: [{ attribute: 'contact_json', operator: 'equals', values: ['plan', 'pro'] }], segment_edit: true })).toEqual([
      'user_filters: filter 1: unknown attribute "contact_json"',
    ]);
    // Quotes and SQL in values are data.
    const sqlish = await filterUsers({ user_filters: [{ attribute: 'contact_json', operator: 'equals', values: ["plan') OR 1=1 --", "x' OR '1'='1"] }] });
    expect(sqlish.status).toBe(200);
    expect(sqlish.body.total_users).toBe(0);
  });
});
