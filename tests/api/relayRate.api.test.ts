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
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';

const MAX_RATE = 50;
/** The relay answers 454 past this many messages in one second (10 % over the configured rate). */
const RELAY_LIMIT = 55;
const RECIPIENTS = 500;

let h: Harness;
let relay: SmtpSink;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { relayMaxRate: MAX_RATE, relayName: 'smtp://throttled-relay.test:25' } });
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
    const transport = new SmtpTransport(await relay.start(), 10);
    const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
    sender.start();
    const end = Date.now() + 120_000;
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
  });
});
