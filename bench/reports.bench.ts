/**
 * `npm run bench:reports`: p50/p95 of every reporting endpoint on PostgreSQL, through the HTTP app (routing,
 * validation, the handler and its SQL; the sends-report cache off), for all campaigns and for one campaign, over a
 * project of 1,000,000 contacts and 10,000,000 events (target p95 < 100 ms each), beside the plain GROUP BY over the
 * raw events that answers the same question, timed in the same run. Also checks that the aggregates — totals and
 * people's counts (a third of the opens are marked machine, a quarter of the clicks bot) — equal a count
 * over the raw events. Prints figures; asserts nothing.
 *
 * The data is made by the server (generate_series, deterministic hashes), ending now: 60 blasts over the last 90 days
 * to 8 % of the contacts each (0.5 % failed; of the rest 1 % bounce, 35 % open, a third of those twice and a third of
 * those three times, 7 % click one of 20 links, 0.3 % unsubscribe, 0.1 % complain; 8 user agents; the contacts'
 * domains), 4 workflows sending 150,000 emails each over the same 90 days, page views and orders up to the total, and
 * a second project a tenth the size. Campaigns: 20 of three blasts each, one of the workflows, one of a template.
 * Generated with triggers off and indexes built afterwards (as the filter bench does), then the aggregates built by
 * report_rebuild, then 20,000 more events written through the triggers in 200 statements (deltas not yet compacted,
 * the state reports are read in between two compactions).
 *
 * BENCH_REPORT_CONTACTS (1000000), BENCH_REPORT_EVENTS (10 × contacts), BENCH_REPORT_RUNS (30), BENCH_PG_URL;
 * BENCH_REPORT_KEEP=1 keeps the database (its URL is printed), BENCH_REPORT_DATABASE=<url> measures a kept one again.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Database, QueryFn } from '../src/server/db/client.ts';
import { EVENTS_SIZE, openGeneratedDatabase, setAsideEventIndexes } from './databases.ts';
import { emailOf, machineFacts, quantile, unit } from './figures.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { loadConfig } from '../src/server/config.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { buildApp } from '../src/server/app.ts';
import { CaptureTransport } from '../src/server/mail/transport.ts';
import { REPORT_EVENT_NAMES } from '../src/domain/reports.ts';
import { EVENT } from '../src/domain/events.ts';

/** Days back the monthly event partitions are made for before the load (the events span the last 90 days). */
const DAYS_BACK = 100;
const CONTACTS = Number(process.env.BENCH_REPORT_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_REPORT_EVENTS ?? CONTACTS * 10);
const RUNS = Number(process.env.BENCH_REPORT_RUNS ?? 30);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REUSE = process.env.BENCH_REPORT_DATABASE;
const KEEP = process.env.BENCH_REPORT_KEEP === '1';
const BLASTS = 60;
const WORKFLOWS = 4;
const CAMPAIGNS = 20;
const MAIN = 'bench-reports-main';

/** A generated id (uuid) from the project tag, a kind and a number. */
const genId = (p: string, tag: string, n: string) => `md5('${p}:${tag}:' || ${n})::uuid`;
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Microsoft Outlook 16.0.17425',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'GoogleImageProxy',
];
const agentOf = (x: string) => `(ARRAY[${AGENTS.map((a) => `'${a}'`).join(', ')}])[1 + (hashint8(${x}) & 7)]`;

/** generateProject fills a project with `n` contacts, about `events` events, its templates, blasts and campaigns. */
async function generateProject(client: pg.Client, projectId: string, p: string, n: number, events: number): Promise<void> {
  await client.query(
    `INSERT INTO contacts (id, project_id, email, first_name, created_at, updated_at)
    SELECT ${genId(p, 'contact', 'k')}, $1, ${emailOf('k')}, 'Contact ' || k, now() - interval '1 year', now() - interval '1 year'
      FROM generate_series(1, ${n}) k`,
    [projectId],
  );
  await client.query(
    `INSERT INTO templates (id, project_id, name, subject, type, html_body)
    SELECT ${genId(p, 'template', 't')}, $1, 'Template ' || t, 'Subject of template ' || t || ' for {{user.first_name}}', 'TEMPLATE_MARKETING', '<p>{{unsubscribe_link}}</p>'
      FROM generate_series(0, 11) t`,
    [projectId],
  );
  const blastAt = (b: string) => `now() - interval '90 days' + ${b} * interval '36 hours'`;
  await client.query(
    `INSERT INTO email_blasts (id, project_id, name, template_id, sender_persona_id, send_at, timezone, due_at, expanded_at)
    SELECT ${genId(p, 'blast', 'b')}, $1, 'Blast ' || b, ${genId(p, 'template', 'b % 12')}, ${genId(p, 'persona', '0')}, '2026-01-01T12:30', 'UTC', ${blastAt('b')}, ${blastAt('b')}
      FROM generate_series(0, ${BLASTS - 1}) b`,
    [projectId],
  );
  // Recipient j of blast b is contact 1 + (j·48271 + b·7919) mod n; r decides what happened to the email.
  const perBlast = Math.floor(n * 0.08);
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, is_system, blast_id, template_id, json)
    SELECT $1, v.name, ${emailOf('g.k')}, ${genId(p, 'contact', 'g.k')}, g.at + v.delay, g.at + v.delay, true, g.blast_id, g.template_id,
           jsonb_strip_nulls(jsonb_build_object('message_id', g.mid, 'user_agent', v.agent, 'to_domain', split_part(${emailOf('g.k')}, '@', 2), 'link', v.link,
             'machine', CASE WHEN v.name = '${EVENT.open}' THEN g.j % 3 = 0 END, 'bot', CASE WHEN v.name = '${EVENT.click}' THEN g.j % 4 = 0 END))
    FROM (SELECT 1 + (j * 48271 + b * 7919) % ${n} AS k, j, ${unit('b * 1000003 + j')} AS r, ${unit('b * 7777777 + j')} AS r2,
                 ${genId(p, 'blast', 'b')} AS blast_id, ${genId(p, 'template', 'b % 12')} AS template_id, b,
                 ${blastAt('b')} + (j::float8 / ${perBlast} * 4) * interval '1 hour' AS at, '<' || b || '.' || j || '@bench.mailwright.test>' AS mid
            FROM generate_series(0, ${BLASTS - 1}) b, generate_series(0::bigint, ${perBlast - 1}) j) g,
    LATERAL (VALUES
      ('${EVENT.sendFailure}', interval '0', g.r < 0.005, NULL, NULL),
      ('${EVENT.sendSuccess}', interval '0', g.r >= 0.005, NULL, NULL),
      ('${EVENT.bounce}', interval '2 minutes', g.r >= 0.005 AND g.r < 0.015, NULL, NULL),
      ('${EVENT.open}', interval '2 hours' + g.r2 * interval '20 hours', g.r >= 0.015 AND g.r2 < 0.35, ${agentOf('g.j')}, NULL),
      ('${EVENT.open}', interval '26 hours' + g.r2 * interval '20 hours', g.r >= 0.015 AND g.r2 < 0.12, ${agentOf('g.j + 1')}, NULL),
      ('${EVENT.open}', interval '50 hours', g.r >= 0.015 AND g.r2 < 0.04, ${agentOf('g.j + 2')}, NULL),
      ('${EVENT.click}', interval '3 hours' + g.r2 * interval '10 hours', g.r >= 0.015 AND g.r2 < 0.07, ${agentOf('g.j')},
         'https://shop.example.com/t' || (g.b % 12) || '/p' || (g.j % 20)),
      ('${EVENT.unsubscribed}', interval '4 hours', g.r >= 0.015 AND g.r > 0.997, NULL, NULL),
      ('${EVENT.complaint}', interval '5 hours', g.r >= 0.015 AND g.r BETWEEN 0.5 AND 0.501, NULL, NULL)) v(name, delay, keep, agent, link)
    WHERE v.keep AND g.at + v.delay <= now()`,
    [projectId],
  );
  // Workflows: each sends template 8 + w to 150,000 recipients (scaled) over the 90 days, the workflow id in the json.
  const perWorkflow = Math.floor(n * 0.15);
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, is_system, template_id, json)
    SELECT $1, v.name, ${emailOf('g.k')}, ${genId(p, 'contact', 'g.k')}, g.at + v.delay, g.at + v.delay, true, g.template_id,
           jsonb_strip_nulls(jsonb_build_object('message_id', g.mid, 'workflow_id', g.workflow_id, 'user_agent', v.agent,
             'to_domain', split_part(${emailOf('g.k')}, '@', 2), 'link', v.link, 'machine', CASE WHEN v.name = '${EVENT.open}' THEN g.j % 3 = 0 END, 'bot', CASE WHEN v.name = '${EVENT.click}' THEN g.j % 4 = 0 END))
    FROM (SELECT 1 + (j * 48271 + w * 104729) % ${n} AS k, j, ${unit('w * 1000003 + j + 77777777')} AS r, ${genId(p, 'template', '8 + w')} AS template_id,
                 ${genId(p, 'workflow', 'w')}::text AS workflow_id, now() - interval '90 days' + (j::float8 / ${perWorkflow} * 90) * interval '1 day' AS at,
                 '<w' || w || '.' || j || '@bench.mailwright.test>' AS mid
            FROM generate_series(0, ${WORKFLOWS - 1}) w, generate_series(0::bigint, ${perWorkflow - 1}) j) g,
    LATERAL (VALUES ('${EVENT.sendSuccess}', interval '0', true, NULL, NULL),
                    ('${EVENT.open}', interval '1 hour', g.r < 0.3, ${agentOf('g.j')}, NULL),
                    ('${EVENT.click}', interval '2 hours', g.r < 0.05, ${agentOf('g.j')}, 'https://app.example.com/welcome/' || (g.j % 5))) v(name, delay, keep, agent, link)
    WHERE v.keep AND g.at + v.delay <= now()`,
    [projectId],
  );
  const [{ so_far: soFar }] = (await client.query<{ so_far: number }>('SELECT count(*)::int AS so_far FROM events WHERE project_id = $1', [projectId])).rows;
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, metric1, json)
    SELECT $1, (ARRAY['page_viewed', 'page_viewed', 'order_placed', 'signed_up'])[1 + i % 4], ${emailOf('k')}, ${genId(p, 'contact', 'k')}, t, t, i % 100,
           jsonb_build_object('path', '/products/' || (i % 500))
      FROM generate_series(1, ${Math.max(0, events - soFar)}) i,
      LATERAL (SELECT 1 + floor(${unit('i + 555555555')} * ${n})::int AS k, now() - ${unit('i + 999999999')} * interval '90 days' AS t) x`,
    [projectId],
  );
  // Campaigns: c groups blasts 3c, 3c+1, 3c+2; one of the workflows; one of template 5.
  await client.query(
    `INSERT INTO campaigns (id, project_id, name, type, scheduled_email_blast_group_ids, created_at)
    SELECT ${genId(p, 'campaign', 'c')}, $1, 'Campaign ' || c, 'scheduled_email_group',
           ARRAY[${genId(p, 'blast', '3 * c')}, ${genId(p, 'blast', '3 * c + 1')}, ${genId(p, 'blast', '3 * c + 2')}], now() - (${CAMPAIGNS} - c) * interval '4 days'
      FROM generate_series(0, ${CAMPAIGNS - 1}) c`,
    [projectId],
  );
  await client.query(
    `INSERT INTO campaigns (id, project_id, name, type, workflow_ids) VALUES (${genId(p, 'campaign', "'drip'")}, $1, 'Drip', 'workflow', ARRAY[${genId(p, 'workflow', '0')}])`,
    [projectId],
  );
  await client.query(
    `INSERT INTO campaigns (id, project_id, name, type, template_ids) VALUES (${genId(p, 'campaign', "'template'")}, $1, 'Template 5', 'template', ARRAY[${genId(p, 'template', '5')}])`,
    [projectId],
  );
}

/** generate makes both projects, the events indexes after the rows, the aggregates, and 20,000 live events as deltas. */
async function generate(database: Database, url: string): Promise<void> {
  const start = performance.now();
  const main = await createAccount(database.db, {
    company: 'Bench reports',
    project: MAIN,
    email: 'bench-reports@example.com',
    password: 'correct-horse-battery-9',
    activated: true,
  });
  const other = await createAccount(database.db, {
    company: 'Bench reports 2',
    project: 'bench-reports-other',
    email: 'bench-reports-2@example.com',
    password: 'correct-horse-battery-9',
    activated: true,
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`SET session_replication_role = replica; SET maintenance_work_mem = '1GB'; SET work_mem = '256MB'`);
  const restoreIndexes = await setAsideEventIndexes(client, DAYS_BACK);
  await generateProject(client, main.projectId, 'main', CONTACTS, EVENTS);
  await generateProject(client, other.projectId, 'other', Math.ceil(CONTACTS / 10), Math.ceil(EVENTS / 10));
  const loaded = performance.now();
  await restoreIndexes();
  const indexed = performance.now();
  await client.query('SET session_replication_role = origin');
  await client.query('SELECT report_rebuild(NULL)');
  const rebuilt = performance.now();
  // Live traffic on top: 20,000 opens and clicks of the newest blast, 100 to a statement, through the triggers.
  for (let s = 0; s < 200; s++) {
    await client.query(
      `INSERT INTO events (project_id, name, email, emitted_at, is_system, blast_id, template_id, json)
      SELECT $1, CASE WHEN i % 5 = 0 THEN '${EVENT.click}' ELSE '${EVENT.open}' END, 'live' || i || '@gmail.com', now() - (i % 600) * interval '1 second', true,
             ${genId('main', 'blast', String(BLASTS - 1))}, ${genId('main', 'template', String((BLASTS - 1) % 12))},
             jsonb_build_object('message_id', '<' || ${BLASTS - 1} || '.' || i || '@bench.mailwright.test>', 'user_agent', ${agentOf('i')}, 'to_domain', 'gmail.com',
                                'link', 'https://shop.example.com/live/' || (i % 7), 'machine', i % 3 = 0, 'bot', i % 4 = 0)
        FROM generate_series(${s * 100}, ${s * 100 + 99}) i`,
      [main.projectId],
    );
  }
  await client.query('VACUUM (ANALYZE) contacts, events, campaigns, templates, report_counts, report_totals, report_links, report_sources, report_firsts');
  const size = (
    await client.query<{ e: string; r: string }>(`SELECT pg_size_pretty(${EVENTS_SIZE}) AS e,
    pg_size_pretty(pg_total_relation_size('report_counts') + pg_total_relation_size('report_totals') + pg_total_relation_size('report_links')
      + pg_total_relation_size('report_sources') + pg_total_relation_size('report_firsts')) AS r`)
  ).rows[0];
  await client.end();
  console.log(
    `generated in ${((loaded - start) / 1000).toFixed(0)} s, events indexes ${((indexed - loaded) / 1000).toFixed(0)} s, aggregates (report_rebuild) ${((rebuilt - indexed) / 1000).toFixed(0)} s; events ${size.e}, report tables ${size.r} (with indexes)`,
  );
}

interface Scope {
  blasts: string[];
  templates: string[];
  workflows: string[];
}

/** The plain GROUP BY over the raw events that answers each report's question (the comparison the issue asks for). */
function rawQueries(s: Scope | undefined): Record<string, string> {
  const where = s
    ? `AND (blast_id = ANY('{${s.blasts.join(',')}}'::uuid[]) OR template_id = ANY('{${s.templates.join(',')}}'::uuid[]) OR json->>'workflow_id' = ANY('{${s.workflows.join(',')}}'::text[]))`
    : '';
  const names = REPORT_EVENT_NAMES.map((n) => `'${n}'`).join(', ');
  const key = `coalesce(json->>'message_id', 'email:' || lower(email))`;
  return {
    quickstats: `SELECT name, count(*) AS num, count(DISTINCT ${key}) AS num_unique, count(*) FILTER (WHERE event_is_human(json)) AS num_human,
                        count(DISTINCT ${key}) FILTER (WHERE event_is_human(json)) AS num_unique_human
                   FROM events WHERE project_id = $1 AND name IN (${names}) ${where} GROUP BY name`,
    sendslast24hours: `SELECT date_trunc('hour', emitted_at AT TIME ZONE 'UTC'), name, count(*) FROM events WHERE project_id = $1 AND name IN (${names}) AND emitted_at >= date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '23 hours' ${where} GROUP BY 1, 2`,
    sendslast31days: `SELECT date_trunc('day', emitted_at AT TIME ZONE 'UTC'), name, count(*) FROM events WHERE project_id = $1 AND name IN (${names}) AND emitted_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '30 days' ${where} GROUP BY 1, 2`,
    mostclickedlinks: `SELECT json->>'link', count(*), count(DISTINCT ${key}) FROM events WHERE project_id = $1 AND name = '${EVENT.click}' ${where} GROUP BY 1 ORDER BY 2 DESC LIMIT 100`,
    'opensbysource?by=user_agent': `SELECT json->>'user_agent', count(*) FILTER (WHERE name = '${EVENT.open}'), count(*) FILTER (WHERE name = '${EVENT.click}') FROM events WHERE project_id = $1 AND name IN ('${EVENT.open}', '${EVENT.click}') ${where} GROUP BY 1`,
    'opensbysource?by=to_domain': `SELECT json->>'to_domain', count(*) FILTER (WHERE name = '${EVENT.open}'), count(*) FILTER (WHERE name = '${EVENT.click}') FROM events WHERE project_id = $1 AND name IN ('${EVENT.open}', '${EVENT.click}') ${where} GROUP BY 1`,
    mostopenedemails: `SELECT template_id, count(*) FILTER (WHERE name = '${EVENT.open}'), count(DISTINCT ${key}) FILTER (WHERE name = '${EVENT.open}') FROM events WHERE project_id = $1 AND name IN ('${EVENT.sendSuccess}', '${EVENT.open}', '${EVENT.click}') ${where} GROUP BY 1 ORDER BY 3 DESC LIMIT 10`,
    recentlyclickedlinks: `SELECT json->>'link', email, emitted_at FROM events WHERE project_id = $1 AND name = '${EVENT.click}' ${where} ORDER BY emitted_at DESC LIMIT 5`,
    recentlyopenedemails: `SELECT email, template_id, emitted_at FROM events WHERE project_id = $1 AND name = '${EVENT.open}' ${where} ORDER BY emitted_at DESC LIMIT 10`,
  };
}

async function main() {
  const opened = await openGeneratedDatabase({
    reuseUrl: REUSE,
    pgUrl: PG_URL,
    prefix: 'reports',
    keep: KEEP,
    keepVariable: 'BENCH_REPORT_DATABASE',
    generate,
    what: `reports: ${CONTACTS.toLocaleString('en')} contacts and ${EVENTS.toLocaleString('en')} events (plus a second project a tenth the size)`,
  });
  if (!opened) return;
  const { database, url, cleanup } = opened;
  const query = database.query.bind(database) as QueryFn;
  const [project] = await query<{ id: string; api_key: string }>('SELECT id, api_key FROM projects WHERE name = $1', [MAIN]);
  const [counts] = await query<{ contacts: number; events: number; all_events: number; deltas: number }>(
    `SELECT (SELECT count(*)::int FROM contacts WHERE project_id = $1) AS contacts,
    (SELECT count(*)::int FROM events WHERE project_id = $1) AS events, (SELECT count(*)::int FROM events) AS all_events,
    (SELECT count(*)::int FROM report_counts WHERE NOT merged) AS deltas`,
    [project.id],
  );
  console.log(
    `project: ${counts.contacts.toLocaleString('en')} contacts, ${counts.events.toLocaleString('en')} events (${counts.all_events.toLocaleString('en')} in all projects); ${counts.deltas} uncompacted report_counts deltas`,
  );
  console.log(`machine: ${await machineFacts(database)}`);

  const runtime = await startRuntime(
    { ...loadConfig({}), databaseUrl: url, reportCacheMs: 0 },
    { database, transport: new CaptureTransport(() => {}), workers: false },
  );
  const app = await buildApp(runtime.ctx, { logLevel: 'silent' });
  const [busy] = await query<{ id: string; blasts: string[]; templates: string[]; workflows: string[] }>(
    `SELECT id, scheduled_email_blast_group_ids::text[] AS blasts, template_ids::text[] AS templates, workflow_ids::text[] AS workflows
       FROM campaigns WHERE project_id = $1 AND name = 'Campaign ${CAMPAIGNS - 1}'`,
    [project.id],
  );

  // The aggregates equal a count over the raw events (all campaigns and the campaign).
  for (const [label, s, campaign] of [
    ['all campaigns', undefined, 'all'],
    ['Campaign 19', busy, busy.id],
  ] as const) {
    type Counts = { num: number; num_unique: number; num_human: number; num_unique_human: number };
    const raw = await query<{ name: string } & Record<keyof Counts, string>>(rawQueries(s).quickstats, [project.id]);
    const res = await app.inject({ method: 'GET', url: `/api/reporting/quickstats?campaign_id=${campaign}`, headers: { 'x-api-key': project.api_key } });
    const got = (res.json() as { data: Array<{ name: string } & Counts> }).data;
    const equal = REPORT_EVENT_NAMES.every((n) => {
      const r = raw.find((x) => x.name === n);
      const g = got.find((x) => x.name === n)!;
      return (['num', 'num_unique', 'num_human', 'num_unique_human'] as const).every((c) => Number(r?.[c] ?? 0) === g[c]);
    });
    console.log(
      `quickstats of ${label} (totals and people's) equal to a count over the raw events: ${equal ? 'yes' : 'NO'} (${got
        .map((g) => `${g.name} ${g.num}/${g.num_unique} people ${g.num_human}/${g.num_unique_human}`)
        .join(', ')})`,
    );
  }

  const endpoints = [
    'quickstats',
    'sendslast24hours',
    'sendslast31days',
    'mostclickedlinks',
    'recentlyclickedlinks',
    'opensbysource?by=user_agent',
    'opensbysource?by=to_domain',
    'mostopenedemails',
    'recentlyopenedemails',
  ];
  console.log(`\nreporting endpoints through the app (x-api-key, validation, handler, SQL), ${RUNS} runs after one warm-up; target p95 < 100 ms.`);
  console.log('raw = the plain GROUP BY (or ORDER BY … LIMIT) over the events answering the same question, once, in the same run.\n');
  console.log('| endpoint | scope | p50 ms | p95 ms | raw GROUP BY ms |');
  console.log('|---|---|---:|---:|---:|');
  for (const [label, s, campaign] of [
    ['all', undefined, 'all'],
    ['one campaign', busy, busy.id],
  ] as const) {
    const raw = rawQueries(s);
    for (const endpoint of endpoints) {
      const url = `/api/reporting/${endpoint}${endpoint.includes('?') ? '&' : '?'}campaign_id=${campaign}`;
      const call = async () => {
        const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': project.api_key } });
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      };
      await call();
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await call();
        times.push(performance.now() - t0);
      }
      times.sort((x, y) => x - y);
      const t0 = performance.now();
      await query(raw[endpoint], [project.id]);
      const rawMs = performance.now() - t0;
      console.log(`| ${endpoint} | ${label} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.95).toFixed(1)} | ${rawMs.toFixed(0)} |`);
    }
  }
  await app.close();
  await runtime.stop();
  await cleanup();
}

await main();
