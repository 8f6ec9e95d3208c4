/**
 * Per-provider limits against a real SMTP relay: mail to a provider limited
 * to 2 messages/s and 1 connection (DOMAIN_LIMITS) goes out at that pace, while mail to every other provider goes at
 * once — a slow provider never holds back the others. Runs on PGlite and PostgreSQL (API_DB). On PostgreSQL also two
 * server processes and two relays, the first down for 30 s: the provider's mail flows at its rate beside
 * the rest of the blast, through the outage, instead of waiting behind every other recipient.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { parseDomainLimits } from '../../src/server/core/sending/providers.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { API_DB, callServer, dueBlast, processFixture, startHarness, type Harness } from './harness.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let sink: SmtpSink;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { providerGroups: parseDomainLimits('{"slow.example.org":{"max_rate":2,"max_connections":1}}') } });
  sink = new SmtpSink();
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await sink?.stop();
  await h?.close();
});

describe(`per-provider limits (${API_DB})`, () => {
  it('paces a provider at its max_rate while mail to the others goes at once; everything delivered once, none failed', async () => {
    const t = await h.tenant({ activated: true });
    const slow = Array.from({ length: 8 }, (_, i) => `s${i}@slow.example.org`);
    const fast = Array.from({ length: 100 }, (_, i) => `f${i}@fast.example.net`);
    await dueBlast(h, t, [...slow, ...fast], { from: 'from@providers.example.com' });
    const transport = new SmtpTransport(await sink.start(), 8);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    try {
      await sink.waitFor(() => sink.count >= slow.length + fast.length, 60_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now
    } finally {
      await sender.stop();
      await transport.close();
    }
    const to = sink.messages.map((m) => m.envelopeTo[0]);
    expect(to.slice().sort()).toEqual([...slow, ...fast].sort());
    const at = (list: string[]) =>
      sink.messages
        .filter((m) => list.includes(m.envelopeTo[0]))
        .map((m) => m.receivedAt)
        .sort((a, b) => a - b);
    const slowAt = at(slow);
    const fastAt = at(fast);
    // 2 messages/s: eight take at least 3.5 s, never more than 3 in one calendar second.
    expect(slowAt[slowAt.length - 1] - slowAt[0]).toBeGreaterThanOrEqual(3000);
    const perSecond = new Map<number, number>();
    for (const t of slowAt) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(3);
    // The other provider's hundred were all delivered before the slow provider's sixth.
    expect(fastAt[fastAt.length - 1]).toBeLessThan(slowAt[5]);
    const failures = await h.call('GET', '/api/event/all_events/count', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.num_events).toBe(0);
  }, 90_000);
});

describe.skipIf(API_DB !== 'postgres')('a rate-limited provider through a relay outage (postgres, two server processes)', () => {
  it("after a 30 s outage of the first relay, a 5/s provider's 160 recipients are all delivered within 60 s of the due time, at its rate", async () => {
    const SLOW = 160;
    const OTHERS = 1840;
    const backup = new SmtpSink();
    const backupUrl = await backup.start();
    const fixture = await processFixture('provider-outage', { SEND_POLL_MS: '200', DOMAIN_LIMITS: '{"slow.example.org":{"max_rate":5}}' });
    const { sink: first, env } = fixture;
    const port = Number(new URL(env.SMTP_URL!).port);
    // Two relays at 40 messages/s: the blast takes about 50 s, the provider's share of it 32 s at 5/s.
    env.SMTP_URL = `${env.SMTP_URL}?max_rate=40&max_connections=5,${backupUrl}?max_rate=40`;
    const servers: ServerProcess[] = [];
    try {
      const out = await runTs(
        'src/server/admin.ts',
        ['create-account', '--company', 'Outage Co', '--project', 'outage', '--email', 'ops@outage.example.com', '--password', 'outage-pass-1', '--activated'],
        env,
      );
      const key = /api key: (\S+)/.exec(out)![1];
      servers.push(await startServer(env), await startServer(env));
      const call = (method: string, path: string, body?: unknown) => callServer(servers[0].url, key, method, path, body);
      const persona = (
        await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@outage.example.com', first_name: 'Ops' }] })
      ).body.data[0];
      const [link] = await first.personaVerificationLinks();
      expect((await fetch(link, { method: 'POST' })).status).toBe(200);
      const template = (
        await call('POST', '/api/template/templates', {
          templates: [{ name: 'Outage', subject: 'Outage', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
        })
      ).body.data[0];
      // The provider's recipients come last in the list, as in a list sorted by address.
      const emails = [
        ...Array.from({ length: OTHERS }, (_, i) => `o${i}@other.example.net`),
        ...Array.from({ length: SLOW }, (_, i) => `s${i}@slow.example.org`),
      ];
      const contacts: Array<{ id: string }> = [];
      for (let i = 0; i < emails.length; i += 1000) {
        contacts.push(...(await call('POST', '/api/user/users', { users: emails.slice(i, i + 1000).map((email) => ({ email })) })).body.data);
      }
      const before = first.count;
      const dueAt = Date.now();
      const blast = await call('POST', '/api/scheduler/scheduler', {
        id: crypto.randomUUID(),
        name: 'Outage',
        template_id: template.id,
        sender_persona_id: persona.id,
        to_user_ids: contacts.map((c) => c.id),
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      });
      expect(blast.status).toBe(200);
      // The first relay goes down 5 s in (every connection dropped, new ones refused) and comes back 30 s later.
      await new Promise((r) => setTimeout(r, 5000));
      await first.crash();
      await new Promise((r) => setTimeout(r, 30_000));
      await first.start(port);
      const received = () => [...first.messages.slice(before), ...backup.messages];
      await first.waitFor(() => received().length >= SLOW + OTHERS, 120_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now

      const to = received().map((m) => m.envelopeTo[0]);
      expect(to.slice().sort()).toEqual(emails.slice().sort());
      const slowAt = received()
        .filter((m) => m.envelopeTo[0].endsWith('@slow.example.org'))
        .map((m) => m.receivedAt)
        .sort((a, b) => a - b);
      expect(slowAt).toHaveLength(SLOW);
      expect(slowAt[SLOW - 1] - dueAt).toBeLessThanOrEqual(60_000);
      // At the provider's rate: never more than 5 in a calendar second (one more for transit jitter).
      const perSecond = new Map<number, number>();
      for (const t of slowAt) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
      expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(6);
    } finally {
      for (const s of servers) await s.kill('SIGTERM');
      await first.stop();
      await backup.stop();
      await fixture.drop();
    }
  }, 240_000);
});
