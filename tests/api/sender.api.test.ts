/**
 * The sender's claim, lease and retry rules (DESIGN.md §6) with several senders on one database and relays that are
 * slow or fail: no email is sent twice while its sender is alive, temporary failures are retried with back-off, and
 * permanent ones are reported once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import type { Envelope, MailTransport } from '../../src/server/mail/transport.ts';
import { API_DB, dueBlast, startHarness, type Harness, type Tenant } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';

/** The sender persona of this file's blasts. */
const FROM = 'from@relay.example.com';

let h: Harness;
let t: Tenant;
let renderer: RenderPool;

/** A relay that takes `delayMs` per message and answers with `fail(envelope, attempt)`'s error, if any. */
class TestRelay implements MailTransport {
  readonly description = 'test relay';
  readonly delivers = true;
  readonly sent: string[] = [];
  private attempts = new Map<string, number>();
  constructor(
    private readonly delayMs: number,
    private readonly fail: (to: string, attempt: number) => Error | undefined = () => undefined,
  ) {}
  async send(envelope: Envelope): Promise<{ response: string }> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    const to = envelope.to[0];
    const attempt = (this.attempts.get(to) ?? 0) + 1;
    this.attempts.set(to, attempt);
    const err = this.fail(to, attempt);
    if (err) throw err;
    this.sent.push(to);
    return { response: '250 ok' };
  }
  async close(): Promise<void> {}
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

async function statuses(blastId: string) {
  return h.runtime.database.query<{ email: string; status: string; attempts: number; last_error: string | null }>(
    'SELECT email, status, attempts, last_error FROM outbox WHERE blast_id = $1 ORDER BY email',
    [blastId],
  );
}

beforeAll(async () => {
  h = await startHarness();
  t = await h.tenant({ activated: true });
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await h?.close();
});

describe(`sender (${API_DB})`, () => {
  it('two senders on one database, with a relay slower than the lease: each email goes once (the claim is renewed)', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `slow${i}@example.com`);
    const blastId = await dueBlast(h, t, emails, { from: FROM });
    const relay = new TestRelay(250);
    const opts = { leaseMs: 300, pollMs: 50, batchSize: 6, concurrency: 2 };
    const a = new Sender(h.runtime.ctx, relay, renderer, opts);
    const b = new Sender(h.runtime.ctx, relay, renderer, opts);
    a.start();
    b.start();
    const end = Date.now() + 30_000;
    while (relay.sent.length < emails.length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1000)); // several lease lengths: a double claim would have sent again by now
    await Promise.all([a.stop(), b.stop()]);
    expect(relay.sent.slice().sort()).toEqual(emails.slice().sort());
    expect((await statuses(blastId)).every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('a temporary relay failure is retried after the back-off; a permanent one fails once and is reported', async () => {
    const blastId = await dueBlast(h, t, ['temp@example.com', 'perm@example.com'], { from: FROM });
    const relay = new TestRelay(0, (to, attempt) => {
      if (to === 'temp@example.com' && attempt === 1) return smtpError(451, '451 4.3.0 try again later');
      if (to === 'perm@example.com') return smtpError(550, '550 5.1.1 mailbox unavailable');
      return undefined;
    });
    const sender = new Sender(h.runtime.ctx, relay, renderer, { leaseMs: 5000, pollMs: 50 });
    await sender.sendBatch();
    let rows = await statuses(blastId);
    expect(rows.map((r) => [r.email, r.status, r.attempts])).toEqual([
      ['perm@example.com', 'failed', 1],
      ['temp@example.com', 'pending', 1],
    ]);
    expect(rows[1].last_error).toBe('deliver: 451 4.3.0 try again later');
    const [{ wait }] = await h.runtime.database.query<{ wait: number }>(
      "SELECT extract(epoch FROM next_attempt_at - now())::float AS wait FROM outbox WHERE blast_id = $1 AND email = 'temp@example.com'",
      [blastId],
    );
    expect(wait).toBeGreaterThan(25);
    expect(wait).toBeLessThanOrEqual(30);
    expect(await sender.sendBatch()).toBe(0); // not due yet
    await h.runtime.database.query("UPDATE outbox SET next_attempt_at = now() WHERE blast_id = $1 AND status = 'pending'", [blastId]);
    await sender.sendBatch();
    rows = await statuses(blastId);
    expect(rows.map((r) => [r.email, r.status, r.attempts])).toEqual([
      ['perm@example.com', 'failed', 1],
      ['temp@example.com', 'sent', 2],
    ]);
    const failures = await h.call('GET', '/api/event/all_events', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.data.map((e: { email: string; json: { error_string: string } }) => [e.email, e.json.error_string])).toEqual([
      ['perm@example.com', 'deliver: 550 5.1.1 mailbox unavailable'],
    ]);
  });

  it('checks again at send time: a contact who unsubscribed or was suppressed after expansion is not mailed', async () => {
    const marketing = await dueBlast(h, t, ['late-unsub@example.com', 'late-bounce@example.com', 'late-optout@example.com', 'still-ok@example.com'], {
      from: FROM,
      type: 'TEMPLATE_MARKETING',
    });
    const receipt = await dueBlast(h, t, ['late-optout@example.com'], { from: FROM });
    // After expansion: one contact unsubscribes, one address hard-bounces elsewhere, one is an 'unsubscribed' entry.
    await h.runtime.database.query(`UPDATE contacts SET unsubscribed_at = now() WHERE project_id = $1 AND email = 'late-unsub@example.com'`, [t.projectId]);
    await h.runtime.database.query(
      `INSERT INTO suppressions (project_id, email, reason) VALUES ($1, 'late-bounce@example.com', 'bounce'), ($1, 'late-optout@example.com', 'unsubscribed')`,
      [t.projectId],
    );
    const relay = new TestRelay(0);
    const sender = new Sender(h.runtime.ctx, relay, renderer, { leaseMs: 5000, pollMs: 50 });
    await sender.sendBatch();
    await sender.sendBatch();
    const rows = await statuses(marketing);
    expect(rows.map((r) => [r.email, r.status])).toEqual([
      ['late-bounce@example.com', 'failed'],
      ['late-optout@example.com', 'failed'],
      ['late-unsub@example.com', 'failed'],
      ['still-ok@example.com', 'sent'],
    ]);
    expect(rows[0].last_error).toMatch(/suppressed: .* \(bounce\)/);
    expect(rows[1].last_error).toMatch(/suppressed: .* \(unsubscribed\)/);
    expect(rows[2].last_error).toMatch(/unsubscribed: late-unsub@example.com/);
    // An unsubscribe stops marketing mail only: the receipt still goes to the opted-out address.
    expect((await statuses(receipt)).map((r) => r.status)).toEqual(['sent']);
    expect(relay.sent.slice().sort()).toEqual(['late-optout@example.com', 'still-ok@example.com']);
  });
});
