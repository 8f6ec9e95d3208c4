/**
 * Subscription topics, the preference centre and hosted subscribe forms with double opt-in through
 * the gateways and the public pages, on a real database and SMTP sink: a form submission makes a pending contact with
 * a consent record and mails a confirmation link; a GET of the link confirms nothing, its button does; pending
 * contacts get no marketing mail; the honeypot and the per-address limit; topics on templates and blasts, the
 * preference centre's "leave this topic" (page and RFC 8058 one-click), the audience accounting and the send-time
 * check, the is_subscribed_to_topic filter, and the unsubscribes counted per topic.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT } from '../../src/domain/events.ts';
import { removeUnconfirmed } from '../../src/server/core/subscriptions/index.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';
import { displayToTree, type Display } from '../../src/domain/workflowGraph.ts';

let h: Harness;
let t: Tenant;
let personaId: string;
let segmentId: string;
const topics: Record<string, string> = {};

async function api(method: string, url: string, body?: unknown, query?: Record<string, string>): Promise<Json> {
  const res = await h.call(method, url, { key: t.apiKey, body, query });
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** newForm creates a subscribe form into the Newsletter segment, mailing from the test's persona; returns it. */
const newForm = async (name: string, heading: string, consent_text: string) =>
  (await api('POST', '/api/subscriptions/forms', { name, segment_id: segmentId, sender_persona_id: personaId, heading, consent_text })).data;

/** form posts a form-encoded body to a public page. */
const post = (url: string, fields: Record<string, string | string[]>, ip = '203.0.113.7') => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return h.app.inject({
    method: 'POST',
    url,
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Mozilla/5.0 test' },
    payload: body.toString(),
  });
};

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  personaId = (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@topics.example.com', first_name: 'News' }] }))
    .data[0].id;
  await h.sink.waitFor(() => h.sink.messages.length >= 1);
  await h.confirmPersonas();
  segmentId = (await api('POST', '/api/segment/segments', { segments: [{ name: 'Newsletter', user_ids: [] }] })).data[0].id;
  for (const name of ['Product news', 'Weekly digest']) topics[name] = (await api('POST', '/api/subscriptions/topics', { name })).data.id;
});
afterAll(async () => {
  await h?.close();
});

describe(`subscribe forms with double opt-in (${API_DB})`, () => {
  let formId: string;
  let link: string;

  it('creates a form with its hosted page and snippet; bad fields are named', async () => {
    const bad = await h.call('POST', '/api/subscriptions/forms', {
      key: t.apiKey,
      body: { name: ' ', segment_id: randomUUID(), sender_persona_id: personaId, heading: 'Join', consent_text: 'ok' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['name: Required field', expect.stringMatching(/^segment_id: no segment/)]);
    const form = await newForm('Footer', 'The Topics newsletter', 'I agree to receive the newsletter. Unsubscribe at any time.');
    formId = form.id;
    expect(form.url).toBe(`http://localhost:8080/s/${form.id}`);
    expect(form.snippet).toContain(`action="http://localhost:8080/s/${form.id}"`);
    expect(form.snippet).toContain('name="website"');
    const page = await h.app.inject({ method: 'GET', url: `/s/${formId}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The Topics newsletter');
    expect(page.body).toContain('I agree to receive the newsletter.');
    expect((await h.app.inject({ method: 'GET', url: `/s/${randomUUID()}` })).statusCode).toBe(404);
  });

  it('a submission makes a pending contact with its consent and mails the link; a GET confirms nothing, the button does', async () => {
    const sent = h.sink.messages.length;
    const res = await post(`/s/${formId}`, { email: 'Pia@Example.com', first_name: 'Pia', website: '' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Check your inbox');
    await h.sink.waitFor(() => h.sink.messages.length > sent);
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.some((to) => to.toLowerCase() === 'pia@example.com'))!;
    expect(mail.subject).toBe('Please confirm your subscription to The Topics newsletter');
    link = /href="http:\/\/localhost:8080(\/s\/c\/[^"]+)"/.exec(String(mail.html))![1];
    // Nobody is tracked before they consent: no open pixel, no rewritten link, no honeypot link.
    expect(String(mail.html)).not.toMatch(/\/t\/(o|c)\//);
    expect(String(mail.text)).not.toMatch(/\/t\/(o|c)\//);
    expect([...String(mail.html).matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual([`http://localhost:8080${link}`]);

    const [contact] = await h.runtime.database.query<{ id: string; confirmation_pending_at: Date | null; first_name: string }>(
      'SELECT id, confirmation_pending_at, first_name FROM contacts WHERE project_id = $1 AND lower(email) = $2',
      [t.projectId, 'pia@example.com'],
    );
    expect(contact.confirmation_pending_at).not.toBeNull();
    expect(contact.first_name).toBe('Pia');

    const ask = await h.app.inject({ method: 'GET', url: link });
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('Confirm subscription');
    const still = await api('GET', '/api/subscriptions/consents', undefined, { email: 'pia@example.com' });
    expect(still.data).toEqual([expect.objectContaining({ confirmed_at: null, submitted_ip: '203.0.113.7', submitted_user_agent: 'Mozilla/5.0 test' })]);

    const confirm = await h.app.inject({ method: 'POST', url: link, remoteAddress: '198.51.100.9', headers: { 'user-agent': 'Clicker/1' } });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Subscription confirmed');
    const [consent] = (await api('GET', '/api/subscriptions/consents', undefined, { contact_id: contact.id })).data;
    expect(consent).toMatchObject({
      email: 'Pia@Example.com',
      form_name: 'Footer',
      consent_text: 'I agree to receive the newsletter. Unsubscribe at any time.',
      confirmed_ip: '198.51.100.9',
      confirmed_user_agent: 'Clicker/1',
    });
    expect(consent.confirmed_at).not.toBeNull();
    const [after] = await h.runtime.database.query<{ confirmation_pending_at: Date | null; member: boolean }>(
      `SELECT c.confirmation_pending_at, EXISTS (SELECT 1 FROM segment_members m WHERE m.contact_id = c.id AND m.segment_id = $2) AS member
         FROM contacts c WHERE c.id = $1`,
      [contact.id, segmentId],
    );
    expect(after).toEqual({ confirmation_pending_at: null, member: true });
    expect((await api('GET', '/api/subscriptions/forms')).data[0]).toMatchObject({ pending: 0, confirmed: 1 });
  });

  it('a pending contact gets no marketing mail (left out as unconfirmed)', async () => {
    await post(`/s/${formId}`, { email: 'quinn@example.com' });
    const [q] = await h.runtime.database.query<{ id: string }>('SELECT id FROM contacts WHERE project_id = $1 AND email = $2', [
      t.projectId,
      'quinn@example.com',
    ]);
    const preview = (await api('POST', '/api/scheduler/scheduler/preview', { template_id: await template('Plain', null), to_user_ids: [q.id] })).data;
    expect(preview.excluded).toMatchObject({ unconfirmed: 1 });
    expect(preview.to_send).toBe(0);
  });

  it('a subscriber enters the user_upserted workflows when confirming, not before; a submission never renames a contact', async () => {
    const workflowId = randomUUID();
    const display: Display = {
      nodes: [
        { id: 'r', type: 'user_upserted', position: { x: 0, y: 0 }, properties: {} },
        { id: 'd', type: 'delay', position: { x: 0, y: 0 }, properties: { delayMS: 3_600_000 } },
      ],
      links: [{ id: 'r-d', from: { nodeId: 'r', portId: 'output' }, to: { nodeId: 'd', portId: 'input' } }],
    };
    const saved = await api('POST', '/api/workflowwrapper/workflows', { id: workflowId, name: 'Welcome', display, tree: displayToTree(display).tree });
    const ended = async () => (await api('GET', '/api/joblog/joblog')).data.find((j: { id: string }) => j.id === saved.data.job_log_entry_id)?.ended_at;
    for (let i = 0; i < 100 && !(await ended()); i++) await new Promise((r) => setTimeout(r, 100));
    const form = await newForm('Sidebar', 'The sidebar list', 'I agree.');
    const runs = async (email: string) =>
      (await h.runtime.database.query('SELECT 1 FROM workflow_runs WHERE workflow_id = $1 AND lower(email) = $2', [workflowId, email])).length;

    const sent = h.sink.messages.length;
    expect((await post(`/s/${form.id}`, { email: 'ravi@example.com', first_name: 'Ravi' }, '203.0.113.80')).statusCode).toBe(200);
    await h.sink.waitFor(() => h.sink.messages.slice(sent).some((m) => m.envelopeTo.includes('ravi@example.com')));
    expect(await runs('ravi@example.com')).toBe(0); // pending: not mailable yet
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('ravi@example.com'))!;
    const confirmLink = /href="http:\/\/localhost:8080(\/s\/c\/[^"]+)"/.exec(String(mail.html))![1];
    expect((await h.app.inject({ method: 'POST', url: confirmLink })).statusCode).toBe(200);
    expect(await runs('ravi@example.com')).toBe(1);

    // An existing contact's name is the customer's: a visitor's submission leaves it, and enters nothing.
    await api('POST', '/api/user/users', { users: [{ email: 'sam@example.com', first_name: 'Samuel' }] });
    const before = await runs('sam@example.com');
    expect((await post(`/s/${form.id}`, { email: 'SAM@example.com', first_name: 'Mallory' }, '203.0.113.81')).statusCode).toBe(200);
    const [sam] = await h.runtime.database.query<{ first_name: string; email: string; version: number; confirmation_pending_at: Date | null }>(
      'SELECT first_name, email, version, confirmation_pending_at FROM contacts WHERE project_id = $1 AND lower(email) = $2 AND archived_at IS NULL',
      [t.projectId, 'sam@example.com'],
    );
    expect(sam).toEqual({ first_name: 'Samuel', email: 'sam@example.com', version: 1, confirmation_pending_at: null });
    expect(await runs('sam@example.com')).toBe(before);
    await api('POST', `/api/workflowwrapper/workflows/${workflowId}/disable`);
  });

  it("removes contacts that did not confirm within the form's days, keeping their consent records", async () => {
    await post(`/s/${formId}`, { email: 'late@example.com' }, '198.51.100.77');
    const [late] = await h.runtime.database.query<{ id: string }>('SELECT id FROM contacts WHERE project_id = $1 AND email = $2', [
      t.projectId,
      'late@example.com',
    ]);
    expect(await removeUnconfirmed(h.runtime.database.query.bind(h.runtime.database) as QueryFn)).toBe(0); // still within 7 days
    // Eight days pass (the submission and the contact as it wrote it both move back).
    await post(`/s/${formId}`, { email: 'kept@example.com' }, '198.51.100.78');
    for (const email of ['late@example.com', 'kept@example.com']) {
      await h.runtime.database.query("UPDATE consents SET submitted_at = now() - interval '8 days' WHERE project_id = $1 AND lower(email) = $2", [
        t.projectId,
        email,
      ]);
      await h.runtime.database.query("UPDATE contacts SET updated_at = now() - interval '8 days' WHERE project_id = $1 AND email = $2", [t.projectId, email]);
    }
    // The customer's own import or API call since then makes a pending contact theirs: it stays.
    await api('POST', '/api/user/users', { users: [{ email: 'kept@example.com', first_name: 'Kept' }] });
    expect(await removeUnconfirmed(h.runtime.database.query.bind(h.runtime.database) as QueryFn)).toBe(1);
    const [gone] = await h.runtime.database.query<{ archived_at: Date | null }>('SELECT archived_at FROM contacts WHERE id = $1', [late.id]);
    expect(gone.archived_at).not.toBeNull();
    expect((await api('GET', '/api/subscriptions/consents', undefined, { contact_id: late.id })).data).toHaveLength(1);
    // A confirmed contact is never removed, however old its submission.
    await h.runtime.database.query("UPDATE consents SET submitted_at = now() - interval '30 days' WHERE lower(email) = 'pia@example.com'");
    expect(await removeUnconfirmed(h.runtime.database.query.bind(h.runtime.database) as QueryFn)).toBe(0);
  });

  it('validates exactly as the contacts API does: an address or a name the API refuses is a 400 naming the field, and nothing is made', async () => {
    const contactsBefore = await h.runtime.database.query('SELECT id FROM contacts WHERE project_id = $1 ORDER BY id', [t.projectId]);
    const outboxBefore = await h.runtime.database.query('SELECT id FROM outbox WHERE project_id = $1 ORDER BY id', [t.projectId]);
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}@example.com`.slice(-412);
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ email: long }, 'email', 'Email: Must be at most 254 characters'],
      [{ email: `${'l'.repeat(65)}@example.com` }, 'email', 'Email: The part before the @ must be at most 64 characters'],
      [{ email: 'rita@example.com', first_name: 'R'.repeat(201) }, 'first_name', 'First name: must be at most 200 characters (it has 201)'],
      [{ email: 'sam@example.com', first_name: 'S'.repeat(1_000_000) }, 'first_name', 'First name: must be at most 200 characters (it has 1000000)'],
    ];
    for (const [fields, field, message] of cases) {
      const res = await post(`/s/${formId}`, fields, '198.51.100.200');
      expect(res.statusCode, field).toBe(400);
      expect(res.body).toContain(message);
      // The contacts API refuses the same input, naming the same field.
      const api400 = await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: fields.email, first_name: fields.first_name }] } });
      expect(api400.status).toBe(400);
      expect(api400.body.errors.join(' ')).toMatch(new RegExp(`users(\\[0\\]\\.|/0/)${field}`));
    }
    expect(await h.runtime.database.query('SELECT id FROM contacts WHERE project_id = $1 ORDER BY id', [t.projectId])).toEqual(contactsBefore);
    expect(await h.runtime.database.query('SELECT id FROM outbox WHERE project_id = $1 ORDER BY id', [t.projectId])).toEqual(outboxBefore);
    // The longest address RFC 5321 allows is taken, as the API takes it.
    const longest = `${'x'.repeat(64)}@${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(49)}.example.com`;
    expect(longest.length).toBe(254);
    expect((await post(`/s/${formId}`, { email: longest }, '198.51.100.201')).statusCode).toBe(200);
    expect((await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: longest }] } })).status).toBe(200);
  });

  it('mails one address at most 3 confirmation links a day per form, whoever submits it', async () => {
    const before = h.sink.messages.length;
    for (let i = 0; i < 5; i++) expect((await post(`/s/${formId}`, { email: 'victim@example.com' }, `198.51.100.${100 + i}`)).statusCode).toBe(200);
    await h.sink.waitFor(() => h.sink.messages.length >= before + 3);
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.sink.messages.slice(before).filter((m) => m.envelopeTo.includes('victim@example.com'))).toHaveLength(3);
    expect((await api('GET', '/api/subscriptions/consents', undefined, { email: 'victim@example.com' })).data).toHaveLength(3);
  });

  it('the honeypot takes nothing, a bad address is named, and one address may submit 10 times an hour', async () => {
    const before = (await api('GET', '/api/subscriptions/forms')).data[0].pending;
    const bot = await post(`/s/${formId}`, { email: 'bot@example.com', website: 'http://spam.example' }, '192.0.2.50');
    expect(bot.statusCode).toBe(200);
    expect(bot.body).toContain('Check your inbox');
    const bad = await post(`/s/${formId}`, { email: 'not an address' }, '192.0.2.50');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Please check what you entered. Email: Invalid email');
    for (let i = 0; i < 9; i++) await post(`/s/${formId}`, { email: `burst${i}@example.com` }, '192.0.2.50');
    const limited = await post(`/s/${formId}`, { email: 'burst-last@example.com' }, '192.0.2.50');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    const rows = await h.runtime.database.query('SELECT 1 FROM contacts WHERE project_id = $1 AND email = $2', [t.projectId, 'bot@example.com']);
    expect(rows).toEqual([]);
    expect((await api('GET', '/api/subscriptions/forms')).data[0].pending).toBe(before + 9);
  });
});

describe(`a subscribe form of an account still in its sandbox (${API_DB})`, () => {
  it('tells a visitor in plain words that sign-ups are not open, saves nothing, and still takes the sender persona’s own address', async () => {
    const sandboxed = await h.tenant();
    const call = async (url: string, body: unknown) => {
      const res = await h.call('POST', url, { key: sandboxed.apiKey, body });
      expect(res.status).toBe(200);
      return res.body.data;
    };
    const [persona] = await call('/api/senderpersonawrapper/sender_personas', {
      sender_personas: [{ email: 'owner@sandbox.example.com', first_name: 'Owner' }],
    });
    const [segment] = await call('/api/segment/segments', { segments: [{ name: 'Sandbox list', user_ids: [] }] });
    const form = await call('/api/subscriptions/forms', {
      name: 'Early form',
      segment_id: segment.id,
      sender_persona_id: persona.id,
      heading: 'The Early letter',
      consent_text: 'Yes, send me the letter.',
    });
    const stranger = await post(`/s/${form.id}`, { email: 'visitor@example.com' }, '192.0.2.80');
    expect(stranger.statusCode).toBe(403);
    expect(stranger.body).toContain('Sign-ups are not open yet');
    expect(stranger.body).toContain('The Early letter is not taking new subscribers yet. Nothing was saved; please try again in a few days.');
    // Not the visitor's fault, and not the product's internal words.
    expect(stranger.body).not.toMatch(/Please check|sandbox/i);
    const rows = await h.runtime.database.query('SELECT 1 FROM contacts WHERE project_id = $1 AND lower(email) = $2', [
      sandboxed.projectId,
      'visitor@example.com',
    ]);
    expect(rows).toEqual([]);
    const own = await post(`/s/${form.id}`, { email: 'owner@sandbox.example.com' }, '192.0.2.81');
    expect(own.statusCode).toBe(200);
    expect(own.body).toContain('Check your inbox');
  });
});

/** template saves a marketing template with `topic` (or none) and resolves its id. */
async function template(name: string, topic: string | null): Promise<string> {
  return (
    await api('POST', '/api/template/templates', {
      templates: [{ name, subject: name, type: 'TEMPLATE_MARKETING', topic_id: topic, html_body: '<p>Hi</p><a href="{{unsubscribe_link}}">Manage</a>' }],
    })
  ).data[0].id;
}

/** blast sends a blast due now to `ids` and resolves when it is distributed, with its audience accounting. */
async function blast(templateId: string, ids: string[], topicId?: string): Promise<{ id: string; audience: Json }> {
  const id = randomUUID();
  await api('POST', '/api/scheduler/scheduler', {
    id,
    name: `B ${id.slice(0, 6)}`,
    template_id: templateId,
    sender_persona_id: personaId,
    to_user_ids: ids,
    send_at: wallClockUtc(-1),
    timezone: 'UTC',
    ...(topicId ? { topic_id: topicId } : {}),
  });
  const end = Date.now() + 30_000;
  for (;;) {
    const [done] = await h.runtime.database.query(
      "SELECT 1 FROM job_log WHERE job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND start_details->>'scheduled_email_group_id' = $1",
      [id],
    );
    if (done) break;
    if (Date.now() > end) throw new Error('blast not distributed');
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await api('GET', '/api/scheduler/scheduler', undefined, { ids: id })).data[0];
}

describe(`subscription topics and the preference centre (${API_DB})`, () => {
  it('a topic unsubscribe skips the contact for that topic only, counted per topic', async () => {
    const ids = (await api('POST', '/api/user/users', { users: [{ email: 'rae@example.com' }, { email: 'sam@example.com' }] })).data.map(
      (c: { id: string }) => c.id,
    );
    const news = await template('News 1', topics['Product news']);
    await blast(news, ids);
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('rae@example.com') && m.subject === 'News 1')!;
    const centre = /href="http:\/\/localhost:8080(\/u\/[^"]+)"/.exec(String(mail.html))![1];
    const page = await h.app.inject({ method: 'GET', url: centre });
    expect(page.body).toContain('Email preferences');
    expect(page.body).toContain('Unsubscribe from Product news');
    expect(page.body).toContain('Weekly digest');
    const left = await post(centre, { action: 'topic' });
    expect(left.body).toContain('no longer receives Product news email');

    // The next Product news blast skips Rae (unsubscribed); a Weekly digest blast still reaches her.
    const second = await blast(await template('News 2', topics['Product news']), ids);
    expect(second.audience).toMatchObject({ queued: 1, excluded: { unsubscribed: 1 } });
    const digest = await blast(await template('Digest 1', null), ids, topics['Weekly digest']);
    expect(digest.audience).toMatchObject({ queued: 2, excluded: { unsubscribed: 0 } });
    const subjects = (await h.sink.parsed()).filter((m) => m.envelopeTo.includes('rae@example.com')).map((m) => m.subject);
    expect(subjects).toEqual(['News 1', 'Digest 1']);

    const filter = await api('POST', '/api/segment/segments/filter_users', {
      user_filters: [{ attribute: 'is_subscribed_to_topic', values: [topics['Product news']] }],
      limit: 10,
    });
    expect(JSON.stringify(filter)).not.toContain('rae@example.com');
    expect(JSON.stringify(filter)).toContain('sam@example.com');

    // One-click (RFC 8058) leaves the email's topic: Sam's Weekly digest email.
    const samMail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('sam@example.com') && m.subject === 'Digest 1')!;
    const samLink = /href="http:\/\/localhost:8080(\/u\/[^"]+)"/.exec(String(samMail.html))![1];
    const oneClick = await h.app.inject({
      method: 'POST',
      url: samLink,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    const [sam] = await h.runtime.database.query<{ unsubscribed_at: Date | null; unsubscribed_topic_ids: string[] }>(
      'SELECT unsubscribed_at, unsubscribed_topic_ids FROM contacts WHERE id = $1',
      [ids[1]],
    );
    expect(sam).toEqual({ unsubscribed_at: null, unsubscribed_topic_ids: [topics['Weekly digest']] });

    const counted = (await api('GET', '/api/subscriptions/topics')).data;
    expect(counted).toEqual([
      expect.objectContaining({ name: 'Product news', unsubscribed_contacts: 1, unsubscribes: 1 }),
      expect.objectContaining({ name: 'Weekly digest', unsubscribed_contacts: 1, unsubscribes: 1 }),
    ]);
    const events = await h.runtime.database.query<{ json: Record<string, Json> }>('SELECT json FROM events WHERE project_id = $1 AND name = $2', [
      t.projectId,
      EVENT.unsubscribed,
    ]);
    expect(events.map((e) => e.json.topic).sort()).toEqual(['Product news', 'Weekly digest']);

    // Unsubscribed from everything, saving with nothing ticked leaves her so.
    await post(centre, { action: 'all' });
    await post(centre, { action: 'save', resubscribe: '1' });
    const [still] = await h.runtime.database.query<{ unsubscribed_at: Date | null }>('SELECT unsubscribed_at FROM contacts WHERE id = $1', [ids[0]]);
    expect(still.unsubscribed_at).not.toBeNull();
    const unsubscribesBefore = (await api('GET', '/api/subscriptions/topics')).data.map((x: { unsubscribes: number }) => x.unsubscribes);

    // Saving preferences with topics ticked subscribes Rae to them again, and records no topic as left.
    await post(centre, { action: 'save', resubscribe: '1', topic: [topics['Product news'], topics['Weekly digest']] });
    const [rae] = await h.runtime.database.query<{ unsubscribed_topic_ids: string[]; unsubscribed_at: Date | null }>(
      'SELECT unsubscribed_topic_ids, unsubscribed_at FROM contacts WHERE id = $1',
      [ids[0]],
    );
    expect(rae).toEqual({ unsubscribed_topic_ids: [], unsubscribed_at: null });
    expect((await api('GET', '/api/subscriptions/topics')).data.map((x: { unsubscribes: number }) => x.unsubscribes)).toEqual(unsubscribesBefore);
  });

  it('names a duplicate topic, and a topic another project owns is refused on a template', async () => {
    const dup = await h.call('POST', '/api/subscriptions/topics', { key: t.apiKey, body: { name: 'product NEWS' } });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual(['name: a topic named product NEWS already exists']);
    const other = await h.tenant();
    const foreign = await h.call('POST', '/api/template/templates', {
      key: other.apiKey,
      body: {
        templates: [
          { name: 'X', subject: 'X', type: 'TEMPLATE_MARKETING', topic_id: topics['Product news'], html_body: '<a href="{{unsubscribe_link}}">u</a>' },
        ],
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0]).toMatch(/^templates\[0\]\.topic_id: no topic/);
    expect((await h.call('GET', '/api/subscriptions/topics', { key: other.apiKey })).body.data).toEqual([]);
  });
});
