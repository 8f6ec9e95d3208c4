/**
 * The sender's claim, lease and retry rules (DESIGN.md §6) with several senders on one database and relays that are
 * slow or fail: no email is sent twice while its sender is alive, deferrals are retried with back-off until
 * DEFER_MAX_AGE however many attempts that takes, and permanent failures are reported once.
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

async function blastOf(blastId: string): Promise<{ template_id: string }> {
  const [blast] = await h.runtime.database.query<{ template_id: string }>('SELECT template_id FROM email_blasts WHERE id = $1', [blastId]);
  return blast;
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

  it('a deferral never drops mail: deferred 8 times (4xx at every stage, a refused connection), then delivered once, with no failure', async () => {
    const blastId = await dueBlast(h, t, ['patient@example.com'], { from: FROM });
    const answers = [
      smtpError(421, '421 4.7.0 Try again later, closing connection'),
      smtpError(451, '451 4.3.0 Mail server temporarily rejected message'),
      smtpError(454, '454 Throttling failure: Maximum sending rate exceeded'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ECONNREFUSED' }),
      smtpError(452, '452 4.2.2 Mailbox full'),
      smtpError(450, '450 4.2.1 Rate limited'),
      smtpError(451, '451 4.7.1 Greylisted, please try again'),
      smtpError(421, '421 4.4.2 Connection timed out'),
    ];
    const relay = new TestRelay(0, (_to, attempt) => answers[attempt - 1]);
    const sender = new Sender(h.runtime.ctx, relay, renderer, { leaseMs: 5000, pollMs: 50 });
    for (let attempt = 1; attempt <= answers.length + 1; attempt++) {
      await sender.sendBatch();
      const [row] = await statuses(blastId);
      expect([row.status, row.attempts], `after attempt ${attempt}`).toEqual([attempt <= answers.length ? 'pending' : 'sent', attempt]);
      // The blast's status counts it as deferred while it waits, never as failed.
      const [blast] = (await h.call('GET', '/api/scheduler/scheduler', { key: t.apiKey, query: { ids: blastId } })).body.data;
      expect([blast.sent_emails, blast.deferred_emails, blast.failed_emails]).toEqual(attempt <= answers.length ? [0, 1, 0] : [1, 0, 0]);
      // The back-off doubles from DEFER_RETRY_MS (30 s); the test makes the next attempt due at once.
      await h.runtime.database.query("UPDATE outbox SET next_attempt_at = now() WHERE blast_id = $1 AND status = 'pending'", [blastId]);
    }
    expect(relay.sent).toEqual(['patient@example.com']);
    const failures = await h.call('GET', '/api/event/all_events', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.data.filter((e: { email: string }) => e.email === 'patient@example.com')).toEqual([]);
  });

  it('a deferred email is tried last as DEFER_MAX_AGE ends, then fails with the last reason', async () => {
    const blastId = await dueBlast(h, t, ['expiring@example.com'], { from: FROM });
    const relay = new TestRelay(0, () => smtpError(451, '451 4.3.0 try again later'));
    const sender = new Sender(h.runtime.ctx, relay, renderer, { leaseMs: 5000, pollMs: 50 });
    const maxAgeS = h.runtime.ctx.config.deferMaxAgeMs / 1000;
    // Due 10 s short of the queue lifetime: the next attempt is due as the lifetime ends, not a whole back-off later.
    await h.runtime.database.query(`UPDATE outbox SET send_at = now() - make_interval(secs => $2) WHERE blast_id = $1`, [blastId, maxAgeS - 10]);
    await sender.sendBatch();
    const [{ wait }] = await h.runtime.database.query<{ wait: number }>(
      'SELECT extract(epoch FROM next_attempt_at - now())::float AS wait FROM outbox WHERE blast_id = $1',
      [blastId],
    );
    expect(wait).toBeGreaterThan(5);
    expect(wait).toBeLessThanOrEqual(10);
    // Past the lifetime, the next deferral is the last.
    await h.runtime.database.query(`UPDATE outbox SET send_at = now() - make_interval(secs => $2), next_attempt_at = now() WHERE blast_id = $1`, [
      blastId,
      maxAgeS + 1,
    ]);
    await sender.sendBatch();
    const [row] = await statuses(blastId);
    expect([row.status, row.attempts]).toEqual(['failed', 2]);
    expect(row.last_error).toBe('deferred for longer than DEFER_MAX_AGE (2 attempts); last: deliver: 451 4.3.0 try again later');
    const failures = await h.call('GET', '/api/event/all_events', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(
      failures.body.data
        .filter((e: { email: string }) => e.email === 'expiring@example.com')
        .map((e: { json: { error_string: string } }) => e.json.error_string),
    ).toEqual([row.last_error]);
  });

  it('checks again at send time, by the audience’s own rule: a contact who unsubscribed, complained, was suppressed or is pending after expansion is not mailed', async () => {
    const marketing = await dueBlast(
      h,
      t,
      [
        'late-unsub@example.com',
        'late-bounce@example.com',
        'late-optout@example.com',
        'late-complaint@example.com',
        'late-pending@example.com',
        'still-ok@example.com',
      ],
      { from: FROM, type: 'TEMPLATE_MARKETING' },
    );
    const receipt = await dueBlast(h, t, ['late-optout@example.com'], { from: FROM });
    // After expansion: one contact unsubscribes, one address hard-bounces elsewhere, one is an 'unsubscribed' entry.
    await h.runtime.database.query(`UPDATE contacts SET unsubscribed_at = now() WHERE project_id = $1 AND email = 'late-unsub@example.com'`, [t.projectId]);
    await h.runtime.database.query(
      `INSERT INTO suppressions (project_id, email, reason) VALUES ($1, 'late-bounce@example.com', 'bounce'), ($1, 'late-optout@example.com', 'unsubscribed')`,
      [t.projectId],
    );
    // Marked on the contact only, with no suppression-list entry: a complaint, and a double opt-in not yet confirmed.
    await h.runtime.database.query(`UPDATE contacts SET complained_at = now() WHERE project_id = $1 AND email = 'late-complaint@example.com'`, [t.projectId]);
    await h.runtime.database.query(`UPDATE contacts SET confirmation_pending_at = now() WHERE project_id = $1 AND email = 'late-pending@example.com'`, [
      t.projectId,
    ]);
    const relay = new TestRelay(0);
    const sender = new Sender(h.runtime.ctx, relay, renderer, { leaseMs: 5000, pollMs: 50 });
    await sender.sendBatch();
    await sender.sendBatch();
    const rows = await statuses(marketing);
    expect(rows.map((r) => [r.email, r.status, r.last_error])).toEqual([
      ['late-bounce@example.com', 'failed', 'render: suppressed: late-bounce@example.com is on the suppression list (bounce)'],
      ['late-complaint@example.com', 'failed', 'render: suppressed: late-complaint@example.com is marked complained on its contact'],
      ['late-optout@example.com', 'failed', 'render: suppressed: late-optout@example.com is on the suppression list (unsubscribed)'],
      ['late-pending@example.com', 'failed', 'render: unconfirmed: late-pending@example.com has not confirmed the subscription yet (double opt-in)'],
      ['late-unsub@example.com', 'failed', 'render: unsubscribed: late-unsub@example.com unsubscribed from marketing email'],
      ['still-ok@example.com', 'sent', null],
    ]);
    // The audience's count of the same recipients leaves out the same five, for the same reasons.
    const preview = await h.call('POST', '/api/scheduler/scheduler/preview', {
      key: t.apiKey,
      body: { to_user_emails: rows.map((r) => r.email), template_id: (await blastOf(marketing)).template_id },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.data.excluded).toMatchObject({ bounced: 1, suppressed: 1, unsubscribed: 2, unconfirmed: 1 });
    // An unsubscribe stops marketing mail only: the receipt still goes to the opted-out address.
    expect((await statuses(receipt)).map((r) => r.status)).toEqual(['sent']);
    expect(relay.sent.slice().sort()).toEqual(['late-optout@example.com', 'still-ok@example.com']);
  });
});
