/**
 * The reputation circuit-breaker (core/sending/reputation.ts): complaints from the mailbox simulator push a project's
 * complaint rate over its threshold; its marketing sending pauses with a JOB_PAUSE_SENDING entry, nothing more of its
 * blasts is sent, and it goes on once an admin resumes it. Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { SIMULATOR_ADDRESSES } from '../../src/domain/feedback.ts';
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';

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
