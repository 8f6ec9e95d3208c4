/**
 * `npm run bench:submission`: messages per second through SMTP submission (gateways/submission/server.ts) on
 * PostgreSQL, beside the blast pipeline's figure for the same count measured in the same run.
 *
 * A fresh database; the runtime with its workers and SMTP submission on a free loopback port with STARTTLS (a
 * self-signed certificate made with the `openssl` command into a temporary folder: tests/helpers/tlsCert.ts); an
 * activated project with a verified sender persona on a DKIM-verified, established sending domain (as bench:blast
 * sets it up) and one SMTP credential with a high rate limit. An application in a process of its own — SUBMISSION_BENCH_CONNECTIONS (default
 * 4) nodemailer pooled transports of one connection each, STARTTLS verified against the test certificate, AUTH PLAIN
 * — submits SUBMISSION_BENCH_N (default 10,000) small HTML+text messages, each to a distinct recipient, on the
 * transactional stream. The relay is the tests' SMTP sink in a process of its own, as bench:blast's is; it keeps every
 * message, and afterwards says whether each recipient got exactly one, each with a DKIM-Signature of the sending
 * domain (mailauth verifies a sample against the domain's public key).
 *
 * Prints: accepted messages/s (the go → the application's last 250), delivered messages/s (the go → the sink has
 * them all; and → the outbox all sent), this process's peak RSS (sampled every 100 ms), its CPU and main-thread busy
 * share, PostgreSQL's CPU, a timeline of accepted and delivered; then runs `tsx bench/blast.bench.ts` with
 * BENCH_DB=postgres and BENCH_RECIPIENTS the same count (SUBMISSION_BENCH_BLAST_ROUNDS rounds, default 3; `off` skips
 * it), parses its pipeline rates and prints both rates and their ratio. Targets: submission delivered ≥ 0.7 × the
 * blast's rate, RSS < 400 MB. Prints figures only; asserts nothing about timings. BENCH_PG_URL names the server
 * (default 127.0.0.1:5432/test). All traffic stays on 127.0.0.1.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { QueryFn } from '../src/server/db/client.ts';
import { openBenchDatabase } from './databases.ts';
import { addEstablishedDomain, benchConfig, postgresCpu, threadTicks } from './figures.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { SmtpTransport } from '../src/server/mail/transport.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { savePersonas } from '../src/server/core/personas/index.ts';
import { createSmtpCredential } from '../src/server/core/sending/smtpCredentials.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';
import { testCertificate } from '../tests/helpers/tlsCert.ts';

const N = Number(process.env.SUBMISSION_BENCH_N ?? 10_000);
const CONNECTIONS = Number(process.env.SUBMISSION_BENCH_CONNECTIONS ?? 4);
const BLAST_ROUNDS = process.env.SUBMISSION_BENCH_BLAST_ROUNDS ?? '3';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DOMAIN = 'bench.example.com';
const FROM = `news@${DOMAIN}`;
/** Recipient i's address (the sink reads i back from it). */
const recipient = (i: number) => `to${i}@recipients.example`;
/** How many delivered messages mailauth verifies cryptographically (spread over the run); all are checked for the header. */
const VERIFY_SAMPLE = 100;
const SELF = fileURLToPath(import.meta.url);
/** The timeline's step (ms). */
const TIMELINE_MS = 10_000;

/** What the sink process reports about the messages it accepted. */
interface SinkReport {
  messages: number;
  distinct: number;
  duplicates: number;
  missing: number;
  strangers: number;
  withDkimHeader: number;
  signedByDomain: number;
  /** Messages mailauth checked (a sample spread over the run) and how many passed. */
  sampled: number;
  verified: number;
  verifyFailures: string[];
}

/** The sink process: the tests' SmtpSink keeping every message; its count every 10 ms; a report on request. */
async function sinkChild(): Promise<void> {
  const sink = new SmtpSink();
  const url = await sink.start();
  process.send!({ url });
  let reported = -1;
  const timer = setInterval(() => {
    if (sink.count !== reported) process.send!({ count: (reported = sink.count) });
  }, 10);
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m: { report?: { n: number; dkimTxt: string } } | 'stop' | 'cpu') => {
    if (m === 'cpu') return void process.send!({ cpu: process.cpuUsage() });
    if (m === 'stop') {
      clearInterval(timer);
      await sink.stop();
      process.exit(0);
    }
    if (!m.report) return;
    const { n, dkimTxt } = m.report;
    const seen = new Map<number, number>();
    let strangers = 0;
    let withDkimHeader = 0;
    let signedByDomain = 0;
    for (const msg of sink.messages) {
      const index = msg.envelopeTo.length === 1 ? /^to(\d+)@recipients\.example$/.exec(msg.envelopeTo[0])?.[1] : undefined;
      if (index === undefined || Number(index) >= n) strangers++;
      else seen.set(Number(index), (seen.get(Number(index)) ?? 0) + 1);
      const end = msg.raw.indexOf('\r\n\r\n');
      const header = msg.raw
        .subarray(0, end < 0 ? msg.raw.length : end)
        .toString('latin1')
        .replace(/\r\n[ \t]+/g, ' ');
      const dkim = header.split('\r\n').find((l) => /^dkim-signature:/i.test(l));
      if (dkim) withDkimHeader++;
      if (dkim && new RegExp(`[;\\s]d=${DOMAIN.replace(/\./g, '\\.')}\\s*;`, 'i').test(dkim)) signedByDomain++;
    }
    const verifyFailures: string[] = [];
    let verified = 0;
    let sampled = 0;
    const step = Math.max(1, Math.floor(sink.messages.length / VERIFY_SAMPLE));
    for (let i = 0; i < sink.messages.length; i += step) {
      sampled++;
      const result = await dkimVerify(sink.messages[i].raw, {
        resolver: async (name: string, rr: string) => {
          if (rr === 'TXT' && name.toLowerCase() === `mw1._domainkey.${DOMAIN}`) return [[dkimTxt]];
          throw Object.assign(new Error(`no ${rr} record for ${name}`), { code: 'ENOTFOUND' });
        },
      });
      const pass = result.results.some((r: { signingDomain?: string; status: { result: string } }) => r.signingDomain === DOMAIN && r.status.result === 'pass');
      if (pass) verified++;
      else if (verifyFailures.length < 3) verifyFailures.push(JSON.stringify(result.results.map((r: { status: unknown }) => r.status)));
    }
    const duplicates = [...seen.values()].reduce((a, c) => a + c - 1, 0);
    const report: SinkReport = {
      messages: sink.messages.length,
      distinct: seen.size,
      duplicates,
      missing: n - seen.size,
      strangers,
      withDkimHeader,
      signedByDomain,
      sampled,
      verified,
      verifyFailures,
    };
    process.send!({ report });
  });
}

/** The application: CONNECTIONS pooled nodemailer transports (one connection each) sharing N messages; progress every 100 ms. */
async function clientChild(): Promise<void> {
  process.on('disconnect', () => process.exit(0));
  const { port, user, pass, ca, n, connections } = await new Promise<{ port: number; user: string; pass: string; ca: string; n: number; connections: number }>(
    (resolve) => process.once('message', resolve),
  );
  const transports = Array.from({ length: connections }, () =>
    nodemailer.createTransport({
      pool: true,
      maxConnections: 1,
      maxMessages: Infinity,
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { ca: [ca] },
      auth: { user, pass },
      authMethod: 'PLAIN',
    }),
  );
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  process.send!({ ready: true });
  await go;
  let accepted = 0;
  let refused = 0;
  const errors: string[] = [];
  const progress = setInterval(() => process.send!({ accepted, refused }), 100);
  let next = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    transports.map(async (transport) => {
      for (let i = next++; i < n; i = next++) {
        try {
          await transport.sendMail({
            from: { name: 'Bench Shop', address: FROM },
            to: recipient(i),
            subject: `Your order #${100000 + i} has shipped`,
            text: `Hello customer ${i},\n\nYour order #${100000 + i} has shipped. Track it at https://shop.example/orders/${i}\n\nBench Shop`,
            html: `<p>Hello customer ${i},</p><p>Your order <b>#${100000 + i}</b> has shipped.</p><p><a href="https://shop.example/orders/${i}">Track it</a></p><p>Bench Shop</p>`,
          });
          accepted++;
        } catch (err) {
          refused++;
          if (errors.length < 5) errors.push((err as Error).message);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(progress);
  for (const t of transports) t.close();
  process.send!({ accepted, refused, errors, done: seconds, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0));
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The submission measurement; returns the delivered rate (go → the sink has all N). */
async function measureSubmission(): Promise<number | undefined> {
  const opened = await openBenchDatabase('postgres', PG_URL, 'bench-submission');
  if (!opened) return undefined;
  const { database, cleanup } = opened;
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  // A self-signed certificate for the submission port, for localhost and 127.0.0.1 (the openssl command, as the tests' own).
  const { key, cert, dir: certDir } = testCertificate();
  const children: ChildProcess[] = [];
  try {
    // The relay: the tests' SMTP sink, in a process of its own.
    const sinkProcess = fork(SELF, ['--sink'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(sinkProcess);
    let sinkCount = 0;
    let sinkReport: SinkReport | undefined;
    let sinkCpuWaiter: ((cpu: NodeJS.CpuUsage) => void) | undefined;
    /** The sink process's CPU use so far (asked over IPC). */
    const sinkCpu = () => new Promise<NodeJS.CpuUsage>((resolve) => ((sinkCpuWaiter = resolve), sinkProcess.send('cpu')));
    const sinkUrl = await new Promise<string>((resolve, reject) => {
      sinkProcess.on('message', (m: { url?: string; count?: number; report?: SinkReport; cpu?: NodeJS.CpuUsage }) => {
        if (m.cpu) sinkCpuWaiter?.(m.cpu);
        if (m.url) resolve(m.url);
        if (m.count !== undefined) sinkCount = m.count;
        if (m.report) sinkReport = m.report;
      });
      sinkProcess.once('exit', (code) => reject(new Error(`the sink process exited (${code})`)));
    });

    const config = await benchConfig('mw-bench-submission', sinkUrl, {
      workers: true,
      submission: {
        port: 0,
        host: '127.0.0.1',
        hostname: 'localhost',
        tls: { cert, key },
        maxBytes: 10 * 1024 * 1024,
        authFailures: 10,
      },
    });
    const runtime = await startRuntime(config, { database, transport: new SmtpTransport(sinkUrl), workers: true });
    const query = database.query.bind(database) as QueryFn;
    try {
      const { projectId } = await createAccount(database.db, {
        company: 'Bench Shop',
        project: 'shop',
        email: 'owner@bench-shop.example',
        password: 'bench-password-1',
        activated: true,
      });
      const [persona] = await savePersonas(database.db, projectId, [{ email: FROM, first_name: 'Bench', last_name: 'Shop' }]);
      await database.query('UPDATE sender_personas SET verified_at = now() WHERE id = $1', [persona.id]); // confirmed out of band
      const dkim = await addEstablishedDomain(database, projectId, DOMAIN);
      const publicKey = createPublicKey(dkim.privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
      const credential = await createSmtpCredential(query, projectId, { name: 'bench', rate_per_minute: 1_000_000 });

      // The application, in a process of its own.
      const client = fork(SELF, ['--client'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(client);
      client.send({ port: runtime.submission!.port, user: credential.username, pass: credential.password, ca: cert, n: N, connections: CONNECTIONS });
      let accepted = 0;
      let refused = 0;
      let clientDone: { seconds: number; errors: string[]; cpuMs: number } | undefined;
      let acceptedAt: number | undefined;
      let ready = false;
      client.on('message', (m: { ready?: boolean; accepted: number; refused: number; errors?: string[]; done?: number; cpuMs?: number }) => {
        if (m.ready) return void (ready = true);
        accepted = m.accepted;
        refused = m.refused;
        if (m.done !== undefined) {
          acceptedAt = performance.now();
          clientDone = { seconds: m.done, errors: m.errors ?? [], cpuMs: m.cpuMs ?? 0 };
        }
      });
      const clientExit = new Promise<number>((resolve) => client.once('exit', (code) => resolve(code ?? 1)));
      while (!ready) {
        if (client.exitCode !== null) throw new Error(`the application's process exited (${client.exitCode})`);
        await sleep(20);
      }

      const rssBefore = process.memoryUsage().rss;
      peakRss = rssBefore;
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const elu0 = performance.eventLoopUtilization();
      const cpu0 = process.cpuUsage();
      const threads0 = threadTicks();
      const pgCpu = postgresCpu();
      const timeline: string[] = [];
      const sinkCpu0 = await sinkCpu();
      const start = performance.now();
      client.send('go');
      let nextMark = TIMELINE_MS;
      let deliveredAt: number | undefined;
      while (deliveredAt === undefined) {
        await sleep(5);
        const t = performance.now() - start;
        if (sinkCount >= N) deliveredAt = performance.now();
        if (t >= nextMark) {
          timeline.push(`${(t / 1000).toFixed(0)} s: ${accepted} accepted, ${sinkCount} delivered`);
          nextMark += TIMELINE_MS;
        }
        if (client.exitCode !== null && client.exitCode !== 0) throw new Error(`the application's process failed (exit ${client.exitCode})`);
        if (clientDone && refused > 0 && sinkCount >= accepted) break; // refused messages never arrive
        if (t > 30 * 60_000) throw new Error(`timed out: ${accepted} accepted, ${sinkCount} delivered`);
      }
      deliveredAt ??= performance.now();
      const sinkCpu1 = await sinkCpu();
      const sinkMs = (sinkCpu1.user - sinkCpu0.user + sinkCpu1.system - sinkCpu0.system) / 1000;
      const mainBusy = performance.eventLoopUtilization(elu0).utilization;
      delay.disable();
      const cpu = process.cpuUsage(cpu0);
      const pgSeconds = pgCpu();
      const threads1 = threadTicks();
      let outboxAt: number | undefined;
      let statuses: Array<{ status: string; n: number }> = [];
      for (let i = 0; i < 400; i++) {
        statuses = await database.query<{ status: string; n: number }>(
          `SELECT status, count(*)::int AS n FROM outbox WHERE project_id = $1 GROUP BY status ORDER BY status`,
          [projectId],
        );
        if (statuses.find((s) => s.status === 'sent')?.n === accepted) {
          outboxAt = performance.now();
          break;
        }
        await sleep(25);
      }
      await clientExit;
      const [{ rows: outboxRows, recipients, submissions }] = await database.query<{ rows: number; recipients: number; submissions: number }>(
        `SELECT count(*)::int AS rows, count(DISTINCT lower(email))::int AS recipients, count(DISTINCT submission_id)::int AS submissions FROM outbox WHERE project_id = $1`,
        [projectId],
      );
      sinkProcess.send({ report: { n: N, dkimTxt: `v=DKIM1; k=rsa; p=${publicKey}` } });
      for (let i = 0; i < 600 && !sinkReport; i++) await sleep(100);
      const peak = peakRss;
      clearInterval(rssTimer);

      const seconds = (deliveredAt - start) / 1000;
      const acceptedSeconds = ((acceptedAt ?? deliveredAt) - start) / 1000;
      const outboxSeconds = outboxAt !== undefined ? (outboxAt - start) / 1000 : undefined;
      const cores = (cpu.user + cpu.system) / 1e6 / seconds;
      const busiest = [...threads1]
        .map(([tid, t]) => (t - (threads0.get(tid) ?? 0)) / 100 / seconds)
        .sort((a, b) => b - a)
        .slice(0, 4);
      console.log(
        `\nSMTP submission on postgres: ${N} messages from ${CONNECTIONS} nodemailer connections (STARTTLS, AUTH PLAIN) in a process of their own, each to its own recipient, transactional stream, DKIM-signed; the sink in a process of its own; node ${process.version}, ${os.cpus().length} cores`,
      );
      console.log(
        `  accepted: ${accepted} (${refused} refused${clientDone?.errors.length ? `: ${clientDone.errors.join(' | ')}` : ''}) in ${acceptedSeconds.toFixed(1)} s = ${(accepted / acceptedSeconds).toFixed(0)} msg/s`,
      );
      console.log(`  delivered: ${sinkCount} at the sink in ${seconds.toFixed(1)} s = ${(sinkCount / seconds).toFixed(0)} msg/s`);
      console.log(
        `  outbox: ${statuses.map((s) => `${s.n} ${s.status}`).join(', ')}${outboxSeconds !== undefined ? `, all sent after ${outboxSeconds.toFixed(1)} s = ${(accepted / outboxSeconds).toFixed(0)} msg/s` : ' (not all sent)'}; ${outboxRows} rows for ${recipients} recipients from ${submissions} submissions`,
      );
      if (sinkReport) {
        const r = sinkReport;
        console.log(
          `  sink: ${r.messages} messages, ${r.distinct} distinct recipients, ${r.duplicates} duplicates, ${r.missing} missing, ${r.strangers} unexpected; DKIM-Signature on ${r.withDkimHeader}, d=${DOMAIN} on ${r.signedByDomain}; mailauth verified ${r.verified} of a sample of ${r.sampled}${r.verifyFailures.length ? ` (failures: ${r.verifyFailures.join(' | ')})` : ''}`,
        );
        console.log(
          `  exactly once, every message signed: ${r.messages === N && r.distinct === N && r.duplicates === 0 && r.strangers === 0 && r.signedByDomain === N && r.verified === r.sampled ? 'yes' : 'NO'}`,
        );
      } else console.log('  sink: no report');
      console.log(
        `  this process: RSS ${mb(rssBefore)} MB before the load, peak ${mb(peak)} MB (sampled every 100 ms); CPU ${cores.toFixed(2)} cores = ${(((cores * seconds) / N) * 1000).toFixed(2)} ms per message (user ${(cpu.user / 1000 / N).toFixed(2)}, system ${(cpu.system / 1000 / N).toFixed(2)}; busiest threads ${busiest.map((t) => t.toFixed(2)).join(', ')}), main thread busy ${(mainBusy * 100).toFixed(0)}%, event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms; PostgreSQL CPU ${pgSeconds.toFixed(1)} s = ${((pgSeconds * 1000) / N).toFixed(2)} ms per message`,
      );
      console.log(
        `  the application's process: CPU ${(clientDone?.cpuMs ?? 0).toFixed(0)} ms = ${((clientDone?.cpuMs ?? 0) / N).toFixed(2)} ms per message; the sink's: ${sinkMs.toFixed(0)} ms = ${(sinkMs / N).toFixed(2)} ms per message (the four share ${os.cpus().length} cores)`,
      );
      console.log(`  timeline: ${timeline.join('; ')}`);
      console.log(`  peak RSS < 400 MB: ${peak < 400 * 1024 * 1024 ? 'yes' : 'no'}`);
      return sinkCount / seconds;
    } finally {
      await runtime.stop();
      rmSync(config.dataDir, { recursive: true, force: true }); // the stored copies of the messages
    }
  } finally {
    clearInterval(rssTimer);
    for (const c of children) if (c.exitCode === null) c.kill();
    await cleanup();
    rmSync(certDir, { recursive: true, force: true });
  }
}

/** The blast pipeline's rates for the same count on PostgreSQL: `tsx bench/blast.bench.ts`, its output echoed and parsed. */
async function measureBlast(): Promise<number[]> {
  console.log(`\nThe blast pipeline beside it: BENCH_DB=postgres BENCH_RECIPIENTS=${N} BENCH_ROUNDS=${BLAST_ROUNDS} tsx bench/blast.bench.ts`);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(path.dirname(SELF), 'blast.bench.ts')], {
    env: { ...process.env, BENCH_DB: 'postgres', BENCH_RECIPIENTS: String(N), BENCH_ROUNDS: BLAST_ROUNDS, BENCH_PG_URL: PG_URL },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rates: number[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      console.log(`  blast> ${line}`);
      const m = /^postgres round \d+: .*; pipeline (\d+) msg\/s/.exec(line);
      if (m) rates.push(Number(m[1]));
    }
  });
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  if (buffered) console.log(`  blast> ${buffered}`);
  if (code !== 0) console.log(`  blast bench exited with ${code}`);
  return rates;
}

async function main(): Promise<void> {
  console.log(`Submission benchmark: ${N} messages, ${CONNECTIONS} SMTP connections; PostgreSQL at ${new URL(PG_URL).host}`);
  const submission = await measureSubmission();
  const blast = BLAST_ROUNDS === 'off' ? [] : await measureBlast();
  const median = blast.length ? [...blast].sort((a, b) => a - b)[Math.floor(blast.length / 2)] : undefined;
  console.log('\n| pipeline (postgres) | delivered msg/s |');
  console.log('|---|---|');
  console.log(`| SMTP submission, ${N} messages | ${submission?.toFixed(0) ?? 'n/a'} |`);
  console.log(`| blast, ${N} recipients (median of ${blast.length}: ${blast.join(', ') || 'n/a'}) | ${median?.toFixed(0) ?? 'n/a'} |`);
  if (submission && median) console.log(`\nsubmission / blast = ${(submission / median).toFixed(2)} (target ≥ 0.7)`);
  process.exit(0);
}

if (process.argv[2] === '--sink') await sinkChild();
else if (process.argv[2] === '--client') await clientChild();
else
  await main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
