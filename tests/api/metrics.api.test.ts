/**
 * Operations endpoints: /metrics counts what the sender recorded — sent emails equal to what the relay
 * (an SMTP sink) received, deferrals and failures by reason class, the send latency — and reads the outbox, the queue
 * and the relays from the database at scrape time; it needs METRICS_TOKEN when one is set and answers only this
 * machine otherwise. /readyz says ready on a live database and names what is not ready (database closed, queue schema
 * missing, a migration not applied). Unknown paths outside the console answer a 404 `{errors}`, never the console's
 * page; console routes still get it.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/server/app.ts';
import { Sender } from '../../src/workers/sender.ts';
import { RenderPool } from '../../src/server/mail/renderPool.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { MARK_RELAY_DOWN } from '../../src/server/core/sending/pacing.ts';
import { readiness } from '../../src/server/plugins/health.ts';
import { readJournal } from '../../src/server/db/migrationState.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { API_DB, dueBlast, freshDatabase, startHarness, type Harness, type Tenant } from './harness.ts';

let h: Harness;
let t: Tenant;
let renderer: RenderPool;
/** The app over the harness's context with a built console (a temp folder holding an index.html). */
let site: FastifyInstance;
const INDEX_HTML = '<!doctype html><title>Mailwright console</title>';

/**
 * sample sums the values of metric `name`'s samples (in Prometheus text `text`) whose labels include `labels`; 0 when
 * there is none.
 */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[4]);
  }
  return sum;
}

/** scrape answers GET /metrics on `app` (from 127.0.0.1, as inject does by default). */
async function scrape(app: FastifyInstance = h.app, opts: Partial<InjectOptions> = {}): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics', ...opts });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toContain('text/plain');
  return res.body;
}

/** sendAll runs a sender over the harness's outbox, delivering to its SMTP sink, until `done` holds; then stops it. */
async function sendAll(done: () => Promise<boolean>): Promise<void> {
  const transport = new SmtpTransport(h.config.smtpUrl!);
  const sender = new Sender(h.runtime.ctx, transport, renderer, { leaseMs: 30_000, pollMs: 50 });
  sender.start();
  try {
    const end = Date.now() + 30_000;
    while (!(await done())) {
      if (Date.now() > end) throw new Error('the sender did not finish in 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await sender.stop();
    await transport.close();
  }
}

/** outbox reads the blast's rows: address, status, last error. */
async function outbox(blastId: string) {
  return h.runtime.database.query<{ email: string; status: string; last_error: string | null }>(
    'SELECT email, status, last_error FROM outbox WHERE blast_id = $1 ORDER BY email',
    [blastId],
  );
}

beforeAll(async () => {
  h = await startHarness();
  t = await h.tenant({ activated: true });
  renderer = new RenderPool(0, h.config.storageUrl);
  const consoleDir = await mkdtemp(path.join(os.tmpdir(), 'mw-console-'));
  await writeFile(path.join(consoleDir, 'index.html'), INDEX_HTML);
  site = await buildApp(h.runtime.ctx, { logLevel: 'silent', consoleDir });
});
afterAll(async () => {
  await site?.close();
  await renderer?.close();
  await h?.close();
});

describe(`metrics (${API_DB})`, () => {
  it('counts the emails sent as the relay received them, and their latency from due to accepted', async () => {
    const before = await scrape();
    const emails = Array.from({ length: 7 }, (_, i) => `metric${i}@example.com`);
    const blastId = await dueBlast(h, t, emails, { from: 'sent@metrics.example.com' });
    const delivered = () => h.sink.messages.filter((m) => m.envelopeTo.some((to) => emails.includes(to))).length;
    await sendAll(async () => (await outbox(blastId)).every((r) => r.status === 'sent'));
    const after = await scrape();
    const sent = sample(after, 'mailwright_emails_sent_total', { transport: 'smtp' }) - sample(before, 'mailwright_emails_sent_total', { transport: 'smtp' });
    expect(delivered()).toBe(emails.length);
    expect(sent).toBe(delivered());
    const observed = sample(after, 'mailwright_send_latency_seconds_count') - sample(before, 'mailwright_send_latency_seconds_count');
    expect(observed).toBe(emails.length);
    // The blast was due a minute before it was sent: every latency is over 30 s and under an hour.
    const within = (le: string) =>
      sample(after, 'mailwright_send_latency_seconds_bucket', { le }) - sample(before, 'mailwright_send_latency_seconds_bucket', { le });
    expect([within('30'), within('3600')]).toEqual([0, emails.length]);
    expect(sample(after, 'mailwright_emails_failed_total') - sample(before, 'mailwright_emails_failed_total')).toBe(0);
    expect(sample(after, 'mailwright_outbox_emails', { state: 'pending' })).toBe(0);
  });

  it("shows a relay's deferrals and refusals by reason class, and the deferred emails waiting in the outbox", async () => {
    const before = await scrape();
    h.sink.refuse.set('later@example.com', { code: 451, message: '4.3.0 Mailbox busy, try again later' });
    h.sink.refuse.set('slowdown@example.com', { code: 454, message: 'Throttling failure: Maximum sending rate exceeded.' });
    h.sink.refuse.set('gone@example.com', { code: 550, message: '5.1.1 User unknown' });
    const emails = ['gone@example.com', 'later@example.com', 'slowdown@example.com'];
    const blastId = await dueBlast(h, t, emails, { from: 'deferred@metrics.example.com' });
    // Each has had its first answer once the 451 and 454 rows are back to pending with their reason and the 550 failed.
    await sendAll(async () => (await outbox(blastId)).every((r) => (r.status === 'pending' && r.last_error) || r.status === 'failed'));
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('mailwright_emails_deferred_total', { reason: 'deliver' })).toBe(1);
    // A throttled email is tried again after 1 s, so the sender may have met the 454 twice before it stopped.
    expect(delta('mailwright_emails_deferred_total', { reason: 'throttled' })).toBeGreaterThanOrEqual(1);
    expect(delta('mailwright_emails_failed_total', { reason: 'deliver' })).toBe(1);
    expect(delta('mailwright_emails_sent_total', {})).toBe(0);
    expect(sample(after, 'mailwright_outbox_emails', { state: 'deferred' })).toBe(2);
    expect(sample(after, 'mailwright_outbox_emails', { state: 'pending' })).toBe(2);
    // No series carries a relay's reply text.
    expect(after).not.toContain('Mailbox busy');
    expect(after).not.toContain('User unknown');
  });

  it('reads queue depths and relay states at scrape time, times requests by route pattern, and reports event-loop lag', async () => {
    await h.runtime.queue.enqueue('domain-check', {}, { startAfter: new Date(Date.now() + 3_600_000) });
    const relay = 'smtp://relay.metrics.example:25';
    const withRelay = await buildApp({ ...h.runtime.ctx, config: { ...h.config, relayName: relay, backupRelays: [] } }, { logLevel: 'silent' });
    try {
      expect(sample(await scrape(withRelay), 'mailwright_relay_up', { relay })).toBe(1);
      await h.runtime.database.query(MARK_RELAY_DOWN, [relay, '60000', 'deliver: connect ECONNREFUSED']);
      await withRelay.inject({ method: 'GET', url: '/api/user/users/not-a-route' });
      await withRelay.inject({ method: 'GET', url: `/t/o/${'x'.repeat(40)}` });
      const text = await scrape(withRelay);
      expect(sample(text, 'mailwright_relay_up', { relay })).toBe(0);
      expect(sample(text, 'mailwright_queue_jobs', { queue: 'domain-check', state: 'created' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'mailwright_queue_jobs', { queue: 'contact-import', state: 'active' })).toBe(0);
      // Route patterns, never raw paths: the tracking pixel by its pattern, the unknown path as (no route).
      expect(sample(text, 'mailwright_http_request_duration_seconds_count', { route: '/t/o/:token' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'mailwright_http_request_duration_seconds_count', { route: '(no route)', status: '4xx' })).toBeGreaterThanOrEqual(1);
      expect(text).not.toContain('not-a-route');
      expect(text).not.toContain('xxxxxxxx');
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \S+$/m);
    } finally {
      await withRelay.close();
    }
  });

  it('needs the bearer METRICS_TOKEN when one is set, and answers only this machine when none is', async () => {
    const guarded = await buildApp({ ...h.runtime.ctx, config: { ...h.config, metricsToken: 'metrics-token-1' } }, { logLevel: 'silent' });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token', 'metrics-token-1', 'Bearer metrics-token-1x']) {
        const res = await guarded.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        expect(res.statusCode, authorization).toBe(401);
        expect(res.json().errors[0]).toMatch(/^authorization: /);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
      // With the token, from anywhere.
      const text = await scrape(guarded, { headers: { authorization: 'Bearer metrics-token-1' }, remoteAddress: '203.0.113.9' });
      expect(text).toContain('mailwright_emails_sent_total');
      // Every reason's series exists from the start, at 0 until it happens.
      expect(text).toMatch(/^mailwright_emails_failed_total\{reason="expired"\} 0$/m);
    } finally {
      await guarded.close();
    }
    // No token set: this machine only, and not through a proxy on it.
    for (const opts of [{ remoteAddress: '203.0.113.9' }, { headers: { 'x-forwarded-for': '203.0.113.9' } }]) {
      const res = await h.app.inject({ method: 'GET', url: '/metrics', ...opts });
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0]).toContain('METRICS_TOKEN');
    }
    await scrape(h.app, { remoteAddress: '::1' });
  });

  it('answers unknown server paths with a 404 {errors} and console routes with the console page', async () => {
    for (const url of ['/api/nope', '/api/user/nope', '/t/nope', '/t/x/y', '/assets/missing-1234.js', '/favicon-missing.ico', '/readyz/x', '/metricsx']) {
      const res = await site.inject({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('application/json');
      expect(res.json().errors[0], url).toMatch(/^request: no route GET \//);
    }
    // /metrics from elsewhere without a token is refused in JSON, not answered with the page.
    const remote = await site.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9', headers: { accept: 'text/html' } });
    expect([remote.statusCode, remote.headers['content-type']]).toEqual([403, 'application/json; charset=utf-8']);
    // Console routes: a browser's navigation, a client without Accept, the operator's back-office.
    for (const [url, accept] of [
      ['/campaigns', 'text/html,application/xhtml+xml,*/*;q=0.8'],
      ['/people/users/edit/6b1f0c3e-0000-4000-8000-000000000000', undefined],
      ['/operator/login', 'text/html'],
      ['/insights/stats?campaign_id=x', '*/*'],
    ] as const) {
      const res = await site.inject({ method: 'GET', url, headers: accept ? { accept } : {} });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(INDEX_HTML);
    }
    // A client that wants JSON, or another method, gets the 404 even on a console path.
    expect((await site.inject({ method: 'GET', url: '/campaigns', headers: { accept: 'application/json' } })).statusCode).toBe(404);
    expect((await site.inject({ method: 'DELETE', url: '/campaigns' })).statusCode).toBe(404);
  });

  it('says ready on a live database, and names what is not ready', async () => {
    const ok = await h.app.inject({ method: 'GET', url: '/readyz' });
    expect([ok.statusCode, ok.json()]).toEqual([200, { ready: true }]);

    const query = h.runtime.database.query.bind(h.runtime.database) as QueryFn;
    const journal = readJournal();
    expect(await readiness(query, journal)).toEqual([]);
    const future = [...journal, { tag: '9999_not_yet', when: Date.now() + 86_400_000 }];
    expect(await readiness(query, future)).toEqual(['migrations: 1 not applied (9999_not_yet); a server start applies them']);

    // A database without pg-boss's schema: the queue is not ready.
    const bare = await freshDatabase();
    try {
      await bare.database.query('DROP SCHEMA IF EXISTS pgboss CASCADE');
      const noQueue = await buildApp({ ...h.runtime.ctx, database: bare.database }, { logLevel: 'silent' });
      const res = await noQueue.inject({ method: 'GET', url: '/readyz' });
      await noQueue.close();
      expect([res.statusCode, res.json()]).toEqual([503, { errors: ["queue: pg-boss's schema pgboss is not installed"] }]);

      // The same database closed: not answering. /healthz still says the process is up; /metrics still answers
      // with the process's own metrics and leaves out the gauges it could not read.
      await bare.database.close();
      const closed = await buildApp({ ...h.runtime.ctx, database: bare.database }, { logLevel: 'silent' });
      try {
        const down = await closed.inject({ method: 'GET', url: '/readyz' });
        expect(down.statusCode).toBe(503);
        expect(down.json().errors).toHaveLength(1);
        expect(down.json().errors[0]).toMatch(/^database: not answering \(/);
        expect((await closed.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        const text = await scrape(closed);
        expect(text).toContain('mailwright_emails_sent_total');
        expect(text).not.toMatch(/^mailwright_outbox_emails\{/m);
      } finally {
        await closed.close();
      }
    } finally {
      await bare.drop();
    }
  });
});
