/**
 * `npm run bench` (second part): events/second through the public events API (`POST /api/event/events`, 100-event
 * batches over real HTTP on 127.0.0.1 with keep-alive, 4 requests in flight from a client on its own thread) on
 * PGlite and PostgreSQL, beside a raw
 * batched INSERT of the same rows into the same table (100 rows per statement, same concurrency) measured in the same
 * run, and the ratio. Rounds are interleaved and medians reported, as in
 * the blast benchmark; each round also prints the CPU time per 1,000 events of this process and of PostgreSQL. Prints
 * figures; asserts nothing. BENCH_EVENTS (default 20000), BENCH_ROUNDS (5), BENCH_DB, BENCH_PG_URL adjust it;
 * BENCH_PROFILE=file writes a CPU profile of the server's thread during one extra API run.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { loadConfig, type Config } from '../src/server/config.ts';
import { openBenchDatabase } from './databases.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { buildApp } from '../src/server/app.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { CaptureTransport } from '../src/server/mail/transport.ts';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 20_000);
const BATCH = 100;
const IN_FLIGHT = 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The HTTP client thread (node:http, keep-alive): posts every body with `inFlight` requests at a time; answers events/s. */
const CLIENT = `
const http = require('node:http');
const { parentPort, workerData: { url, apiKey, bodies, inFlight, events } } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
const post = (body) => new Promise((resolve, reject) => {
  const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': apiKey } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error('events API answered ' + res.statusCode + ': ' + Buffer.concat(chunks)))));
  });
  req.on('error', reject);
  req.end(body);
});
(async () => {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next < bodies.length) await post(bodies[next++]); }));
  agent.destroy();
  parentPort.postMessage({ rate: events / ((performance.now() - start) / 1000) });
})().catch((err) => parentPort.postMessage({ error: String(err) }));
`;

function batch(round: number, b: number) {
  return Array.from({ length: BATCH }, (_, i) => ({
    name: i % 3 ? 'page_viewed' : 'order_placed',
    email: `user${(b * BATCH + i) % 5000}@bench.example.com`,
    metric1: i,
    metric2: round,
    json: { path: `/products/${i}`, campaign: 'winter', round },
  }));
}

/** postgresCpuMs sums the user+system CPU time (ms) of every process named postgres on this machine (from /proc). */
async function postgresCpuMs(): Promise<number> {
  const { readdir, readFile } = await import('node:fs/promises');
  const msPerTick = 10; // USER_HZ is 100 on Linux
  let total = 0;
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat.includes('(postgres)')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * msPerTick;
  }
  return total;
}

/**
 * measured runs `work` (which answers events/s) and adds the CPU time it cost per 1,000 events: this process (all
 * threads, the HTTP client's included) and every PostgreSQL process, in ms. On 2 cores the two compete, so these
 * say where the gap to the raw INSERT goes.
 */
async function measured(events: number, work: () => Promise<number>): Promise<{ rate: number; nodeMs: number; pgMs: number }> {
  const cpu0 = process.cpuUsage();
  const pg0 = await postgresCpuMs();
  const rate = await work();
  const cpu = process.cpuUsage(cpu0);
  const pgMs = (await postgresCpuMs()) - pg0;
  return { rate, nodeMs: (cpu.user + cpu.system) / 1000 / (events / 1000), pgMs: pgMs / (events / 1000) };
}

/** inParallel runs `work(b)` for b in 0..batches-1 with IN_FLIGHT at a time; returns events/s. */
async function inParallel(batches: number, work: (b: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < batches) await work(next++);
    }),
  );
  return (batches * BATCH) / ((performance.now() - start) / 1000);
}

async function run(kind: 'pglite' | 'postgres'): Promise<string[] | undefined> {
  const opened = await openBenchDatabase(kind, PG_URL, 'bench-ev');
  if (!opened) return undefined;
  const { database, cleanup } = opened;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-bench-ev-'));
  const config: Config = { ...loadConfig(process.env), databaseUrl: undefined, dataDir, storageUrl: path.join(dataDir, 'storage') };
  const runtime = await startRuntime(config, { database, transport: new CaptureTransport(() => undefined), workers: false });
  const app = await buildApp(runtime.ctx, { logLevel: 'silent' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/event/events`;
  const { apiKey, projectId } = await createAccount(database.db, {
    company: `Bench ${randomBytes(3).toString('hex')}`,
    project: 'bench',
    email: `ev-${randomBytes(3).toString('hex')}@example.com`,
    password: 'bench-password-1',
    activated: true,
  });
  const batches = Math.ceil(TOTAL / BATCH);
  const bodies = Array.from({ length: batches }, (_, b) => JSON.stringify({ events: batch(0, b) }));

  // The API's client runs on its own thread, as a customer's client runs elsewhere: the server's thread only serves.
  const api = () =>
    new Promise<number>((resolve, reject) => {
      const client = new Worker(CLIENT, { eval: true, workerData: { url, apiKey, bodies, inFlight: IN_FLIGHT, events: batches * BATCH } });
      client.once('message', (m: { rate?: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m.rate!)));
      client.once('error', reject);
    });
  // The same rows, one multi-row INSERT per batch, straight into the events table (no HTTP, no checks, no user_id).
  const raw = async () =>
    inParallel(batches, async (b) => {
      const events = batch(0, b);
      await database.query(
        `INSERT INTO events (project_id, name, email, metric1, metric2, json)
       SELECT $1, u.name, u.email, u.metric1, u.metric2, u.json FROM unnest($2::text[], $3::text[], $4::float8[], $5::float8[], $6::jsonb[]) AS u(name, email, metric1, metric2, json)`,
        [
          projectId,
          events.map((e) => e.name),
          events.map((e) => e.email),
          events.map((e) => e.metric1),
          events.map((e) => e.metric2),
          events.map((e) => JSON.stringify(e.json)),
        ],
      );
    });

  await api();
  await raw(); // warm-up: JIT, connections, plans
  if (process.env.BENCH_PROFILE) {
    // A CPU profile of the server's thread during one API run (the client thread is not in it).
    const { Session } = await import('node:inspector/promises');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await api();
    const { profile } = await session.post('Profiler.stop');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(process.env.BENCH_PROFILE, JSON.stringify(profile));
    console.log(`CPU profile of one events API run written to ${process.env.BENCH_PROFILE}`);
  }
  const apis: number[] = [];
  const raws: number[] = [];
  const ratios: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    // Alternate which goes first, so a drift in the machine's speed within a round favours neither.
    const n = batches * BATCH;
    let rawM: Awaited<ReturnType<typeof measured>>;
    let apiM: Awaited<ReturnType<typeof measured>>;
    if (r % 2) {
      rawM = await measured(n, raw);
      apiM = await measured(n, api);
    } else {
      apiM = await measured(n, api);
      rawM = await measured(n, raw);
    }
    const rawRate = rawM.rate;
    const apiRate = apiM.rate;
    raws.push(rawRate);
    apis.push(apiRate);
    ratios.push(apiRate / rawRate);
    const cpu = (m: typeof rawM) => `CPU/1,000 events: node ${m.nodeMs.toFixed(1)} ms${kind === 'postgres' ? `, postgres ${m.pgMs.toFixed(1)} ms` : ''}`;
    console.log(
      `${kind} round ${r}: raw INSERT ${rawRate.toFixed(0)} events/s (${cpu(rawM)}); events API ${apiRate.toFixed(0)} events/s (${cpu(apiM)}); ratio ${(apiRate / rawRate).toFixed(2)}`,
    );
  }
  const [{ n }] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
  await app.close();
  await runtime.stop();
  await cleanup();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return [
    kind,
    median(raws).toFixed(0),
    median(apis).toFixed(0),
    median(ratios).toFixed(2),
    `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    String(n),
  ];
}

async function main(): Promise<void> {
  console.log(
    `\nEvents API benchmark: ${ROUNDS} rounds of ${TOTAL} events in ${BATCH}-event batches, ${IN_FLIGHT} in flight, node ${process.version}, ${os.cpus().length} cores`,
  );
  const rows: string[][] = [];
  for (const kind of (process.env.BENCH_DB ? [process.env.BENCH_DB] : ['pglite', 'postgres']) as Array<'pglite' | 'postgres'>) {
    const row = await run(kind);
    if (row) rows.push(row);
  }
  console.log('\n| database | raw INSERT events/s (median) | events API events/s (median) | ratio (median) | ratio range | rows stored |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
