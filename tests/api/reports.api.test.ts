/**
 * Every report against an independent count: a fixed-seed event history — sends,
 * failures, opens, clicks, unsubscribes, bounces and complaints across blasts, templates and workflows, days, user
 * agents and domains, plus a few customer-posted events and another tenant's — is written straight into events in
 * many statements (as the sender, the tracking endpoints and the events API write it), and every reporting endpoint,
 * for all campaigns and for each campaign, must equal a plain TypeScript count over the same list; so must
 * campaign_metrics. The numbers must not change when the deltas are compacted, nor when the aggregates are rebuilt
 * from the raw events. Bad parameters get a 400 naming them; the sends-report cache and its clearing work.
 *
 * Some opens are marked machine and some clicks bot in their json (as the tracking endpoints mark them), a
 * few carry no mark (unknown: a person's); every report's human columns must equal the same count over the events a
 * person made — also after clicks are marked bot later (the burst rule's UPDATE), which moves each email's first
 * human click to its next one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../helpers/random.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { compactReports } from '../../src/workers/reportCompaction.ts';
import { REPORT_EVENT_NAMES, SERIES_COLUMNS, ALL_SERIES_COLUMNS } from '../../src/domain/reports.ts';
import { EVENT } from '../../src/domain/events.ts';
import { monthSendsSql } from '../../src/server/core/reports/index.ts';

const rnd = seededRandom(20261124);
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];

interface Ev {
  name: string;
  email: string;
  at: number;
  is_system: boolean;
  blast_id: string | null;
  template_id: string | null;
  workflow_id: string | null;
  message_id: string | null;
  user_agent?: string;
  to_domain?: string;
  link?: string;
  /** An open marked machine (true), a person's (false), or unmarked (undefined: counted as a person's). */
  machine?: boolean;
  /** A click marked bot (true), a person's (false), or unmarked. */
  bot?: boolean;
  /** The event's id once written (writeEvents). */
  id?: string;
}

const B1 = randomUUID();
const B2 = randomUUID();
const W1 = randomUUID();
let T1 = '';
let T2 = '';
let T3 = '';
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
  'Microsoft Outlook 16.0',
];
const DOMAINS = ['gmail.com', 'yahoo.com', 'example.org', 'mail.ru'];
const LINKS = ['https://shop.example.com/a', 'https://shop.example.com/b?x=1&y=2', 'https://blog.example.com/post'];
const DAY = 86_400_000;
const HOUR = 3_600_000;

let h: Harness;
let a: Tenant;
let b: Tenant;
let query: QueryFn;
const events: Ev[] = [];
const campaigns: Record<string, { id: string; type: string; blasts: string[]; templates: string[]; workflows: string[] }> = {};

/** The sources an email can come from: blast + template, a single send with a template, a workflow, or nothing. */
function sources() {
  return [
    { blast_id: B1, template_id: T1, workflow_id: null },
    { blast_id: B2, template_id: T1, workflow_id: null },
    { blast_id: B2, template_id: T3, workflow_id: null },
    { blast_id: null, template_id: T2, workflow_id: null },
    { blast_id: null, template_id: T2, workflow_id: W1 },
    { blast_id: null, template_id: null, workflow_id: null },
  ];
}

/** seedHistory builds the event list of tenant A: 500 emails over the last 40 days and what their recipients did. */
function seedHistory(now: number) {
  const addresses = Array.from({ length: 160 }, (_, i) => `r${i}@${DOMAINS[i % DOMAINS.length]}`);
  for (let i = 0; i < 500; i++) {
    const src = pick(sources());
    const email = pick(addresses);
    // A third of the emails in the last 30 hours, so the 24-hour report has something to count.
    const sent = rnd(3) === 0 ? now - rnd(30 * HOUR) : now - rnd(40 * DAY);
    const message_id = `<m${i}@reports.test>`;
    const base = { email, is_system: true, ...src, message_id, to_domain: email.split('@')[1] };
    if (rnd(10) === 0) {
      events.push({ ...base, name: EVENT.sendFailure, at: sent });
      continue;
    }
    events.push({ ...base, name: EVENT.sendSuccess, at: sent });
    const later = (max: number) => Math.min(now - 1000, sent + 1000 + rnd(max));
    // A third of the opens are machines', a quarter of the clicks bots'; one in ten carries no mark at all.
    const mark = (share: number) => (rnd(10) === 0 ? undefined : rnd(share) === 0);
    for (let k = rnd(4); k > 0; k--) events.push({ ...base, name: EVENT.open, at: later(5 * DAY), user_agent: pick(UAS), machine: mark(3) });
    for (let k = rnd(3); k > 0; k--) events.push({ ...base, name: EVENT.click, at: later(5 * DAY), user_agent: pick(UAS), link: pick(LINKS), bot: mark(4) });
    if (rnd(20) === 0) events.push({ ...base, name: EVENT.unsubscribed, at: later(DAY) });
    if (rnd(30) === 0) events.push({ ...base, name: EVENT.bounce, at: later(HOUR) });
    if (rnd(40) === 0) events.push({ ...base, name: EVENT.complaint, at: later(DAY) });
  }
  // Events with report names that the product did not record (posted by a customer before the events API refused
  // such names): no report counts them.
  for (let i = 0; i < 6; i++) {
    events.push({
      name: EVENT.open,
      email: `cust${i % 3}@example.org`,
      at: now - rnd(20 * DAY),
      is_system: false,
      blast_id: null,
      template_id: null,
      workflow_id: null,
      message_id: null,
      user_agent: pick(UAS),
    });
  }
  events.sort((x, y) => x.at - y.at);
  // Distinct instants, so "newest" and "first" are never ties (clamped times would otherwise collide).
  for (let i = 1; i < events.length; i++) if (events[i].at <= events[i - 1].at) events[i].at = events[i - 1].at + 1;
}

/** writeEvents inserts events in chronological batches of 1–60 rows, each batch shuffled (one statement each). */
async function writeEvents(projectId: string, list: Ev[]) {
  for (let i = 0; i < list.length;) {
    const n = 1 + rnd(60);
    const batch = list.slice(i, i + n);
    i += n;
    for (let j = batch.length - 1; j > 0; j--) {
      const k = rnd(j + 1);
      [batch[j], batch[k]] = [batch[k], batch[j]];
    }
    const params: unknown[] = [];
    const rows = batch.map((e) => {
      const json: Record<string, unknown> = {};
      if (e.message_id) json.message_id = e.message_id;
      if (e.workflow_id) json.workflow_id = e.workflow_id;
      if (e.user_agent) json.user_agent = e.user_agent;
      if (e.name === EVENT.open || e.name === EVENT.click) json.to_domain = e.to_domain ?? e.email.split('@')[1];
      if (e.link) {
        json.link = e.link;
        json.click = { link: e.link };
      }
      if (e.machine !== undefined) Object.assign(json, { machine: e.machine, machine_reason: e.machine ? 'apple_mpp' : null });
      if (e.bot !== undefined) Object.assign(json, { bot: e.bot, bot_reason: e.bot ? 'scanner' : null });
      e.id = randomUUID();
      params.push(e.id, projectId, e.name, e.email, new Date(e.at).toISOString(), e.is_system, e.blast_id, e.template_id, JSON.stringify(json));
      const p = params.length - 9;
      return `($${p + 1}::uuid, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}::timestamptz, $${p + 6}, $${p + 7}::uuid, $${p + 8}::uuid, $${p + 9}::jsonb)`;
    });
    await query(`INSERT INTO events (id, project_id, name, email, emitted_at, is_system, blast_id, template_id, json) VALUES ${rows.join(', ')}`, params);
  }
}

// --- The independent counts -------------------------------------------------------------------------------------

const keyOf = (e: Ev) => e.message_id ?? `email:${e.email.toLowerCase()}`;
type Scope = { blasts: string[]; templates: string[]; workflows: string[] } | undefined;
const inScope = (e: Ev, s: Scope) =>
  !s ||
  (!!e.blast_id && s.blasts.includes(e.blast_id)) ||
  (!!e.template_id && s.templates.includes(e.template_id)) ||
  (!!e.workflow_id && s.workflows.includes(e.workflow_id));
/** What a report counts: the product's own events (is_system) in scope; events a customer posted under report names never count. */
const scoped = (s: Scope) => events.filter((e) => e.is_system && inScope(e, s));
const distinct = (xs: string[]) => new Set(xs).size;
/** A person's event: not marked machine (opens) nor bot (clicks); unmarked counts as a person's. */
const human = (e: Ev) => e.machine !== true && e.bot !== true;

function expectQuickStats(s: Scope) {
  const list = scoped(s);
  return REPORT_EVENT_NAMES.map((name) => {
    const of = list.filter((e) => e.name === name);
    const people = of.filter(human);
    return { name, num: of.length, num_unique: distinct(of.map(keyOf)), num_human: people.length, num_unique_human: distinct(people.map(keyOf)) };
  });
}

function expectLinks(s: Scope) {
  const clicks = scoped(s).filter((e) => e.name === EVENT.click);
  return LINKS.map((link) => {
    const of = clicks.filter((e) => e.link === link);
    const people = of.filter(human);
    return {
      link_url: link,
      num_clicks: of.length,
      num_unique_clicks: distinct(of.map(keyOf)),
      num_human_clicks: people.length,
      num_unique_human_clicks: distinct(people.map(keyOf)),
    };
  })
    .filter((r) => r.num_clicks > 0)
    .sort((x, y) => y.num_clicks - x.num_clicks || (x.link_url < y.link_url ? -1 : 1));
}

/** The first open (or click) of each email: where its unique open (click) is counted. */
function firstOf(list: Ev[], name: string): Map<string, Ev> {
  const first = new Map<string, Ev>();
  for (const e of list) if (e.name === name && !first.has(keyOf(e))) first.set(keyOf(e), e);
  return first;
}

function expectSources(s: Scope, by: 'user_agent' | 'to_domain') {
  const list = scoped(s).filter((e) => e.name === EVENT.open || e.name === EVENT.click);
  const value = (e: Ev) => (by === 'user_agent' ? (e.user_agent ?? '') : (e.to_domain ?? e.email.split('@')[1]));
  const firstOpens = new Set(firstOf(list, EVENT.open).values());
  const firstClicks = new Set(firstOf(list, EVENT.click).values());
  const firstHumanOpens = new Set(firstOf(list.filter(human), EVENT.open).values());
  const firstHumanClicks = new Set(firstOf(list.filter(human), EVENT.click).values());
  const zero = {
    num_opens: 0,
    num_unique_opens: 0,
    num_clicks: 0,
    num_unique_clicks: 0,
    num_human_opens: 0,
    num_unique_human_opens: 0,
    num_human_clicks: 0,
    num_unique_human_clicks: 0,
  };
  const rows = new Map<string, typeof zero>();
  for (const e of list) {
    const r = rows.get(value(e)) ?? { ...zero };
    if (e.name === EVENT.open) {
      r.num_opens++;
      if (firstOpens.has(e)) r.num_unique_opens++;
      if (human(e)) r.num_human_opens++;
      if (firstHumanOpens.has(e)) r.num_unique_human_opens++;
    } else {
      r.num_clicks++;
      if (firstClicks.has(e)) r.num_unique_clicks++;
      if (human(e)) r.num_human_clicks++;
      if (firstHumanClicks.has(e)) r.num_unique_human_clicks++;
    }
    rows.set(value(e), r);
  }
  return [...rows]
    .map(([v, r]): Record<string, string | number> => ({ [by]: v, ...r }))
    .sort((x, y) => Number(y.num_opens) + Number(y.num_clicks) - (Number(x.num_opens) + Number(x.num_clicks)) || (String(x[by]) < String(y[by]) ? -1 : 1));
}

function expectMostOpened(s: Scope, subjects: Record<string, string>, names: Record<string, string>, by: 'template_id' | 'email_subject') {
  const list = scoped(s).filter((e) => e.template_id);
  const group = (e: Ev) => (by === 'template_id' ? e.template_id! : subjects[e.template_id!]);
  const rows = new Map<string, Ev[]>();
  for (const e of list) rows.set(group(e), [...(rows.get(group(e)) ?? []), e]);
  return [...rows]
    .map(([g, of]) => {
      const named = (n: string) => of.filter((e) => e.name === n);
      return {
        template_id: by === 'template_id' ? g : null,
        template_name: by === 'template_id' ? names[g] : null,
        email_subject: by === 'template_id' ? subjects[g] : g,
        num_sends: named(EVENT.sendSuccess).length,
        num_opens: named(EVENT.open).length,
        num_unique_opens: distinct(named(EVENT.open).map(keyOf)),
        num_clicks: named(EVENT.click).length,
        num_unique_clicks: distinct(named(EVENT.click).map(keyOf)),
        num_human_opens: named(EVENT.open).filter(human).length,
        num_unique_human_opens: distinct(named(EVENT.open).filter(human).map(keyOf)),
        num_human_clicks: named(EVENT.click).filter(human).length,
        num_unique_human_clicks: distinct(named(EVENT.click).filter(human).map(keyOf)),
      };
    })
    .filter((r) => r.num_opens > 0)
    .sort((x, y) => y.num_unique_opens - x.num_unique_opens || y.num_opens - x.num_opens || (x.email_subject < y.email_subject ? -1 : 1))
    .slice(0, 10);
}

function expectSeries(s: Scope, buckets: string[], unitMs: number) {
  const list = scoped(s);
  return buckets.map((b) => {
    const from = Date.parse(b);
    const row: Record<string, unknown> = { emitted_at_trunc: b };
    const inBucket = (e: Ev) => e.at >= from && e.at < from + unitMs;
    for (const col of ALL_SERIES_COLUMNS) row[col] = list.filter((e) => e.name === SERIES_COLUMNS[col] && inBucket(e)).length;
    row.human_opens = list.filter((e) => e.name === EVENT.open && inBucket(e) && human(e)).length;
    row.human_clicks = list.filter((e) => e.name === EVENT.click && inBucket(e) && human(e)).length;
    return row;
  });
}

function expectRecent(s: Scope, name: string, limit: number) {
  return scoped(s)
    .filter((e) => e.name === name)
    .sort((x, y) => y.at - x.at)
    .slice(0, limit);
}

// --- The test ---------------------------------------------------------------------------------------------------

const get = async (path: string, q: Record<string, string | number> = {}, key = a.apiKey) => {
  const res = await h.call('GET', `/api/reporting/${path}`, { key, query: q });
  expect(res.status, `${path} ${JSON.stringify(q)}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.data;
};

beforeAll(async () => {
  h = await startHarness({ config: { reportCacheMs: 0 } });
  query = h.runtime.ctx.database.query.bind(h.runtime.ctx.database) as QueryFn;
  a = await h.tenant({ activated: true });
  b = await h.tenant({ activated: true });
  const tpl = await h.call('POST', '/api/template/templates', {
    key: a.apiKey,
    body: {
      templates: [
        { name: 'Spring sale', subject: 'Spring {{user.first_name}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Spring</p>' },
        { name: 'Welcome', subject: 'Welcome aboard', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Welcome</p>' },
        { name: 'Spring sale B', subject: 'Spring {{user.first_name}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Spring B</p>' },
      ],
    },
  });
  expect(tpl.status, JSON.stringify(tpl.body)).toBe(200);
  [T1, T2, T3] = tpl.body.data.map((t: { id: string }) => t.id);
  for (const [id, name] of [
    [B1, 'Blast one'],
    [B2, 'Blast two'],
  ]) {
    await query(
      `INSERT INTO email_blasts (id, project_id, name, template_id, sender_persona_id, send_at, timezone, due_at)
                 VALUES ($1, $2, $3, $4, $5, '2030-01-01T12:30', 'UTC', '2030-01-01T12:30:00Z')`,
      [id, a.projectId, name, T1, randomUUID()],
    );
  }
  const save = async (name: string, type: string, blasts: string[], templates: string[], workflows: string[]) => {
    const res = await h.call('POST', '/api/campaign/campaigns', {
      key: a.apiKey,
      body: { campaign: { name, type, scheduled_email_blast_group_ids: blasts, template_ids: templates, workflow_ids: workflows } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    campaigns[name] = { id: res.body.campaign.id, type, blasts, templates, workflows };
  };
  await save('Newsletter', 'scheduled_email_group', [B1], [], []);
  await save('Welcome template', 'template', [], [T2], []);
  await save('Drip', 'workflow', [], [], [W1]);
  await save('A/B spring', 'a_b_test', [B2], [T1, T3], []);
  await save('Nothing sent', 'scheduled_email_group', [], [], []);
  seedHistory(Date.now());
  await writeEvents(a.projectId, events);
  // Tenant B: the same kinds of events, which A must never see.
  const other: Ev[] = [
    {
      name: EVENT.sendSuccess,
      email: 'x@gmail.com',
      at: Date.now() - HOUR,
      is_system: true,
      blast_id: B1,
      template_id: T1,
      workflow_id: null,
      message_id: '<b1@other>',
    },
    {
      name: EVENT.open,
      email: 'x@gmail.com',
      at: Date.now() - 1000,
      is_system: true,
      blast_id: B1,
      template_id: T1,
      workflow_id: null,
      message_id: '<b1@other>',
      user_agent: UAS[0],
    },
    {
      name: EVENT.click,
      email: 'x@gmail.com',
      at: Date.now() - 500,
      is_system: true,
      blast_id: B1,
      template_id: T1,
      workflow_id: null,
      message_id: '<b1@other>',
      user_agent: UAS[0],
      link: 'https://other.example.com/',
    },
  ];
  await writeEvents(b.projectId, other);
}, 180_000);

afterAll(async () => {
  await h?.close();
});

const scopes = (): Array<[string, Scope]> => [
  ['all campaigns', undefined],
  ...Object.entries(campaigns).map(([name, c]): [string, Scope] => [name, { blasts: c.blasts, templates: c.templates, workflows: c.workflows }]),
];
const campaignParam = (label: string) => (label === 'all campaigns' ? 'all' : campaigns[label].id);

/** checkEveryReport compares every report, for all campaigns and each campaign, with the independent counts. */
async function checkEveryReport() {
  const subjects = { [T1]: 'Spring {{user.first_name}}', [T2]: 'Welcome aboard', [T3]: 'Spring {{user.first_name}}' };
  const names = { [T1]: 'Spring sale', [T2]: 'Welcome', [T3]: 'Spring sale B' };
  for (const [label, s] of scopes()) {
    const campaign_id = campaignParam(label);
    expect(await get('quickstats', { campaign_id }), `quickstats ${label}`).toEqual(expectQuickStats(s));
    expect(await get('mostclickedlinks', { campaign_id }), `mostclickedlinks ${label}`).toEqual(expectLinks(s));
    expect(await get('opensbysource', { campaign_id, by: 'user_agent' }), `by user_agent ${label}`).toEqual(expectSources(s, 'user_agent'));
    expect(await get('opensbysource', { campaign_id, by: 'to_domain' }), `by to_domain ${label}`).toEqual(expectSources(s, 'to_domain'));
    expect(await get('mostopenedemails', { campaign_id }), `mostopenedemails ${label}`).toEqual(expectMostOpened(s, subjects, names, 'template_id'));
    expect(await get('mostopenedemails', { campaign_id, by: 'email_subject' }), `by subject ${label}`).toEqual(
      expectMostOpened(s, subjects, names, 'email_subject'),
    );
    for (const [report, unit] of [
      ['sendslast31days', DAY],
      ['sendslast24hours', HOUR],
    ] as const) {
      const rows = await get(report, { campaign_id });
      expect(rows).toHaveLength(report === 'sendslast31days' ? 31 : 24);
      const buckets = rows.map((r: { emitted_at_trunc: string }) => r.emitted_at_trunc);
      // The buckets are consecutive UTC hours or days ending with the current one.
      expect(Date.parse(buckets.at(-1)) + unit).toBeGreaterThan(Date.now() - 60_000);
      expect(buckets.every((x: string, i: number) => i === 0 || Date.parse(x) - Date.parse(buckets[i - 1]) === unit)).toBe(true);
      const got = rows.map(({ campaign_id: _c, campaign_name: _n, ...r }: Record<string, unknown>) => r);
      expect(got, `${report} ${label}`).toEqual(expectSeries(s, buckets, unit));
      if (s) expect(rows[0]).toMatchObject({ campaign_id, campaign_name: label });
    }
    const clicks = await get('recentlyclickedlinks', { campaign_id });
    expect(
      clicks.map((r: { link_url: string; emitted_at: string; email: string }) => [r.link_url, Date.parse(r.emitted_at), r.email]),
      `recent clicks ${label}`,
    ).toEqual(expectRecent(s, EVENT.click, 5).map((e) => [e.link, e.at, e.email]));
    const opens = await get('recentlyopenedemails', { campaign_id, limit: 10 });
    expect(
      opens.map((r: { emitted_at: string; email: string; template_id: string | null; email_subject: string | null }) => [
        Date.parse(r.emitted_at),
        r.email,
        r.template_id,
        r.email_subject,
      ]),
      `recent opens ${label}`,
    ).toEqual(expectRecent(s, EVENT.open, 10).map((e) => [e.at, e.email, e.template_id, e.template_id ? subjects[e.template_id] : null]));
  }
  // Campaign metrics: distinct emails per event, per campaign (and per template for the A/B test).
  const metricsOf = (list: Ev[]) => ({
    sends: distinct(list.filter((e) => e.name === EVENT.sendSuccess).map(keyOf)),
    opens: distinct(list.filter((e) => e.name === EVENT.open).map(keyOf)),
    clicks: distinct(list.filter((e) => e.name === EVENT.click).map(keyOf)),
    human_opens: distinct(list.filter((e) => e.name === EVENT.open && human(e)).map(keyOf)),
    human_clicks: distinct(list.filter((e) => e.name === EVENT.click && human(e)).map(keyOf)),
    unsubscribes: distinct(list.filter((e) => e.name === EVENT.unsubscribed).map(keyOf)),
    bounces: distinct(list.filter((e) => e.name === EVENT.bounce).map(keyOf)),
    unsuccessful_sends: distinct(list.filter((e) => e.name === EVENT.sendFailure).map(keyOf)),
  });
  const res = await h.call('GET', '/api/campaign/campaign_metrics', { key: a.apiKey, query: { limit: 100, sort_columns: 'name ASC' } });
  expect(res.status).toBe(200);
  const got = Object.fromEntries(res.body.campaigns_with_metrics.map((r: Record<string, unknown>) => [r.name, r]));
  for (const [name, c] of Object.entries(campaigns)) {
    expect(got[name], name).toMatchObject({ ...metricsOf(scoped({ blasts: c.blasts, templates: c.templates, workflows: c.workflows })), template_id: null });
  }
  const split = await h.call('GET', '/api/campaign/campaign_metrics', {
    key: a.apiKey,
    query: { limit: 100, sort_columns: 'name ASC', split_templates: true },
  });
  const ab = campaigns['A/B spring'];
  const abRows = split.body.campaigns_with_metrics.filter((r: { id: string }) => r.id === ab.id);
  const abEvents = scoped({ blasts: ab.blasts, templates: ab.templates, workflows: [] });
  const expected = [...new Set(abEvents.map((e) => e.template_id).filter((t): t is string => !!t))].map((t) => ({
    template_id: t,
    ...metricsOf(abEvents.filter((e) => e.template_id === t)),
  }));
  expect(
    abRows
      .map((r: Record<string, unknown>) => ({
        template_id: r.template_id,
        sends: r.sends,
        opens: r.opens,
        clicks: r.clicks,
        human_opens: r.human_opens,
        human_clicks: r.human_clicks,
        unsubscribes: r.unsubscribes,
        bounces: r.bounces,
        unsuccessful_sends: r.unsuccessful_sends,
      }))
      .sort((x: { template_id: string }, y: { template_id: string }) => x.template_id.localeCompare(y.template_id)),
  ).toEqual(expected.sort((x, y) => x.template_id.localeCompare(y.template_id)));
}

describe(`reports against an independent count (${API_DB})`, () => {
  it('seeds a history with every kind of event', () => {
    const names = new Set(events.map((e) => e.name));
    expect([...names].sort()).toEqual([...REPORT_EVENT_NAMES].sort());
    expect(events.length).toBeGreaterThan(800);
    // Every campaign but the empty one has sends, opens and clicks to count, so no comparison below is vacuous.
    for (const [name, c] of Object.entries(campaigns)) {
      const stats = expectQuickStats({ blasts: c.blasts, templates: c.templates, workflows: c.workflows });
      const num = (n: string) => stats.find((r) => r.name === n)!.num;
      if (name === 'Nothing sent') expect(num(EVENT.sendSuccess)).toBe(0);
      else
        expect(
          [num(EVENT.sendSuccess), num(EVENT.open), num(EVENT.click)].every((x) => x > 0),
          name,
        ).toBe(true);
    }
  });

  it('answers every report, for all campaigns and each campaign, exactly as counted from the events (deltas only)', async () => {
    const [{ n }] = await query<{ n: number }>('SELECT count(*)::int AS n FROM report_totals WHERE merged');
    expect(n).toBe(0); // nothing compacted yet: the reports read the deltas
    await checkEveryReport();
  });

  it('answers the same after the deltas are compacted into merged rows', async () => {
    const before = await query<{ n: number }>('SELECT count(*)::int AS n FROM report_counts');
    expect(await compactReports(query)).toBeGreaterThan(0);
    const [{ deltas }] = await query<{ deltas: number }>('SELECT count(*)::int AS deltas FROM report_counts WHERE NOT merged');
    expect(deltas).toBe(0);
    const after = await query<{ n: number }>('SELECT count(*)::int AS n FROM report_counts');
    expect(after[0].n).toBeLessThan(before[0].n);
    await checkEveryReport();
  });

  it('answers the same after new events arrive on top of merged rows, and after a rebuild from the raw events', async () => {
    const now = Date.now();
    const extra: Ev[] = [
      {
        name: EVENT.open,
        email: 'r1@yahoo.com',
        at: now - 2000,
        is_system: true,
        blast_id: B1,
        template_id: T1,
        workflow_id: null,
        message_id: '<late@reports.test>',
        user_agent: UAS[1],
        to_domain: 'yahoo.com',
      },
      {
        name: EVENT.open,
        email: 'r1@yahoo.com',
        at: now - 1000,
        is_system: true,
        blast_id: B1,
        template_id: T1,
        workflow_id: null,
        message_id: '<late@reports.test>',
        user_agent: UAS[0],
        to_domain: 'yahoo.com',
      },
      {
        name: EVENT.click,
        email: 'r1@yahoo.com',
        at: now - 500,
        is_system: true,
        blast_id: B1,
        template_id: T1,
        workflow_id: null,
        message_id: '<late@reports.test>',
        user_agent: UAS[0],
        to_domain: 'yahoo.com',
        link: LINKS[0],
      },
    ];
    // Distinct instants from every event already written (seeded times clamped to the seeding instant run on 1 ms
    // apart and can reach these), so "newest" is never a tie the server breaks by event id.
    const taken = new Set(events.map((e) => e.at));
    for (const e of extra) {
      while (taken.has(e.at)) e.at -= 1;
      taken.add(e.at);
    }
    events.push(...extra);
    await writeEvents(a.projectId, extra);
    await checkEveryReport();
    await query('SELECT report_rebuild($1)', [a.projectId]);
    await checkEveryReport();
  });

  it('moves the human counts when clicks are marked bot later, before and after compaction and a rebuild', async () => {
    // Every person's click of ten emails that had two or more: the first of each email included, so its first human
    // click passes to a later one or, when none is left, is dropped.
    const byEmail = new Map<string, Ev[]>();
    for (const e of events) if (e.name === EVENT.click && human(e) && e.message_id) byEmail.set(keyOf(e), [...(byEmail.get(keyOf(e)) ?? []), e]);
    const emails = [...byEmail.values()].filter((l) => l.length >= 2).slice(0, 10);
    expect(emails.length).toBeGreaterThan(3);
    const marked = emails.flatMap((l) => l.slice(0, l.length === 2 ? 2 : 1));
    for (const e of marked) e.bot = true;
    await query(`UPDATE events SET json = json || '{"bot": true, "bot_reason": "all_links_at_once"}'::jsonb WHERE id = ANY($1::uuid[])`, [
      marked.map((e) => e.id),
    ]);
    await checkEveryReport();
    await compactReports(query);
    await checkEveryReport();
    await query('SELECT report_rebuild($1)', [a.projectId]);
    await checkEveryReport();
  });

  it('shows another tenant nothing of this one, even given its campaign id', async () => {
    const quick = await get('quickstats', { campaign_id: 'all' }, b.apiKey);
    expect(quick.find((r: { name: string }) => r.name === EVENT.sendSuccess)).toEqual({
      name: EVENT.sendSuccess,
      num: 1,
      num_unique: 1,
      num_human: 1,
      num_unique_human: 1,
    });
    const foreign = await get('quickstats', { campaign_id: campaigns.Newsletter.id }, b.apiKey);
    expect(foreign.every((r: { num: number }) => r.num === 0)).toBe(true);
    expect(await get('mostclickedlinks', { campaign_id: campaigns.Newsletter.id }, b.apiKey)).toEqual([]);
    expect(await get('recentlyopenedemails', { campaign_id: campaigns.Newsletter.id }, b.apiKey)).toEqual([]);
    expect((await get('mostclickedlinks', {}, b.apiKey)).map((r: { link_url: string }) => r.link_url)).toEqual(['https://other.example.com/']);
    const metrics = await h.call('GET', '/api/campaign/campaign_metrics', { key: b.apiKey });
    expect(metrics.body.campaigns_with_metrics).toEqual([]);
  });

  it('answers an empty state, not an error, for a campaign without events or an unknown one', async () => {
    for (const campaign_id of [campaigns['Nothing sent'].id, randomUUID()]) {
      expect((await get('quickstats', { campaign_id })).every((r: { num: number; num_unique: number }) => r.num === 0 && r.num_unique === 0)).toBe(true);
      for (const report of ['mostclickedlinks', 'recentlyclickedlinks', 'opensbysource', 'mostopenedemails', 'recentlyopenedemails'])
        expect(await get(report, { campaign_id })).toEqual([]);
      const days = await get('sendslast31days', { campaign_id });
      expect(days).toHaveLength(31);
      expect(days.every((r: Record<string, number>) => ALL_SERIES_COLUMNS.every((c) => r[c] === 0))).toBe(true);
    }
    // Placeholders the console may send before a campaign is chosen mean every campaign.
    for (const campaign_id of ['', 'undefined', 'null', '{campaign_id}', 'ALL']) {
      expect(await get('quickstats', { campaign_id })).toEqual(expectQuickStats(undefined));
    }
  });

  it('refuses malformed parameters with a 400 naming them', async () => {
    const bad = async (path: string, q: Record<string, string | number>, field: string, method = 'GET') => {
      const res = await h.call(method, `/api/reporting/${path}`, { key: a.apiKey, query: q, body: method === 'POST' ? {} : undefined });
      expect(res.status, `${path} ${JSON.stringify(q)}`).toBe(400);
      expect(res.body.errors.join(' '), `${path} ${JSON.stringify(q)}`).toMatch(new RegExp(`^${field}|\\b${field}\\b`));
    };
    await bad('quickstats', { campaign_id: 'not-a-campaign' }, 'campaign_id');
    await bad('sendslast24hours', { campaign_id: "1' OR 1=1" }, 'campaign_id');
    await bad('mostclickedlinks', { limit: -1 }, 'limit');
    await bad('recentlyclickedlinks', { limit: 0 }, 'limit');
    await bad('recentlyopenedemails', { limit: 10_001 }, 'limit');
    await bad('opensbysource', { by: 'browser' }, 'by');
    await bad('mostopenedemails', { by: 'sender' }, 'by');
    await bad('clearcache_mostclickedlinks', {}, 'report', 'POST');
  });
});

describe(`the sends-report cache (${API_DB})`, () => {
  let hc: Harness;
  let t: Tenant;
  beforeAll(async () => {
    hc = await startHarness({ config: { reportCacheMs: 600_000 } });
    t = await hc.tenant({ activated: true });
  });
  afterAll(async () => {
    await hc?.close();
  });

  it('answers from the cache until clearcache_{report} empties it', async () => {
    const q = hc.runtime.ctx.database.query.bind(hc.runtime.ctx.database) as QueryFn;
    const sends = async (report: string) =>
      ((await hc.call('GET', `/api/reporting/${report}`, { key: t.apiKey })).body.data as Array<{ sends: number }>).reduce((s, r) => s + r.sends, 0);
    const send = () =>
      q(`INSERT INTO events (project_id, name, email, is_system, json) VALUES ($1, '${EVENT.sendSuccess}', 'c@example.com', true, $2)`, [
        t.projectId,
        JSON.stringify({ message_id: `<${randomUUID()}@cache>` }),
      ]);
    await send();
    expect(await sends('sendslast24hours')).toBe(1);
    expect(await sends('sendslast31days')).toBe(1);
    await send();
    expect(await sends('sendslast24hours')).toBe(1); // cached
    expect(await sends('sendslast31days')).toBe(1);
    const cleared = await hc.call('POST', '/api/reporting/clearcache_sendslast24hours', { key: t.apiKey, body: { campaign_id: null } });
    expect(cleared.body).toEqual({ cleared: 1, errors: [] });
    expect(await sends('sendslast24hours')).toBe(2);
    expect(await sends('sendslast31days')).toBe(1); // the other report's cache is its own
    await hc.call('POST', '/api/reporting/clearcache_sendslast31days', { key: t.apiKey, body: {} });
    expect(await sends('sendslast31days')).toBe(2);
    // quickstats is never cached.
    await send();
    const quick = (await hc.call('GET', '/api/reporting/quickstats', { key: t.apiKey })).body.data;
    expect(quick.find((r: { name: string }) => r.name === EVENT.sendSuccess).num).toBe(3);
  });
});

describe(`test emails in the account's figures (${API_DB})`, () => {
  let hc: Harness;
  let t: Tenant;
  beforeAll(async () => {
    hc = await startHarness({});
    t = await hc.tenant({ activated: true });
  });
  afterAll(async () => {
    await hc?.close();
  });

  it('leaves a test email out of the sends, the rates and the month, as recorded and after a rebuild', async () => {
    const q = hc.runtime.ctx.database.query.bind(hc.runtime.ctx.database) as QueryFn;
    const record = (name: string, json: object) =>
      q(`INSERT INTO events (project_id, name, email, is_system, json) VALUES ($1, $2, 'c@example.com', true, $3)`, [t.projectId, name, JSON.stringify(json)]);
    const real = `<${randomUUID()}@real>`;
    await record(EVENT.sendSuccess, { message_id: `<${randomUUID()}@test>`, is_test_email: true });
    await record(EVENT.sendSuccess, { message_id: real, is_test_email: false });
    await record(EVENT.open, { message_id: real });
    const figures = async () => {
      const quick = (await hc.call('GET', '/api/reporting/quickstats', { key: t.apiKey })).body.data as Array<{ name: string; num: number }>;
      const [{ month }] = await q<{ month: string }>(`SELECT ${monthSendsSql('$1')} AS month`, [t.projectId]);
      return { sends: quick.find((r) => r.name === EVENT.sendSuccess)?.num, opens: quick.find((r) => r.name === EVENT.open)?.num, month: Number(month) };
    };
    // One real send opened once: 100 %, not 50 %; the test is not billed either.
    expect(await figures()).toEqual({ sends: 1, opens: 1, month: 1 });
    await q('SELECT report_rebuild($1)', [t.projectId]);
    expect(await figures()).toEqual({ sends: 1, opens: 1, month: 1 });
  });
});
