/**
 * Warm-up: a sending domain's blast email goes out up to the day's cap of
 * WARMUP_SCHEDULE and the rest waits for the next UTC day, deferred by warm-up and never failed; a relay's
 * daily_quota holds the rest the same way. The sender's clock is one the test controls: it starts ten seconds before
 * a UTC midnight, so "the next day" comes within the test. Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';

/** Day 1: 5 emails, day 2: 8, then no cap. */
const SCHEDULE = [5, 8];

let h: Harness;
let sink: SmtpSink;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { warmupSchedule: SCHEDULE, deferRetryMs: 300 } });
  sink = new SmtpSink();
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await sink?.stop();
  await h?.close();
});

/** A clock the test sets: real time plus an offset (ms since the epoch, UTC). */
function testClock(startAt: number) {
  const offset = startAt - Date.now();
  return () => Date.now() + offset;
}

async function statuses(blastId: string) {
  return h.runtime.database.query<{ status: string; last_error: string | null; n: number }>(
    'SELECT status, last_error, count(*)::int AS n FROM outbox WHERE blast_id = $1 GROUP BY 1, 2 ORDER BY 1, 2',
    [blastId],
  );
}

async function until(what: () => Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe(`warm-up (${API_DB})`, () => {
  it('caps day 1 at the schedule’s first value, sends the rest from the next UTC day up to day 2’s cap, and never fails one', async () => {
    const t = await h.tenant({ activated: true });
    const add = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'warm.example.com' } });
    expect(add.status).toBe(200);
    // Before its first email the domain is not yet in warm-up: day null, and day 1's cap is what it will get.
    expect(add.body.data.warmup).toEqual({ active: true, day: null, days: 2, cap_today: 5, sent_today: 0 });

    const emails = Array.from({ length: 15 }, (_, i) => `warm${i}@example.net`);
    const blastId = await dueBlast(h, t, emails, { from: 'news@warm.example.com', type: 'TEMPLATE_MARKETING' });
    // Today (UTC) at 23:59:50: day 1 of the warm-up ends ten seconds into the test.
    const today = new Date().toISOString().slice(0, 10);
    const dayEnd = Date.parse(`${today}T00:00:00Z`) + 86_400_000;
    const now = testClock(dayEnd - 10_000);
    const transport = new SmtpTransport(await sink.start(), 4);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50, now });
    sender.start();
    try {
      // Day 1: five sent, the other ten wait for the next UTC day with the reason.
      await until(async () => (await statuses(blastId)).every((s) => s.status === 'sent' || s.last_error?.startsWith('warm-up')));
      expect(now()).toBeLessThan(dayEnd); // still day 1
      expect(await statuses(blastId)).toEqual([
        {
          status: 'pending',
          last_error: "warm-up: warm.example.com is on day 1 of its 2-day warm-up and today's cap of 5 emails is reached; it goes out from the next UTC day",
          n: 10,
        },
        { status: 'sent', last_error: null, n: 5 },
      ]);
      expect(sink.count).toBe(5);
      const blasts = (await h.call('GET', '/api/scheduler/scheduler', { key: t.apiKey })).body.data as Array<{ id: string }>;
      expect(blasts.find((b) => b.id === blastId)).toMatchObject({ sent_emails: 5, deferred_emails: 10, failed_emails: 0 });
      const [domain] = (await h.call('GET', '/api/domains/dkim', { key: t.apiKey })).body.data;
      expect(domain.warmup).toEqual({ active: true, day: 1, days: 2, cap_today: 5, sent_today: 5 });

      // Day 2 (the clock passes midnight): up to eight more, and two wait for day 3.
      await until(async () => (await statuses(blastId)).some((s) => s.last_error?.includes('day 2')));
      // The sink counts an email when it is accepted, the outbox a moment later: wait for both.
      await until(async () => sink.count === 13 && (await statuses(blastId)).every((s) => s.status !== 'sending'));
      expect(now()).toBeGreaterThanOrEqual(dayEnd);
      expect(await statuses(blastId)).toEqual([
        {
          status: 'pending',
          last_error: "warm-up: warm.example.com is on day 2 of its 2-day warm-up and today's cap of 8 emails is reached; it goes out from the next UTC day",
          n: 2,
        },
        { status: 'sent', last_error: null, n: 13 },
      ]);
      const failures = await h.call('GET', '/api/event/all_events/count', {
        key: t.apiKey,
        query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
      });
      expect(failures.body.num_events).toBe(0);
      // The held emails are due at the next UTC midnight of the sender's clock, about a day away.
      const [{ wait_h }] = await h.runtime.database.query<{ wait_h: number }>(
        "SELECT min(extract(epoch FROM next_attempt_at - now()) / 3600)::float8 AS wait_h FROM outbox WHERE blast_id = $1 AND status = 'pending'",
        [blastId],
      );
      expect(wait_h).toBeGreaterThan(23);
      expect(wait_h).toBeLessThanOrEqual(24);
    } finally {
      await sender.stop();
      await transport.close();
    }
  }, 60_000);

  it('counts an established domain’s sends with their sent marks: today’s count is the emails recorded as sent', async () => {
    const t = await h.tenant({ activated: true });
    expect((await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'done.example.com' } })).status).toBe(200);
    // Past its two warm-up days: no cap, and nothing to take before each email.
    await h.runtime.database.query("UPDATE sending_domains SET warmup_started_on = current_date - 30 WHERE domain = 'done.example.com'");
    const emails = Array.from({ length: 12 }, (_, i) => `done${i}@example.net`);
    const blastId = await dueBlast(h, t, emails, { from: 'news@done.example.com', type: 'TEMPLATE_MARKETING' });
    const own = new SmtpSink();
    const transport = new SmtpTransport(await own.start(), 4);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    try {
      await until(async () => (await statuses(blastId)).every((s) => s.status === 'sent'));
      expect(own.count).toBe(12);
    } finally {
      await sender.stop();
      await transport.close();
      await own.stop();
    }
    const [domain] = (await h.call('GET', '/api/domains/dkim', { key: t.apiKey })).body.data;
    expect(domain.warmup).toMatchObject({ active: false, days: 2, cap_today: null, sent_today: 12 });
  }, 60_000);
});

describe(`a relay's daily_quota (${API_DB})`, () => {
  it('holds what is over the quota until the next UTC day, deferred and not failed', async () => {
    const h2 = await startHarness({ config: { warmupSchedule: null, relayDailyQuota: 3, relayName: 'smtp://quota-relay.test:25' } });
    const sink2 = new SmtpSink();
    const transport = new SmtpTransport(await sink2.start(), 2);
    try {
      const t = await h2.tenant({ activated: true });
      const blastId = await dueBlast(h2, t, ['q1@example.net', 'q2@example.net', 'q3@example.net', 'q4@example.net', 'q5@example.net'], {
        from: 'news@quota.example.com',
      });
      const sender = new Sender(h2.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
      while ((await sender.sendBatch()) > 0);
      await sender.stop();
      const rows = await h2.runtime.database.query<{ status: string; last_error: string | null; n: number }>(
        'SELECT status, last_error, count(*)::int AS n FROM outbox WHERE blast_id = $1 GROUP BY 1, 2 ORDER BY 1',
        [blastId],
      );
      expect(rows).toEqual([
        {
          status: 'pending',
          last_error: 'daily cap: relay smtp://quota-relay.test:25 sent its daily_quota of 3 emails today; it goes out from the next UTC day',
          n: 2,
        },
        { status: 'sent', last_error: null, n: 3 },
      ]);
      expect(sink2.count).toBe(3);
    } finally {
      await transport.close();
      await sink2.stop();
      await h2.close();
    }
  }, 60_000);
});
