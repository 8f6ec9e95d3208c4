/**
 * The sending API and message streams end to end on a real database and a real SMTP sink: POST /api/email with To,
 * Cc, Bcc, Reply-To, extra headers, attachments, tags and metadata; templates with variables; refusals that queue
 * nothing; the batch with per-message results; Idempotency-Key (same body, different body, in flight); streams (a
 * broadcast unsubscribe does not stop transactional mail, a hard bounce stops both); the message activity list and a
 * message's timeline.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { requestFingerprint } from '../../src/server/idempotency.ts';
import type { Json } from '../helpers/json.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { loadConfig } from '../../src/server/config.ts';

let h: Harness;
let t: Tenant;
let other: Tenant;
let templateId: string;
const FROM = 'Shop <orders@shop.example.com>';

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The copies the sink received for `email` (as envelope recipient), parsed. */
async function copiesFor(email: string) {
  return Promise.all(
    h.sink.messages.filter((m) => m.envelopeTo.includes(email)).map(async (m) => ({ raw: m.raw.toString('utf8'), parsed: await simpleParser(m.raw) })),
  );
}

async function outboxCount(): Promise<number> {
  const [r] = await h.runtime.database.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE project_id = $1', [t.projectId]);
  return r.n;
}

async function send(body: Json, headers: Record<string, string> = {}) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/email',
    headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

/** The head of a raw message (up to the blank line). */
const head = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n'));

beforeAll(async () => {
  h = await startHarness({ workers: true, config: { deferRetryMs: 300, webhooks: { ...loadConfig({}).webhooks, allowPrivate: true, pollMs: 100 } } });
  t = await h.tenant({ activated: true });
  other = await h.tenant({ activated: true });
  const persona = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
    key: t.apiKey,
    body: { sender_personas: [{ email: 'orders@shop.example.com', first_name: 'Shop' }] },
  });
  expect(persona.status).toBe(200);
  await h.confirmPersonas();
  const tpl = await h.call('POST', '/api/template/templates', {
    key: t.apiKey,
    body: {
      templates: [{ name: 'Reset', subject: 'Reset for {{user.email}}: {{code}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Your code is {{code}}</p>' }],
    },
  });
  templateId = tpl.body.data[0].id;
});
afterAll(async () => {
  await h?.close();
});

describe(`POST /api/email (${API_DB})`, () => {
  it('sends one copy to each of To, Cc and Bcc; no copy names the Bcc; headers, attachments, tags and metadata go along', async () => {
    const res = await send({
      from: FROM,
      to: ['Ann Lee <ann@api.example.com>'],
      cc: 'cat@api.example.com',
      bcc: ['hidden@api.example.com'],
      reply_to: 'help@shop.example.com',
      subject: 'Your order {{not a variable}}',
      html: '<p>Thanks for order <b>1234</b></p><script>alert(1)</script>',
      text: 'Thanks for order 1234',
      headers: { 'X-Order': '1234', 'In-Reply-To': '<prev@shop.example.com>' },
      attachments: [{ filename: 'receipt.txt', content: Buffer.from('receipt 1234').toString('base64'), content_type: 'text/plain' }],
      tags: ['receipt'],
      metadata: { order: '1234' },
    });
    expect(res.status).toBe(200);
    expect(res.body.stream).toBe('transactional');
    expect(res.body.recipients.map((r: { email: string; status: string }) => [r.email, r.status])).toEqual([
      ['ann@api.example.com', 'queued'],
      ['cat@api.example.com', 'queued'],
      ['hidden@api.example.com', 'queued'],
    ]);
    expect(res.body.message_id).toMatch(/^<[0-9a-f-]+@shop\.example\.com>$/);
    await until(
      async () =>
        (await copiesFor('hidden@api.example.com')).length > 0 &&
        (await copiesFor('cat@api.example.com')).length > 0 &&
        (await copiesFor('ann@api.example.com')).length > 0,
    );
    for (const address of ['ann@api.example.com', 'cat@api.example.com', 'hidden@api.example.com']) {
      const copies = await copiesFor(address);
      expect(copies).toHaveLength(1);
      const [{ raw, parsed }] = copies;
      expect(head(raw)).not.toMatch(/hidden@api\.example\.com/i);
      expect(head(raw)).not.toMatch(/^bcc:/im);
      expect(parsed.from?.value).toEqual([{ address: 'orders@shop.example.com', name: 'Shop' }]);
      expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : []).toEqual([{ address: 'ann@api.example.com', name: 'Ann Lee' }]);
      expect(parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.text : '').toBe('cat@api.example.com');
      expect(parsed.replyTo?.text).toBe('help@shop.example.com');
      expect(parsed.subject).toBe('Your order {{not a variable}}');
      expect(parsed.headers.get('x-order')).toBe('1234');
      expect(parsed.inReplyTo).toBe('<prev@shop.example.com>');
      expect(parsed.html).toContain('<b>1234</b>');
      expect(parsed.html).not.toContain('<script');
      // Transactional: no open pixel, links untouched, no List-Unsubscribe.
      expect(parsed.html).not.toMatch(/\/t\/o\//);
      expect(parsed.headerLines.some((l) => l.key === 'list-unsubscribe')).toBe(false);
      expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['receipt.txt', 'receipt 1234']]);
    }
    const bcc = res.body.recipients[2].message_id;
    expect(new Set(res.body.recipients.map((r: { message_id: string }) => r.message_id)).size).toBe(3);
    const listed = await h.call('GET', '/api/messages', { key: t.apiKey, query: { tag: 'receipt' } });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((m: { email: string }) => m.email).sort()).toEqual(['ann@api.example.com', 'cat@api.example.com', 'hidden@api.example.com']);
    expect(listed.body.data[0]).toMatchObject({ source: 'api', stream: 'transactional', metadata: { order: '1234' }, tags: ['receipt'] });
    await until(async () => (await h.call('GET', `/api/messages/${encodeURIComponent(bcc)}`, { key: t.apiKey })).body.data.status === 'sent');
    const detail = await h.call('GET', `/api/messages/${encodeURIComponent(bcc)}`, { key: t.apiKey });
    expect(detail.body.data.timeline.map((e: { type: string }) => e.type)).toEqual(['queued', 'sent']);
    expect(detail.body.data.timeline[1].detail).toMatch(/^250/);
    expect(detail.body.data.timeline[1].relay).toMatch(/127\.0\.0\.1:/);
    expect(detail.body.data.copy.text).toContain('Thanks for order 1234');
    // Another project sees nothing of it.
    expect((await h.call('GET', `/api/messages/${encodeURIComponent(bcc)}`, { key: other.apiKey })).status).toBe(404);
    expect((await h.call('GET', '/api/messages', { key: other.apiKey, query: { tag: 'receipt' } })).body.data).toEqual([]);
  });

  it('fills a template from the contact and the variables', async () => {
    const res = await send({ from: 'orders@shop.example.com', to: 'vars@api.example.com', template_id: templateId, variables: { code: 'K-77' } });
    expect(res.status).toBe(200);
    await until(async () => (await copiesFor('vars@api.example.com')).length > 0);
    const [{ parsed }] = await copiesFor('vars@api.example.com');
    expect(parsed.subject).toBe('Reset for vars@api.example.com: K-77');
    expect(parsed.html).toContain('Your code is K-77');
    expect(parsed.text).toContain('Your code is K-77');
  });

  it('refuses bad messages with a 400 naming the field, and queues nothing', async () => {
    const before = await outboxCount();
    const cases: Array<[Json, RegExp]> = [
      [{ to: 'a@api.example.com', subject: 's', text: 't' }, /from/],
      [{ from: FROM, to: 'not-an-address', subject: 's', text: 't' }, /^to\[0\]: not-an-address/],
      [{ from: FROM, to: 'a@api.example.com', subject: 's' }, /^html: /],
      [{ from: FROM, to: 'a@api.example.com', subject: 'one\r\nBcc: evil@x.example.com', text: 't' }, /^subject: must be one line/],
      [
        { from: FROM, to: 'a@api.example.com', subject: 's', text: 't', headers: { 'X-Evil': 'a\r\nBcc: evil@x.example.com' } },
        /^headers\.X-Evil: a header value must be one line/,
      ],
      [{ from: FROM, to: 'a@api.example.com', subject: 's', text: 't', headers: { Bcc: 'evil@x.example.com' } }, /^headers\.Bcc: is set by the service/],
      [
        { from: 'nobody@elsewhere.example.com', to: 'a@api.example.com', subject: 's', text: 't' },
        /^from: nobody@elsewhere\.example\.com is not a verified sender persona/,
      ],
      [{ from: FROM, to: Array.from({ length: 51 }, (_, i) => `r${i}@api.example.com`), subject: 's', text: 't' }, /to/],
      [{ from: FROM, to: 'a@api.example.com', subject: 's', text: 't', stream: 'nope' }, /^stream: no stream nope/],
      [{ from: FROM, to: 'a@api.example.com', template_id: randomUUID() }, /^template_id: no template/],
    ];
    for (const [body, pattern] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.errors.join(' | ')).toMatch(pattern);
    }
    expect(await outboxCount()).toBe(before);
  });

  it('a sandboxed project may send only to its personas and the simulator', async () => {
    const sandboxed = await h.tenant();
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/email',
      headers: { 'x-api-key': sandboxed.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ from: FROM, to: 'a@api.example.com', subject: 's', text: 't' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.join(' ')).toMatch(/^from: /);
  });
});

describe(`POST /api/email/batch (${API_DB})`, () => {
  it('queues each valid message and names the refused ones by index', async () => {
    const res = await h.call('POST', '/api/email/batch', {
      key: t.apiKey,
      body: {
        messages: [
          { from: FROM, to: 'b1@api.example.com', subject: 'one', text: '1' },
          { from: 'stranger@elsewhere.example.com', to: 'b2@api.example.com', subject: 'two', text: '2' },
          { from: FROM, to: 'b3@api.example.com', subject: 'three', text: '3' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.queued).toBe(2);
    expect(res.body.failed).toBe(1);
    expect(res.body.data[1].errors[0]).toMatch(/^messages\[1\]\.from: /);
    expect(res.body.data[2].recipients[0].email).toBe('b3@api.example.com');
    // Stored in the batch's order: the activity lists them as given.
    const idOf = async (messageId: string) => Number((await h.call('GET', `/api/messages/${encodeURIComponent(messageId)}`, { key: t.apiKey })).body.data.id);
    expect(await idOf(res.body.data[0].message_id)).toBeLessThan(await idOf(res.body.data[2].message_id));
    await until(async () => (await copiesFor('b3@api.example.com')).length === 1 && (await copiesFor('b1@api.example.com')).length === 1);
    expect(await copiesFor('b2@api.example.com')).toHaveLength(0);
    expect((await h.call('POST', '/api/email/batch', { key: t.apiKey, body: { messages: [] } })).status).toBe(400);
  });
});

describe(`Idempotency-Key (${API_DB})`, () => {
  it('replays the same body, refuses another body (422) and a request still in flight (409)', async () => {
    const body = { from: FROM, to: 'idem@api.example.com', subject: 'once', text: 'once' };
    const key = randomUUID();
    const first = await send(body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await send(body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const different = await send({ ...body, subject: 'twice' }, { 'idempotency-key': key });
    expect(different.status).toBe(422);
    expect(different.body.errors[0]).toMatch(/^Idempotency-Key: /);
    await until(async () => (await copiesFor('idem@api.example.com')).length === 1);
    const [{ n }] = await h.runtime.database.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox WHERE project_id = $1 AND email = 'idem@api.example.com'",
      [t.projectId],
    );
    expect(n).toBe(1);

    // A request with this key is under way in another process: its claim is in flight.
    const inFlightKey = randomUUID();
    const inFlightBody = { ...body, to: 'flight@api.example.com' };
    await h.runtime.database.query(
      `INSERT INTO event_batches (project_id, idempotency_key, request_hash, response, in_flight) VALUES ($1, $2, $3, '{}', true)`,
      [t.projectId, inFlightKey, requestFingerprint(inFlightBody)],
    );
    const busy = await send(inFlightBody, { 'idempotency-key': inFlightKey });
    expect(busy.status).toBe(409);
    expect(busy.body.errors[0]).toMatch(/still being handled/);
    // The batch operation keeps its own answers under the same rules.
    const batchKey = randomUUID();
    const batch = { messages: [{ from: FROM, to: 'idem-batch@api.example.com', subject: 'b', text: 'b' }] };
    const b1 = await h.app.inject({
      method: 'POST',
      url: '/api/email/batch',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json', 'idempotency-key': batchKey },
      payload: JSON.stringify(batch),
    });
    const b2 = await h.app.inject({
      method: 'POST',
      url: '/api/email/batch',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json', 'idempotency-key': batchKey },
      payload: JSON.stringify(batch),
    });
    expect(b2.headers['idempotent-replayed']).toBe('true');
    expect(b2.json()).toEqual(b1.json());
    // A key belongs to its project: another project's same key is a new request.
    const theirs = await h.app.inject({
      method: 'POST',
      url: '/api/email',
      headers: { 'x-api-key': other.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
      payload: JSON.stringify(body),
    });
    expect(theirs.statusCode).toBe(400);
  });
});

describe(`Message streams (${API_DB})`, () => {
  it('lists the built-in streams and adds one', async () => {
    const list = await h.call('GET', '/api/email/streams', { key: t.apiKey });
    expect(
      list.body.data.slice(0, 2).map((s: { name: string; kind: string; tracking: boolean; built_in: boolean }) => [s.name, s.kind, s.tracking, s.built_in]),
    ).toEqual([
      ['broadcast', 'broadcast', true, true],
      ['transactional', 'transactional', false, true],
    ]);
    const made = await h.call('POST', '/api/email/streams', { key: t.apiKey, body: { name: 'password-resets', kind: 'transactional' } });
    expect(made.status).toBe(200);
    expect(made.body.data).toMatchObject({ name: 'password-resets', kind: 'transactional', tracking: false, built_in: false });
    expect((await h.call('POST', '/api/email/streams', { key: t.apiKey, body: { name: 'password-resets', kind: 'broadcast' } })).status).toBe(400);
    expect((await h.call('POST', '/api/email/streams', { key: t.apiKey, body: { name: 'broadcast', kind: 'broadcast' } })).status).toBe(400);
    expect((await h.call('PUT', '/api/email/streams/nope', { key: t.apiKey, body: { tracking: true } })).status).toBe(404);
  });

  it('a broadcast unsubscribe does not stop transactional mail; a hard bounce stops both', async () => {
    const who = 'dora@streams.example.com';
    await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: who, first_name: 'Dora' }] } });
    // A broadcast email carries one-click unsubscribe (RFC 8058): Dora uses it.
    const news = await send({ from: FROM, to: who, subject: 'News', html: '<p>News</p>', stream: 'broadcast' });
    expect(news.body.recipients[0].status).toBe('queued');
    await until(async () => (await copiesFor(who)).length === 1);
    const [{ parsed }] = await copiesFor(who);
    const unsubscribe = (parsed.headerLines.find((l) => l.key === 'list-unsubscribe')?.line ?? '').replace(/^[^<]*<|>.*$/g, '');
    expect(unsubscribe).toMatch(/\/u\//);
    const one = await h.app.inject({
      method: 'POST',
      url: new URL(unsubscribe).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(one.statusCode).toBeLessThan(300);

    const again = await send({ from: FROM, to: who, subject: 'More news', text: 'news', stream: 'broadcast' });
    expect(again.body.recipients[0]).toMatchObject({ status: 'suppressed' });
    expect(again.body.recipients[0].reason).toMatch(/^unsubscribed: /);
    const receipt = await send({ from: FROM, to: who, subject: 'Receipt', text: 'receipt' });
    expect(receipt.body.recipients[0].status).toBe('queued');
    await until(async () => (await copiesFor(who)).length === 2);
    expect((await copiesFor(who)).map((c) => c.parsed.subject)).toEqual(['News', 'Receipt']);

    const bounced = await h.call('POST', '/api/event/feedback', {
      key: t.apiKey,
      body: { notifications: [{ type: 'bounce', email: who, bounce_type: 'Permanent', diagnostic_code: 'smtp; 550 5.1.1 no such user' }] },
    });
    expect(bounced.status).toBe(200);
    for (const stream of ['transactional', 'broadcast']) {
      const res = await send({ from: FROM, to: who, subject: `After bounce ${stream}`, text: 'x', stream });
      expect(res.body.recipients[0].status).toBe('suppressed');
      expect(res.body.recipients[0].reason).toMatch(/^suppressed: /);
    }
    const suppressed = await h.call('GET', '/api/messages', { key: t.apiKey, query: { recipient: who, status: 'suppressed' } });
    expect(suppressed.body.data).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 500));
    expect((await copiesFor(who)).length).toBe(2);
  });
});

describe(`A message's timeline (${API_DB})`, () => {
  it('lists each webhook delivery about the message', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const endpoint = await h.call('POST', '/api/webhooks/endpoints', { key: t.apiKey, body: { url, event_types: ['email.sent'] } });
      expect(endpoint.status).toBe(200);
      const sent = await send({ from: FROM, to: 'hooked@timeline.example.com', subject: 'Hooked', text: 'x' });
      await receiver.waitFor(() => receiver.ofType('email.sent').some((r) => r.body.includes(sent.body.message_id)));
      const timeline = async () => (await h.call('GET', `/api/messages/${encodeURIComponent(sent.body.message_id)}`, { key: t.apiKey })).body.data.timeline;
      await until(async () => (await timeline()).some((e: { type: string; detail: string }) => e.type === 'webhook' && /delivered/.test(e.detail)));
      const hook = (await timeline()).find((e: { type: string }) => e.type === 'webhook');
      expect(hook.detail).toBe(`email.sent to ${url}: delivered (204)`);
      const removed = await h.call('DELETE', `/api/webhooks/endpoints/${endpoint.body.data.id}`, { key: t.apiKey });
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    } finally {
      await receiver.stop();
    }
  });

  it("records each deferral with the relay's words, then the send; a refusal fails it", async () => {
    h.sink.refuse.set('later@timeline.example.com', { code: 451, message: '4.2.0 Mailbox busy, try again' });
    h.sink.refuse.set('never@timeline.example.com', { code: 550, message: '5.1.1 No such user here' });
    const later = await send({ from: FROM, to: 'later@timeline.example.com', subject: 'Later', text: 'x' });
    const never = await send({ from: FROM, to: 'never@timeline.example.com', subject: 'Never', text: 'x' });
    const timeline = async (id: string) => (await h.call('GET', `/api/messages/${encodeURIComponent(id)}`, { key: t.apiKey })).body.data;
    await until(async () => (await timeline(later.body.message_id)).timeline.some((e: { type: string }) => e.type === 'deferred'));
    expect((await timeline(later.body.message_id)).status).toBe('deferred');
    h.sink.refuse.delete('later@timeline.example.com');
    await until(async () => (await timeline(later.body.message_id)).status === 'sent');
    const done = await timeline(later.body.message_id);
    const types = done.timeline.map((e: { type: string }) => e.type);
    expect(types[0]).toBe('queued');
    expect(types.at(-1)).toBe('sent');
    expect(types.slice(1, -1).every((x: string) => x === 'deferred')).toBe(true);
    expect(done.timeline[1].detail).toMatch(/451.*Mailbox busy/);
    await until(async () => (await timeline(never.body.message_id)).status === 'failed');
    const failed = await timeline(never.body.message_id);
    expect(failed.timeline.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['queued', 'failed']));
    expect(
      failed.timeline
        .filter((e: { type: string }) => e.type === 'failed')
        .map((e: { detail: string }) => e.detail)
        .join(' '),
    ).toMatch(/550.*No such user/);
    expect(failed.copy).toBeNull();
  });
});

describe(`GET /api/messages (${API_DB})`, () => {
  it('finds messages by recipient, subject and Message-ID, pages with a cursor, and refuses bad filters', async () => {
    const sent = await send({ from: FROM, to: 'find-me@api.example.com', subject: 'Findable subject 42', text: 'x' });
    const byRecipient = await h.call('GET', '/api/messages', { key: t.apiKey, query: { recipient: 'Find-Me@api.example.com' } });
    expect(byRecipient.body.data.map((m: { message_id: string }) => m.message_id)).toEqual([sent.body.message_id]);
    const bySubject = await h.call('GET', '/api/messages', { key: t.apiKey, query: { subject: 'findable SUBJECT' } });
    expect(bySubject.body.data.map((m: { email: string }) => m.email)).toEqual(['find-me@api.example.com']);
    const byId = await h.call('GET', '/api/messages', { key: t.apiKey, query: { message_id: sent.body.message_id.replace(/[<>]/g, '') } });
    expect(byId.body.data).toHaveLength(1);
    const page1 = await h.call('GET', '/api/messages', { key: t.apiKey, query: { limit: 2 } });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await h.call('GET', '/api/messages', { key: t.apiKey, query: { limit: 2, cursor: page1.body.next_cursor } });
    expect(Number(page2.body.data[0].id)).toBeLessThan(Number(page1.body.data[1].id));
    expect((await h.call('GET', '/api/messages', { key: t.apiKey, query: { status: 'lost' } })).status).toBe(400);
    expect((await h.call('GET', '/api/messages', { key: t.apiKey, query: { since: 'yesterday' } })).status).toBe(400);
    expect((await h.call('GET', '/api/messages/99999999', { key: t.apiKey })).status).toBe(404);
    expect((await h.call('GET', '/api/messages')).status).toBe(401);
  });
});
