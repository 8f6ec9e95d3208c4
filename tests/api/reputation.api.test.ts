/**
 * The reputation circuit-breaker (core/sending/reputation.ts): complaints from the mailbox simulator push a project's
 * complaint rate over its threshold; its marketing sending pauses with a JOB_PAUSE_SENDING entry, nothing more of its
 * blasts is sent, and it goes on once an admin resumes it. Runs on PGlite and PostgreSQL (API_DB).
 * Also: complaints that arrive while the window holds fewer than PAUSE_MIN_SENDS sends pause the project
 * as soon as the sends reach it — the breaker looks again as sends accumulate, not only when feedback arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { SIMULATOR_ADDRESSES } from '../../src/domain/feedback.ts';
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let renderer: RenderPool;

beforeAll(async () => {
  // A small window for the test: 20 sends make a rate; 0.3 % complaints (Gmail's ceiling) pause.
  h = await startHarness({ config: { reputation: { minSends: 20, bounceRate: 0.05, complaintRate: 0.003 } } });
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await h?.close();
});

const until = async (what: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe(`reputation circuit-breaker (${API_DB})`, () => {
  it('pauses marketing sending when complaints cross the threshold, logs why, sends nothing more, and resumes', async () => {
    const t = await h.tenant({ activated: true });
    const status = async () => (await h.call('GET', '/api/scheduler/sending_status', { key: t.apiKey })).body;
    const blastRows = (id: string) =>
      h.runtime.database.query<{ status: string }>('SELECT status FROM outbox WHERE blast_id = $1', [id]).then((rows) => rows.map((r) => r.status));
    const transport = new SmtpTransport(h.config.smtpUrl!, 5);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    try {
      expect(await status()).toMatchObject({ paused: false, reason: null, sends_24h: 0, bounce_rate: null, complaint_rate: null });
      const first = Array.from({ length: 25 }, (_, i) => `reader${i}@example.com`);
      const a = await dueBlast(h, t, first, { from: 'a@reputation.example.com', type: 'TEMPLATE_MARKETING' });
      await until(async () => (await blastRows(a)).every((s) => s === 'sent'));
      expect((await status()).paused).toBe(false);

      // One complaint in 26 sends: 3.8 %, over the 0.3 % limit.
      const b = await dueBlast(h, t, [SIMULATOR_ADDRESSES.complaint], { from: 'b@reputation.example.com', type: 'TEMPLATE_MARKETING' });
      await until(async () => (await status()).paused === true);
      const paused = await status();
      expect(paused.sends_24h).toBe(26);
      expect(paused.complaint_rate).toBeCloseTo(1 / 26, 5);
      expect(paused.reason).toMatch(/^Marketing sending paused: complaint rate 3\.85 % \(limit 0\.3 %\) over the last 26 sends in 24 hours/);
      expect(await blastRows(b)).toEqual(['sent']);
      const log = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data as Array<{ job_name: string; start_details: { reason: string } }>;
      expect(log.filter((e) => e.job_name === 'JOB_PAUSE_SENDING').map((e) => e.start_details.reason)).toEqual([paused.reason]);

      // Paused: a new blast's emails wait.
      const c = await dueBlast(h, t, ['later1@example.com', 'later2@example.com', 'later3@example.com'], {
        from: 'c@reputation.example.com',
        type: 'TEMPLATE_MARKETING',
      });
      await new Promise((r) => setTimeout(r, 1500));
      expect(await blastRows(c)).toEqual(['pending', 'pending', 'pending']);

      const resumed = await h.call('POST', '/api/scheduler/sending_status/resume', { key: t.apiKey });
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ paused: false, reason: null, sends_24h: 0 });
      const again = await h.call('POST', '/api/scheduler/sending_status/resume', { key: t.apiKey });
      expect(again.status).toBe(409);
      expect(again.body.errors).toEqual(['sending_status: marketing sending is not paused']);
      await until(async () => (await blastRows(c)).every((s) => s === 'sent'));
    } finally {
      await sender.stop();
      await transport.close();
    }
  });
});

describe(`reputation circuit-breaker as sends accumulate (${API_DB})`, () => {
  it('complaints posted before PAUSE_MIN_SENDS is reached pause the project within 5 s of the window reaching it', async () => {
    const MIN_SENDS = 100;
    const early = await startHarness({
      config: { reputation: { minSends: MIN_SENDS, bounceRate: 0.05, complaintRate: 0.003 }, relayMaxRate: 25, relayName: 'smtp://paced-relay.test:25' },
    });
    const r = new RenderPool(0, early.config.storageUrl);
    const transport = new SmtpTransport(early.config.smtpUrl!, 5);
    const sender = new Sender(early.runtime.ctx, transport, r, { leaseMs: 30_000, pollMs: 50 });
    try {
      const t = await early.tenant({ activated: true });
      const emails = Array.from({ length: 400 }, (_, i) => `early${i}@example.com`);
      const blastId = await dueBlast(early, t, emails, { from: 'early@reputation.example.com', type: 'TEMPLATE_MARKETING' });
      const sends = async () =>
        (await early.runtime.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE blast_id = $1 AND status = 'sent'", [blastId]))[0].n;
      sender.start();
      // At about 25 sends a second, 7 complaints arrive after some 40 sends: 17 % of the window, far over 0.3 %, but
      // the window is still under PAUSE_MIN_SENDS, so nothing can pause yet.
      await until(async () => (await sends()) >= 40);
      const complained = (
        await early.runtime.database.query<{ email: string; message_id: string }>(
          "SELECT email, message_id FROM outbox WHERE blast_id = $1 AND status = 'sent' ORDER BY id LIMIT 7",
          [blastId],
        )
      ).map((x) => ({ type: 'complaint', email: x.email, message_id: x.message_id, feedback_type: 'abuse' }));
      const posted = await early.call('POST', '/api/event/feedback', { key: t.apiKey, body: { notifications: complained } });
      expect(posted.status).toBe(200);
      const status = async () => (await early.call('GET', '/api/scheduler/sending_status', { key: t.apiKey })).body;
      const right = await status();
      expect(right.paused).toBe(false);
      expect(right.sends_24h).toBeLessThan(MIN_SENDS);
      await until(async () => (await status()).paused === true, 30_000);
      // When did the window reach PAUSE_MIN_SENDS? The emitted_at of its MIN_SENDS-th send (the product's own events).
      const [{ reached, paused_at }] = await early.runtime.database.query<{ reached: Date; paused_at: Date }>(
        `SELECT (SELECT emitted_at FROM events WHERE project_id = $1 AND name = '${EVENT.sendSuccess}' AND is_system
                  ORDER BY emitted_at, id OFFSET ${MIN_SENDS - 1} LIMIT 1) AS reached,
                sending_paused_at AS paused_at
           FROM projects WHERE id = $1`,
        [t.projectId],
      );
      expect(new Date(paused_at).getTime() - new Date(reached).getTime()).toBeLessThanOrEqual(5000);
      expect(new Date(paused_at).getTime()).toBeGreaterThanOrEqual(new Date(reached).getTime());
      const paused = await status();
      expect(paused.reason).toMatch(/^Marketing sending paused: complaint rate .* \(limit 0\.3 %\) over the last \d+ sends in 24 hours/);
      // Nothing more of the blast goes out once paused: the rest waits.
      await new Promise((res) => setTimeout(res, 1500));
      const sentNow = await sends();
      await new Promise((res) => setTimeout(res, 1500));
      expect(await sends()).toBe(sentNow);
      expect(sentNow).toBeLessThan(400);
    } finally {
      await sender.stop();
      await transport.close();
      await r.close();
      await early.close();
    }
  }, 120_000);
});
