/**
 * `npm run bench:feedback`: returned emails per second through the inbound SMTP receiver, applied. BENCH_N
 * (default 10,000) sent emails of one project, each with its own return path at a verified bounce subdomain; a second
 * SMTP client, Python's smtplib in its own process with BENCH_CONNECTIONS connections (default 16: an MX receives from
 * many MTAs at once), sends one returned email to each return path —
 * 60 % user-unknown DSNs, 25 % mailbox-full DSNs, 10 % "blocked using Spamhaus" DSNs, 5 % ARF abuse reports — and the
 * figure is the time from the first message to the last one applied (its event written). Prints DSNs/s, this process's
 * peak RSS (VmHWM: it runs the receiver, the parser and the database client) and PostgreSQL's CPU seconds; checks
 * that every message was applied exactly once (events and suppressions counted in SQL). BENCH_DB picks postgres
 * (default) or pglite; BENCH_PG_URL the server. Asserts nothing else.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase } from './databases.ts';
import { addEstablishedDomain, benchConfig, postgresCpu } from './figures.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { returnPath } from '../src/server/mail/returnPath.ts';
import { EVENT } from '../src/domain/events.ts';

const N = Number(process.env.BENCH_N ?? 10_000);
const KIND = (process.env.BENCH_DB ?? 'postgres') as 'postgres' | 'pglite';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The client: Python's smtplib, CONNS connections (threads), each sending its share of the returned emails with the null sender. */
const CLIENT = String.raw`
import json, smtplib, sys, threading
port, path, CONNS = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
items = json.load(open(path))
def dsn(i):
    rp, rcpt, mid, kind = i['rp'], i['rcpt'], i['mid'], i['kind']
    if kind == 'arf':
        return ('From: fbl@provider.example\r\nTo: %s\r\nSubject: FW: S\r\nMIME-Version: 1.0\r\n'
                'Content-Type: multipart/report; report-type=feedback-report; boundary="A0"\r\n\r\n'
                '--A0\r\nContent-Type: text/plain\r\n\r\nAn abuse report.\r\n\r\n'
                '--A0\r\nContent-Type: message/feedback-report\r\n\r\nFeedback-Type: abuse\r\nVersion: 1\r\nOriginal-Rcpt-To: %s\r\n\r\n'
                '--A0\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: news@bench.example\r\nTo: %s\r\nMessage-ID: <%s>\r\n\r\n--A0--\r\n') % (rp, rcpt, rcpt, mid)
    status, text = {'hard': ('5.1.1', '550 5.1.1 <%s>: Recipient address rejected: User unknown' % rcpt),
                    'soft': ('5.2.2', '552 5.2.2 <%s>: Mailbox full' % rcpt),
                    'sender': ('5.7.1', '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org')}[kind]
    return ('From: MAILER-DAEMON@mx.receiver.example (Mail Delivery System)\r\nTo: %s\r\nSubject: Undelivered Mail Returned to Sender\r\n'
            'Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="B0"\r\n\r\n'
            '--B0\r\nContent-Type: text/plain\r\n\r\n<%s>: host mx.receiver.example[192.0.2.7] said: %s (in reply to RCPT TO command)\r\n\r\n'
            '--B0\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.receiver.example\r\n\r\n'
            'Final-Recipient: rfc822; %s\r\nAction: failed\r\nStatus: %s\r\nDiagnostic-Code: smtp; %s\r\n\r\n'
            '--B0\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: news@bench.example\r\nTo: %s\r\nMessage-ID: <%s>\r\n\r\n--B0--\r\n') % (rp, rcpt, text, rcpt, status, text, rcpt, mid)
def run(share):
    s = smtplib.SMTP('127.0.0.1', port)
    for n, i in enumerate(share):
        s.sendmail('', [i['rp']], dsn(i).encode())
        if n % 200 == 199:
            s.rset()
    s.quit()
threads = [threading.Thread(target=run, args=(items[k::CONNS],)) for k in range(CONNS)]
for t in threads: t.start()
for t in threads: t.join()
`;

function peakRssMb(): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return hwm ? Number(hwm[1]) / 1024 : process.memoryUsage().rss / 1024 / 1024;
}

async function main() {
  const opened = await openBenchDatabase(KIND, PG_URL, 'bench-feedback');
  if (!opened) return;
  const { database, cleanup } = opened;
  const config = await benchConfig('mw-bench-feedback', 'smtp://127.0.0.1:1', {
    workers: false,
    inbound: { port: 0, host: '127.0.0.1', mxHost: 'mx.bench.example', maxBytes: 10 * 1024 * 1024, ratePerMinute: 1_000_000 },
  });
  const runtime = await startRuntime(config, { database, workers: false });
  try {
    const account = await createAccount(database.db, {
      email: `bench-${Date.now()}@bench.example`,
      password: 'bench-password-1',
      company: 'Bench',
      project: 'Bench',
      activated: true,
    });
    const projectId = account.projectId;
    await addEstablishedDomain(database, projectId, 'bench.example');
    await database.query(`UPDATE sending_domains SET bounce_mx_status = 'Success', bounce_spf_status = 'Success' WHERE project_id = $1`, [projectId]);
    const [{ link_secret: secret }] = await database.query<{ link_secret: string }>('SELECT link_secret FROM projects WHERE id = $1', [projectId]);
    // N sent emails (the receiver only reads their rows: recipient, Message-ID, project).
    const rows = await database.query<{ id: string; email: string; message_id: string }>(
      `INSERT INTO outbox (project_id, email, send_at, status, message_id, sent_at)
       SELECT $1, 'reader' || g || '@receiver.example', now(), 'sent', 'bench-' || g || '@bench.example', now() FROM generate_series(1, $2) g
       RETURNING id::text, email, message_id`,
      [projectId, N],
    );
    const kinds = (i: number) => (i % 20 === 0 ? 'arf' : i % 10 === 1 ? 'sender' : i % 4 === 2 ? 'soft' : 'hard');
    const items = rows.map((r, i) => ({ rp: returnPath(Number(r.id), secret, 'bounces.bench.example'), rcpt: r.email, mid: r.message_id, kind: kinds(i) }));
    const file = path.join(os.tmpdir(), `mw-bench-feedback-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(items));

    const before = peakRssMb();
    const pgCpu = postgresCpu();
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const client = spawn('python3', ['-c', CLIENT, String(runtime.inbound!.port), file, String(CONNECTIONS)], { stdio: ['ignore', 'inherit', 'inherit'] });
    const exited = new Promise<number>((resolve) => client.on('exit', (code) => resolve(code ?? 1)));
    const applied = async () =>
      (
        await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ($2, $3)`, [
          projectId,
          EVENT.bounce,
          EVENT.complaint,
        ])
      )[0].n;
    let done = 0;
    while (done < N) {
      await new Promise((r) => setTimeout(r, 200));
      done = await applied();
      if (client.exitCode !== null && client.exitCode !== 0) throw new Error(`the SMTP client failed (exit ${client.exitCode})`);
    }
    const seconds = (performance.now() - started) / 1000;
    await exited;
    const cpu = process.cpuUsage(cpu0);
    const [check] = await database.query<{ hard: number; soft: number; sender: number; complaints: number; suppressed: number }>(
      `SELECT count(*) FILTER (WHERE json->'bounce'->>'class' = 'hard')::int AS hard, count(*) FILTER (WHERE json->'bounce'->>'class' = 'soft')::int AS soft,
              count(*) FILTER (WHERE json->'bounce'->>'class' = 'sender')::int AS sender, count(*) FILTER (WHERE name = $2)::int AS complaints,
              (SELECT count(*)::int FROM suppressions WHERE project_id = $1) AS suppressed
         FROM events WHERE project_id = $1 AND name IN ($3, $2)`,
      [projectId, EVENT.complaint, EVENT.bounce],
    );
    const want = { hard: items.filter((i) => i.kind === 'hard').length, soft: items.filter((i) => i.kind === 'soft').length };
    console.log(`feedback (${KIND}, ${N} returned emails over SMTP, ${CONNECTIONS} connections from Python's smtplib, ${os.cpus().length} cores)`);
    console.log(`  applied: ${done} in ${seconds.toFixed(1)} s = ${(N / seconds).toFixed(0)} DSNs/s`);
    console.log(
      `  classes: hard ${check.hard} (sent ${want.hard}), soft ${check.soft} (sent ${want.soft}), sender ${check.sender}, complaints ${check.complaints}; suppressed ${check.suppressed}`,
    );
    console.log(
      `  this process: peak RSS ${peakRssMb().toFixed(0)} MB (${before.toFixed(0)} MB before the load), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; PostgreSQL CPU ${KIND === 'postgres' ? `${pgCpu().toFixed(1)} s` : 'n/a (in process)'}`,
    );
  } finally {
    await runtime.stop();
    await cleanup();
  }
}

await main();
