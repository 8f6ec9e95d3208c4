/**
 * A graceful stop hands over without loss or duplicates. A worker stopped with SIGTERM mid-blast waits
 * for the messages already in an SMTP transaction and records the ones the relay accepted, hands every other claimed
 * row back at once, says so, and exits 0 well inside the 10 s stop deadline — however long its claimed rows would
 * take to send. Before, it tried to send all it had claimed: against a slow relay the deadline cut it off with
 * messages accepted and not recorded, and another worker sent them again after the lease.
 *
 * On PostgreSQL: two server processes share the database and the relay; the one holding the blast's rows is stopped,
 * three times; the other sends the rest. On PGlite (one process per data folder): the server is stopped mid-blast and
 * started again. Every recipient gets exactly one message, and every message the relay accepted is recorded as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, callServer, processFixture } from './harness.ts';

const RECIPIENTS = 300;
let sink: SmtpSink;
let env: NodeJS.ProcessEnv;
let drop: () => Promise<void> = async () => {};
const servers: ServerProcess[] = [];

beforeAll(async () => {
  ({ sink, env, drop } = await processFixture('graceful', { SEND_LEASE_MS: '4000', SEND_POLL_MS: '200' }));
  // A relay that takes 300 ms per message: a worker's 5 connections send about 16 emails a second, so the 200-odd rows
  // a worker holds would take longer than the stop deadline to send.
  sink.acceptDelayMs = 300;
});
afterAll(async () => {
  for (const s of servers) await s.kill('SIGKILL');
  await sink?.stop();
  await drop();
});

/** SIGTERM to `s`: resolves its exit code, how long it took (ms) and what it printed. */
async function terminate(s: ServerProcess): Promise<{ code: number | null; ms: number; output: string }> {
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  const started = Date.now();
  s.child.kill('SIGTERM');
  const code = await exited;
  return { code, ms: Date.now() - started, output: s.output() };
}

/** Sets up the account, persona and template through the first server; resolves a function that starts a blast. */
async function prepare(url: string) {
  const out = await runTs(
    'src/server/admin.ts',
    ['create-account', '--company', 'Stop Co', '--project', 'stop', '--email', 'ops@stop.example.com', '--password', 'stop-password-1', '--activated'],
    env,
  );
  const key = /api key: (\S+)/.exec(out)![1];
  const call = (base: string, method: string, path: string, body?: unknown) => callServer(base, key, method, path, body);
  const persona = (
    await call(url, 'POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@stop.example.com', first_name: 'Ops' }] })
  ).body.data[0];
  const [link] = await sink.personaVerificationLinks();
  expect((await fetch(link, { method: 'POST' })).status).toBe(200);
  const template = (
    await call(url, 'POST', '/api/template/templates', {
      templates: [{ name: 'Stop', subject: 'Stop test', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
    })
  ).body.data[0];
  return {
    /** blast queues a blast due now to RECIPIENTS new contacts named `run`; resolves its id and the sink's count before it. */
    async blast(base: string, run: string): Promise<{ id: string; first: number }> {
      const users = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `${run}-${i}@stop.example.com` }));
      const contacts = (await call(base, 'POST', '/api/user/users', { users })).body.data as Array<{ id: string }>;
      const first = sink.count;
      const id = crypto.randomUUID();
      const saved = await call(base, 'POST', '/api/scheduler/scheduler', {
        id,
        name: `Stop ${run}`,
        template_id: template.id,
        sender_persona_id: persona.id,
        to_user_ids: contacts.map((c) => c.id),
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      });
      expect(saved.status).toBe(200);
      return { id, first };
    },
    /** outcome waits until every recipient got a message and anything sent twice would have arrived, then counts. */
    async outcome(base: string, id: string, first: number) {
      await sink.waitFor(() => sink.count - first >= RECIPIENTS, 90_000);
      await new Promise((r) => setTimeout(r, 6000)); // past the 4 s lease: a message sent twice would have arrived
      const per = new Map<string, number>();
      for (const m of sink.messages.slice(first)) for (const to of m.envelopeTo) per.set(to, (per.get(to) ?? 0) + 1);
      const blast = (await call(base, 'GET', `/api/scheduler/scheduler?ids=${id}`)).body.data[0];
      return {
        duplicates: [...per.values()].filter((n) => n > 1).length,
        lost: RECIPIENTS - per.size,
        // Every message the relay accepted is recorded as sent (and nothing else).
        recorded: blast.sent_emails === per.size,
      };
    },
  };
}

describe.skipIf(API_DB !== 'postgres')('SIGTERM of one of two workers mid-blast (postgres)', () => {
  it('records what the relay accepted, hands back the rest, exits 0 quickly: no duplicate and nothing lost, over three runs', async () => {
    servers.push(await startServer(env));
    const setup = await prepare(servers[0].url);
    const results: Array<{ duplicates: number; lost: number; recorded: boolean; code: number | null; quick: boolean; handedBack: boolean }> = [];
    for (let run = 0; run < 3; run++) {
      // The running worker claims the whole blast (two claims of 200 and 100); a second one starts meanwhile.
      const holder = servers[0];
      const { id, first } = await setup.blast(holder.url, `run${run}`);
      await sink.waitFor(() => sink.count - first >= 20, 30_000);
      const other = await startServer(env);
      servers.push(other);
      const stop = await terminate(holder);
      servers.splice(servers.indexOf(holder), 1);
      const counts = await setup.outcome(other.url, id, first);
      results.push({
        ...counts,
        code: stop.code,
        quick: stop.ms < 5000,
        handedBack: /sender: stopped; waited for \d+ email\(s\) in an SMTP transaction and recorded them; handed back [1-9]\d* claimed email\(s\)/.test(
          stop.output,
        ),
      });
    }
    const clean = { duplicates: 0, lost: 0, recorded: true, code: 0, quick: true, handedBack: true };
    expect(results).toEqual([clean, clean, clean]);
  }, 400_000);
});

describe.skipIf(API_DB !== 'pglite')('SIGTERM of the server mid-blast (pglite)', () => {
  it('records what the relay accepted, hands back the rest, exits 0 quickly; after a restart every recipient has one message', async () => {
    servers.push(await startServer(env));
    const setup = await prepare(servers[0].url);
    const { id, first } = await setup.blast(servers[0].url, 'pglite');
    await sink.waitFor(() => sink.count - first >= 20, 30_000);
    const stop = await terminate(servers.pop()!);
    expect({ code: stop.code, quick: stop.ms < 5000 }).toEqual({ code: 0, quick: true });
    expect(stop.output).toMatch(/handed back [1-9]\d* claimed email\(s\)/);
    servers.push(await startServer(env));
    expect(await setup.outcome(servers[0].url, id, first)).toEqual({ duplicates: 0, lost: 0, recorded: true });
  }, 300_000);
});
