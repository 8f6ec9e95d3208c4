/**
 * A relay's max_connections over several senders (issue 21 §1; core/sending/connections.ts): two senders on one
 * database, each with its own connection pool as big as the limit, against a real SMTP relay that answers
 * `421 Too many connections` past that many open connections. Together they never open more than the limit, and every
 * email is delivered once. Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { IDLE_CONNECTION_MS } from '../../src/server/core/sending/connections.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { API_DB, dueBlast, startHarness, type Harness } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';

const MAX_CONNECTIONS = 3;

let h: Harness;
let renderer: RenderPool;

beforeAll(async () => {
  h = await startHarness({ config: { relayMaxConnections: MAX_CONNECTIONS, relayName: 'smtp://connections-relay.test:25', deferRetryMs: 300 } });
  renderer = new RenderPool(0, h.config.storageUrl);
});
afterAll(async () => {
  await renderer?.close();
  await h?.close();
});

describe(`relay max_connections (${API_DB})`, () => {
  it(`two senders keep max_connections=${MAX_CONNECTIONS} together: never more open, none refused, every email once`, async () => {
    const COUNT = 300;
    const sink = new SmtpSink();
    sink.maxConnections = MAX_CONNECTIONS;
    sink.acceptDelayMs = 20; // a relay that takes its time keeps connections busy
    const url = await sink.start();
    const t = await h.tenant({ activated: true });
    const emails = Array.from({ length: COUNT }, (_, i) => `conn${i}@example.com`);
    await dueBlast(h, t, emails, { from: 'from@connections.example.com' });
    // Each sender's pool could open the whole limit by itself.
    const transports = [0, 1].map(() => new SmtpTransport(url, MAX_CONNECTIONS, { idleTimeoutMs: IDLE_CONNECTION_MS }));
    const senders = transports.map((tr) => new Sender(h.runtime.ctx, tr, renderer, { leaseMs: 30_000, pollMs: 50, batchSize: 20 }));
    for (const s of senders) s.start();
    try {
      await sink.waitFor(() => sink.count >= COUNT, 90_000);
      await new Promise((r) => setTimeout(r, 1000)); // a second sending of anything would have arrived by now
    } finally {
      for (const s of senders) await s.stop();
      for (const tr of transports) await tr.close();
      await sink.stop();
    }
    expect(sink.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(emails.slice().sort());
    expect(sink.maxOpenConnections).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(sink.refusedConnections).toBe(0);
    const failures = await h.call('GET', '/api/event/all_events/count', {
      key: t.apiKey,
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendFailure },
    });
    expect(failures.body.num_events).toBe(0);
  });
});
