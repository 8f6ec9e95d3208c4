/**
 * `npm run bench:scale`: what a second worker process adds on PostgreSQL. The same blast — BENCH_SCALE
 * recipients (default 50,000) in one segment, marketing, tracked, DKIM-signed from an established sending domain — is
 * sent once with 1 and once with 2 worker processes (`src/server/main.ts`, WORKERS=on), beside one HTTP process
 * (WORKERS=off) that takes the blast, as docker-compose.yml runs them, into an SMTP sink in a process of its own. For
 * each: emails/s from the save to the last email at the sink, the CPU per email of each process (from /proc) and of
 * PostgreSQL (every `postgres` process), and the machine's busy share. BENCH_SCALE_WORKERS lists the counts to run
 * (default "1,2"); BENCH_PG_URL the server; BENCH_SCALE_PROFILE_DIR writes the worker processes' CPU profiles there. Prints figures; asserts nothing. Linux only (/proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openBenchDatabase } from './databases.ts';
import { addEstablishedDomain, machineFacts, postgresCpu } from './figures.ts';
import { RemoteSink } from './sinkProcess.ts';
import { ROOT, freePort } from '../tests/helpers/processes.ts';
import { createAccount, projectByApiKey } from '../src/server/core/accounts/index.ts';
import { savePersonas } from '../src/server/core/personas/index.ts';
import { saveTemplates } from '../src/server/core/templates/index.ts';
import { readFixture } from '../tests/helpers/fixtures.ts';

const N = Number(process.env.BENCH_SCALE ?? 50_000);
const COUNTS = (process.env.BENCH_SCALE_WORKERS ?? '1,2').split(',').map(Number);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HZ = 100; // clock ticks per second in /proc (USER_HZ)

/** ticksOf: user+system clock ticks of process `pid` and of its threads (one /proc/<pid>/stat). */
function ticksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

/** threadsOf: each thread of process `pid`, its name and user+system ticks (/proc/<pid>/task). */
function threadsOf(pid: number): Map<string, { comm: string; ticks: number; system: number }> {
  const out = new Map<string, { comm: string; ticks: number; system: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(tid, { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(f[11]) + Number(f[12]), system: Number(f[12]) });
      } catch {
        /* ended */
      }
    }
  } catch {
    /* gone */
  }
  return out;
}

/** machineTicks: busy and total jiffies of all cores (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}

/** startServer runs `node --import tsx src/server/main.ts` with `env`; resolves once GET /readyz answers 200. */
async function startServer(name: string, env: Record<string, string>): Promise<{ name: string; child: ChildProcess; url: string }> {
  const port = await freePort();
  const profile = process.env.BENCH_SCALE_PROFILE_DIR && name !== 'http' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SCALE_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', DEMO_RESET_CRON: 'off' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      /* not yet */
    }
    if (i > 600) throw new Error(`${name} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, child, url };
}

async function stopServer(s: { child: ChildProcess }): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

const opened = await openBenchDatabase('postgres', PG_URL, 'bench_scale');
if (!opened) {
  console.log(`bench:scale: no PostgreSQL at ${PG_URL}; nothing measured`);
  process.exit(0);
}
const { database } = opened;
const q = database.query.bind(database);
const sink = new RemoteSink();
try {
  console.log(await machineFacts(database));
  const { apiKey } = await createAccount(database.db, {
    company: 'Bench',
    project: 'scale',
    email: 'bench@scale.example.com',
    password: 'bench-pass-1',
    activated: true,
  });
  const project = (await projectByApiKey(database.db, apiKey))!;
  const [persona] = await savePersonas(database.db, project.id, [{ email: 'news@scale.example.com', first_name: 'Bench', last_name: 'Sender' }]);
  await q('UPDATE sender_personas SET verified_at = now() WHERE id = $1', [persona.id]);
  // An established, DKIM-verified sending domain: every email is signed.
  await addEstablishedDomain(database, project.id, 'scale.example.com');
  const html = readFixture('email-templates/leemunroe/email-inlined.html')
    .replace('>Hi there<', '>Hi {{user.first_name}}<')
    .replace(/href="[^"]*"([^>]*>Unsubscribe)/, 'href="{{unsubscribe_link}}"$1');
  const [template] = await saveTemplates(database.db, project.id, [
    { name: 'Scale', subject: 'Hello {{user.first_name}}', type: 'TEMPLATE_MARKETING', enabled: true, html_body: html },
  ]);
  // Recipients on a company domain each (no provider group's rate limit applies: the relay and the processes are measured).
  await q(
    `INSERT INTO contacts (project_id, email, first_name) SELECT $1, 'r' || g || '@rcpt' || (g % 50) || '.example', 'First' || g FROM generate_series(1, $2::int) g`,
    [project.id, N],
  );
  const [segment] = await q<{ id: string }>(`INSERT INTO segments (project_id, name) VALUES ($1, 'everyone') RETURNING id`, [project.id]);
  await q('INSERT INTO segment_members (segment_id, contact_id) SELECT $1, id FROM contacts WHERE project_id = $2', [segment.id, project.id]);
  await q('VACUUM ANALYZE');

  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-bench-scale-'));
  const common = {
    DATABASE_URL: opened.url!,
    SMTP_URL: smtpUrl,
    DATA_DIR: dataDir,
    STORAGE_URL: path.join(dataDir, 'storage'),
    SEND_POLL_MS: '100',
    // No DNS here: the periodic domain check would find no DKIM record and mark the established domain Failed.
    DOMAIN_CHECK_CRON: 'off',
  };
  const rows: string[] = [];
  for (const workers of COUNTS) {
    const http = await startServer('http', { ...common, WORKERS: 'off' });
    const procs = [http];
    for (let i = 1; i <= workers; i++) procs.push(await startServer(`worker ${i}`, { ...common, WORKERS: 'on' }));
    await new Promise((r) => setTimeout(r, 2000)); // let the workers settle (pg-boss, render threads)
    const before = sink.count;
    const ticks0 = procs.map((p) => ticksOf(p.child.pid!));
    const threads0 = procs.map((p) => threadsOf(p.child.pid!));
    const dbCpu = postgresCpu();
    const m0 = machineTicks();
    const start = performance.now();
    const res = await fetch(`${http.url}/api/scheduler/scheduler`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({
        id: randomUUID(),
        name: `Scale ${workers}`,
        template_id: template.id,
        sender_persona_id: persona.id,
        to_segment_ids: [segment.id],
        send_at: new Date().toISOString().slice(0, 16),
        timezone: 'UTC',
      }),
    });
    if (res.status !== 200) throw new Error(`saving the blast: ${res.status} ${await res.text()}`);
    await sink.waitFor(() => sink.count >= before + N, 30 * 60_000);
    const seconds = (performance.now() - start) / 1000;
    const cpu = procs.map((p, i) => ((ticksOf(p.child.pid!) - ticks0[i]) / HZ) * 1000);
    // Where a worker's CPU goes, by thread (main, render threads, libuv pool, V8 GC…): the busiest four, ms per email.
    const threads = procs.slice(1).map((p, i) => {
      const before = threads0[i + 1];
      return [...threadsOf(p.child.pid!)]
        .map(([tid, t]) => ({
          comm: tid === String(p.child.pid) ? 'main' : t.comm,
          ms: ((t.ticks - (before.get(tid)?.ticks ?? 0)) / HZ / N) * 1000,
          sys: ((t.system - (before.get(tid)?.system ?? 0)) / HZ / N) * 1000,
        }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 4)
        .map((t) => `${t.comm} ${t.ms.toFixed(2)} (kernel ${t.sys.toFixed(2)})`)
        .join(', ');
    });
    const dbMs = dbCpu() * 1000;
    const m1 = machineTicks();
    const busy = (m1.busy - m0.busy) / Math.max(1, m1.total - m0.total);
    const perEmail = (ms: number) => (ms / N).toFixed(2);
    const line = `${workers} worker process${workers > 1 ? 'es' : ''}: ${(N / seconds).toFixed(0)} emails/s (${seconds.toFixed(1)} s); CPU per email: ${procs
      .map((p, i) => `${p.name} ${perEmail(cpu[i])} ms`)
      .join(', ')}, all processes ${perEmail(cpu.reduce((a, b) => a + b, 0))} ms, PostgreSQL ${perEmail(dbMs)} ms; machine ${(busy * 100).toFixed(0)}% busy`;
    console.log(line);
    threads.forEach((t, i) => console.log(`  worker ${i + 1}'s busiest threads (ms per email): ${t}`));
    rows.push(
      `| ${workers} | ${(N / seconds).toFixed(0)} | ${procs
        .slice(1)
        .map((_, i) => perEmail(cpu[i + 1]))
        .join(' + ')} | ${perEmail(cpu[0])} | ${perEmail(dbMs)} | ${(busy * 100).toFixed(0)}% |`,
    );
    for (const p of procs) await stopServer(p);
  }
  console.log(`\n| worker processes | emails/s | worker CPU ms/email (each) | HTTP process CPU ms/email | PostgreSQL CPU ms/email | machine busy |`);
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  await sink.stop();
  await opened.cleanup();
}
process.exit(0);
