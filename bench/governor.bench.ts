/**
 * `npm run bench:governor`: the relay rate limit (SMTP_URL max_rate; src/server/core/sending/pacing.ts) with two
 * server processes on one PostgreSQL database and a relay (smtp-server, in this process) that enforces R messages per
 * second by answering 454 past it, as Amazon SES does. Prints the achieved rate against R, the share of seconds the
 * relay saw more than R and more than 1.1 R, deliveries against recipients, duplicates, throttled answers and failed
 * emails. Target: achieved ≥ 0.9 R, ≤ 1 % of seconds over 1.1 R, 0 lost, 0 failed. Prints figures; asserts nothing.
 * BENCH_RATE (R, default 100), BENCH_RECIPIENTS (default 3000), BENCH_PG_URL (default 127.0.0.1:5432/test).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { openBenchDatabase } from './databases.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../tests/helpers/processes.ts';
import { wallClockUtc } from '../tests/helpers/time.ts';

const RATE = Number(process.env.BENCH_RATE ?? 100);
const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 3000);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const opened = await openBenchDatabase('postgres', PG_URL, 'bench_governor');
if (!opened) process.exit(0);
await opened.database.close();
const sink = new SmtpSink();
const relayUrl = await sink.start();
const env: NodeJS.ProcessEnv = {
  DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'mw-governor-')),
  DATABASE_URL: opened.url,
  SMTP_URL: `${relayUrl}?max_rate=${RATE}`,
  WORKERS: 'on',
  LOG_LEVEL: 'error',
  SEND_POLL_MS: '200',
};
const servers: ServerProcess[] = [];
try {
  const out = await runTs(
    'src/server/admin.ts',
    ['create-account', '--company', 'Governor', '--project', 'governor', '--email', 'ops@governor.example.com', '--password', 'governor-pass-1', '--activated'],
    env,
  );
  const key = /api key: (\S+)/.exec(out)![1];
  servers.push(await startServer(env), await startServer(env));
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${servers[0].url}${url}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { data: Array<{ id: string }> };
  };
  const persona = (
    await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@governor.example.com', first_name: 'Ops' }] })
  ).data[0];
  const [link] = await sink.personaVerificationLinks();
  await fetch(link, { method: 'POST' });
  const template = (
    await call('POST', '/api/template/templates', {
      templates: [{ name: 'Governed', subject: 'Governed', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
    })
  ).data[0];
  const ids: string[] = [];
  for (let i = 0; i < RECIPIENTS; i += 1000) {
    const users = Array.from({ length: Math.min(1000, RECIPIENTS - i) }, (_, j) => ({ email: `g${i + j}@governor.example.com` }));
    ids.push(...(await call('POST', '/api/user/users', { users })).data.map((c) => c.id));
  }
  sink.maxPerSecond = RATE;
  sink.offeredPerSecond.clear();
  const first = sink.count;
  await call('POST', '/api/scheduler/scheduler', {
    id: randomUUID(),
    name: 'Governed',
    template_id: template.id,
    sender_persona_id: persona.id,
    to_user_ids: ids,
    send_at: wallClockUtc(-1),
    timezone: 'UTC',
  });
  await sink.waitFor(() => sink.count - first >= RECIPIENTS, 30 * 60_000);
  await new Promise((r) => setTimeout(r, 2000));
  const got = sink.messages.slice(first);
  const times = got.map((m) => m.receivedAt).sort((a, b) => a - b);
  const seconds = (times.at(-1)! - times[0]) / 1000;
  const perSecond = [...sink.offeredPerSecond.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  // The first and last seconds are partial; the shares count every second the relay saw mail.
  const over = (limit: number) => perSecond.filter((n) => n > limit).length / perSecond.length;
  const unique = new Set(got.map((m) => m.envelopeTo[0])).size;
  if (process.env.BENCH_SECONDS) console.log(`per second: ${perSecond.join(' ')}`);
  console.log(`governor bench: R = ${RATE}/s, ${RECIPIENTS} recipients, two server processes on PostgreSQL`);
  console.log('| achieved/s | achieved/R | seconds over R | seconds over 1.1 R | delivered | unique | duplicates | lost | throttled (454) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${((got.length - 1) / seconds).toFixed(1)} | ${((got.length - 1) / seconds / RATE).toFixed(3)} | ${(100 * over(RATE)).toFixed(1)} % | ${(100 * over(1.1 * RATE)).toFixed(1)} % | ${got.length} | ${unique} | ${got.length - unique} | ${RECIPIENTS - unique} | ${sink.throttled} |`,
  );
} finally {
  for (const s of servers) await s.kill('SIGTERM');
  await sink.stop();
  await opened.cleanup();
}
