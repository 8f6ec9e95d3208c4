/**
 * Erasure and export end to end on a real database and a real SMTP sink (core/privacy; openapi/user.yaml
 * eraseContacts, exportContact): a contact with sends, an open, a click, a consent from a subscribe form and a
 * workflow run is erased; its contact, consents and run are gone, the stored copies of its emails are gone from the
 * folder, every report reads the same, no text or JSON column of any table holds the address; re-upserting,
 * re-importing and re-sending it skip it as erased; the person's own form submission brings it back with a new consent.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';
import { decodeLocation } from '../../src/domain/location.ts';
import { storageUnderTest } from '../helpers/s3Server.ts';
import { reportFigures } from '../helpers/reportFigures.ts';

let h: Harness;
let t: Tenant;
let other: Tenant;
let personaId: string;
let formId: string;
const ANN = 'ann.erased@example.com';
const BOB = 'bob.kept@example.com';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function api(method: string, url: string, body?: unknown, query?: Record<string, string>, key = t.apiKey): Promise<{ status: number; body: Json }> {
  return h.call(method, url, { key, body, query });
}

const post = (url: string, fields: Record<string, string>) =>
  h.app.inject({
    method: 'POST',
    url,
    remoteAddress: '203.0.113.9',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER },
    payload: new URLSearchParams(fields).toString(),
  });

/** Every report figure a customer reads, and the streams' counts. */
async function reports(): Promise<Record<string, Json>> {
  return { ...(await reportFigures((method, url) => api(method, url))), streams: (await api('GET', '/api/email/streams')).body };
}

/** Every text, varchar and json(b) column of every table of the public and pgboss schemas that holds `needle` (case-insensitive). */
async function tablesHolding(needle: string): Promise<string[]> {
  const cols = await h.runtime.database.query<{ schema: string; table: string; column: string }>(
    `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column
       FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema IN ('public', 'pgboss') AND t.table_type = 'BASE TABLE'
        AND (c.data_type IN ('text', 'character varying', 'json', 'jsonb') OR c.udt_name IN ('_text', '_varchar'))`,
  );
  const found: string[] = [];
  for (const c of cols) {
    const [{ n }] = await h.runtime.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${c.schema}"."${c.table}" WHERE "${c.column}"::text ILIKE $1`,
      [`%${needle}%`],
    );
    if (n) found.push(`${c.schema}.${c.table}.${c.column}`);
  }
  return found;
}

/** importCsv imports a CSV file of contacts into tenant `t` through the upload URL and returns the import's status once it ended. */
async function importCsv(csv: string, consent?: { consent: string; consent_by: string }): Promise<Json> {
  const res = await api('GET', '/api/user/users/upload_url', undefined, { filename: 'people.csv', type: 'text/csv', ...consent });
  expect(res.status).toBe(200);
  const url = new URL(res.body.data);
  const key = url.searchParams.get('s3_key')!;
  expect((await h.app.inject({ method: 'PUT', url: url.pathname + url.search, headers: { 'content-type': 'text/csv' }, payload: csv })).statusCode).toBe(200);
  for (let i = 0; i < 300; i++) {
    const s = (await api('GET', '/api/joblog/bulk_upload_status', undefined, { s3_key: key, since: new Date(Date.now() - 3600_000).toISOString() })).body;
    if ((s.num_in_progress_jobs === 0 && s.num_total_jobs > 1) || s.errors.length) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the import did not finish');
}

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  other = await h.tenant({ activated: true });
  personaId = (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@privacy.example.com', first_name: 'News' }] }))
    .body.data[0].id;
  await h.confirmPersonas();
  const segmentId = (await api('POST', '/api/segment/segments', { segments: [{ name: 'Newsletter', user_ids: [] }] })).body.data[0].id;
  formId = (
    await api('POST', '/api/subscriptions/forms', {
      name: 'Newsletter',
      segment_id: segmentId,
      sender_persona_id: personaId,
      heading: 'The Privacy newsletter',
      consent_text: 'I agree to receive the newsletter.',
    })
  ).body.data.id;
});
afterAll(async () => {
  await h?.close();
});

describe(`erasure (${API_DB})`, () => {
  let annId: string;
  const copies: string[] = [];
  let before: Record<string, Json>;

  it('sets up a contact with a consent, a workflow run, two emails, an open and a click', async () => {
    // The consent: the person subscribes through the form and confirms.
    const sent = h.sink.messages.length;
    expect((await post(`/s/${formId}`, { email: 'Ann.Erased@Example.com', first_name: 'Ann', website: '' })).statusCode).toBe(200);
    await h.sink.waitFor(() => h.sink.messages.length > sent);
    const confirmation = (await h.sink.parsed()).find((m) => m.envelopeTo.some((to) => to.toLowerCase() === ANN))!;
    const link = /href="http:\/\/localhost:8080(\/s\/c\/[^"]+)"/.exec(String(confirmation.html))![1];
    expect((await post(link, {})).statusCode).toBe(200);
    const upserted = await api('POST', '/api/user/users', {
      users: [
        { email: ANN, last_name: 'Erased' },
        { email: BOB, first_name: 'Bob' },
      ],
    });
    expect(upserted.status).toBe(200);
    annId = upserted.body.data[0].id;
    await h.runtime.database.query(`INSERT INTO workflow_runs (project_id, workflow_id, contact_id, email) VALUES ($1, $2, $3, $4)`, [
      t.projectId,
      randomUUID(),
      annId,
      ANN,
    ]);
    for (const to of [ANN, ANN, BOB]) {
      const res = await api('POST', '/api/email', {
        from: 'News <news@privacy.example.com>',
        to,
        subject: `Hello ${to}`,
        html: `<p>Hi ${to}, read <a href="https://privacy.example.com/news">the news</a></p>`,
        stream: 'broadcast',
        metadata: { customer: to },
        tags: [`for-${to}`],
      });
      expect(res.status).toBe(200);
    }
    await until('three emails to Ann', async () => h.sink.messages.filter((m) => m.envelopeTo.some((x) => x.toLowerCase() === ANN)).length === 3);
    await until('the email to Bob', async () => h.sink.messages.some((m) => m.envelopeTo.includes(BOB)));
    const mail = await simpleParser(h.sink.messages.filter((m) => m.envelopeTo.includes(ANN)).at(-1)!.raw);
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(String(mail.html))![1];
    const click = /href="http:\/\/localhost:8080(\/t\/c\/[^"]+)"/.exec(String(mail.html))![1];
    await new Promise((r) => setTimeout(r, 1500));
    expect((await h.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': BROWSER } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: click.replace(/&amp;/g, '&'), headers: { 'user-agent': BROWSER } })).statusCode).toBe(302);
    await until('the open and the click', async () => {
      const [{ n }] = await h.runtime.database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ('ses_event_open', 'ses_event_click') AND lower(email) = $2`,
        [t.projectId, ANN],
      );
      return n >= 2;
    });
    await until('the stored copies', async () => {
      const rows = await h.runtime.database.query<{ location: string | null }>(`SELECT location FROM outbox WHERE project_id = $1 AND lower(email) = $2`, [
        t.projectId,
        ANN,
      ]);
      return rows.filter((r) => r.location).length === 3;
    });
    const rows = await h.runtime.database.query<{ location: string }>(`SELECT location FROM outbox WHERE project_id = $1 AND lower(email) = $2`, [
      t.projectId,
      ANN,
    ]);
    for (const r of rows) {
      const at = decodeLocation(r.location)!;
      const file = path.join(h.config.storageUrl, at.bucket, at.key);
      expect(existsSync(file)).toBe(true);
      copies.push(file);
    }
    before = await reports();
    expect(before.quickstats).toBeTruthy();
    expect(await tablesHolding(ANN)).not.toEqual([]);
  });

  it("refuses an unknown id and another project's id alike, erasing nothing", async () => {
    const theirs = (await api('POST', '/api/user/users', { users: [{ email: 'theirs@example.com' }] }, undefined, other.apiKey)).body.data[0].id;
    for (const id of [theirs, randomUUID()]) {
      const res = await api('POST', '/api/user/contacts/erase', { ids: [annId, id] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.stringMatching(/^ids\[1\]: no contact /)]);
    }
    expect((await api('POST', '/api/user/contacts/erase', { emails: ['not an address'] })).status).toBe(400);
    expect((await api('POST', '/api/user/contacts/erase', {})).status).toBe(400);
    const [{ n }] = await h.runtime.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE id = ANY($1::uuid[])`, [[annId, theirs]]);
    expect(n).toBe(2);
  });

  it('exports what the project holds about the contact', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/api/user/contacts/${annId}/export`, headers: { 'x-api-key': t.apiKey } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="contact-${annId}.json"`);
    const data = res.json();
    expect(data.contact).toMatchObject({ id: annId, email: expect.stringMatching(/^ann\.erased@example\.com$/i), first_name: 'Ann', last_name: 'Erased' });
    expect(data.consents).toEqual([expect.objectContaining({ consent_text: 'I agree to receive the newsletter.', confirmed_at: expect.any(String) })]);
    expect(data.segments).toEqual([expect.objectContaining({ name: 'Newsletter' })]);
    const news = data.messages.filter((m: Json) => m.subject === `Hello ${ANN}`);
    expect(news).toHaveLength(2);
    expect(news.flatMap((m: Json) => m.events.map((e: Json) => e.name)).sort()).toEqual(
      ['email_send_result_success', 'email_send_result_success', 'ses_event_click', 'ses_event_open'].sort(),
    );
    expect((await api('GET', `/api/user/contacts/${randomUUID()}/export`)).status).toBe(404);
    const theirs = (await api('GET', '/api/user/users', undefined, undefined, other.apiKey)).body.data[0].id;
    expect((await api('GET', `/api/user/contacts/${theirs}/export`)).status).toBe(404);
  });

  it('erases the contact: data gone, copies deleted, reports unchanged, the address nowhere in clear', async () => {
    const res = await api('POST', '/api/user/contacts/erase', { emails: ['ANN.Erased@example.com'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ contacts: 1, addresses: 1, copies: 3 });
    for (const file of copies) expect(existsSync(file)).toBe(false);
    const q = h.runtime.database.query.bind(h.runtime.database);
    expect(await q(`SELECT id FROM contacts WHERE id = $1`, [annId])).toEqual([]);
    expect(await q(`SELECT id FROM consents WHERE contact_id = $1`, [annId])).toEqual([]);
    expect(await q(`SELECT id FROM workflow_runs WHERE contact_id = $1`, [annId])).toEqual([]);
    expect(await q(`SELECT contact_id FROM segment_members WHERE contact_id = $1`, [annId])).toEqual([]);
    expect(await q(`SELECT user_id FROM events WHERE user_id = $1`, [annId])).toEqual([]);
    expect(await reports()).toEqual(before);
    expect(await tablesHolding(ANN)).toEqual([]);
    // Bob is untouched.
    expect((await api('GET', '/api/user/users', undefined, { search_field: 'email', search_value: BOB })).body.data).toHaveLength(1);
    const [audit] = await q<{ action: string; actor: string; contacts: number; addresses: number; details: Json }>(
      `SELECT action, actor, contacts, addresses, details FROM privacy_audit WHERE project_id = $1 AND action = 'erase'`,
      [t.projectId],
    );
    expect(audit).toMatchObject({ action: 'erase', actor: 'api key', contacts: 1, addresses: 1 });
    expect(audit.details.consents).toEqual([expect.objectContaining({ consent_text: 'I agree to receive the newsletter.' })]);
  });

  it('re-upserting, re-importing and re-sending skip the erased address', async () => {
    const upsert = await api('POST', '/api/user/users', { users: [{ email: BOB }, { email: 'Ann.Erased@Example.com', first_name: 'Again' }] });
    expect(upsert.status).toBe(200);
    expect(upsert.body.erased).toEqual([1]);
    expect(upsert.body.data).toHaveLength(1);
    const send = await api('POST', '/api/email', { from: 'news@privacy.example.com', to: ANN, subject: 'Again', text: 'Again' });
    expect(send.status).toBe(400);
    expect(send.body.errors).toEqual([expect.stringMatching(/^to: ann\.erased@example\.com was erased/)]);
    const single = await api('POST', '/api/event/emit_send_single_email_event', {
      mailer_payload: { from: { email: 'news@privacy.example.com' }, to: [{ email: 'Ann.Erased@example.com' }], subject: 'Again', body: '<p>Again</p>' },
    });
    expect(single.status).toBe(400);
    expect(single.body.errors).toEqual([expect.stringMatching(/^mailer_payload\.to: Ann\.Erased@example\.com was erased/)]);
    const imported = await importCsv(`email,first_name\n${BOB},Bob\nANN.ERASED@example.com,Ann\nnew.person@example.com,New\n`);
    expect(imported).toMatchObject({ rows_imported: 2, rows_erased: 1, rows_failed: 0 });
    expect(await tablesHolding(ANN)).toEqual([]);
  });

  it("the person's own form submission brings the address back with a new consent", async () => {
    expect((await post(`/s/${formId}`, { email: ANN, first_name: 'Ann', website: '' })).statusCode).toBe(200);
    const [c] = await h.runtime.database.query<{ id: string }>(`SELECT id FROM contacts WHERE project_id = $1 AND lower(email) = $2`, [t.projectId, ANN]);
    expect(c).toBeTruthy();
    const consents = await api('GET', '/api/subscriptions/consents', undefined, { email: ANN });
    expect(consents.body.data).toHaveLength(1);
    expect((await api('POST', '/api/user/users', { users: [{ email: ANN, last_name: 'Back' }] })).body.erased).toEqual([]);
  });
});

describe(`imports never re-subscribe (${API_DB})`, () => {
  const CAROL = 'carol.unsubscribed@example.com';
  const DAVE = 'dave.suppressed@example.com';
  const state = async (email: string) =>
    (
      await h.runtime.database.query<{ unsubscribed_at: Date | null; suppressed: boolean }>(
        `SELECT c.unsubscribed_at, EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = c.project_id AND s.email = lower(c.email)) AS suppressed
           FROM contacts c WHERE c.project_id = $1 AND lower(c.email) = $2 AND c.archived_at IS NULL`,
        [t.projectId, email],
      )
    )[0];

  it('an import over unsubscribed and suppressed contacts leaves them so', async () => {
    expect((await api('POST', '/api/user/users', { users: [{ email: CAROL }, { email: DAVE }] })).status).toBe(200);
    await h.runtime.database.query(`UPDATE contacts SET unsubscribed_at = now() WHERE project_id = $1 AND lower(email) = $2`, [t.projectId, CAROL]);
    expect((await api('POST', '/api/event/suppressions', { emails: [DAVE] })).status).toBe(200);
    const res = await importCsv(`email,first_name\n${CAROL},Carol\n${DAVE},Dave\n`);
    expect(res).toMatchObject({ rows_imported: 2, rows_erased: 0, rows_failed: 0 });
    expect(await state(CAROL)).toMatchObject({ unsubscribed_at: expect.any(Date), suppressed: false });
    expect(await state(DAVE)).toMatchObject({ unsubscribed_at: null, suppressed: true });
    // The contacts API's upsert leaves them so too.
    expect((await api('POST', '/api/user/users', { users: [{ email: CAROL, first_name: 'Carol' }] })).status).toBe(200);
    expect((await state(CAROL)).unsubscribed_at).not.toBeNull();
    const consents = await api('GET', '/api/subscriptions/consents', undefined, { email: CAROL });
    expect(consents.body.data).toEqual([]);
  });

  it('asks for both the consent and who records it', async () => {
    const res = await api('GET', '/api/user/users/upload_url', undefined, { filename: 'people.csv', type: 'text/csv', consent: 'Signed up at our stand' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.stringMatching(/^consent_by: /)]);
  });

  it('with "these people gave consent again" it records a consent per contact and resubscribes, suppressions still hold', async () => {
    const res = await importCsv(`email\n${CAROL}\n${DAVE}\n`, { consent: 'Signed up again at our stand, March 2027', consent_by: 'Maria Admin' });
    expect(res).toMatchObject({ rows_imported: 2, rows_failed: 0 });
    expect(await state(CAROL)).toMatchObject({ unsubscribed_at: null, suppressed: false });
    expect(await state(DAVE)).toMatchObject({ suppressed: true });
    for (const email of [CAROL, DAVE]) {
      const consents = await api('GET', '/api/subscriptions/consents', undefined, { email });
      expect(consents.body.data).toEqual([
        expect.objectContaining({
          form_id: null,
          consent_text: 'Signed up again at our stand, March 2027',
          source: 'import:people.csv',
          recorded_by: 'Maria Admin',
        }),
      ]);
    }
  });
});

describe(`the person's own requests from the preference centre (${API_DB})`, () => {
  const ERIN = 'erin.self@example.com';
  let unsubscribe: string;

  /** The newest email to `to` with a subject matching `subject`, parsed. */
  const newest = async (to: string, subject: RegExp) => {
    let found: Awaited<ReturnType<typeof simpleParser>> | undefined;
    await until(`an email to ${to}`, async () => {
      for (const m of [...h.sink.messages].reverse()) {
        if (!m.envelopeTo.some((x) => x.toLowerCase() === to)) continue;
        const parsed = await simpleParser(m.raw);
        if (subject.test(parsed.subject ?? '')) {
          found = parsed;
          return true;
        }
      }
      return false;
    });
    return found!;
  };
  const audit = async (action: string) =>
    (
      await h.runtime.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM privacy_audit WHERE project_id = $1 AND action = $2`, [t.projectId, action])
    )[0].n;

  it('a marketing email links to a preference centre offering both requests', async () => {
    expect((await api('POST', '/api/user/users', { users: [{ email: ERIN, first_name: 'Erin' }] })).status).toBe(200);
    const res = await api('POST', '/api/email', {
      from: 'news@privacy.example.com',
      to: ERIN,
      subject: 'Erin news',
      html: '<p>News</p>',
      stream: 'broadcast',
    });
    expect(res.status).toBe(200);
    await newest(ERIN, /^Erin news$/);
    const raw = h.sink.messages
      .filter((m) => m.envelopeTo.includes(ERIN))
      .at(-1)!
      .raw.toString('latin1')
      .replace(/\r\n[ \t]+/g, ' ');
    unsubscribe = /^List-Unsubscribe: <http:\/\/localhost:8080(\/u\/[^>]+)>/m.exec(raw)![1];
    const page = await h.app.inject({ method: 'GET', url: unsubscribe });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Download my data');
    expect(page.body).toContain('Delete my data');
  });

  it('download: the emailed link asks on GET and downloads on POST', async () => {
    const before = await audit('export');
    const asked = await post(unsubscribe, { action: 'request-download' });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Check your inbox');
    const mail = await newest(ERIN, /confirm the download/);
    const link = /href="http:\/\/localhost:8080(\/p\/[^"]+)"/.exec(String(mail.html))![1];
    const get = await h.app.inject({ method: 'GET', url: link });
    expect(get.statusCode).toBe(200);
    expect(get.body).toContain('<form method="post">');
    expect(await audit('export')).toBe(before);
    const done = await h.app.inject({ method: 'POST', url: link });
    expect(done.statusCode).toBe(200);
    expect(done.headers['content-disposition']).toContain('attachment');
    const data = done.json();
    expect(data.contact).toMatchObject({ email: ERIN, first_name: 'Erin' });
    expect(data.messages.map((m: Json) => m.subject)).toContain('Erin news');
    expect(await audit('export')).toBe(before + 1);
    // A forged or altered link does nothing.
    expect((await h.app.inject({ method: 'POST', url: `${link.slice(0, -3)}abc` })).statusCode).toBe(404);
  });

  it('delete: the emailed link asks on GET, which changes nothing, and erases on POST', async () => {
    await post(unsubscribe, { action: 'request-delete' });
    const mail = await newest(ERIN, /^Delete your data/);
    const link = /href="http:\/\/localhost:8080(\/p\/[^"]+)"/.exec(String(mail.html))![1];
    expect((await h.app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
    const live = async () =>
      (
        await h.runtime.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE project_id = $1 AND lower(email) = $2`, [
          t.projectId,
          ERIN,
        ])
      )[0].n;
    expect(await live()).toBe(1);
    const done = await h.app.inject({ method: 'POST', url: link });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Your data is deleted');
    expect(await live()).toBe(0);
    expect(await tablesHolding(ERIN)).toEqual([]);
    // The link is spent: the contact is gone.
    expect((await h.app.inject({ method: 'GET', url: link })).statusCode).toBe(404);
    const [row] = await h.runtime.database.query<{ actor: string }>(
      `SELECT actor FROM privacy_audit WHERE project_id = $1 AND action = 'erase' ORDER BY id DESC LIMIT 1`,
      [t.projectId],
    );
    expect(row.actor).toBe('the person');
  });
});

describe(`erasure with the copies on S3 (${API_DB}, s3rver)`, () => {
  it("deletes the erased person's stored copies from the bucket and keeps the others'", async () => {
    const storage = await storageUnderTest('s3');
    const h3 = await startHarness({ workers: true, config: { storageUrl: storage.storageUrl } });
    try {
      const t3 = await h3.tenant({ activated: true });
      const call = (method: string, url: string, body?: unknown) => h3.call(method, url, { key: t3.apiKey, body });
      expect(
        (await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@s3.example.com', first_name: 'News' }] })).status,
      ).toBe(200);
      await h3.confirmPersonas();
      for (const to of ['gone@s3.example.com', 'gone@s3.example.com', 'kept@s3.example.com'])
        expect((await call('POST', '/api/email', { from: 'news@s3.example.com', to, subject: 'Hi', text: 'Hi' })).status).toBe(200);
      await until('three copies in the bucket', async () => (await storage.objects('sent-emails', t3.projectId)).length === 3);
      await until('three sent marks', async () => {
        const [{ n }] = await h3.runtime.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE project_id = $1 AND location IS NOT NULL`, [
          t3.projectId,
        ]);
        return n === 3;
      });
      const [kept] = await h3.runtime.database.query<{ location: string }>(`SELECT location FROM outbox WHERE project_id = $1 AND email = $2`, [
        t3.projectId,
        'kept@s3.example.com',
      ]);
      const erased = await call('POST', '/api/user/contacts/erase', { emails: ['GONE@s3.example.com'] });
      expect(erased.status).toBe(200);
      expect(erased.body.data).toEqual({ contacts: 0, addresses: 1, copies: 2 });
      const left = await storage.objects('sent-emails', t3.projectId);
      expect(left).toHaveLength(1);
      expect(decodeLocation(kept.location)!.key).toBe(`${t3.projectId}/${left[0]}`);
    } finally {
      await h3.close();
      await storage.close();
    }
  });
});
