/**
 * `npm run bench:filter` (segment filters): p50/p95 of filterUsers (POST segment/segments/filter_users: a
 * page of 100 newest matches plus the total) for five typical filters on PostgreSQL, over a project of 1,000,000
 * contacts and 10,000,000 events (target p95 < 500 ms), beside a second project a tenth its size. The data is made by
 * the server (generate_series, deterministic hashes): 40 blasts of 15 % of the contacts each (a send, then an open
 * for 30 %, a second open for 10 %, a click for 6 %; blast and template ids set, a campaign id in the json of one blast
 * in four), 4 workflows (template and workflow id in the json) and other events (page views, orders, workflow
 * steps) up to the total; contacts with realistic email domains (30 % gmail.com), a plan in their json (20 % pro),
 * 1 % archived, and a segment of 10 % of them. The events trigger fills contact_event_counts as it would for real
 * writes; that table is then compacted (VACUUM FULL: a table with update churn scans slower), and everything VACUUM ANALYZEd (what autovacuum does to an insert-only table). Then one warm-up call and
 * BENCH_FILTER_RUNS timed calls per filter, with the page's and the total's own times. Prints figures; asserts nothing.
 *
 * BENCH_FILTER_CONTACTS (default 1000000), BENCH_FILTER_EVENTS (10 × contacts), BENCH_FILTER_RUNS (20), BENCH_PG_URL.
 * BENCH_FILTER_KEEP=1 keeps the generated database (its URL is printed); BENCH_FILTER_DATABASE=<url> measures such a
 * kept database again without generating (pending migrations are applied when it is opened).
 * BENCH_FILTER_EXPLAIN=1 prints EXPLAIN (ANALYZE, BUFFERS) of every statement of one call per filter.
 * BENCH_FILTER_BUSY=1 measures every filter twice: on the otherwise idle database, then with the blast benchmark
 * sending beside it on the same server (startBusy), as a production database is while blasts go out
 * (target p95 < 250 ms there).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Database, QueryFn } from '../src/server/db/client.ts';
import { EVENTS_SIZE, openGeneratedDatabase, setAsideEventIndexes } from './databases.ts';
import { emailOf, machineFacts, quantile, unit } from './figures.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { filterUsers } from '../src/server/core/segments/index.ts';
import { EVENT } from '../src/domain/events.ts';

/** Days back the monthly event partitions are made for before the load (the events are dated from 2023-01-01 on). */
const DAYS_BACK = Math.ceil((Date.now() - Date.UTC(2023, 0, 1)) / 86_400_000) + 1;
const CONTACTS = Number(process.env.BENCH_FILTER_CONTACTS ?? 1_000_000);
const EVENTS = Number(process.env.BENCH_FILTER_EVENTS ?? CONTACTS * 10);
const RUNS = Number(process.env.BENCH_FILTER_RUNS ?? 20);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REUSE = process.env.BENCH_FILTER_DATABASE;
const KEEP = process.env.BENCH_FILTER_KEEP === '1';
const EXPLAIN = process.env.BENCH_FILTER_EXPLAIN === '1';
const BUSY = process.env.BENCH_FILTER_BUSY === '1';

/**
 * startBusy runs the blast benchmark beside the measurement (BENCH_FILTER_BUSY=1): `bench/blast.bench.ts`
 * on the same PostgreSQL server, round after round of a 10,000-recipient blast (raw nodemailer, then the pipeline),
 * in a process group of its own; resolves once its first round has finished (it is sending at its steady rate).
 * `stop` ends the group (the benchmark and its sink).
 */
async function startBusy(): Promise<{ stop: () => Promise<void> }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/blast.bench.ts'], {
    env: { ...process.env, BENCH_DB: 'postgres', BENCH_ROUNDS: '1000', BENCH_RECIPIENTS: '10000' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('round 1:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bench:blast ended early (${code}): ${said}`)));
  });
  console.log(
    `bench:blast is sending beside it: ${said
      .split('\n')
      .find((l) => l.includes('round 1:'))
      ?.trim()
      .slice(0, 160)}…`,
  );
  return {
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}
const BLASTS = 40;
const WORKFLOWS = 4;
const MAIN = 'bench-filter-main';
const OTHER = 'bench-filter-other';

/** A generated id (uuid text) from a tag and a number, e.g. the contact, blast or template number `n` of project `p`. */
const genId = (p: string, tag: string, n: string) => `md5(${p} || ':${tag}:' || ${n})::uuid`;
/** The first day of the contacts' creation dates; they spread over three years from it, in insertion order. */
const EPOCH = '2023-01-01T00:00:00Z';

/** generateProject fills project `projectId` (tag `p` makes its ids) with `n` contacts and about `events` events. */
async function generateProject(client: pg.Client, projectId: string, p: string, n: number, events: number): Promise<void> {
  const $p = `'${p}'`;
  await client.query(
    `INSERT INTO contacts (id, project_id, email, first_name, last_name, timezone, date_of_birth, unsubscribed_at, bounced_at, json, created_at, updated_at, archived_at)
    SELECT ${genId($p, 'contact', 'k')}, $1, ${emailOf('k')},
      (ARRAY['Ann','Bob','Chloé','Dev','Eve','Farid','Gao','Hana','Ivan','Júlia'])[1 + k % 10],
      (ARRAY['Lee','Smith','Ng','García','Müller','Kowalski','Okafor','Rossi'])[1 + (k / 10) % 8],
      (ARRAY['Europe/Paris','America/New_York','Asia/Tokyo','UTC',NULL])[1 + k % 5],
      CASE WHEN ${unit('k')} < 0.6 THEN timestamptz '1960-01-01' + (${unit('k + 1')} * 15000) * interval '1 day' END,
      CASE WHEN ${unit('k + 2')} < 0.03 THEN t + interval '40 days' END,
      CASE WHEN ${unit('k + 3')} < 0.01 THEN t + interval '20 days' END,
      jsonb_build_object('plan', CASE WHEN ${unit('k + 4')} < 0.2 THEN 'pro' WHEN ${unit('k + 4')} < 0.6 THEN 'free' ELSE 'trial' END,
        'city', (ARRAY['Paris','Lyon','Berlin','Austin','Osaka'])[1 + k % 5], 'score', k % 1000),
      t, t, CASE WHEN ${unit('k + 5')} < 0.01 THEN t + interval '60 days' END
    FROM generate_series(1, ${n}) k, LATERAL (SELECT timestamptz '${EPOCH}' + (k::float8 / ${n} * 1095 + ${unit('k + 6')}) * interval '1 day' AS t) d`,
    [projectId],
  );
  const [segment] = (
    await client.query<{ id: string }>(`INSERT INTO segments (project_id, name) VALUES ($1, '10 % of the contacts') RETURNING id`, [projectId])
  ).rows;
  await client.query(
    `INSERT INTO segment_members (segment_id, contact_id) SELECT $1, ${genId($p, 'contact', 'k')} FROM generate_series(1, ${n}) k WHERE k % 10 = 3`,
    [segment.id],
  );

  // Blasts: recipient j of blast b is contact 1 + (j·48271 + b·7919) mod n (48271 is prime, so no contact twice a blast).
  const perBlast = Math.floor(n * 0.15);
  const blastJson = `jsonb_strip_nulls(jsonb_build_object('subject', 'Newsletter ' || b, 'message_id', '<' || b || '.' || j || '@bench.mailwright.test>',
    'key', 'sent-emails/' || b || '/' || j || '.eml', 'campaign_id', CASE WHEN b % 4 = 0 THEN ${genId($p, 'campaign', '(b / 4) % 5')}::text END))`;
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, is_system, blast_id, template_id, json)
    SELECT $1, v.name, ${emailOf('g.k')}, ${genId($p, 'contact', 'g.k')}, g.at + v.delay, g.at + v.delay, true, g.blast_id, g.template_id, g.json
    FROM (SELECT 1 + (j * 48271 + b * 7919) % ${n} AS k, ${unit(`b * 1000003 + j`)} AS r, bl.blast_id, bl.template_id, bl.at, ${blastJson} AS json
          FROM (SELECT b, ${genId($p, 'blast', 'b')} AS blast_id, ${genId($p, 'template', 'b % 12')} AS template_id,
                  timestamptz '2023-03-01' + b * interval '25 days' AS at FROM generate_series(0, ${BLASTS - 1}) b) bl,
               generate_series(0::bigint, ${perBlast - 1}) j) g,
    LATERAL (VALUES ('${EVENT.sendSuccess}', interval '0', true), ('${EVENT.open}', interval '2 hours', g.r < 0.3),
                    ('${EVENT.open}', interval '26 hours', g.r < 0.1), ('${EVENT.click}', interval '3 hours', g.r < 0.06)) v(name, delay, keep)
    WHERE v.keep`,
    [projectId],
  );

  // Workflows: each sends its own template to 10 % of the contacts, the workflow id in the json.
  const perWorkflow = Math.floor(n * 0.1);
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, is_system, template_id, json)
    SELECT $1, v.name, ${emailOf('g.k')}, ${genId($p, 'contact', 'g.k')}, g.at + v.delay, g.at + v.delay, true, g.template_id, g.json
    FROM (SELECT 1 + (j * 48271 + w * 104729) % ${n} AS k, ${unit(`w * 1000003 + j + 77777777`)} AS r, ${genId($p, 'template', '12 + w')} AS template_id,
            timestamptz '2024-01-01' + j * interval '1 minute' AS at,
            jsonb_build_object('workflow_id', ${genId($p, 'workflow', 'w')}::text, 'subject', 'Welcome ' || w) AS json
          FROM generate_series(0, ${WORKFLOWS - 1}) w, generate_series(0::bigint, ${perWorkflow - 1}) j) g,
    LATERAL (VALUES ('${EVENT.sendSuccess}', interval '0', true), ('${EVENT.open}', interval '2 hours', g.r < 0.35),
                    ('${EVENT.click}', interval '3 hours', g.r < 0.05)) v(name, delay, keep)
    WHERE v.keep`,
    [projectId],
  );

  // Everything else up to the total: page views, orders and workflow steps of random contacts.
  const [{ so_far: soFar }] = (await client.query<{ so_far: number }>('SELECT count(*)::int AS so_far FROM events WHERE project_id = $1', [projectId])).rows;
  await client.query(
    `INSERT INTO events (project_id, name, email, user_id, emitted_at, created_at, metric1, json)
    SELECT $1, (ARRAY['page_viewed','page_viewed','order_placed','${EVENT.workflowStarted}','${EVENT.workflowCompleted}'])[1 + i % 5], ${emailOf('k')}, ${genId($p, 'contact', 'k')},
      t, t, i % 100, jsonb_build_object('path', '/products/' || (i % 500), 'workflow_id', ${genId($p, 'workflow', 'i % 4')}::text)
    FROM generate_series(1, ${Math.max(0, events - soFar)}) i,
    LATERAL (SELECT 1 + floor(${unit('i + 555555555')} * ${n})::int AS k, timestamptz '2023-01-01' + ${unit('i + 999999999')} * interval '1095 days' AS t) x`,
    [projectId],
  );
}

/** generate makes both projects on the fresh database at `url`, with the events indexes built after the rows are in. */
async function generate(database: Database, url: string): Promise<void> {
  const start = performance.now();
  const main = await createAccount(database.db, {
    company: 'Bench filter',
    project: MAIN,
    email: 'bench-filter@example.com',
    password: 'correct-horse-battery-9',
    activated: true,
  });
  const other = await createAccount(database.db, {
    company: 'Bench filter 2',
    project: OTHER,
    email: 'bench-filter-2@example.com',
    password: 'correct-horse-battery-9',
    activated: true,
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Generated rows are consistent by construction: skip the per-row foreign-key checks and the NOTIFY trigger
  // (replica mode) and build the events indexes once at the end (sorted builds) instead of row by row, but keep the
  // trigger that keeps each contact's sends, opens and clicks (migration 0006), then compact the counts it updated.
  await client.query(`SET session_replication_role = replica; SET maintenance_work_mem = '1GB'; SET work_mem = '256MB'`);
  await client.query('ALTER TABLE events ENABLE ALWAYS TRIGGER events_count_insert');
  const restoreIndexes = await setAsideEventIndexes(client, DAYS_BACK);
  await generateProject(client, main.projectId, 'main', CONTACTS, EVENTS);
  await generateProject(client, other.projectId, 'other', Math.ceil(CONTACTS / 10), Math.ceil(EVENTS / 10));
  await client.query('ALTER TABLE events ENABLE TRIGGER events_count_insert');
  await client.query('VACUUM FULL contact_event_counts');
  const loaded = performance.now();
  await restoreIndexes();
  const indexed = performance.now();
  const [check] = (
    await client.query<{ counted: string; events: string }>(`SELECT (SELECT sum(num_sends + num_opens + num_clicks) FROM contact_event_counts) AS counted,
    (SELECT count(*) FROM events WHERE name IN ('${EVENT.sendSuccess}', '${EVENT.open}', '${EVENT.click}')) AS events`)
  ).rows;
  if (check.counted !== check.events) throw new Error(`the contacts' counts add up to ${check.counted}, the events to ${check.events}`);
  await client.query('VACUUM (ANALYZE) contacts, contact_event_counts, events, segment_members, segments');
  const size = (
    await client.query<{ c: string; e: string }>(`SELECT pg_size_pretty(pg_total_relation_size('contacts')) AS c, pg_size_pretty(${EVENTS_SIZE}) AS e`)
  ).rows[0];
  await client.end();
  console.log(
    `generated in ${((loaded - start) / 1000).toFixed(0)} s, events indexes ${((indexed - loaded) / 1000).toFixed(0)} s, vacuum analyze ${((performance.now() - indexed) / 1000).toFixed(0)} s; contacts ${size.c}, events ${size.e} (with indexes)`,
  );
}

/** explaining wraps `query` so each statement is first run under EXPLAIN (ANALYZE, BUFFERS) and its plan printed. */
function explaining(query: QueryFn): QueryFn {
  return (async (text: string, params?: unknown[]) => {
    const plan = await query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
    console.log(`\n${text}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
    return query(text, params);
  }) as QueryFn;
}

async function main() {
  const opened = await openGeneratedDatabase({
    reuseUrl: REUSE,
    pgUrl: PG_URL,
    prefix: 'filter',
    keep: KEEP,
    keepVariable: 'BENCH_FILTER_DATABASE',
    generate,
    what: `segment filters: ${CONTACTS.toLocaleString('en')} contacts and ${EVENTS.toLocaleString('en')} events (plus a second project a tenth the size)`,
  });
  if (!opened) return;
  const { database, cleanup } = opened;
  const [project] = await database.query<{ id: string }>('SELECT id FROM projects WHERE name = $1', [MAIN]);
  const [counts] = await database.query<{ contacts: number; events: number; all_events: number }>(
    `SELECT (SELECT count(*)::int FROM contacts WHERE project_id = $1) AS contacts,
    (SELECT count(*)::int FROM events WHERE project_id = $1) AS events, (SELECT count(*)::int FROM events) AS all_events`,
    [project.id],
  );
  const [segment] = await database.query<{ id: string }>('SELECT id FROM segments WHERE project_id = $1', [project.id]);
  const [ids] = await database.query<{ blast: string; template: string }>(
    `SELECT ${genId(`'main'`, 'blast', '20')}::text AS blast, ${genId(`'main'`, 'template', '3')}::text AS template`,
  );
  console.log(
    `project: ${counts.contacts.toLocaleString('en')} contacts, ${counts.events.toLocaleString('en')} events (${counts.all_events.toLocaleString('en')} in all projects)`,
  );
  console.log(`machine: ${await machineFacts(database)}`);

  type Request = Parameters<typeof filterUsers>[2];
  const request = (conjunction: 'and' | 'or', ...userFilters: Request['user_filters']): Request => ({
    conjunction,
    user_filters: userFilters,
    segment_edit: false,
    limit: 100,
    offset: 0,
    total: 'exact',
  });
  const filters: Array<[string, Request]> = [
    ['1 email contains gmail', request('and', { attribute: 'contact_email', operator: 'contains', values: ['gmail'] })],
    [
      '2 opened and added after 2025-06-01',
      request(
        'and',
        { attribute: 'num_opens', operator: 'greater_than', values: [0] },
        { attribute: 'date_added', operator: 'greater_than', values: ['2025-06-01'] },
      ),
    ],
    ['3 clicked an email of a template', request('and', { attribute: 'num_clicks_with_template', operator: 'greater_than', values: [ids.template, 0] })],
    [
      '4 in the 10 % segment or plan pro',
      request(
        'or',
        { attribute: 'num_in_segment', operator: 'equals', values: [segment.id, 1] },
        { attribute: 'contact_json', operator: 'equals', values: ['plan', 'pro'] },
      ),
    ],
    [
      '5 sent a blast, never opened it',
      request(
        'and',
        { attribute: 'num_sends_via_scheduled_email_blast', operator: 'greater_than', values: [ids.blast, 0] },
        { attribute: 'num_opens_via_scheduled_email_blast', operator: 'equals', values: [ids.blast, 0] },
      ),
    ],
  ];
  const measureAll = async (setting: string) => {
    console.log(`filter_users (a page of the 100 newest and the total, at once), ${RUNS} runs after one warm-up each, ${setting}:`);
    for (const [label, body] of filters) {
      const query = database.query.bind(database) as QueryFn;
      // Each call runs its two statements at once (the page and the total); their own times are kept apart too.
      const statements = { page: [] as number[], total: [] as number[] };
      const timed: QueryFn = (async (text: string, params?: unknown[]) => {
        const start = performance.now();
        try {
          return await query(text, params);
        } finally {
          statements[text.startsWith('SELECT count(*)') ? 'total' : 'page'].push(performance.now() - start);
        }
      }) as QueryFn;
      try {
        if (EXPLAIN) await filterUsers(explaining(query), project.id, body);
        const first = await filterUsers(query, project.id, body);
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const start = performance.now();
          const res = await filterUsers(timed, project.id, body);
          times.push(performance.now() - start);
          if (res.total_users !== first.total_users) throw new Error(`the total changed from ${first.total_users} to ${res.total_users}`);
        }
        const p = (xs: number[], q: number) =>
          quantile(
            [...xs].sort((x, y) => x - y),
            q,
          )
            .toFixed(0)
            .padStart(4);
        console.log(
          `  ${label.padEnd(36)} p50 ${p(times, 0.5)} ms  p95 ${p(times, 0.95)} ms  matched ${first.total_users.toLocaleString('en').padStart(7)}` +
            `  (page p50 ${p(statements.page, 0.5)}, total p50 ${p(statements.total, 0.5)} ms)`,
        );
        // The console's first answer: the page and an estimated total from a sample.
        const quick = { ...body, total: 'estimate' as const };
        await filterUsers(query, project.id, quick);
        const estimateTimes: number[] = [];
        let estimate = first;
        for (let i = 0; i < RUNS; i++) {
          const start = performance.now();
          estimate = await filterUsers(query, project.id, quick);
          estimateTimes.push(performance.now() - start);
        }
        const off = first.total_users ? ((estimate.total_users - first.total_users) / first.total_users) * 100 : 0;
        console.log(
          `  ${''.padEnd(36)} with total: estimate  p50 ${p(estimateTimes, 0.5)} ms  p95 ${p(estimateTimes, 0.95)} ms  about ${estimate.total_users.toLocaleString('en').padStart(7)}` +
            ` (${off >= 0 ? '+' : ''}${off.toFixed(1)} %${estimate.total_is_estimate ? '' : ', counted exactly'})`,
        );
      } catch (err) {
        // A statement_timeout set on the database, for instance: say so and measure the next filter.
        console.log(`  ${label.padEnd(38)} failed: ${(err as Error).message}`);
      }
    }
  };
  await measureAll('the database otherwise idle');
  if (BUSY) {
    const busy = await startBusy();
    try {
      await measureAll('with bench:blast sending beside it (a busy production database)');
    } finally {
      await busy.stop();
    }
  }
  await database.close();
  await cleanup();
}

await main();
