/**
 * Per-provider limits (issue 21 §4; core/sending/providers.ts) against a real SMTP relay: mail to a provider limited
 * to 2 messages/s and 1 connection (DOMAIN_LIMITS) goes out at that pace, while mail to every other provider goes at
 * once — a slow provider never holds back the others. Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { parseDomainLimits } from '../../src/server/core/sending/providers.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';
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
