/**
 * The delivery governor's relay rate limit (SMTP_URL max_rate; core/sending/pacing.ts) against a real SMTP relay
 * that answers 454 past its own rate, as Amazon SES does: every email is delivered, none fails, and the relay never
 * sees more than its limit in a second. Runs on PGlite and PostgreSQL (API_DB).
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

const MAX_RATE = 50;
/** The relay answers 454 past this many messages in one second (10 % over the configured rate). */
const RELAY_LIMIT = 55;
const RECIPIENTS = 2000;

let h: Harness;
let relay: SmtpSink;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { relayMaxRate: MAX_RATE, relayName: 'smtp://throttled-relay.test:25', deferRetryMs: 300 } });
  relay = new SmtpSink();
  relay.countOnly = true;
  relay.maxPerSecond = RELAY_LIMIT;
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await relay?.stop();
  await h?.close();
});

describe(`relay rate limit (${API_DB})`, () => {
  it(`paces a ${RECIPIENTS}-recipient blast to max_rate=${MAX_RATE} for a relay that throttles past ${RELAY_LIMIT}/s: all delivered, none failed`, async () => {
    const t = await h.tenant({ activated: true });
    const emails = Array.from({ length: RECIPIENTS }, (_, i) => `paced${i}@example.com`);
    const blastId = await dueBlast(h, t, emails, { from: 'from@paced.example.com' });
    // The wizard's preview of the same audience tells how long it takes at the relay's limit.
    const [template] = (await h.call('GET', '/api/template/templates', { key: t.apiKey })).body.data;
    const [persona] = (await h.call('GET', '/api/senderpersonawrapper/sender_personas', { key: t.apiKey })).body.data;
    const preview = await h.call('POST', '/api/scheduler/scheduler/preview', {
      key: t.apiKey,
      body: { template_id: template.id, sender_persona_id: persona.id, to_user_emails: emails },
    });
    expect(preview.body.data).toMatchObject({ emails: RECIPIENTS, send_rate: MAX_RATE, estimated_duration_s: RECIPIENTS / MAX_RATE });
    const transport = new SmtpTransport(await relay.start(), 10);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    const end = Date.now() + 150_000;
    while (relay.count < RECIPIENTS && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    await sender.stop();
    await transport.close();

    expect(relay.count).toBe(RECIPIENTS);
    expect(relay.throttled).toBe(0);
    const [{ sent, other }] = await h.runtime.database.query<{ sent: number; other: number }>(
      "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status <> 'sent')::int AS other FROM outbox WHERE blast_id = $1",
      [blastId],
    );
    expect([sent, other]).toEqual([RECIPIENTS, 0]);
    const failures = await h.call('GET', '/api/event/all_events/count', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.num_events).toBe(0);
    // The relay's own count per second: within its limit in at least 95 % of the seconds it saw mail.
    const perSecond = [...relay.offeredPerSecond.values()];
    expect(perSecond.filter((n) => n <= RELAY_LIMIT).length / perSecond.length).toBeGreaterThanOrEqual(0.95);
  }, 180_000);
});

describe(`relay rate limit that is too high (${API_DB})`, () => {
  it('slows down on throttling answers (454) and delivers everything, the throttled ones later', async () => {
    const TRUE_LIMIT = 30; // the relay's real limit, below max_rate
    const COUNT = 300;
    const slower = new SmtpSink();
    slower.maxPerSecond = TRUE_LIMIT;
    const transport = new SmtpTransport(await slower.start(), 10);
    try {
      const t = await h.tenant({ activated: true });
      const emails = Array.from({ length: COUNT }, (_, i) => `slower${i}@example.com`);
      const blastId = await dueBlast(h, t, emails, { from: 'from@slower.example.com' });
      const first = slower.count;
      const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
      sender.start();
      const end = Date.now() + 120_000;
      while (slower.count - first < COUNT && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
      await sender.stop();

      const to = slower.messages.slice(first).map((m) => m.envelopeTo[0]);
      expect(new Set(to).size).toBe(COUNT);
      expect(to).toHaveLength(COUNT);
      const [{ failed }] = await h.runtime.database.query<{ failed: number }>(
        "SELECT count(*) FILTER (WHERE status <> 'sent')::int AS failed FROM outbox WHERE blast_id = $1",
        [blastId],
      );
      expect(failed).toBe(0);
      // Paced at max_rate (50/s) against a 30/s relay, 40 % of the offers would be throttled (200 for 300 emails);
      // halving the pace at each 454 keeps it to a few per second of sending.
      expect(slower.throttled).toBeGreaterThan(0);
      expect(slower.throttled).toBeLessThan(COUNT * 0.25);
    } finally {
      await transport.close();
      await slower.stop();
    }
  });
});

describe(`failover (${API_DB})`, () => {
  it('a relay that refuses connections is taken for down and its mail goes to the next relay: nothing lost, nothing twice', async () => {
    const COUNT = 100;
    const down = new SmtpSink();
    const downUrl = await down.start();
    await down.stop(); // nothing listens there any more: connections are refused
    const backup = new SmtpSink();
    const main = new SmtpTransport(downUrl, 5);
    const second = new SmtpTransport(await backup.start(), 5);
    try {
      const t = await h.tenant({ activated: true });
      const emails = Array.from({ length: COUNT }, (_, i) => `failover${i}@example.com`);
      const blastId = await dueBlast(h, t, emails, { from: 'from@failover.example.com' });
      const first = backup.count;
      const sender = new Sender(h.runtime.ctx, main, renderer, {
        leaseMs: 30_000,
        pollMs: 50,
        backupRelays: [{ name: 'smtp://backup-relay.test:25', transport: second }],
      });
      sender.start();
      const end = Date.now() + 60_000;
      while (backup.count - first < COUNT && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500)); // a second sending of anything would have arrived by now
      await sender.stop();

      const to = backup.messages.slice(first).map((m) => m.envelopeTo[0]);
      expect(to.slice().sort()).toEqual(emails.slice().sort());
      const [{ sent, other }] = await h.runtime.database.query<{ sent: number; other: number }>(
        "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status <> 'sent')::int AS other FROM outbox WHERE blast_id = $1",
        [blastId],
      );
      expect([sent, other]).toEqual([COUNT, 0]);
    } finally {
      await main.close();
      await second.close();
      await backup.stop();
    }
  });
});

describe(`relays of equal priority (${API_DB})`, () => {
  it('share the mail by weight: 1 and 3 take a quarter and three quarters, each email once', async () => {
    const COUNT = 200;
    const one = new SmtpSink();
    const three = new SmtpSink();
    const main = new SmtpTransport(await one.start(), 5);
    const second = new SmtpTransport(await three.start(), 5);
    const t = await h.tenant({ activated: true });
    const emails = Array.from({ length: COUNT }, (_, i) => `weighted${i}@example.com`);
    await dueBlast(h, t, emails, { from: 'from@weighted.example.com' });
    const sender = new Sender(h.runtime.ctx, main, renderer, {
      leaseMs: 30_000,
      pollMs: 50,
      // The main relay has priority 0 and weight 1 (the harness's SMTP_URL gives neither).
      backupRelays: [{ name: 'smtp://weight-three.test:25', transport: second, priority: 0, weight: 3 }],
    });
    sender.start();
    try {
      await one.waitFor(() => one.count + three.count >= COUNT, 60_000);
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await sender.stop();
      await main.close();
      await second.close();
    }
    await one.stop();
    await three.stop();
    expect([one.count, three.count]).toEqual([COUNT / 4, (COUNT * 3) / 4]);
    expect([...one.messages, ...three.messages].map((m) => m.envelopeTo[0]).sort()).toEqual(emails.slice().sort());
  });
});

describe(`relays by message stream (${API_DB})`, () => {
  it('a relay given stream=transactional carries the transactional mail and only it; the rest keeps to the others', async () => {
    const general = new SmtpSink();
    const dedicated = new SmtpSink();
    const main = new SmtpTransport(await general.start(), 5);
    const second = new SmtpTransport(await dedicated.start(), 5);
    const t = await h.tenant({ activated: true });
    const news = Array.from({ length: 20 }, (_, i) => `news${i}@example.com`);
    await dueBlast(h, t, news, { from: 'from@streams.example.com' });
    const receipts = Array.from({ length: 20 }, (_, i) => `receipt${i}@example.com`);
    for (const to of receipts) {
      const res = await h.call('POST', '/api/email', { key: t.apiKey, body: { from: 'from@streams.example.com', to, subject: 'Receipt', text: 'r' } });
      expect(res.status).toBe(200);
    }
    const sender = new Sender(h.runtime.ctx, main, renderer, {
      leaseMs: 30_000,
      pollMs: 50,
      // Same priority as the main relay and a higher weight: only the stream keeps the blast off it.
      backupRelays: [{ name: 'smtp://transactional.test:25', transport: second, priority: 0, weight: 10, stream: 'transactional' }],
    });
    sender.start();
    try {
      await general.waitFor(() => general.count + dedicated.count >= news.length + receipts.length, 60_000);
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await sender.stop();
      await main.close();
      await second.close();
    }
    await general.stop();
    await dedicated.stop();
    expect(general.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(news.slice().sort());
    expect(dedicated.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(receipts.slice().sort());
  });
});

describe(`a relay down for 20 s (${API_DB})`, () => {
  /** A relay on `port` that is down (nothing listens: connections are refused) until `back()` starts it again. */
  async function downRelay() {
    const probe = new SmtpSink();
    const url = await probe.start();
    await probe.stop();
    const port = Number(new URL(url).port);
    const sink = new SmtpSink();
    return { url, sink, back: () => sink.start(port) };
  }
  async function outboxStates(blastId: string) {
    return h.runtime.database.query<{ status: string; deferred: boolean; n: number }>(
      'SELECT status, last_error IS NOT NULL AS deferred, count(*)::int AS n FROM outbox WHERE blast_id = $1 GROUP BY 1, 2 ORDER BY 1, 2',
      [blastId],
    );
  }

  it('with no other relay the mail waits, deferred, and goes once when the relay is back: nothing lost, nothing twice, no failure', async () => {
    const COUNT = 50;
    const relay = await downRelay();
    const transport = new SmtpTransport(relay.url, 5);
    const t = await h.tenant({ activated: true });
    const emails = Array.from({ length: COUNT }, (_, i) => `waits${i}@example.com`);
    const blastId = await dueBlast(h, t, emails, { from: 'from@waits.example.com' });
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    try {
      await new Promise((r) => setTimeout(r, 20_000));
      // Down for 20 s: every email is deferred (pending, with the reason; a few may be claimed again at this moment,
      // about to be tried), none sent or failed.
      const states = await outboxStates(blastId);
      expect(states.filter((x) => x.status !== 'pending' && x.status !== 'sending')).toEqual([]);
      expect(states.reduce((n, x) => n + x.n, 0)).toBe(COUNT);
      expect(states.find((x) => x.status === 'pending' && x.deferred)?.n).toBeGreaterThanOrEqual(COUNT - 10);
      const status = await h.call('GET', '/api/scheduler/sending_status', { key: t.apiKey });
      // (A moment later a few may be claimed again, waiting for the relay's next probe.)
      expect(status.body.deferred).toBeGreaterThanOrEqual(COUNT - 10);
      expect(status.body.relays[0]).toMatchObject({ name: 'smtp://throttled-relay.test:25', state: 'down' });
      expect(status.body.relays[0].down_reason).toMatch(/ECONNREFUSED/);
      await relay.back();
      await relay.sink.waitFor(() => relay.sink.count >= COUNT, 90_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now
      expect(relay.sink.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(emails.slice().sort());
      // The sink counts an email when it accepts it, the outbox a moment later: give the last ones time to be recorded.
      for (let end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
        if ((await outboxStates(blastId)).every((s) => s.status === 'sent')) break;
      }
      expect(await outboxStates(blastId)).toEqual([{ status: 'sent', deferred: false, n: COUNT }]);
      const failures = await h.call('GET', '/api/event/all_events/count', {
        key: t.apiKey,
        query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
      });
      expect(failures.body.num_events).toBe(0);
      // It took a message again: sending_status no longer shows it down.
      const after = await h.call('GET', '/api/scheduler/sending_status', { key: t.apiKey });
      expect(after.body.relays[0]).toMatchObject({ state: 'up', down_reason: null });
    } finally {
      await sender.stop();
      await transport.close();
      await relay.sink.stop();
    }
  }, 180_000);

  it('with a second relay the mail goes there while the first is down, and to the first again once it is back', async () => {
    const relay = await downRelay();
    const backup = new SmtpSink();
    const main = new SmtpTransport(relay.url, 5);
    const second = new SmtpTransport(await backup.start(), 5);
    const t = await h.tenant({ activated: true });
    const sender = new Sender(h.runtime.ctx, main, renderer, {
      leaseMs: 30_000,
      pollMs: 50,
      backupRelays: [{ name: 'smtp://backup-relay.test:25', transport: second }],
    });
    sender.start();
    try {
      const during = Array.from({ length: 40 }, (_, i) => `during${i}@example.com`);
      await dueBlast(h, t, during, { from: 'from@second.example.com' });
      await backup.waitFor(() => backup.count >= during.length, 30_000);
      await new Promise((r) => setTimeout(r, 20_000)); // the first relay stays down for 20 s
      await relay.back();
      const after = Array.from({ length: 40 }, (_, i) => `after${i}@example.com`);
      await dueBlast(h, t, after, { from: 'from@second.example.com' });
      await relay.sink.waitFor(() => relay.sink.count + backup.count >= during.length + after.length, 60_000);
      await new Promise((r) => setTimeout(r, 1000));
      // Everything once: the first blast by the second relay, the second blast by the first relay, which is up again.
      const to = (sink: SmtpSink) =>
        sink.messages
          .map((m) => m.envelopeTo[0])
          .filter((a) => /^(during|after)\d/.test(a))
          .sort();
      expect(to(backup)).toEqual(during.slice().sort());
      expect(to(relay.sink)).toEqual(after.slice().sort());
    } finally {
      await sender.stop();
      await main.close();
      await second.close();
      await backup.stop();
      await relay.sink.stop();
    }
  }, 180_000);
});

describe.skipIf(API_DB !== 'postgres')('relay rate limit shared by two server processes (postgres)', () => {
  it(`two processes on one database together keep max_rate=${MAX_RATE}: every recipient once, none throttled`, async () => {
    const fixture = await processFixture('relay-rate', { SEND_POLL_MS: '200' });
    const { sink, env } = fixture;
    const servers: ServerProcess[] = [];
    try {
      const url = new URL(env.SMTP_URL!);
      url.searchParams.set('max_rate', String(MAX_RATE));
      env.SMTP_URL = url.toString();
      const out = await runTs(
        'src/server/admin.ts',
        ['create-account', '--company', 'Pace Co', '--project', 'pace', '--email', 'ops@pace.example.com', '--password', 'pace-password-1', '--activated'],
        env,
      );
      const key = /api key: (\S+)/.exec(out)![1];
      servers.push(await startServer(env), await startServer(env));
      const call = (method: string, path: string, body?: unknown) => callServer(servers[0].url, key, method, path, body);
      const persona = (
        await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@pace.example.com', first_name: 'Ops' }] })
      ).body.data[0];
      const [link] = await sink.personaVerificationLinks();
      expect((await fetch(link, { method: 'POST' })).status).toBe(200);
      const template = (
        await call('POST', '/api/template/templates', {
          templates: [{ name: 'Paced', subject: 'Paced', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
        })
      ).body.data[0];
      const users = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `p${i}@pace.example.com` }));
      const contacts: Array<{ id: string }> = [];
      for (let i = 0; i < users.length; i += 1000) contacts.push(...(await call('POST', '/api/user/users', { users: users.slice(i, i + 1000) })).body.data);
      sink.maxPerSecond = RELAY_LIMIT;
      sink.offeredPerSecond.clear();
      const first = sink.count;
      const blast = await call('POST', '/api/scheduler/scheduler', {
        id: crypto.randomUUID(),
        name: 'Paced',
        template_id: template.id,
        sender_persona_id: persona.id,
        to_user_ids: contacts.map((c) => c.id),
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      });
      expect(blast.status).toBe(200);
      await sink.waitFor(() => sink.count - first >= RECIPIENTS, 150_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now

      const to = sink.messages.slice(first).map((m) => m.envelopeTo[0]);
      expect(new Set(to).size).toBe(RECIPIENTS);
      expect(to).toHaveLength(RECIPIENTS);
      expect(sink.throttled).toBe(0);
      const perSecond = [...sink.offeredPerSecond.values()];
      expect(perSecond.filter((n) => n <= RELAY_LIMIT).length / perSecond.length).toBeGreaterThanOrEqual(0.95);
    } finally {
      for (const s of servers) await s.kill('SIGTERM');
      await sink.stop();
      await fixture.drop();
    }
  }, 180_000);
});
