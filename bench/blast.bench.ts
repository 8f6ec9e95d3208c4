/**
 * `npm run bench`: emails/second for a 10,000-recipient blast through the whole pipeline (expansion, render with
 * variables, tracking links, raw message, DKIM signature, stored copy, SMTP delivery into a local sink, sent mark +
 * event) on PGlite and on PostgreSQL, beside the raw nodemailer-to-sink rate measured in the same run (composing and
 * DKIM-signing each message too), and the ratio; with the CPU per email of this process and of PostgreSQL. The blast
 * is what a customer's is: marketing (List-Unsubscribe), tracked, from a DKIM-verified sending domain. Prints figures; asserts
 * nothing. The machine's speed drifts from minute to minute, so each database runs BENCH_ROUNDS (default 3) rounds of
 * raw-then-pipeline and the medians are reported. BENCH_RECIPIENTS overrides the size; BENCH_DB picks one database;
 * BENCH_PG_URL the PostgreSQL server (default 127.0.0.1:5432/test); BENCH_PROFILE writes a CPU profile of round 1.
 * The sink runs in a process of its own, as a relay would (BENCH_SINK=inline puts it in this process, as before
 * 2026-11-24: it then shares the main thread's event loop with the SMTP client in both measurements).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { randomBytes, randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Database } from '../src/server/db/client.ts';
import { openBenchDatabase } from './databases.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { SmtpTransport } from '../src/server/mail/transport.ts';
import { buildRawMessage, type DkimKey } from '../src/server/mail/render.ts';
import { textFromHtml } from '../src/domain/emailHtml.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { upsertContacts } from '../src/server/core/contacts/index.ts';
import { savePersonas } from '../src/server/core/personas/index.ts';
import { saveTemplates } from '../src/server/core/templates/index.ts';
import { saveBlast } from '../src/server/core/blasts/index.ts';
import { projectByApiKey } from '../src/server/core/accounts/index.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';
import { readFixture } from '../tests/helpers/fixtures.ts';
import { RemoteSink } from './sinkProcess.ts';
import { addEstablishedDomain, benchConfig, postgresCpu, threadTicks } from './figures.ts';

const N = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
const RAW_N = Math.min(N, 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function templateHtml(): Promise<string> {
  const html = readFixture('email-templates/leemunroe/email-inlined.html');
  return html
    .replace('>Hi there<', '>Hi {{user.first_name}} {{user.last_name}} ({{user.json.plan}})<')
    .replace(/href="[^"]*"([^>]*>Unsubscribe)/, 'href="{{unsubscribe_link}}"$1');
}

/** newSink: the SMTP sink, in its own process (BENCH_SINK=process, the default) or in this one (BENCH_SINK=inline). */
function newSink(): { start(): Promise<string>; stop(): Promise<void>; waitFor(p: () => boolean, ms?: number): Promise<void>; count: number } {
  if (process.env.BENCH_SINK === 'inline') {
    const sink = new SmtpSink();
    sink.countOnly = true;
    return sink;
  }
  return new RemoteSink();
}

/**
 * rawRate: raw nodemailer into the sink, doing what the pipeline must per email at its least: compose the message
 * (MailComposer, HTML plus its text part, List-Unsubscribe) and DKIM-sign it (nodemailer's signer, RSA-2048, the
 * same key size as the pipeline's), then send it through a pooled transport; RAW_N messages, 10 at a time. Returns
 * msg/s.
 */
async function rawRate(html: string, dkim: DkimKey): Promise<number> {
  const sink = newSink();
  const transport = new SmtpTransport(await sink.start());
  const text = textFromHtml(html);
  const sendAll = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next++ < n) {
          const raw = await buildRawMessage({
            from: { email: 'news@bench.example.com', name: 'Bench' },
            to: `r${next}@example.com`,
            subject: 'Bench',
            html,
            text,
            messageId: `<${randomUUID()}@bench.example.com>`,
            listUnsubscribe: `https://bench.example.com/u/${next}`,
            dkim,
          });
          await transport.send({ from: 'news@bench.example.com', to: [`r${next}@example.com`] }, raw);
        }
      }),
    );
  };
  await sendAll(500); // warm-up: connections open, JIT warm, as the pipeline's are by the time it is timed
  const start = performance.now();
  await sendAll(RAW_N);
  const rate = RAW_N / ((performance.now() - start) / 1000);
  await transport.close();
  await sink.stop();
  return rate;
}

/** A database prepared for the pipeline runs: one account with N contacts, a persona and a template, workers running. */
interface Prepared {
  run(): Promise<{
    rate: number;
    seconds: number;
    firstSeconds: number;
    mainBusy: number;
    cores: number;
    loopDelayP99: number;
    machineBusy: number;
    threads: number[];
    /** CPU of the PostgreSQL server's processes (every `postgres` process on this machine) per email, ms; 0 for PGlite. */
    dbMsPerEmail: number;
  }>;
  /** The DKIM key of the project's sending domain (the raw baseline signs with it too). */
  dkim: DkimKey;
  sent(): Promise<number>;
  close(): Promise<void>;
}

/** prepare opens a runtime on `database` with N contacts and starts the workers (render threads included) once. */
async function prepare(database: Database, html: string, kind: 'pglite' | 'postgres'): Promise<Prepared> {
  const sink = newSink();
  const smtpUrl = await sink.start();
  const config = await benchConfig('mw-bench', smtpUrl);
  const runtime = await startRuntime(config, { database, transport: new SmtpTransport(smtpUrl), workers: false });
  const db = database.db;
  const { apiKey } = await createAccount(db, {
    company: `Bench ${randomBytes(3).toString('hex')}`,
    project: 'bench',
    email: `bench-${randomBytes(3).toString('hex')}@example.com`,
    password: 'bench-password-1',
    activated: true,
  });
  const project = (await projectByApiKey(db, apiKey))!;
  const [persona] = await savePersonas(db, project.id, [{ email: 'news@bench.example.com', first_name: 'Bench', last_name: 'Sender' }]);
  await database.query('UPDATE sender_personas SET verified_at = now() WHERE id = $1', [persona.id]); // confirmed out of band
  // Its sending domain, DKIM-verified and past its warm-up (an established sender): every email is signed, as in
  // production (RSA-2048), tracked (open pixel, click links) and marketing (List-Unsubscribe).
  const dkim = await addEstablishedDomain(database, project.id, 'bench.example.com');
  const [template] = await saveTemplates(db, project.id, [
    { name: 'Bench', subject: 'Hello {{user.first_name}}', type: 'TEMPLATE_MARKETING', enabled: true, html_body: html },
  ]);
  const ids: string[] = [];
  for (let i = 0; i < N; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({
      email: `r${i + j}@bench.example.com`,
      first_name: `First${i + j}`,
      last_name: 'Last',
      json: { plan: 'gold' },
    }));
    ids.push(...(await upsertContacts(database.query, project.id, batch)).data.map((c) => c.id));
  }
  const { startWorkers } = await import('../src/workers/index.ts');
  const workers = await startWorkers(runtime.ctx, runtime.queue, runtime.transport);
  let runs = 0;
  const sent = async () => {
    const [{ n }] = await database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE status = 'sent'");
    return Number(n);
  };
  return {
    /** run sends one N-recipient blast, due at once; msg/s from the blast's save to the last email accepted by the sink. */
    async run() {
      runs++;
      const before = sink.count;
      let session: import('node:inspector/promises').Session | undefined;
      if (process.env.BENCH_PROFILE && runs === 1) {
        const { Session } = await import('node:inspector/promises');
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const elu0 = performance.eventLoopUtilization();
      const cpu0 = process.cpuUsage();
      const machine0 = machineTicks();
      const threads0 = threadTicks();
      const dbCpu = postgresCpu();
      const start = performance.now();
      await saveBlast(runtime.ctx, project, {
        id: randomUUID(),
        name: `Bench ${runs}`,
        template_id: template.id,
        sender_persona_id: persona.id,
        to_user_ids: ids,
        send_at: new Date().toISOString().slice(0, 16),
        timezone: 'UTC',
        send_in_users_timezone: false,
      });
      await sink.waitFor(() => sink.count > before, 60_000);
      const firstSeconds = (performance.now() - start) / 1000;
      await sink.waitFor(() => sink.count >= before + N, 30 * 60_000);
      const seconds = (performance.now() - start) / 1000;
      const mainBusy = performance.eventLoopUtilization(elu0).utilization;
      delay.disable();
      const loopDelayP99 = delay.percentile(99) / 1e6;
      const cpu = process.cpuUsage(cpu0);
      const cores = (cpu.user + cpu.system) / 1e6 / seconds;
      const machine1 = machineTicks();
      const threads1 = threadTicks();
      const dbMsPerEmail = kind === 'postgres' ? (dbCpu() * 1000) / N : 0;
      // The busiest threads of this process (cores each: main, PGlite, render threads, libuv…), busiest first.
      const hz = 100;
      const threads = [...threads1]
        .map(([tid, t]) => (t - (threads0.get(tid) ?? 0)) / hz / seconds)
        .sort((a, b) => b - a)
        .slice(0, 4);
      const machineBusy = (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total);
      if (session) {
        const { profile } = await session.post('Profiler.stop');
        const { writeFile } = await import('node:fs/promises');
        await writeFile(process.env.BENCH_PROFILE!, JSON.stringify(profile));
      }
      // What went out is what production sends: the stored copy of the last email, signed and with List-Unsubscribe.
      const [last] = await database.query<{ json: { bucket: string; key: string } }>(
        "SELECT json FROM events WHERE name = 'email_send_result_success' ORDER BY emitted_at DESC LIMIT 1",
      );
      const copy = last ? String(await runtime.ctx.storage.get(last.json.bucket, last.json.key)) : '';
      if (!/^DKIM-Signature: /m.test(copy) || !/^List-Unsubscribe:/m.test(copy))
        throw new Error(`the blast went out without a DKIM signature or List-Unsubscribe: ${copy.slice(0, 300)}`);
      // Let the last sent marks land before the next measurement starts.
      for (let i = 0; i < 100 && (await sent()) < runs * N; i++) await new Promise((r) => setTimeout(r, 50));
      return { rate: N / seconds, seconds, firstSeconds, mainBusy, cores, loopDelayP99, machineBusy, threads, dbMsPerEmail };
    },
    dkim,
    sent,
    async close() {
      await workers.stop();
      await runtime.stop();
      await sink.stop();
    },
  };
}

/** machineTicks reads /proc/stat's cpu line: busy and total jiffies of all cores (Linux only; zeros elsewhere). */
function machineTicks(): { busy: number; total: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - f[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const html = await templateHtml();
  console.log(
    `Blast benchmark: ${N} recipients, ${html.length} byte HTML template, SMTP sink on 127.0.0.1 ${process.env.BENCH_SINK === 'inline' ? 'in this process' : 'in a process of its own'}, node ${process.version}, ${os.cpus().length} cores`,
  );
  console.log(
    `Each database: ${ROUNDS} rounds of (raw nodemailer→sink, ${RAW_N} messages; then one ${N}-recipient blast), interleaved so both see the same machine; medians reported.`,
  );
  const rows: string[][] = [];
  for (const kind of (process.env.BENCH_DB ? [process.env.BENCH_DB] : ['pglite', 'postgres']) as Array<'pglite' | 'postgres'>) {
    const opened = await openBenchDatabase(kind, PG_URL, 'bench');
    if (!opened) continue;
    const { database, cleanup } = opened;
    const prepared = await prepare(database, html, kind);
    const raws: number[] = [];
    const pipes: number[] = [];
    const ratios: number[] = [];
    const cpuMs: number[] = [];
    const dbMs: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const raw = await rawRate(html, prepared.dkim);
      const p = await prepared.run();
      raws.push(raw);
      pipes.push(p.rate);
      ratios.push(p.rate / raw);
      cpuMs.push(((p.cores * p.seconds) / N) * 1000);
      dbMs.push(p.dbMsPerEmail);
      console.log(
        `${kind} round ${r}: raw nodemailer→sink ${raw.toFixed(0)} msg/s; pipeline ${p.rate.toFixed(0)} msg/s (${p.seconds.toFixed(1)} s, first email after ${p.firstSeconds.toFixed(1)} s, main thread busy ${(p.mainBusy * 100).toFixed(0)}%, event-loop delay p99 ${p.loopDelayP99.toFixed(0)} ms, process CPU ${p.cores.toFixed(2)} cores = ${(((p.cores * p.seconds) / N) * 1000).toFixed(2)} ms per email, PostgreSQL ${p.dbMsPerEmail.toFixed(2)} ms per email (busiest threads ${p.threads.map((t) => t.toFixed(2)).join(', ')}), machine ${(p.machineBusy * 100).toFixed(0)}% busy); ratio ${(p.rate / raw).toFixed(2)}`,
      );
    }
    const sent = await prepared.sent();
    await prepared.close();
    await cleanup();
    rows.push([
      kind,
      median(raws).toFixed(0),
      median(pipes).toFixed(0),
      median(ratios).toFixed(2),
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      median(cpuMs).toFixed(2),
      kind === 'postgres' ? median(dbMs).toFixed(2) : '(in process)',
      `${sent}/${ROUNDS * N}`,
    ]);
  }
  console.log(
    `\n| database | raw msg/s (median) | pipeline msg/s (median) | ratio (median) | ratio range | process CPU ms/email (median) | PostgreSQL CPU ms/email (median) | sent |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
