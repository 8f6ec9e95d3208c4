/**
 * A sender whose heartbeat starves: its event loop is blocked for longer than the lease while claimed
 * rows wait in its queue, so their leases lapse in the database. It must still send every recipient exactly once: it
 * never re-claims rows under its own live claim tokens, renews a batch whose local deadline is near before a slot
 * sends from it, and drops rows another sender took meanwhile instead of sending them.
 *
 * The heartbeat is switched off (`heartbeatMs` far beyond the test) and the event loop is blocked with a synchronous
 * busy-wait of 1.5 leases right after the relay accepted the 5th message, while the other rows of the batch sit in the
 * queue. What wakes the feeder next is a poke (as a blast's expansion pokes after each chunk), so the feeder claims
 * before any timer of the sender can run. The relay is the harness's real SMTP sink; what each recipient received is
 * counted there.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport, type Envelope, type MailTransport } from '../../src/server/mail/transport.ts';
import { API_DB, dueBlast, startHarness, type Harness, type Tenant } from './harness.ts';

/** The sender persona of this file's blasts. */
const FROM = 'from@lease.example.com';

const LEASE_MS = 1000;
/** heartbeatMs that never fires within a test: the heartbeat is starved. */
const STARVED_HEARTBEAT_MS = 24 * 3600_000;
const RECIPIENTS = 8;
/** The stall comes right after the relay accepted this many messages. */
const STALL_AT = 5;

let h: Harness;
let t: Tenant;
let renderer: RenderPool;
let smtp: SmtpTransport;

/** busyWait blocks the event loop for `ms` (no timer, no I/O callback, no heartbeat runs meanwhile). */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* blocked */
  }
}

/** A relay that delivers into the sink and, right after the `stallAt`th message was accepted, runs `onStall`. */
class StallingRelay implements MailTransport {
  readonly description = 'sink, stalling once';
  readonly delivers = true;
  readonly delivered: string[] = [];
  stalled = false;
  constructor(
    private readonly inner: MailTransport,
    private readonly stallAt: number,
    private readonly onStall: () => void | Promise<void>,
  ) {}
  async send(envelope: Envelope, raw: Buffer): Promise<{ response: string }> {
    const reply = await this.inner.send(envelope, raw);
    this.delivered.push(envelope.to[0]);
    if (this.delivered.length === this.stallAt) {
      this.stalled = true;
      await this.onStall();
    }
    return reply;
  }
  async close(): Promise<void> {}
}

/** received counts the sink's messages per recipient, for the given recipients only. */
function received(emails: string[]): Map<string, number> {
  const wanted = new Set(emails);
  const counts = new Map(emails.map((e) => [e, 0]));
  for (const m of h.sink.messages) for (const to of m.envelopeTo) if (wanted.has(to)) counts.set(to, counts.get(to)! + 1);
  return counts;
}

async function rows(blastId: string) {
  return h.runtime.database.query<{ id: string; email: string; status: string; attempts: number }>(
    'SELECT id::text AS id, email, status, attempts FROM outbox WHERE blast_id = $1 ORDER BY email',
    [blastId],
  );
}

/** One sender like a worker's, with a batch that holds the whole blast, one slot (so rows wait in the queue) and no heartbeat. */
function starvedSender(relay: MailTransport): Sender {
  return new Sender(h.runtime.ctx, relay, renderer, {
    leaseMs: LEASE_MS,
    pollMs: 50,
    batchSize: RECIPIENTS,
    concurrency: 1,
    heartbeatMs: STARVED_HEARTBEAT_MS,
  });
}

beforeAll(async () => {
  h = await startHarness();
  t = await h.tenant({ activated: true });
  renderer = new RenderPool(0, h.config.storageUrl);
  smtp = new SmtpTransport(h.config.smtpUrl!);
});
afterAll(async () => {
  await smtp?.close();
  await renderer?.close();
  await h?.close();
});

describe(`sender with a starved heartbeat (${API_DB})`, () => {
  it('blocked for longer than the lease with rows in its queue, it never re-claims its own rows: each recipient gets one message', async () => {
    const emails = Array.from({ length: RECIPIENTS }, (_, i) => `own${i}@lease.example.com`);
    const blastId = await dueBlast(h, t, emails, { from: FROM });
    let lapsed: Promise<Array<{ n: number }>> | undefined;
    const relay = new StallingRelay(smtp, STALL_AT, () => {
      busyWait(LEASE_MS * 1.5);
      sender.poke();
      // Sent before anything the sender does next: how many claimed rows have lost their lease by now.
      lapsed = h.runtime.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox WHERE blast_id = $1 AND status = 'sending' AND lease_until < now()`,
        [blastId],
      );
    });
    const sender = starvedSender(relay);
    sender.start();
    await h.sink.waitFor(() => [...received(emails).values()].every((n) => n >= 1), 30_000);
    await new Promise((r) => setTimeout(r, 3 * LEASE_MS)); // a re-claimed row would have gone again by now
    await sender.stop();

    expect(relay.stalled).toBe(true);
    // The stall let the lease of the rows still waiting in the queue (and of the one just delivered) lapse.
    expect((await lapsed!)[0].n).toBeGreaterThanOrEqual(RECIPIENTS - STALL_AT + 1);
    expect(Object.fromEntries(received(emails))).toEqual(Object.fromEntries(emails.map((e) => [e, 1])));
    // Claimed once each: no row was taken over by its own sender.
    expect((await rows(blastId)).map((r) => [r.email, r.status, r.attempts])).toEqual(
      emails
        .slice()
        .sort()
        .map((e) => [e, 'sent', 1]),
    );
  });

  it('drops the queued rows another sender took over while it was blocked; that sender sends them, once', async () => {
    const emails = Array.from({ length: RECIPIENTS }, (_, i) => `taken${i}@lease.example.com`);
    const blastId = await dueBlast(h, t, emails, { from: FROM });
    const foreignToken = crypto.randomUUID();
    let takeOver: Promise<Array<{ email: string }>> | undefined;
    // Right after the stall, before anything the blocked sender does next, another sender takes two rows that wait in
    // its queue (the claim statement's own conditions, here from the test): it can, because their lease lapsed.
    const relay = new StallingRelay(smtp, STALL_AT, () => {
      busyWait(LEASE_MS * 1.5);
      takeOver = h.runtime.database.query<{ email: string }>(
        `UPDATE outbox SET claim_token = $2, lease_until = now() + interval '1 hour', attempts = attempts + 1
          WHERE id IN (SELECT id FROM outbox WHERE blast_id = $1 AND status = 'sending' AND lease_until < now() AND email <> ALL($3::text[])
                        ORDER BY email DESC LIMIT 2 FOR UPDATE SKIP LOCKED)
          RETURNING email`,
        [blastId, foreignToken, relay.delivered],
      );
    });
    let takenOver: string[] = [];
    const warn = vi.spyOn(console, 'warn');
    const sender = starvedSender(relay);
    try {
      sender.start();
      await h.sink.waitFor(() => relay.delivered.length >= RECIPIENTS - 2, 30_000);
      await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
      await sender.stop();
      takenOver = (await takeOver!).map((r) => r.email);
      expect(takenOver).toHaveLength(2); // the stall let both leases lapse
      // The blocked sender never sent them, and said so.
      expect(relay.delivered.filter((e) => takenOver.includes(e))).toEqual([]);
      expect(warn.mock.calls.map((args) => String(args[0])).filter((m) => /not sending 2 /.test(m))).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }

    // The other sender dies; after its lease a third one re-claims the two rows and sends them.
    await h.runtime.database.query(`UPDATE outbox SET lease_until = now() - interval '1 second' WHERE claim_token = $1`, [foreignToken]);
    const third = new Sender(h.runtime.ctx, smtp, renderer, { leaseMs: LEASE_MS, pollMs: 50 });
    expect(await third.sendBatch()).toBe(2);

    expect(Object.fromEntries(received(emails))).toEqual(Object.fromEntries(emails.map((e) => [e, 1])));
    expect((await rows(blastId)).every((r) => r.status === 'sent')).toBe(true);
  });
});
