/**
 * Webhooks end to end on a real database, a real SMTP sink and a real HTTP receiver: a
 * blast's sent, opened, clicked and unsubscribed events reach the receiver signed per Standard Webhooks (checked with
 * the standardwebhooks library, as a customer would); a receiver that is down is retried and gets everything once it
 * is up; private, loopback and link-local URLs are refused unless WEBHOOK_ALLOW_PRIVATE allows them, at registration
 * and at connect time; the console's operations (deliveries, resend, test, rotate, disable) do what they say; and a
 * worker killed mid-delivery leaves the message to another worker, which sends it again with the same webhook-id —
 * what receivers deduplicate by (README "Webhooks").
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/server/config.ts';
import { attempt } from '../../src/server/core/webhooks/index.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhookReceiver.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { API_DB, callServer, processFixture, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';

let h: Harness;
let t: Tenant;
const receiver = new WebhookReceiver();
let hookUrl: string;
let endpoint: { id: string; secret: string };
let personaId: string;
let templateId: string;

const HTML = `<html><body><p>Hi {{user.first_name}}</p><a href="https://shop.example.com/sale">Sale</a>
<a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;

async function api(method: string, url: string, body?: unknown): Promise<Json> {
  const res = await h.call(method, url, { key: t.apiKey, body });
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** verified checks a request's signature with the standardwebhooks library (throws when it does not verify) and returns its payload. */
function verified(r: ReceivedRequest, secret = endpoint.secret): { type: string; timestamp: string; data: Record<string, Json> } {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as never;
}

beforeAll(async () => {
  hookUrl = await receiver.start();
  h = await startHarness({
    workers: true,
    config: { webhooks: { allowPrivate: true, timeoutMs: 2000, retryScheduleS: [1], retryForMs: 3_600_000, leaseMs: 10_000, pollMs: 100 } },
  });
  t = await h.tenant({ activated: true });
  personaId = (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@hooks.example.com', first_name: 'News' }] }))
    .data[0].id;
  await h.sink.waitFor(() => h.sink.messages.length >= 1);
  await h.confirmPersonas();
  templateId = (await api('POST', '/api/template/templates', { templates: [{ name: 'Hooked', subject: 'Sale', type: 'TEMPLATE_MARKETING', html_body: HTML }] }))
    .data[0].id;
  endpoint = (
    await api('POST', '/api/webhooks/endpoints', {
      url: hookUrl,
      event_types: ['email.sent', 'email.opened', 'email.clicked', 'contact.unsubscribed'],
      description: 'CRM sync',
    })
  ).data;
});
afterAll(async () => {
  await h?.close();
  await receiver.stop();
});

/** blastTo sends a marketing blast due now to new contacts with `emails`; resolves their ids. */
async function blastTo(emails: string[]): Promise<string[]> {
  const ids = (await api('POST', '/api/user/users', { users: emails.map((email, i) => ({ email, first_name: `F${i}` })) })).data.map(
    (c: { id: string }) => c.id,
  );
  await api('POST', '/api/scheduler/scheduler', {
    id: randomUUID(),
    name: `Hooks ${emails[0]}`,
    template_id: templateId,
    sender_persona_id: personaId,
    to_user_ids: ids,
    send_at: wallClockUtc(-1),
    timezone: 'UTC',
  });
  return ids;
}

describe(`webhooks (${API_DB})`, () => {
  it('registers an endpoint with a whsec_ secret and lists it', async () => {
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const list = (await api('GET', '/api/webhooks/endpoints')).data;
    expect(list).toEqual([expect.objectContaining({ id: endpoint.id, url: hookUrl, description: 'CRM sync', enabled: true })]);
    const bad = await h.call('POST', '/api/webhooks/endpoints', { key: t.apiKey, body: { url: hookUrl, event_types: ['email.exploded'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.join(' ')).toContain('event_types');
    // Another tenant sees none of it.
    const other = await h.tenant();
    expect((await h.call('GET', '/api/webhooks/endpoints', { key: other.apiKey })).body.data).toEqual([]);
    expect((await h.call('POST', `/api/webhooks/endpoints/${endpoint.id}/test`, { key: other.apiKey })).status).toBe(404);
  });

  it('a blast fires signed sent, opened, clicked and unsubscribed webhooks', async () => {
    const [contactId] = await blastTo(['ann@hooks.example.com']);
    await receiver.waitFor(() => receiver.ofType('email.sent').length === 1);
    const sent = verified(receiver.ofType('email.sent')[0]);
    expect(sent.data).toMatchObject({ email: 'ann@hooks.example.com', contact_id: contactId, template_id: templateId });
    expect(receiver.requests[0].headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);

    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('ann@hooks.example.com'))!;
    const html = String(mail.html);
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(html)![1];
    const click = /href="http:\/\/localhost:8080(\/t\/c\/[^"]+)"/.exec(html)![1];
    const unsubscribe = /href="http:\/\/localhost:8080(\/u\/[^"]+)"/.exec(html)![1];
    const person = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15' };
    expect((await h.app.inject({ method: 'GET', url: pixel, headers: person })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 1500)); // a click right after the open would read as a scanner's burst
    expect((await h.app.inject({ method: 'GET', url: click, headers: person })).statusCode).toBe(302);
    const oneClick = await h.app.inject({
      method: 'POST',
      url: unsubscribe,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);

    await receiver.waitFor(() => ['email.opened', 'email.clicked', 'contact.unsubscribed'].every((type) => receiver.ofType(type).length === 1));
    const opened = verified(receiver.ofType('email.opened')[0]);
    const clicked = verified(receiver.ofType('email.clicked')[0]);
    const unsubscribed = verified(receiver.ofType('contact.unsubscribed')[0]);
    expect(opened.data).toMatchObject({ email: 'ann@hooks.example.com', contact_id: contactId, message_id: sent.data.message_id });
    expect(clicked.data).toMatchObject({ email: 'ann@hooks.example.com', link: 'https://shop.example.com/sale' });
    expect(unsubscribed.data).toMatchObject({ email: 'ann@hooks.example.com', contact_id: contactId });
    expect((unsubscribed.data.details as Record<string, Json>).via).toBe('one-click');
    // A signature made with another secret does not verify.
    expect(() => verified(receiver.ofType('email.opened')[0], `whsec_${Buffer.from('another secret of 24 byt').toString('base64')}`)).toThrow();

    const deliveries = (await api('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`, undefined)).data;
    expect(deliveries.map((d: { event_type: string }) => d.event_type)).toEqual(['contact.unsubscribed', 'email.clicked', 'email.opened', 'email.sent']);
    expect(deliveries.every((d: { status: string; last_status_code: number }) => d.status === 'delivered' && d.last_status_code === 204)).toBe(true);
  });

  it('retries while the receiver is down and delivers everything once it is up', async () => {
    const before = receiver.requests.length;
    await receiver.stop();
    await blastTo(['bo@hooks.example.com', 'cy@hooks.example.com']);
    // Both messages are tried and fail (connection refused), and are tried again.
    await waitUntil(async () => {
      const pending = (await api('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`, undefined)).data.filter(
        (d: { status: string; attempts: number }) => d.status === 'pending' && d.attempts >= 2,
      );
      return pending.length === 2;
    });
    const [pending] = (await api('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`, undefined)).data;
    expect(pending.last_status_code).toBeNull();
    expect(pending.last_response).toMatch(/ECONNREFUSED/);
    expect((await api('GET', '/api/webhooks/endpoints')).data[0].failing_since).not.toBeNull();
    await receiver.start();
    await receiver.waitFor(() => receiver.requests.length >= before + 2);
    const got = receiver.requests.slice(before).map((r) => verified(r).data.email);
    expect(got.sort()).toEqual(['bo@hooks.example.com', 'cy@hooks.example.com']);
    await waitUntil(async () => (await api('GET', '/api/webhooks/endpoints')).data[0].failing_since === null);
    const counts = (await api('GET', '/api/webhooks/endpoints')).data[0].counts;
    expect(counts).toEqual({ pending: 0, delivered: 6, failed: 0 });
  });

  it('sends a test event, resends a message with the same id, rotates the secret and disables the endpoint', async () => {
    const before = receiver.requests.length;
    const test = (await api('POST', `/api/webhooks/endpoints/${endpoint.id}/test`)).data;
    await receiver.waitFor(() => receiver.requests.length === before + 1);
    expect(verified(receiver.requests[before]).type).toBe('webhook.test');
    expect(receiver.requests[before].headers['webhook-id']).toBe(test.id);

    const rotated = (await api('POST', `/api/webhooks/endpoints/${endpoint.id}/rotate_secret`)).data;
    expect(rotated.secret).not.toBe(endpoint.secret);
    await api('POST', `/api/webhooks/deliveries/${test.id}/resend`);
    await receiver.waitFor(() => receiver.requests.length === before + 2);
    const again = receiver.requests[before + 1];
    expect(again.headers['webhook-id']).toBe(test.id);
    expect(() => verified(again)).toThrow(); // signed with the new secret now
    expect(verified(again, rotated.secret).type).toBe('webhook.test');
    endpoint = rotated;

    const off = (await api('PUT', `/api/webhooks/endpoints/${endpoint.id}`, { enabled: false })).data;
    expect(off).toMatchObject({ enabled: false, disabled_reason: 'disabled by hand' });
    await api('POST', `/api/webhooks/endpoints/${endpoint.id}/test`);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.requests.length).toBe(before + 2); // a disabled endpoint's messages wait
    await api('PUT', `/api/webhooks/endpoints/${endpoint.id}`, { enabled: true });
    await receiver.waitFor(() => receiver.requests.length === before + 3);
  });

  it('shows the signing secret only when made and when revealed, which the job log notes; lists and reads never carry it', async () => {
    const secret = endpoint.secret; // the rotated one
    const hint = `whsec_…${secret.slice(-4)}`;
    const carries = (body: unknown, s: string) => JSON.stringify(body).includes(s.slice('whsec_'.length));
    const listed = (await api('GET', '/api/webhooks/endpoints')).data;
    expect(listed[0]).toMatchObject({ id: endpoint.id, secret_hint: hint });
    expect(listed[0]).not.toHaveProperty('secret');
    expect(carries(listed, secret)).toBe(false);
    const updated = (await api('PUT', `/api/webhooks/endpoints/${endpoint.id}`, { description: 'CRM sync (main)' })).data;
    expect(updated).toMatchObject({ secret_hint: hint, description: 'CRM sync (main)' });
    expect(carries(updated, secret)).toBe(false);
    expect(carries(await api('GET', `/api/webhooks/endpoints/${endpoint.id}/deliveries`), secret)).toBe(false);

    // Made: the answer carries the secret, once; the list afterwards only its hint.
    const made = (await api('POST', '/api/webhooks/endpoints', { url: `${hookUrl}/second`, event_types: ['workflow.completed'] })).data;
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(made.secret_hint).toBe(`whsec_…${made.secret.slice(-4)}`);
    const again = (await api('GET', '/api/webhooks/endpoints')).data;
    expect(again.map((e: Json) => e.secret_hint)).toEqual([hint, made.secret_hint]);
    expect(carries(again, made.secret) || carries(again, secret)).toBe(false);

    // Revealed: the secret, and an entry in the project's notifications that names the endpoint, when and the client.
    const revealed = await h.app.inject({
      method: 'POST',
      url: `/api/webhooks/endpoints/${endpoint.id}/secret/reveal`,
      headers: { 'x-api-key': t.apiKey, 'user-agent': 'Console test' },
    });
    expect(revealed.statusCode).toBe(200);
    expect(revealed.json()).toEqual({ data: { id: endpoint.id, secret } });
    expect(new Webhook(revealed.json().data.secret).sign('msg_1', new Date(0), '{}')).toBe(new Webhook(secret).sign('msg_1', new Date(0), '{}'));
    const log = (await api('GET', '/api/joblog/joblog')).data.filter((j: Json) => j.job_name === 'JOB_WEBHOOK_SECRET_REVEALED');
    expect(log).toEqual([
      expect.objectContaining({
        success: true,
        start_details: expect.objectContaining({ endpoint_id: endpoint.id, url: hookUrl, ip: '127.0.0.1', user_agent: 'Console test' }),
      }),
    ]);
    expect(Date.now() - Date.parse(log[0].started_at)).toBeLessThan(60_000);
    expect(carries(log, secret)).toBe(false);

    // Another project's key cannot: a 404 as for an id nobody has, and no entry anywhere.
    const other = await h.tenant();
    const theirs = await h.call('POST', `/api/webhooks/endpoints/${endpoint.id}/secret/reveal`, { key: other.apiKey });
    const unknownId = randomUUID();
    const unknown = await h.call('POST', `/api/webhooks/endpoints/${unknownId}/secret/reveal`, { key: other.apiKey });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ errors: [`id: no webhook endpoint ${endpoint.id} in this project`] });
    expect(unknown.body).toEqual({ errors: [`id: no webhook endpoint ${unknownId} in this project`] });
    expect(carries(theirs.body, secret)).toBe(false);
    expect((await h.call('GET', '/api/joblog/joblog', { key: other.apiKey })).body.data).toEqual([]);
    expect((await api('GET', '/api/joblog/joblog')).data.filter((j: Json) => j.job_name === 'JOB_WEBHOOK_SECRET_REVEALED')).toHaveLength(1);
    // A deleted endpoint's secret is no one's to see.
    await api('DELETE', `/api/webhooks/endpoints/${made.id}`);
    expect((await h.call('POST', `/api/webhooks/endpoints/${made.id}/secret/reveal`, { key: t.apiKey })).status).toBe(404);
  });

  it('reports a relay deferral as email.deferred with its reason', async () => {
    await api('PUT', `/api/webhooks/endpoints/${endpoint.id}`, { event_types: ['email.deferred'] });
    const before = receiver.requests.length;
    h.sink.maxPerSecond = 0; // the relay answers 454 Throttling failure: deferred, tried again later
    try {
      await blastTo(['dot@hooks.example.com']);
      await receiver.waitFor(() => receiver.ofType('email.deferred').length >= 1);
    } finally {
      h.sink.maxPerSecond = undefined;
    }
    const deferred = verified(receiver.ofType('email.deferred')[0]);
    expect(deferred.data).toMatchObject({ email: 'dot@hooks.example.com', template_id: templateId });
    expect(String(deferred.data.reason)).toMatch(/454|Throttling/);
    expect(receiver.requests.slice(before).every((r) => verified(r).type === 'email.deferred')).toBe(true);
  });

  it('disables an endpoint that has failed for the retry period and tells the admins', async () => {
    const dead = new WebhookReceiver();
    const deadUrl = await dead.start();
    await dead.stop(); // nothing listens there any more
    const doomed = (await api('POST', '/api/webhooks/endpoints', { url: deadUrl, event_types: ['email.sent'] })).data;
    // It has been failing for longer than WEBHOOK_RETRY_FOR (1 h here); its next failed attempt disables it.
    await h.runtime.database.query("UPDATE webhook_endpoints SET failing_since = now() - interval '2 hours' WHERE id = $1", [doomed.id]);
    await api('POST', `/api/webhooks/endpoints/${doomed.id}/test`);
    await waitUntil(async () => !(await api('GET', '/api/webhooks/endpoints')).data.find((e: { id: string }) => e.id === doomed.id).enabled);
    const after = (await api('GET', '/api/webhooks/endpoints')).data.find((e: { id: string }) => e.id === doomed.id);
    expect(after.disabled_reason).toMatch(/^every attempt failed for 1 hours \(since /);
    const log = (await api('GET', '/api/joblog/joblog')).data.find((j: { job_name: string }) => j.job_name === 'JOB_WEBHOOK_ENDPOINT_DISABLED');
    expect(log).toMatchObject({ success: false, start_details: { endpoint_id: doomed.id, url: deadUrl } });
    expect(log.end_details.reason).toContain(`Webhook endpoint ${deadUrl} was disabled`);
    await api('DELETE', `/api/webhooks/endpoints/${doomed.id}`);
  });

  it('refuses private, loopback and link-local URLs unless WEBHOOK_ALLOW_PRIVATE is on', async () => {
    const strict = await startHarness({});
    try {
      const other = await strict.tenant();
      const refused = async (url: string, why: RegExp) => {
        const res = await strict.call('POST', '/api/webhooks/endpoints', { key: other.apiKey, body: { url, event_types: ['email.sent'] } });
        expect(res.status, url).toBe(400);
        expect(res.body.errors.join(' '), url).toMatch(why);
      };
      await refused(hookUrl, /^url: 127\.0\.0\.1 is a loopback address/);
      await refused('http://10.1.2.3/hooks', /private/);
      await refused('http://169.254.169.254/latest/meta-data', /linkLocal/);
      await refused('http://[::1]:8080/', /loopback/);
      await refused('http://localhost:8080/', /loopback/);
      await refused('ftp://example.com/', /must be http or https/);
      await refused('https://user:pw@example.com/', /user name or password/);
      expect((await strict.call('GET', '/api/webhooks/endpoints', { key: other.apiKey })).body.data).toEqual([]);
    } finally {
      await strict.close();
    }
    // At connect time too: a host that resolves to a private address is refused by the agent, not just the form.
    const denied = await attempt(
      {
        id: 'msg_x',
        project_id: t.projectId,
        endpoint_id: endpoint.id,
        attempts: 1,
        payload: {},
        retry_from: new Date(),
        url: hookUrl,
        secret: endpoint.secret,
      },
      { timeoutMs: 1000, allowPrivate: false },
    );
    expect(denied.ok).toBe(false);
    expect(denied.response).toMatch(/not allowed/);
    // A receiver that keeps a 200 answer open, a byte at a time, is cut off at the time-out: a failed attempt.
    const slow = new WebhookReceiver();
    const slowUrl = await slow.start();
    slow.mode = 'trickle';
    try {
      const cut = await attempt(
        {
          id: 'msg_y',
          project_id: t.projectId,
          endpoint_id: endpoint.id,
          attempts: 1,
          payload: {},
          retry_from: new Date(),
          url: slowUrl,
          secret: endpoint.secret,
        },
        { timeoutMs: 1000, allowPrivate: true },
      );
      expect(cut.ok).toBe(false);
      expect(cut.response).toMatch(/no complete answer within 1000 ms/);
    } finally {
      await slow.stop();
    }
    expect(loadConfig({}).webhooks.allowPrivate).toBe(false);
    // A claim always outlives its attempt's time-out.
    expect(loadConfig({ WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_LEASE_MS: '3000' }).webhooks.leaseMs).toBe(65_000);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'on' }).webhooks.allowPrivate).toBe(true);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe(`a worker killed mid-delivery (${API_DB})`, () => {
  let server: ServerProcess | undefined;
  const hanging = new WebhookReceiver();
  let drop: () => Promise<void> = async () => {};
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await hanging.stop();
    await drop();
  });

  it('leaves the message to the next worker, which sends it with the same webhook-id (receivers deduplicate by it)', async () => {
    const url = await hanging.start();
    const fixture = await processFixture('webhooks', {
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '3000',
      WEBHOOK_POLL_MS: '100',
    });
    drop = async () => {
      await fixture.sink.stop();
      await fixture.drop();
    };
    const out = await runTs(
      'src/server/admin.ts',
      [
        'create-account',
        '--company',
        'Hook Co',
        '--project',
        'hooks',
        '--email',
        'ops@hookco.example.com',
        '--password',
        'hooks-password-1',
        '--activated',
        '--create',
      ],
      fixture.env,
    );
    const key = /api key: (\S+)/.exec(out)![1];
    server = await startServer(fixture.env);
    const call = (method: string, path: string, body?: unknown) => callServer(server!.url, key, method, path, body);
    expect((await call('POST', '/api/webhooks/endpoints', { url, event_types: ['contact.created'] })).status).toBe(200);

    // The receiver takes the request and never answers; the worker is killed while it waits.
    hanging.mode = 'hang';
    expect((await call('POST', '/api/user/users', { users: [{ email: 'dee@hookco.example.com' }] })).status).toBe(200);
    await hanging.waitFor(() => hanging.requests.length === 1);
    await server.kill('SIGKILL');

    hanging.mode = 'ok';
    server = await startServer(fixture.env);
    await hanging.waitFor(() => hanging.requests.length === 2, 60_000);
    const [first, second] = hanging.requests;
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    // Deduplicated by webhook-id, as the README tells receivers to: one contact.created.
    expect(new Set(hanging.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(hanging.requests).toHaveLength(2);
  });
});
