/**
 * Sent-email copies on both storages (spec part 1 §1: "an exact copy of every sent email is stored"): a
 * blast sent by the workers, with its copies written by a render thread to a folder or to S3 (s3rver), the copy
 * equal to the bytes the relay received and read back by the viewer (GET {reporting}/email_send_results, by location
 * and by address). And on S3, an outage mid-blast: no email goes out without its copy — the ones whose copy cannot be
 * written are deferred (back to pending, with a reason starting `store:`) — and they all go out, once each, when S3
 * is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT } from '../../src/domain/events.ts';
import { decodeLocation } from '../../src/domain/location.ts';
import { openStorage } from '../../src/server/storage/storage.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { STORAGE_KINDS, storageUnderTest, type StorageUnderTest } from '../helpers/s3Server.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';

let h: Harness;
let t: Tenant;
let storage: StorageUnderTest;
let personaId: string;
let templateId: string;

/** start builds a harness with the workers on the storage of `kind`; the copies are written by one render thread. */
async function start(kind: (typeof STORAGE_KINDS)[number], config: Parameters<typeof startHarness>[0] = {}): Promise<void> {
  storage = await storageUnderTest(kind);
  h = await startHarness({ workers: true, ...config, config: { storageUrl: storage.storageUrl, renderThreads: 1, ...config.config } });
  t = await h.tenant({ activated: true });
  const api = async (url: string, body: unknown) => {
    const res = await h.call('POST', url, { key: t.apiKey, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data[0].id as string;
  };
  personaId = await api('/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@copies.example.com', first_name: 'Nora' }] });
  expect(await h.confirmPersonas()).toBe(1);
  templateId = await api('/api/template/templates', {
    templates: [{ name: 'Copy', subject: 'For {{user.first_name}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Hello {{user.first_name}}</p>' }],
  });
}

async function stop(): Promise<void> {
  await h?.close();
  await storage?.close();
}

/** blast saves a blast to a new contact for each of `emails`, due a minute ago; resolves its id. */
async function blast(emails: string[]): Promise<string> {
  const users = await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: emails.map((email, i) => ({ email, first_name: `N${i}` })) } });
  expect(users.status).toBe(200);
  const id = crypto.randomUUID();
  const res = await h.call('POST', '/api/scheduler/scheduler', {
    key: t.apiKey,
    body: {
      id,
      name: `Blast ${id.slice(0, 8)}`,
      template_id: templateId,
      sender_persona_id: personaId,
      to_user_ids: users.body.data.map((u: { id: string }) => u.id),
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}

/** sentEvents returns the blast's send-success events: recipient and the copy's location. */
async function sentEvents(blastId: string): Promise<Array<{ email: string; location: string }>> {
  const res = await h.call('GET', '/api/event/all_events', {
    key: t.apiKey,
    query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendSuccess, limit: 500 },
  });
  return res.body.data
    .filter((e: { json: { blast_id?: string } }) => e.json.blast_id === blastId)
    .map((e: { email: string; json: { location: string } }) => ({ email: e.email, location: e.json.location }));
}

/**
 * expectCopies checks each sent email of the blast: its stored copy is byte for byte what the relay received, the
 * viewer shows its HTML, and the object is in the storage under sent-emails/<project>/.
 */
async function expectCopies(blastId: string, emails: string[]): Promise<void> {
  const sent = await sentEvents(blastId);
  expect(sent.map((e) => e.email).sort()).toEqual([...emails].sort());
  const delivered = await h.sink.parsed();
  const objects = await storage.objects('sent-emails', t.projectId);
  const copies = openStorage(h.config.storageUrl);
  for (const { email, location } of sent) {
    const mail = delivered.filter((m) => m.envelopeTo.includes(email));
    expect(mail, email).toHaveLength(1);
    const raw = h.sink.messages.find((m) => m.envelopeTo.includes(email))!.raw;
    const { bucket, key } = decodeLocation(location)!;
    expect(bucket).toBe('sent-emails');
    expect(objects).toContain(key.slice(t.projectId.length + 1));
    expect((await copies.get(bucket, key))?.equals(raw), `copy of ${email}`).toBe(true);
    const viewed = await h.call('GET', '/api/reporting/email_send_results', { key: t.apiKey, query: { locations: location } });
    expect(viewed.body.errors).toEqual([]);
    expect(viewed.body.send_results[0].mailer_payload).toMatchObject({ body: mail[0].html, subject: mail[0].subject, to: email });
  }
}

describe.each(STORAGE_KINDS)(`sent copies (${API_DB}, %s storage)`, (kind) => {
  beforeAll(async () => start(kind));
  afterAll(stop);

  it("stores each email's exact copy from a render thread, and the viewer reads it back by location and by address", async () => {
    const emails = ['ann@copies.example.com', 'bob@copies.example.com', 'cy@copies.example.com'];
    const before = h.sink.count;
    const id = await blast(emails);
    await h.sink.waitFor(() => h.sink.count >= before + emails.length);
    // The sent mark (and its event) is written just after the relay accepts.
    await expect.poll(async () => (await sentEvents(id)).length, { timeout: 10_000 }).toBe(emails.length);
    await expectCopies(id, emails);
    const history = await h.call('GET', '/api/reporting/email_send_results', { key: t.apiKey, query: { email: 'BOB@copies.example.com' } });
    expect(history.body).toMatchObject({ total: 1, errors: [] });
    expect(history.body.send_results[0].mailer_payload.subject).toBe('For N1');
  });
});

describe(`an S3 outage mid-blast (${API_DB})`, () => {
  const RECIPIENTS = 12;
  // Two emails in flight at once, so that the outage falls between the first and the last; retried 200 ms after.
  beforeAll(async () => start('s3', { sendPollMs: 50, config: { sendConcurrency: 2, deferRetryMs: 200 } }));
  afterAll(stop);

  it('defers the emails whose copy cannot be stored (reason store: …), sends none without its copy, and sends them all once S3 is back', async () => {
    const q = h.runtime.database.query.bind(h.runtime.database);
    const emails = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@outage.example.com`);
    const before = h.sink.count;
    // The relay stalls, so the first emails wait there with their copies stored; S3 goes away meanwhile.
    h.sink.hold();
    const id = await blast(emails);
    await h.sink.waitFor(() => h.sink.heldCount >= 1, 30_000);
    await storage.s3!.stop();
    h.sink.release({ acceptHeld: true });

    type Row = { email: string; status: string; last_error: string | null; attempts: number };
    const rows = () => q<Row>('SELECT email, status, last_error, attempts FROM outbox WHERE blast_id = $1', [id]);
    await expect
      .poll(async () => (await rows()).filter((r) => r.status === 'pending' && r.last_error?.startsWith('store: ')).length, { timeout: 30_000 })
      .toBeGreaterThan(0);
    const during = await rows();
    const deferred = during.filter((r) => r.last_error?.startsWith('store: '));
    expect(deferred[0].last_error).toMatch(/^store: S3 PutObject mailwright-test\/mw\/sent-emails\/.+ failed: .*ECONNREFUSED/);
    expect(during.filter((r) => r.status === 'failed')).toEqual([]);
    // Nothing deferred for its copy was delivered, and some of the blast is still to go.
    await new Promise((r) => setTimeout(r, 500));
    const deliveredDuring = new Set(h.sink.messages.slice(before).flatMap((m) => m.envelopeTo));
    for (const r of (await rows()).filter((x) => x.status !== 'sent')) expect(deliveredDuring.has(r.email), r.email).toBe(false);
    expect(deliveredDuring.size).toBeLessThan(RECIPIENTS);
    // The outage shows in /metrics (deferrals of reason class 'store'), and an upload meanwhile is a 503 that stores nothing.
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(metrics.body).toMatch(/mailwright_emails_deferred_total\{[^}]*reason="store"[^}]*\} [1-9]/);
    const upload = await h.call('GET', '/api/template/templates/images/upload_url', { key: t.apiKey, query: { filename: 'logo.png', type: 'image/png' } });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const put = await h.app.inject({ method: 'PUT', url: new URL(upload.body.data).pathname, headers: { 'content-type': 'image/png' }, payload: png });
    expect(put.statusCode, put.body).toBe(503);
    expect(put.headers['retry-after']).toBe('30');
    expect(put.json().errors[0]).toMatch(/^storage: the file store cannot be reached right now/);

    await storage.s3!.start();
    await h.sink.waitFor(() => h.sink.count - before >= RECIPIENTS, 60_000);
    await expect.poll(async () => (await rows()).filter((r) => r.status === 'sent').length, { timeout: 10_000 }).toBe(RECIPIENTS);
    await new Promise((r) => setTimeout(r, 500)); // anything sent twice would have arrived
    const perRecipient = new Map<string, number>();
    for (const m of h.sink.messages.slice(before)) for (const to of m.envelopeTo) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    expect([...perRecipient.keys()].sort()).toEqual([...emails].sort());
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    await expectCopies(id, emails);
    const after = (await h.call('GET', '/api/scheduler/scheduler', { key: t.apiKey, query: { ids: id } })).body.data[0];
    expect([after.scheduled_emails, after.sent_emails, after.failed_emails]).toEqual([RECIPIENTS, RECIPIENTS, 0]);
  });
});
