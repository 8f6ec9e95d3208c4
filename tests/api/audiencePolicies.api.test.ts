/**
 * The audience-health policies end to end (core/audience/policies.ts): the settings and their 400s; the engagement
 * clock the event triggers keep (sends since the last human open, the open hours); a sunset contact and an over-cap
 * contact left out with the right `excluded` counts at the preview, at the expansion and — when they become so after
 * it — at send time; a re-engagement blast letting a sunset contact through once; send-time optimisation giving each
 * contact its best UTC hour, else the project's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { expandBlast } from '../../src/server/core/blasts/expand.ts';

let h: Harness;
let t: Tenant;
let personaId: string;
let templateId: string;
const DESKTOP = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const OFF = { sunset_days: null, sunset_min_emails: null, frequency_cap_emails: null, frequency_cap_days: null };

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const api = (method: string, url: string, body?: unknown) => h.call(method, url, { key: t.apiKey, body });
const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.runtime.database.query<T>(text, params);

/** contacts makes contacts for `emails` and returns their ids by address. */
async function contacts(emails: string[]): Promise<Record<string, string>> {
  const res = await api('POST', '/api/user/users', { users: emails.map((email) => ({ email, first_name: 'F' })) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Object.fromEntries((res.body.data as Array<{ id: string; email: string }>).map((u) => [u.email, u.id]));
}

/** blast saves a marketing blast to `ids` at `sendAt` (UTC wall clock) and returns its id. */
async function blast(ids: string[], sendAt: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = randomUUID();
  const res = await api('POST', '/api/scheduler/scheduler', {
    id,
    name: `B ${id.slice(0, 6)}`,
    template_id: templateId,
    sender_persona_id: personaId,
    to_user_ids: ids,
    send_at: sendAt,
    timezone: 'UTC',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return id;
}

/** sendNow sends a blast to `ids` due a minute ago and waits until every email went out. */
async function sendNow(ids: string[]): Promise<string> {
  const id = await blast(ids, wallClockUtc(-1));
  await until('the blast sent', async () => {
    const [r] = await q<{ sent: number; errors: string[] }>(
      "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, array_agg(last_error) AS errors FROM outbox WHERE blast_id = $1",
      [id],
    );
    if (r.errors?.some(Boolean)) throw new Error(`the blast failed: ${r.errors.join('; ')}`);
    return r.sent === ids.length;
  });
  return id;
}

const preview = async (ids: string[], extra: Record<string, unknown> = {}) => {
  const res = await api('POST', '/api/scheduler/scheduler/preview', { template_id: templateId, sender_persona_id: personaId, to_user_ids: ids, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { excluded: Record<string, number>; to_send: number; targeted: number };
};

/** pastSunset sets a contact's engagement clock as if its last `sends` emails went unopened for `days` days. */
async function pastSunset(contactId: string, sends = 5, days = 200) {
  await q(
    `INSERT INTO contact_event_counts (contact_id, project_id, sends_since_engaged, unengaged_since) VALUES ($1, $2, $3, now() - make_interval(days => $4))
     ON CONFLICT (contact_id) DO UPDATE SET sends_since_engaged = $3, unengaged_since = now() - make_interval(days => $4)`,
    [contactId, t.projectId, sends, days],
  );
}

const setPolicies = (p: Record<string, number | null>) => api('PUT', '/api/companyauthwrapper/audience_policies', { ...OFF, ...p });

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  personaId = (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@health.example.com', first_name: 'N' }] }))
    .body.data[0].id;
  await h.confirmPersonas();
  templateId = (
    await api('POST', '/api/template/templates', {
      templates: [
        {
          name: 'News',
          subject: 'News',
          type: 'TEMPLATE_MARKETING',
          html_body: '<p>Hi <a href="https://example.com/a">a</a> <a href="{{unsubscribe_link}}">u</a></p>',
        },
      ],
    })
  ).body.data[0].id;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe(`audience policies (${API_DB})`, () => {
  it('are off until set; out-of-range or half-given numbers are a 400 naming the field, and nothing changes', async () => {
    const got = await api('GET', '/api/companyauthwrapper/audience_policies');
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(OFF);
    expect(got.body.suggested).toMatchObject({ sunset_days: 180, sunset_min_emails: 5 });
    for (const [body, field] of [
      [{ sunset_days: 3, sunset_min_emails: 5 }, 'sunset_days'],
      [{ sunset_days: 180 }, 'sunset_min_emails'],
      [{ frequency_cap_emails: 3, frequency_cap_days: 366 }, 'frequency_cap_days'],
      [{ frequency_cap_emails: 0, frequency_cap_days: 7 }, 'frequency_cap_emails'],
      [{ frequency_cap_emails: 2.5, frequency_cap_days: 7 }, 'frequency_cap_emails'],
    ] as const) {
      const res = await setPolicies(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.join(' ')).toContain(field);
    }
    expect((await api('GET', '/api/companyauthwrapper/audience_policies')).body.data).toEqual(OFF);
    const other = await h.tenant({ activated: true });
    expect((await h.call('GET', '/api/companyauthwrapper/audience_policies', { key: other.apiKey })).body.data).toEqual(OFF);
  });

  it('the event triggers keep the clock: sends since the last human open, and human opens by UTC hour', async () => {
    const ids = await contacts(['clock@people.example.com']);
    const id = ids['clock@people.example.com'];
    await sendNow([id]);
    await sendNow([id]);
    const [k] = await q<{ sends_since_engaged: number; unengaged_since: Date | null; last_engaged_at: Date | null; open_hours: number[] | null }>(
      'SELECT sends_since_engaged, unengaged_since, last_engaged_at, open_hours FROM contact_event_counts WHERE contact_id = $1',
      [id],
    );
    expect(k.sends_since_engaged).toBe(2);
    expect(k.unengaged_since).not.toBeNull();
    expect(k.last_engaged_at).toBeNull();
    // A person opens the latest email an hour after it arrived.
    const mail = (await h.sink.parsed()).filter((m) => m.envelopeTo.includes('clock@people.example.com')).at(-1)!;
    const pixel = new URL(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(String(mail.html))![1].replace(/&amp;/g, '&')).pathname;
    await q("UPDATE outbox SET sent_at = sent_at - interval '1 hour' WHERE contact_id = $1", [id]);
    expect((await h.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': DESKTOP }, remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    await until('the open counted', async () => {
      const [r] = await q<{ last_engaged_at: Date | null }>('SELECT last_engaged_at FROM contact_event_counts WHERE contact_id = $1', [id]);
      return r.last_engaged_at !== null;
    });
    const [after] = await q<{ sends_since_engaged: number; unengaged_since: Date | null; open_hours: number[]; best_hour: number; hour: number }>(
      `SELECT sends_since_engaged, unengaged_since, open_hours, best_hour,
              (SELECT extract(hour FROM emitted_at AT TIME ZONE 'UTC')::int FROM events WHERE user_id = $1 AND name = 'ses_event_open' LIMIT 1) AS hour
         FROM contact_event_counts WHERE contact_id = $1`,
      [id],
    );
    expect(after.sends_since_engaged).toBe(0);
    expect(after.unengaged_since).toBeNull();
    expect(after.open_hours).toHaveLength(24);
    expect(after.open_hours.reduce((a, b) => a + b, 0)).toBe(1);
    expect(after.open_hours[after.hour]).toBe(1);
    expect(after.best_hour).toBe(after.hour);
  });

  it('leave a sunset contact and an over-cap contact out at the preview, at the expansion and at send time', async () => {
    const ids = await contacts([
      'sunset@people.example.com',
      'capped@people.example.com',
      'fine@people.example.com',
      'later-capped@people.example.com',
      'later-sunset@people.example.com',
    ]);
    const [sunset, capped, fine, laterCapped, laterSunset] = Object.values(ids);
    // Two marketing emails already went to `capped`; one to `later-capped`.
    await sendNow([capped]);
    await sendNow([capped, laterCapped]);
    await pastSunset(sunset);
    const all = [sunset, capped, fine, laterCapped, laterSunset];

    // Off: nobody is left out.
    expect((await preview(all)).excluded).toMatchObject({ sunset: 0, frequency: 0 });
    expect((await setPolicies({ sunset_days: 180, sunset_min_emails: 5, frequency_cap_emails: 2, frequency_cap_days: 7 })).status).toBe(200);

    const p = await preview(all);
    expect(p.excluded).toMatchObject({ sunset: 1, frequency: 1, unsubscribed: 0, bounced: 0 });
    expect(p.to_send).toBe(3);
    expect(p.targeted).toBe(5);

    // Expanded ahead of its send: the same accounting, rows for the three others.
    const id = await blast(all, '2031-01-01T09:00');
    expect(await expandBlast(h.runtime.ctx, id)).toBe(3);
    const saved = (await api('GET', '/api/scheduler/scheduler', undefined)).body.data.find((b: { id: string }) => b.id === id);
    expect(saved.audience.excluded).toMatchObject({ sunset: 1, frequency: 1 });
    expect(saved.audience.queued).toBe(3);
    const rows = await q<{ contact_id: string }>('SELECT contact_id FROM outbox WHERE blast_id = $1', [id]);
    expect(rows.map((r) => r.contact_id).sort()).toEqual([fine, laterCapped, laterSunset].sort());

    // Before it goes, `later-capped` reaches the cap (the cap tightens to one) and `later-sunset` passes the sunset.
    expect((await setPolicies({ sunset_days: 180, sunset_min_emails: 5, frequency_cap_emails: 1, frequency_cap_days: 7 })).status).toBe(200);
    await pastSunset(laterSunset);
    await q('UPDATE outbox SET send_at = now(), next_attempt_at = now() WHERE blast_id = $1', [id]);
    await until('the blast settled', async () => {
      const [r] = await q<{ open: number }>("SELECT count(*) FILTER (WHERE status IN ('pending', 'sending'))::int AS open FROM outbox WHERE blast_id = $1", [
        id,
      ]);
      return r.open === 0;
    });
    const settled = await q<{ contact_id: string; status: string; last_error: string | null }>(
      'SELECT contact_id, status, last_error FROM outbox WHERE blast_id = $1',
      [id],
    );
    const by = Object.fromEntries(settled.map((r) => [r.contact_id, r]));
    expect(by[fine].status).toBe('sent');
    expect(by[laterCapped]).toMatchObject({ status: 'failed' });
    expect(by[laterCapped].last_error).toMatch(/frequency: later-capped@/);
    expect(by[laterSunset]).toMatchObject({ status: 'failed' });
    expect(by[laterSunset].last_error).toMatch(/sunset: later-sunset@/);
    await setPolicies(OFF);
  });

  it('a re-engagement blast reaches a sunset contact once; transactional mail is never held', async () => {
    const ids = await contacts(['asleep@people.example.com']);
    const asleep = ids['asleep@people.example.com'];
    await pastSunset(asleep);
    expect((await setPolicies({ sunset_days: 180, sunset_min_emails: 5 })).status).toBe(200);
    expect((await preview([asleep])).excluded.sunset).toBe(1);
    // The built-in segment lists the contacts past the policy (this one and the two of the test before), and is not edited by hand.
    const listed = (await api('GET', '/api/segment/segments?limit=100')).body.data as Array<{ id: string; num_users: number; built_in?: string | null }>;
    const builtIn = listed.filter((g) => g.built_in === 'sunset');
    expect(builtIn).toHaveLength(1);
    const [{ n }] = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM contact_event_counts WHERE project_id = $1 AND sends_since_engaged >= 5 AND unengaged_since <= now() - interval '180 days'`,
      [t.projectId],
    );
    expect(n).toBe(3);
    expect(builtIn[0].num_users).toBe(n);
    const rename = await api('PATCH', `/api/segment/segments/${builtIn[0].id}`, { name: 'Mine' });
    expect(rename.status).toBe(400);
    expect(rename.body.errors.join(' ')).toContain('built-in');
    const first = await preview([asleep], { re_engagement: true });
    expect(first.excluded.sunset).toBe(0);
    expect(first.to_send).toBe(1);
    const id = await blast([asleep], '2031-01-02T09:00', { re_engagement: true });
    expect(await expandBlast(h.runtime.ctx, id)).toBe(1);
    // Once: a second re-engagement blast leaves it out again.
    expect((await preview([asleep], { re_engagement: true })).excluded.sunset).toBe(1);
    const again = await blast([asleep], '2031-01-03T09:00', { re_engagement: true });
    expect(await expandBlast(h.runtime.ctx, again)).toBe(0);
    // A transactional template is not marketing: no policy holds it.
    const tx = (
      await api('POST', '/api/template/templates', {
        templates: [{ name: 'Receipt', subject: 'Receipt', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Thanks</p>' }],
      })
    ).body.data[0].id;
    const res = await api('POST', '/api/scheduler/scheduler/preview', { template_id: tx, sender_persona_id: personaId, to_user_ids: [asleep] });
    expect(res.body.data.excluded.sunset).toBe(0);
    expect(res.body.data.to_send).toBe(1);
    await setPolicies(OFF);
  });

  it('send-time optimisation sends each contact at its best UTC hour, else the project’s, within 24 h', async () => {
    const own = await h.tenant({ activated: true });
    const key = own.apiKey;
    const call = (method: string, url: string, body?: unknown) => h.call(method, url, { key, body });
    const persona = (
      await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'sto@health.example.com', first_name: 'S' }] })
    ).body.data[0].id;
    await h.confirmPersonas();
    const template = (
      await call('POST', '/api/template/templates', {
        templates: [{ name: 'STO', subject: 'STO', type: 'TEMPLATE_MARKETING', html_body: '<p>Hi <a href="{{unsubscribe_link}}">u</a></p>' }],
      })
    ).body.data[0].id;
    const users = (
      await call('POST', '/api/user/users', {
        users: ['early@sto.example.com', 'noon@sto.example.com', 'evening@sto.example.com', 'new@sto.example.com'].map((email) => ({ email })),
      })
    ).body.data as Array<{ id: string; email: string }>;
    const id = Object.fromEntries(users.map((u) => [u.email.split('@')[0], u.id]));
    // Their human opens so far, by UTC hour: early mostly at 03, noon at 12, evening at 19 (and once at 03).
    const hours = (pairs: Array<[number, number]>) => {
      const a = Array<number>(24).fill(0);
      for (const [hr, n] of pairs) a[hr] = n;
      return a;
    };
    for (const [who, counts] of [
      [
        'early',
        hours([
          [3, 5],
          [12, 1],
        ]),
      ],
      ['noon', hours([[12, 2]])],
      [
        'evening',
        hours([
          [19, 5],
          [3, 1],
        ]),
      ],
    ] as const)
      await q('INSERT INTO contact_event_counts (contact_id, project_id, open_hours) VALUES ($1, $2, $3)', [id[who], own.projectId, counts]);
    // The project's own opens (the report aggregates): a reader opens an email now, in person.
    const reader = (await call('POST', '/api/user/users', { users: [{ email: 'reader@sto.example.com' }] })).body.data[0].id;
    const first = randomUUID();
    expect(
      (
        await call('POST', '/api/scheduler/scheduler', {
          id: first,
          name: 'First',
          template_id: template,
          sender_persona_id: persona,
          to_user_ids: [reader],
          send_at: wallClockUtc(-1),
          timezone: 'UTC',
        })
      ).status,
    ).toBe(200);
    await until('the first email sent', async () => (await q("SELECT 1 FROM outbox WHERE blast_id = $1 AND status = 'sent'", [first])).length === 1);
    const firstMail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('reader@sto.example.com'))!;
    const firstPixel = new URL(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(String(firstMail.html))![1].replace(/&amp;/g, '&')).pathname;
    await q("UPDATE outbox SET sent_at = sent_at - interval '1 hour' WHERE blast_id = $1", [first]);
    expect((await h.app.inject({ method: 'GET', url: firstPixel, headers: { 'user-agent': DESKTOP }, remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    const [{ hour: readHour }] = await q<{ hour: number }>(
      "SELECT extract(hour FROM emitted_at AT TIME ZONE 'UTC')::int AS hour FROM events WHERE user_id = $1 AND name = 'ses_event_open'",
      [reader],
    );
    // Without optimisation it is refused with the contact's own zone.
    const bad = await call('POST', '/api/scheduler/scheduler', {
      id: randomUUID(),
      name: 'Local',
      template_id: template,
      sender_persona_id: persona,
      to_user_ids: Object.values(id),
      send_at: '2031-03-04T10:30',
      timezone: "Contact's local timezone",
      send_time_optimised: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.join(' ')).toContain('send_time_optimised');
    const blastId = randomUUID();
    const saved = await call('POST', '/api/scheduler/scheduler', {
      id: blastId,
      name: 'Best hour',
      template_id: template,
      sender_persona_id: persona,
      to_user_ids: Object.values(id),
      send_at: '2031-03-04T10:30',
      timezone: 'UTC',
      send_time_optimised: true,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.send_time_optimised).toBe(true);
    expect(await expandBlast(h.runtime.ctx, blastId)).toBe(4);
    const rows = await q<{ contact_id: string; send_at: Date; send_time_source: string }>(
      'SELECT contact_id, send_at, send_time_source FROM outbox WHERE blast_id = $1',
      [blastId],
    );
    const at = Object.fromEntries(rows.map((r) => [r.contact_id, [new Date(r.send_at).toISOString(), r.send_time_source]]));
    expect(at[id.early]).toEqual(['2031-03-05T03:00:00.000Z', 'contact']);
    expect(at[id.noon]).toEqual(['2031-03-04T12:00:00.000Z', 'contact']);
    expect(at[id.evening]).toEqual(['2031-03-04T19:00:00.000Z', 'contact']);
    // No opens of its own: the project's best hour, the hour its opens counted in the reports fell in (the reader's).
    const projectAt = readHour === 10 ? '2031-03-04T10:30:00.000Z' : `2031-03-0${readHour > 10 ? 4 : 5}T${String(readHour).padStart(2, '0')}:00:00.000Z`;
    expect(at[id.new]).toEqual([projectAt, 'project']);

    // The report compares them: sent now, and `early` (sent at its best hour) opened by a person.
    await q('UPDATE outbox SET send_at = now(), next_attempt_at = now() WHERE blast_id = $1', [blastId]);
    await until('the optimised blast sent', async () => {
      const [r] = await q<{ sent: number }>("SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent FROM outbox WHERE blast_id = $1", [blastId]);
      return r.sent === 4;
    });
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('early@sto.example.com'))!;
    const pixel = new URL(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(String(mail.html))![1].replace(/&amp;/g, '&')).pathname;
    await q("UPDATE outbox SET sent_at = sent_at - interval '1 hour' WHERE blast_id = $1", [blastId]);
    expect((await h.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': DESKTOP }, remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    const report = await call('GET', '/api/reporting/sendtimeoptimisation');
    expect(report.status).toBe(200);
    expect(report.body.data).toEqual([
      { group: 'best_hour', emails: 3, opened: 1, open_rate: 1 / 3 },
      { group: 'fallback', emails: 1, opened: 0, open_rate: 0 },
    ]);
    // Another project sees none of it.
    expect((await api('GET', '/api/reporting/sendtimeoptimisation')).body.data).toEqual([]);
  });
});
