/**
 * A relay's max_connections over several senders: two senders on one
 * database, each with its own connection pool as big as the limit, against a real SMTP relay that answers
 * `421 Too many connections` past that many open connections. Together they never open more than the limit, and every
 * email is delivered once. Runs on PGlite and PostgreSQL (API_DB). On PostgreSQL also two server processes at a
 * steady rate: sessions count until their sockets close, so the relay never sees a sixth, and idle
 * sessions are reused rather than reopened (the sink counts every session it took).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { API_DB, callServer, dueBlast, processFixture, startHarness, type Harness } from './harness.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { EVENT } from '../../src/domain/events.ts';

const MAX_CONNECTIONS = 3;

let h: Harness;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { relayMaxConnections: MAX_CONNECTIONS, relayName: 'smtp://connections-relay.test:25', deferRetryMs: 300 } });
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await h?.close();
});

describe(`relay max_connections (${API_DB})`, () => {
  it(`two senders keep max_connections=${MAX_CONNECTIONS} together: never more open, none refused, every email once`, async () => {
    const COUNT = 300;
    const sink = new SmtpSink();
    sink.maxConnections = MAX_CONNECTIONS;
    sink.acceptDelayMs = 20; // a relay that takes its time keeps connections busy
    const url = await sink.start();
    const t = await h.tenant({ activated: true });
    const emails = Array.from({ length: COUNT }, (_, i) => `conn${i}@example.com`);
    await dueBlast(h, t, emails, { from: 'from@connections.example.com' });
    // Each sender's pool could open the whole limit by itself.
    const transports = [0, 1].map(() => new SmtpTransport(url, MAX_CONNECTIONS));
    const senders = transports.map((tr) => new Sender(h.runtime.ctx, tr, renderer, { leaseMs: 30_000, pollMs: 50, batchSize: 20 }));
    for (const s of senders) s.start();
    try {
      await sink.waitFor(() => sink.count >= COUNT, 90_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now
    } finally {
      for (const s of senders) await s.stop();
      for (const tr of transports) await tr.close();
      await sink.stop();
    }
    expect(sink.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(emails.slice().sort());
    expect(sink.maxOpenConnections).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(sink.refusedConnections).toBe(0);
    const failures = await h.call('GET', '/api/event/all_events/count', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.num_events).toBe(0);
  });
});

describe.skipIf(API_DB !== 'postgres')('relay max_connections over two server processes (postgres)', () => {
  it('at a steady rate the relay never sees more than max_connections sessions, and sessions are reused: at most one new per 20 messages', async () => {
    const COUNT = 750;
    const LIMIT = 5;
    const fixture = await processFixture('relay-sessions', { SEND_POLL_MS: '200' });
    const { sink, env } = fixture;
    env.SMTP_URL = `${env.SMTP_URL}?max_connections=${LIMIT}&max_rate=100`;
    sink.maxConnections = LIMIT;
    // The relay refuses a sixth connection (421), as a relay enforcing the limit does, and takes 50 ms per message.
    sink.acceptDelayMs = 50;
    const servers: ServerProcess[] = [];
    try {
      const out = await runTs(
        'src/server/admin.ts',
        [
          'create-account',
          '--company',
          'Sessions Co',
          '--project',
          'sessions',
          '--email',
          'ops@sessions.example.com',
          '--password',
          'sessions-pass-1',
          '--activated',
        ],
        env,
      );
      const key = /api key: (\S+)/.exec(out)![1];
      servers.push(await startServer(env), await startServer(env));
      const call = (method: string, path: string, body?: unknown) => callServer(servers[0].url, key, method, path, body);
      const persona = (
        await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@sessions.example.com', first_name: 'Ops' }] })
      ).body.data[0];
      const [link] = await sink.personaVerificationLinks();
      expect((await fetch(link, { method: 'POST' })).status).toBe(200);
      const template = (
        await call('POST', '/api/template/templates', {
          templates: [{ name: 'Sessions', subject: 'Sessions', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
        })
      ).body.data[0];
      const users = Array.from({ length: COUNT }, (_, i) => ({ email: `s${i}@sessions.example.com` }));
      const contacts = (await call('POST', '/api/user/users', { users })).body.data as Array<{ id: string }>;
      // Only the blast's sessions count (the verification email had its own).
      await new Promise((r) => setTimeout(r, 6000));
      const first = sink.count;
      sink.sessions = 0;
      sink.maxOpenConnections = sink.openConnections;
      const blast = await call('POST', '/api/scheduler/scheduler', {
        id: crypto.randomUUID(),
        name: 'Sessions',
        template_id: template.id,
        sender_persona_id: persona.id,
        to_user_ids: contacts.map((c) => c.id),
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      });
      expect(blast.status).toBe(200);
      await sink.waitFor(() => sink.count - first >= COUNT, 120_000);
      await new Promise((r) => setTimeout(r, 1000));
      const to = sink.messages.slice(first).map((m) => m.envelopeTo[0]);
      expect(new Set(to).size).toBe(COUNT);
      expect(to).toHaveLength(COUNT);
      // Never a sixth session: none opened over the limit (the relay would have refused it), none refused.
      expect({ maxOpen: sink.maxOpenConnections <= LIMIT, refused: sink.refusedConnections }).toEqual({ maxOpen: true, refused: 0 });
      // Sessions are reused at a steady rate: at most one new session per 20 messages.
      expect(sink.sessions).toBeLessThanOrEqual(COUNT / 20);
    } finally {
      for (const s of servers) await s.kill('SIGTERM');
      await sink.stop();
      await fixture.drop();
    }
  }, 180_000);
});
