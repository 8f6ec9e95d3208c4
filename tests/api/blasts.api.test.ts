/**
 * Email blasts end to end on a real database and a real SMTP sink (spec part 2 §2-§5 Email blast, DESIGN.md §6):
 * validation, time-zone maths through expansion, the send pipeline, stored copies, events, job log, reports,
 * the sandbox, single sends and disabling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandBlast } from '../../src/server/core/blasts/expand.ts';
import { logFinishedBlasts } from '../../src/server/core/blasts/finished.ts';
import { verifyPersonasByEmail } from '../../src/server/core/operator/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';
import { checkEmail } from '../../src/domain/validation.ts';

let h: Harness;
let t: Tenant;
let personaId: string;
let templateId: string;
const key = () => t.apiKey;

const HTML = `<html><body><p>Hello {{user.first_name}} ({{user.json.plan}}) from {{sender_persona.first_name}}.</p>
<p>Missing: [{{user.nonexistent}}]</p><a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;

async function contacts(users: Array<Record<string, unknown>>): Promise<string[]> {
  const res = await h.call('POST', '/api/user/users', { key: key(), body: { users } });
  expect(res.status).toBe(200);
  return res.body.data.map((u: { id: string }) => u.id);
}

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  personaId = (
    await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: key(),
      body: { sender_personas: [{ email: 'news@sender.example.com', first_name: 'Nora', last_name: 'Sender' }] },
    })
  ).body.data[0].id;
  expect(await h.confirmPersonas()).toBe(1);
  templateId = (
    await h.call('POST', '/api/template/templates', {
      key: key(),
      body: { templates: [{ name: 'Welcome', subject: 'Hi {{user.first_name}}', type: 'TEMPLATE_MARKETING', html_body: HTML }] },
    })
  ).body.data[0].id;
});
afterAll(async () => {
  await h?.close();
});

describe(`blast validation (${API_DB})`, () => {
  it('names every invalid field with the spec’s messages', async () => {
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id: '5f4b1f7e-1c1a-1c1e-9a51-0c2d3e4f5a6b',
        name: ' ',
        sender_persona_id: personaId,
        send_at: '2026-02-30T12:30',
        timezone: 'Mars/Olympus',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      'id: must be a generated v4 UUID',
      'name: Required field',
      'template_id: Required field',
      'to_segment_ids: You must choose at least one segment or contact to send the email to',
      'send_at: must be a date and time YYYY-MM-DDTHH:mm',
      'timezone: unknown time zone Mars/Olympus',
    ]);
  });

  it('rejects a malformed body at the schema with the field named', async () => {
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: { id: crypto.randomUUID(), name: 'x', send_at: 'soon', timezone: 'UTC', colour: 'red' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(expect.arrayContaining(['sender_persona_id: Required field', 'colour: unknown field']));
    expect(res.body.errors.some((e: string) => e.startsWith('send_at: '))).toBe(true);
  });

  it('refuses to save a blast id twice (a saved blast is read-only)', async () => {
    const [c] = await contacts([{ email: 'dup@example.com' }]);
    const body = {
      id: crypto.randomUUID(),
      name: 'Once',
      template_id: templateId,
      sender_persona_id: personaId,
      to_user_ids: [c],
      send_at: '2099-05-01T12:30',
      timezone: 'UTC',
    };
    expect((await h.call('POST', '/api/scheduler/scheduler', { key: key(), body })).status).toBe(200);
    const again = await h.call('POST', '/api/scheduler/scheduler', { key: key(), body: { ...body, name: 'Twice' } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatch(/^id: an email blast with this id already exists/);
  });
});

describe(`the audience's email rule in SQL (${API_DB})`, () => {
  it('email_is_valid agrees with checkEmail on every address of a corpus', async () => {
    const corpus = [
      'a@b.co',
      ' padded@example.com ',
      '\tTab@Example.COM\n',
      'v@x.io',
      'dave.v@v.v',
      '',
      '   ',
      'no-at.example.com',
      'two@@example.com',
      'a@b@c.com',
      '@example.com',
      'local@',
      'in side@example.com',
      'nodot@localhost',
      'dot@.example.com',
      'dot@example.com.',
      'ünïcode@exämple.de',
      'x@y.z',
      'a.b+tag@sub.domain.example',
    ];
    const q = h.runtime.database.query.bind(h.runtime.database);
    const [row] = await q<{ valid: boolean[] }>('SELECT array_agg(email_is_valid(e) ORDER BY n) AS valid FROM unnest($1::text[]) WITH ORDINALITY AS t(e, n)', [
      corpus,
    ]);
    expect(Object.fromEntries(corpus.map((e, i) => [e, row.valid[i]]))).toEqual(Object.fromEntries(corpus.map((e) => [e, !checkEmail(e)])));
  });
});

describe(`send-time maths (${API_DB})`, () => {
  it('a fixed-zone blast goes at that zone’s instant', async () => {
    const [c] = await contacts([{ email: 'fixed@example.com' }]);
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id: crypto.randomUUID(),
        name: 'NY',
        template_id: templateId,
        sender_persona_id: personaId,
        to_user_ids: [c],
        send_at: '2027-03-14T09:00',
        timezone: 'America/New_York',
      },
    });
    expect(res.body.data.send_at_utc).toBe('2027-03-14T13:00:00.000Z');
  });

  it('a "Contact’s local timezone" blast at 09:00 gives each contact 09:00 in its own zone, across a DST change', async () => {
    const ids = await contacts([
      { email: 'ny@example.com', timezone: 'America/New_York' }, // DST starts 2027-03-14 02:00 local: 09:00 is EDT (UTC-4)
      { email: 'london@example.com', timezone: 'Europe/London' }, // still GMT until 2027-03-28
      { email: 'tokyo@example.com', timezone: 'Asia/Tokyo' }, // UTC+9, no DST
      { email: 'nozone@example.com' }, // no zone: the documented UTC fallback
    ]);
    const id = crypto.randomUUID();
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id,
        name: 'Local nine',
        template_id: templateId,
        sender_persona_id: personaId,
        to_user_ids: ids,
        send_at: '2027-03-14T09:00',
        timezone: 'contacts local timezone',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.send_in_users_timezone).toBe(true);
    expect(res.body.data.timezone).toBe('Contact’s local timezone');
    expect(res.body.data.send_at_utc).toBeNull();
    expect(await expandBlast(h.runtime.ctx, id)).toBe(4);
    expect(await expandBlast(h.runtime.ctx, id)).toBe(0); // expanding twice changes nothing
    const rows = await h.runtime.database.query<{ email: string; send_at: Date; zone: string }>(
      'SELECT email, send_at, zone FROM outbox WHERE blast_id = $1 ORDER BY email',
      [id],
    );
    expect(rows.map((r) => [r.email, r.zone, new Date(r.send_at).toISOString()])).toEqual([
      ['london@example.com', 'Europe/London', '2027-03-14T09:00:00.000Z'],
      ['nozone@example.com', 'UTC', '2027-03-14T09:00:00.000Z'],
      ['ny@example.com', 'America/New_York', '2027-03-14T13:00:00.000Z'],
      ['tokyo@example.com', 'Asia/Tokyo', '2027-03-14T00:00:00.000Z'],
    ]);
    const blast = (await h.call('GET', '/api/scheduler/scheduler', { key: key(), query: { ids: id } })).body.data[0];
    expect(blast.sent_at_per_timezone).toEqual({
      'Europe/London': '2027-03-14T09:00:00.000Z',
      UTC: '2027-03-14T09:00:00.000Z',
      'America/New_York': '2027-03-14T13:00:00.000Z',
      'Asia/Tokyo': '2027-03-14T00:00:00.000Z',
    });
    expect(blast.scheduled_emails).toBe(4);
    await h.call('DELETE', `/api/scheduler/scheduler/${id}`, { key: key() });
  });
});

describe(`expansion in chunks (${API_DB})`, () => {
  it('a resumed or concurrent expansion adds only the missing rows: one row and Message-ID each, one job-log entry, not distributed early', async () => {
    const n = 1200; // more than the first chunk of 500, so the expansion writes several chunks
    const ids: string[] = [];
    for (let i = 0; i < n; i += 400) ids.push(...(await contacts(Array.from({ length: 400 }, (_, j) => ({ email: `chunk${i + j}@example.com` })))));
    const id = crypto.randomUUID();
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id,
        name: 'Chunks',
        template_id: templateId,
        sender_persona_id: personaId,
        to_user_ids: ids,
        send_at: '2099-06-01T08:00',
        timezone: 'UTC',
      },
    });
    expect(res.status).toBe(200);
    const q = h.runtime.database.query.bind(h.runtime.database);
    expect(await expandBlast(h.runtime.ctx, id)).toBe(n);
    const first = new Map(
      (await q<{ contact_id: string; message_id: string }>('SELECT contact_id, message_id FROM outbox WHERE blast_id = $1', [id])).map((r) => [
        r.contact_id,
        r.message_id,
      ]),
    );
    expect(first.size).toBe(n);

    // As if the worker died after its first chunks: the last 700 rows, the expanded mark and its job-log entry are gone.
    await q('DELETE FROM outbox WHERE blast_id = $1 AND contact_id IN (SELECT contact_id FROM outbox WHERE blast_id = $1 ORDER BY contact_id DESC LIMIT 700)', [
      id,
    ]);
    await q('UPDATE email_blasts SET expanded_at = NULL WHERE id = $1', [id]);
    await q("DELETE FROM job_log WHERE job_name = 'JOB_PROCESS_EMAIL_BLAST' AND start_details->>'scheduled_email_group_id' = $1", [id]);
    // Every row in hand settled, but the blast is still being expanded: it is not reported as distributed.
    await q("UPDATE outbox SET status = 'cancelled' WHERE blast_id = $1", [id]);
    await logFinishedBlasts(q, [id]);
    const distributed = async () =>
      (await q("SELECT 1 FROM job_log WHERE job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND start_details->>'scheduled_email_group_id' = $1", [id])).length;
    expect(await distributed()).toBe(0);
    await q("UPDATE outbox SET status = 'pending' WHERE blast_id = $1", [id]);

    // The retried job and a duplicate run at once: together they add the 700 missing rows, once.
    const results = await Promise.all([expandBlast(h.runtime.ctx, id), expandBlast(h.runtime.ctx, id)]);
    expect(results.sort((a, b) => a - b)).toEqual([0, n]);
    const rows = await q<{ contact_id: string; message_id: string }>('SELECT contact_id, message_id FROM outbox WHERE blast_id = $1', [id]);
    expect(rows).toHaveLength(n);
    expect(new Set(rows.map((r) => r.contact_id)).size).toBe(n);
    const kept = rows.filter((r) => first.get(r.contact_id) === r.message_id).length;
    expect(kept).toBe(n - 700); // rows that survived keep their Message-ID; the re-made ones get new ones
    const logged = await q<{ end_details: { num_recipients: number } }>(
      "SELECT end_details FROM job_log WHERE job_name = 'JOB_PROCESS_EMAIL_BLAST' AND start_details->>'scheduled_email_group_id' = $1",
      [id],
    );
    expect(logged.map((l) => l.end_details.num_recipients)).toEqual([n]);
    expect(await distributed()).toBe(0);
  });
});

describe(`sending (${API_DB})`, () => {
  it('sends a due blast once to each recipient of its segments ∪ contacts, renders variables, stores the exact copy and records events', async () => {
    const [ann, bob, cy, unsub] = await contacts([
      { email: 'ann@example.com', first_name: 'Ann', json: { plan: 'gold' } },
      { email: 'bob@example.com', first_name: 'Bob' },
      { email: 'cy@example.com', first_name: 'Cy' },
      { email: 'gone@example.com', first_name: 'Gone' },
    ]);
    await h.runtime.database.query('UPDATE contacts SET unsubscribed_at = now() WHERE id = $1', [unsub]);
    const seg = (await h.call('POST', '/api/segment/segments', { key: key(), body: { segments: [{ name: 'Seg', user_ids: [bob, cy, unsub] }] } })).body.data[0]
      .id;
    const before = h.sink.count;
    const id = crypto.randomUUID();
    const res = await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id,
        name: 'Now',
        template_id: templateId,
        sender_persona_id: personaId,
        to_user_ids: [ann, bob],
        to_segment_ids: [seg],
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      },
    });
    expect(res.status).toBe(200);
    await h.sink.waitFor(() => h.sink.count >= before + 3);
    await new Promise((r) => setTimeout(r, 500)); // nothing more arrives
    const mine = (await h.sink.parsed()).filter((m) => m.subject?.startsWith('Hi '));
    const byTo = new Map<string, typeof mine>();
    for (const m of mine) byTo.set(m.envelopeTo[0], [...(byTo.get(m.envelopeTo[0]) ?? []), m]);
    expect([...byTo.keys()].sort()).toEqual(['ann@example.com', 'bob@example.com', 'cy@example.com']);
    for (const list of byTo.values()) expect(list).toHaveLength(1);
    const annMail = byTo.get('ann@example.com')![0];
    expect(annMail.subject).toBe('Hi Ann');
    expect(annMail.html).toContain('Hello Ann (gold) from Nora.');
    expect(annMail.html).toContain('Missing: []');
    expect(annMail.html).toMatch(/href="http:\/\/localhost:8080\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/);
    expect(annMail.headerLines.find((l) => l.key === 'list-unsubscribe-post')?.line).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(annMail.headerLines.find((l) => l.key === 'list-unsubscribe')?.line).toMatch(/^List-Unsubscribe:\s+<http:\/\/localhost:8080\/u\//);
    expect(annMail.from?.value[0]).toMatchObject({ name: 'Nora Sender', address: 'news@sender.example.com' });
    expect(byTo.get('bob@example.com')![0].html).toContain('Hello Bob () from Nora.');

    const events = await h.call('GET', '/api/event/all_events', {
      key: key(),
      query: { include_system_events: true, search_field: 'name', search_value: EVENT.sendSuccess, limit: 50 },
    });
    const sent = events.body.data.filter((e: { json: { blast_id: string } }) => e.json.blast_id === id);
    expect(sent).toHaveLength(3);
    const annEvent = sent.find((e: { email: string }) => e.email === 'ann@example.com');
    expect(annEvent.user_id).toBe(ann);
    const copy = await h.call('GET', '/api/reporting/email_send_results', { key: key(), query: { locations: annEvent.json.location } });
    expect(copy.body.errors).toEqual([]);
    expect(copy.body.send_results[0].mailer_payload.body).toBe(annMail.html);
    expect(copy.body.send_results[0].mailer_payload.subject).toBe('Hi Ann');
    // The contact form's email history: the same copy, found by the recipient's address (any case).
    const history = await h.call('GET', '/api/reporting/email_send_results', { key: key(), query: { email: 'ANN@example.com', limit: 5 } });
    expect(history.status).toBe(200);
    expect(history.body.total).toBeGreaterThanOrEqual(1);
    expect(history.body.send_results.map((r: { location: string }) => r.location)).toContain(annEvent.json.location);
    expect((await h.call('GET', '/api/reporting/email_send_results', { key: key(), query: { email: 'nobody@example.com' } })).body).toEqual({
      send_results: [],
      errors: [],
      total: 0,
    });
    expect((await h.call('GET', '/api/reporting/email_send_results', { key: key() })).status).toBe(400);
    expect((await h.call('GET', '/api/event/all_events', { key: key() })).body.data).toEqual([]); // system events hidden by default

    const blast = (await h.call('GET', '/api/scheduler/scheduler', { key: key(), query: { ids: id } })).body.data[0];
    expect([blast.scheduled_emails, blast.sent_emails, blast.failed_emails]).toEqual([3, 3, 0]);
    const jobs = (await h.call('GET', '/api/joblog/joblog', { key: key() })).body.data.filter(
      (j: { start_details: { scheduled_email_group_id: string } }) => j.start_details.scheduled_email_group_id === id,
    );
    expect(jobs.map((j: { job_name: string }) => j.job_name).sort()).toEqual(['JOB_DISTRIBUTE_EMAIL_BLAST', 'JOB_PROCESS_EMAIL_BLAST']);
    expect(jobs.every((j: { success: boolean; ended_at: string }) => j.success && j.ended_at)).toBe(true);

    const stats = (await h.call('GET', '/api/reporting/quickstats', { key: key(), query: { campaign_id: 'all' } })).body.data;
    expect(stats.find((s: { name: string }) => s.name === EVENT.sendSuccess)).toMatchObject({ num: 3, num_unique: 3 });
    const hours = (await h.call('GET', '/api/reporting/sendslast24hours', { key: key() })).body.data;
    expect(hours).toHaveLength(24);
    expect(hours.reduce((s: number, r: { sends: number }) => s + r.sends, 0)).toBe(3);
    const days = (await h.call('GET', '/api/reporting/sendslast31days', { key: key() })).body.data;
    expect(days).toHaveLength(31);
    expect(days[30].sends).toBe(3);
  });

  it('sends no script, event handler or script URL, and renders the rest of the template', async () => {
    const html = `<html><body><h1>Hi {{user.first_name}}</h1><script>document.cookie</script>
      <p onclick="steal()">Plan {{user.json.plan}}</p><a href="javascript:alert(1)">x</a><a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;
    const tpl = (
      await h.call('POST', '/api/template/templates', {
        key: key(),
        body: { templates: [{ name: 'Scripted', subject: 'Scripted', type: 'TEMPLATE_MARKETING', html_body: html }] },
      })
    ).body.data[0];
    await contacts([{ email: 'textpart@example.com', first_name: 'Tex', json: { plan: 'silver' } }]);
    const before = h.sink.count;
    const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: key(),
      body: {
        mailer_payload: {
          template_id: tpl.id,
          from: { email: 'news@sender.example.com' },
          to: [{ email: 'textpart@example.com' }],
        },
      },
    });
    expect(res.status).toBe(200);
    await h.sink.waitFor(() => h.sink.count >= before + 1);
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('textpart@example.com'))!;
    expect(mail.html).toContain('<h1>Hi Tex</h1>');
    expect(mail.html).toContain('<p>Plan silver</p>');
    expect(mail.html).not.toMatch(/script|onclick|javascript:/i);
    expect(mail.html).toMatch(/<a>x<\/a><a href="http:\/\/localhost:8080\/u\/[A-Za-z0-9_.-]+">Unsubscribe<\/a>/);
  });

  it('a persona sends nothing until its address follows the verification link; the refusal is recorded', async () => {
    const saved = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: key(),
      body: { sender_personas: [{ email: 'unconfirmed@sender.example.com', first_name: 'Una' }] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.errors).toEqual([]);
    const persona = saved.body.data[0];
    expect(persona.verified_at).toBeNull();
    const verification = (await h.sink.parsed()).filter((m) => m.envelopeTo.includes('unconfirmed@sender.example.com'));
    expect(verification.map((m) => [m.subject, m.from?.value[0].address])).toEqual([
      ['Confirm unconfirmed@sender.example.com as a sender', 'no-reply@localhost'],
    ]);
    const link = (await h.sink.personaVerificationLinks()).at(-1)!;
    expect(link).toMatch(/^http:\/\/localhost:8080\/v\//);

    const send = async (to: string) => {
      const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
        key: key(),
        body: {
          mailer_payload: {
            template_id: templateId,
            from: { user_id: persona.id },
            to: [{ email: to }],
          },
        },
      });
      expect(res.status).toBe(200);
    };
    const failures = async (to: string) =>
      (
        await h.call('GET', '/api/event/all_events', {
          key: key(),
          query: {
            include_system_events: true,
            search_field: 'email',
            search_value: to,
            limit: 10,
          },
        })
      ).body.data
        .filter((e: { name: string }) => e.name === EVENT.sendFailure)
        .map((e: { json: { error_string: string } }) => e.json.error_string);
    await send('blocked@example.com');
    for (let i = 0; i < 100 && !(await failures('blocked@example.com')).length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await failures('blocked@example.com')).toEqual([
      'render: sender not verified: unconfirmed@sender.example.com has not confirmed the verification email sent to it; follow its link, then send again',
    ]);
    expect(h.sink.messages.some((m) => m.envelopeTo.includes('blocked@example.com'))).toBe(false);

    // The page asks (a link scanner fetching it confirms nothing); its button confirms.
    const path = new URL(link).pathname;
    const page = await h.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Confirm <strong>unconfirmed@sender.example.com</strong> as a sender?');
    const listed = async () => (await h.call('GET', '/api/senderpersonawrapper/sender_personas', { key: key(), query: { ids: persona.id } })).body.data[0];
    expect((await listed()).verified_at).toBeNull();
    const confirmed = await h.app.inject({ method: 'POST', url: path });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('unconfirmed@sender.example.com is confirmed as a sender.');
    expect((await listed()).verified_at).not.toBeNull();

    const before = h.sink.count;
    await send('welcome@example.com');
    await h.sink.waitFor(() => h.sink.count > before);
    expect(h.sink.messages.at(-1)!.envelopeTo).toEqual(['welcome@example.com']);

    // A new address must confirm itself again; the old link no longer confirms anything.
    const moved = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: key(),
      body: { sender_personas: [{ id: persona.id, email: 'moved@sender.example.com', first_name: 'Una' }] },
    });
    expect(moved.body.data[0].verified_at).toBeNull();
    expect((await h.sink.personaVerificationLinks()).at(-1)).not.toBe(link);
    expect((await h.app.inject({ method: 'POST', url: path })).statusCode).toBe(404);
  });

  it('an operator can confirm a persona by address (admin verify-persona), in its project only', async () => {
    await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: key(),
      body: { sender_personas: [{ email: 'Ops@Sender.example.com', first_name: 'Ops' }] },
    });
    const q = h.runtime.database.query.bind(h.runtime.database);
    expect(await verifyPersonasByEmail(q, 'ops@sender.example.com', 'cli (test)', '00000000-0000-4000-8000-000000000000')).toBe(0);
    expect(await verifyPersonasByEmail(q, 'ops@sender.example.com', 'cli (test)')).toBe(1);
    const [row] = await q<{ verified_at: Date | null }>("SELECT verified_at FROM sender_personas WHERE email = 'Ops@Sender.example.com'");
    expect(row.verified_at).not.toBeNull();
  });

  it('email_send_results reports unknown or foreign locations in errors', async () => {
    const res = await h.call('GET', '/api/reporting/email_send_results', {
      key: key(),
      query: { locations: 'bm90LWEtbG9jYXRpb24,c2VudC1lbWFpbHMvb3RoZXItcHJvamVjdC94LmVtbA' },
    });
    expect(res.body.send_results).toEqual([]);
    expect(res.body.errors).toHaveLength(2);
  });

  it('a single send goes out at once; a disabled blast sends nothing', async () => {
    const before = h.sink.count;
    const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: key(),
      body: {
        mailer_payload: {
          is_test_email: true,
          template_id: templateId,
          from: { email: 'news@sender.example.com' },
          to: [{ email: 'single@example.com' }],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.queued).toBe(1);
    await h.sink.waitFor(() => h.sink.count >= before + 1);
    const [c] = await contacts([{ email: 'never@example.com' }]);
    const id = crypto.randomUUID();
    await h.call('POST', '/api/scheduler/scheduler', {
      key: key(),
      body: {
        id,
        name: 'Cancelled',
        template_id: templateId,
        sender_persona_id: personaId,
        to_user_ids: [c],
        send_at: '2099-01-01T00:00',
        timezone: 'UTC',
      },
    });
    const off = await h.call('DELETE', `/api/scheduler/scheduler/${id}`, { key: key() });
    expect(off.body).toEqual({ ids: [id], errors: [] });
    expect(await expandBlast(h.runtime.ctx, id)).toBe(0);
    const again = await h.call('DELETE', `/api/scheduler/scheduler/${id}`, { key: key() });
    expect(again.body.errors).toEqual([`ids: no enabled email blast ${id} in this project`]);
    const none = await h.call('DELETE', '/api/scheduler/scheduler/%20,', { key: key() });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual(['ids: Couldn’t archive email blast, missing email blast id']);
  });
});

describe(`sandbox (${API_DB})`, () => {
  it('allows only the simulator address and the project’s sender personas, with a clear error otherwise', async () => {
    const s = await h.tenant();
    const persona = (
      await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
        key: s.apiKey,
        body: { sender_personas: [{ email: 'me@sandbox.example.com', first_name: 'Me' }] },
      })
    ).body.data[0];
    await h.confirmPersonas();
    const tpl = (
      await h.call('POST', '/api/template/templates', {
        key: s.apiKey,
        body: { templates: [{ name: 'T', subject: 'Sandbox {{user.email}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>hi</p>' }] },
      })
    ).body.data[0];
    const users = (
      await h.call('POST', '/api/user/users', {
        key: s.apiKey,
        body: { users: [{ email: SIMULATOR_SUCCESS_ADDRESS }, { email: 'me@sandbox.example.com' }, { email: 'stranger@example.com' }] },
      })
    ).body.data;
    const blast = (ids: string[]) =>
      h.call('POST', '/api/scheduler/scheduler', {
        key: s.apiKey,
        body: {
          id: crypto.randomUUID(),
          name: 'Sandboxed',
          template_id: tpl.id,
          sender_persona_id: persona.id,
          to_user_ids: ids,
          send_at: wallClockUtc(-1),
          timezone: 'UTC',
        },
      });
    const refused = await blast(users.map((u: { id: string }) => u.id));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0]).toMatch(/^to_user_ids: stranger@example.com: this project is in the sandbox/);
    const single = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: s.apiKey,
      body: { mailer_payload: { template_id: tpl.id, from: { user_id: persona.id }, to: [{ email: 'stranger@example.com' }] } },
    });
    expect(single.status).toBe(400);
    expect(single.body.errors[0]).toMatch(/^mailer_payload.to: stranger@example.com: this project is in the sandbox/);

    const before = h.sink.count;
    const ok = await blast([users[0].id, users[1].id]);
    expect(ok.status).toBe(200);
    await h.sink.waitFor(() => h.sink.count >= before + 2);
    await new Promise((r) => setTimeout(r, 300));
    const to = (await h.sink.parsed())
      .filter((m) => m.subject?.startsWith('Sandbox '))
      .map((m) => m.envelopeTo[0])
      .sort();
    expect(to).toEqual(['me@sandbox.example.com', SIMULATOR_SUCCESS_ADDRESS]);
  });

  it('checks at save time exactly the audience the expansion sends to (core/audience blastAudience), as the preview does', async () => {
    const s = await h.tenant();
    const persona = (
      await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
        key: s.apiKey,
        body: { sender_personas: [{ email: 'me@pinned.example.com', first_name: 'Me' }] },
      })
    ).body.data[0];
    await h.confirmPersonas();
    const tpl = (
      await h.call('POST', '/api/template/templates', {
        key: s.apiKey,
        body: { templates: [{ name: 'T', subject: 'Pinned', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>hi</p>' }] },
      })
    ).body.data[0];
    const users = (
      await h.call('POST', '/api/user/users', {
        key: s.apiKey,
        body: { users: [{ email: 'unsub@stranger.example.com' }, { email: 'listed@stranger.example.com' }] },
      })
    ).body.data;
    // An unsubscribed contact still gets transactional mail, so the sandbox check must refuse it; an address on the
    // suppression list gets no mail at all, so it is left out and nothing refuses it.
    await h.runtime.database.query('UPDATE contacts SET unsubscribed_at = now() WHERE id = $1', [users[0].id]);
    expect((await h.call('POST', '/api/event/suppressions', { key: s.apiKey, body: { emails: ['listed@stranger.example.com'] } })).status).toBe(200);
    const body = (ids: string[]) => ({
      id: crypto.randomUUID(),
      name: 'Pinned',
      template_id: tpl.id,
      sender_persona_id: persona.id,
      to_user_ids: ids,
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    });
    const preview = (ids: string[]) =>
      h.call('POST', '/api/scheduler/scheduler/preview', { key: s.apiKey, body: { template_id: tpl.id, sender_persona_id: persona.id, to_user_ids: ids } });

    const unsub = await h.call('POST', '/api/scheduler/scheduler', { key: s.apiKey, body: body([users[0].id]) });
    expect(unsub.status).toBe(400);
    expect(unsub.body.errors[0]).toMatch(/^to_user_ids: unsub@stranger.example.com: this project is in the sandbox/);
    expect((await preview([users[0].id])).body.data.sandbox_refused).toBe(1);

    const listed = await h.call('POST', '/api/scheduler/scheduler', { key: s.apiKey, body: body([users[1].id]) });
    expect(listed.status).toBe(200);
    const p = (await preview([users[1].id])).body.data;
    expect(p.sandbox_refused).toBe(0);
    expect(p.excluded.suppressed + p.excluded.bounced).toBe(1);
  });
});
