/**
 * The send wizard's server side: the review's preview (POST scheduler/scheduler/preview) — the audience
 * targeted, left out by reason and to be sent, this month's sends, the estimated cost by the pricing formula, and the
 * problems that stop a launch — and A/B blasts: each recipient gets one template chosen by weight, the same one on a
 * retried expansion, 1,000 recipients split within the documented tolerance of the weights.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { expandBlast } from '../../src/server/core/blasts/expand.ts';
import { expectedTemplate } from '../helpers/abSplit.ts';
import { sendCost } from '../../src/domain/pricing.ts';
import { AB_SPLIT_TOLERANCE } from '../../src/domain/campaigns.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let t: Tenant;
let query: QueryFn;
let persona = '';
let marketing = '';
let transactional = '';

const api = (method: string, url: string, body?: unknown, key = t.apiKey) => h.call(method, url, { key, body });
const preview = async (body: Record<string, unknown>, key = t.apiKey) => {
  const res = await api('POST', '/api/scheduler/scheduler/preview', body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

beforeAll(async () => {
  h = await startHarness();
  query = h.runtime.ctx.database.query.bind(h.runtime.ctx.database) as QueryFn;
  t = await h.tenant({ activated: true });
  persona = (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'wiz@wizard.example.com', first_name: 'Wiz' }] })).body
    .data[0].id;
  const tpl = await api('POST', '/api/template/templates', {
    templates: [
      { name: 'News', subject: 'News', type: 'TEMPLATE_MARKETING', html_body: '<p>News</p><a href="{{unsubscribe_link}}">Unsubscribe</a>' },
      { name: 'Receipt', subject: 'Receipt', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Receipt</p>' },
    ],
  });
  [marketing, transactional] = tpl.body.data.map((x: { id: string }) => x.id);
});

afterAll(async () => {
  await h?.close();
});

describe(`send wizard server side (${API_DB})`, () => {
  it('previews the audience: targeted, left out by reason, to be sent, and the cost of the send this month', async () => {
    const people = (await api('POST', '/api/user/users', { users: Array.from({ length: 8 }, (_, i) => ({ email: `p${i}@preview.io` })) })).body.data as Array<{
      id: string;
      email: string;
    }>;
    await query(`UPDATE contacts SET unsubscribed_at = now() WHERE id = $1`, [people[0].id]);
    await query(`UPDATE contacts SET bounced_at = now() WHERE id = $1`, [people[1].id]);
    await api('POST', '/api/event/suppressions', { emails: [people[2].email] });
    const seg = (await api('POST', '/api/segment/segments', { segments: [{ name: 'Half', user_ids: people.slice(0, 4).map((p) => p.id) }] })).body.data[0];
    // This month's sends so far: 9,900 (from the report aggregates).
    await query(
      `INSERT INTO events (project_id, name, email, is_system, json) SELECT $1, '${EVENT.sendSuccess}', 'x' || i || '@old.io', true,
                 jsonb_build_object('message_id', '<m' || i || '>') FROM generate_series(1, 9900) i`,
      [t.projectId],
    );
    const body = {
      template_id: marketing,
      sender_persona_id: persona,
      to_segment_ids: [seg.id],
      to_user_ids: [people[4].id, people[5].id, randomUUID()],
      to_user_emails: ['nobody@preview.io'],
    };
    const p = await preview(body);
    expect(p).toMatchObject({
      targeted: 8, // 6 contacts named + an unknown id + an unknown address
      excluded: { unsubscribed: 1, bounced: 1, suppressed: 1, invalid: 0, not_a_contact: 2 },
      to_send: 3,
      sandbox_refused: 0,
      month_sends: 9900,
      emails: 3,
      // No rate limit on this relay: the time is the relay's to decide.
      send_rate: null,
      estimated_duration_s: null,
    });
    expect(p.cost).toEqual({ dollars: 0, before: 0, after: 0, free_left: 100 });
    expect(p.cost_per_1000).toBeCloseTo(sendCost(9900, 1000).dollars, 10);
    // The persona is not verified yet: the launch is stopped with the reason.
    expect(p.problems).toEqual([
      'sender persona wiz@wizard.example.com is not verified yet: follow the link in the verification email sent to it, then launch',
    ]);
    await h.confirmPersonas();
    expect((await preview(body)).problems).toEqual([]);
    // Launchable, but said: mail from a domain the account has not set up goes out without a DKIM signature.
    expect((await preview(body)).warnings).toEqual([
      'Mail from wiz@wizard.example.com will not be DKIM-signed: wizard.example.com is not a sending domain of this account. Add it in Domain settings and publish its records. Receivers trust unsigned mail less.',
    ]);
    expect((await api('POST', '/api/domains/domains', { domain: 'wizard.example.com' })).status).toBe(200);
    expect((await preview(body)).warnings).toEqual([
      'Mail from wiz@wizard.example.com will not be DKIM-signed: the DKIM record of wizard.example.com is not found in DNS yet (Domain settings shows the record to publish). Receivers trust unsigned mail less.',
    ]);
    await h.runtime.database.query("UPDATE sending_domains SET dkim_status = 'Success' WHERE domain = 'wizard.example.com'");
    expect((await preview(body)).warnings).toEqual([]);
    // A transactional template does not leave out the unsubscribed contact; a drip of 100 emails each costs 100 times as many.
    const drip = await preview({ ...body, template_id: transactional, emails_per_recipient: 100 });
    expect(drip.to_send).toBe(4);
    expect(drip.emails).toBe(400);
    expect(drip.cost.dollars).toBeCloseTo(sendCost(9900, 400).dollars, 10);
    expect(drip.cost.dollars).toBeCloseTo(0.51 * 0.3, 10); // 300 emails past the free 10,000 at 51¢ per 1,000
  });

  it('estimates a large audience from a sample when asked (counts: estimate), and counts it exactly otherwise', async () => {
    const big = await h.tenant({ activated: true });
    // 60,000 contacts in one segment, every tenth unsubscribed.
    await h.runtime.database.query(
      `INSERT INTO contacts (project_id, email, unsubscribed_at) SELECT $1, 'p' || g || '@preview.example.com', CASE WHEN g % 10 = 0 THEN now() END
         FROM generate_series(1, 60000) g`,
      [big.projectId],
    );
    const [segment] = await h.runtime.database.query<{ id: string }>("INSERT INTO segments (project_id, name) VALUES ($1, 'all') RETURNING id", [
      big.projectId,
    ]);
    await h.runtime.database.query('INSERT INTO segment_members (segment_id, contact_id) SELECT $1, id FROM contacts WHERE project_id = $2', [
      segment.id,
      big.projectId,
    ]);
    await h.runtime.database.query('ANALYZE contacts');
    await h.runtime.database.query('ANALYZE segment_members');
    const preview = (counts: string) => api('POST', '/api/scheduler/scheduler/preview', { to_segment_ids: [segment.id], counts }, big.apiKey);
    const exact = await preview('exact');
    expect(exact.status).toBe(200);
    expect(exact.body.data).toMatchObject({ counts_estimated: false, targeted: 60000, to_send: 54000, excluded: { unsubscribed: 6000 } });
    const estimate = await preview('estimate');
    expect(estimate.status).toBe(200);
    expect(estimate.body.data.counts_estimated).toBe(true);
    expect(Math.abs(estimate.body.data.to_send - 54000) / 54000).toBeLessThan(0.15);
    expect(Math.abs(estimate.body.data.excluded.unsubscribed - 6000) / 6000).toBeLessThan(0.25);
    // A small audience is counted exactly even when an estimate is asked for.
    const small = await api('POST', '/api/scheduler/scheduler/preview', { to_user_emails: ['p1@preview.example.com'], counts: 'estimate' }, big.apiKey);
    expect(small.body.data).toMatchObject({ counts_estimated: false, targeted: 1, to_send: 1 });
  });

  it('stops a launch at review for a marketing template without an unsubscribe link and for sandbox recipients', async () => {
    const [bad] = await query<{ id: string }>(
      `INSERT INTO templates (project_id, name, subject, type, html_body) VALUES ($1, 'No unsub', 'S', 'TEMPLATE_MARKETING', '<p>no link</p>') RETURNING id`,
      [t.projectId],
    );
    const p = await preview({
      template_ids_with_weights: [
        { template_id: marketing, weight: 50 },
        { template_id: bad.id, weight: 50 },
      ],
      sender_persona_id: persona,
    });
    expect(p.problems).toEqual([
      "template 'No unsub': Marketing emails must include an unsubscribe link! Please see the instructions below the template editor",
    ]);
    const sandboxed = await h.tenant();
    const who = (await api('POST', '/api/user/users', { users: [{ email: 'someone@else.io' }] }, sandboxed.apiKey)).body.data;
    const s = await preview({ to_user_ids: [who[0].id] }, sandboxed.apiKey);
    expect(s.sandbox_refused).toBe(1);
    expect(s.problems[0]).toMatch(/^1 recipient\(s\) cannot be sent to while the account is in the sandbox/);
    const other = await preview({ template_id: marketing }, sandboxed.apiKey);
    expect(other.problems).toEqual([`template_id: no template with id ${marketing}`]); // another tenant's template
  });

  it('splits an A/B blast of 1,000 recipients by weight within the documented tolerance, the same on a retried expansion', async () => {
    const users = Array.from({ length: 1000 }, (_, i) => ({ email: `ab${i}@split.io` }));
    const ids: string[] = [];
    for (let i = 0; i < users.length; i += 500)
      ids.push(...(await api('POST', '/api/user/users', { users: users.slice(i, i + 500) })).body.data.map((c: { id: string }) => c.id));
    const [other] = (
      await api('POST', '/api/template/templates', {
        templates: [{ name: 'News B', subject: 'News B', type: 'TEMPLATE_MARKETING', html_body: '<p>B</p><a href="{{unsubscribe_link}}">U</a>' }],
      })
    ).body.data;
    const id = randomUUID();
    const weights = [
      { template_id: marketing, weight: 70 },
      { template_id: other.id, weight: 30 },
    ];
    const res = await api('POST', '/api/scheduler/scheduler', {
      id,
      name: 'A/B',
      template_ids_with_weights: weights,
      sender_persona_id: persona,
      to_user_ids: ids,
      send_at: '2030-01-01T12:30',
      timezone: 'UTC',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await query('UPDATE email_blasts SET due_at = now() WHERE id = $1', [id]);
    await expandBlast(h.runtime.ctx, id);
    const rows = await query<{ contact_id: string; template_id: string }>('SELECT contact_id, template_id FROM outbox WHERE blast_id = $1', [id]);
    expect(rows).toHaveLength(1000);
    const share = rows.filter((r) => r.template_id === marketing).length / rows.length;
    expect(Math.abs(share - 0.7)).toBeLessThanOrEqual(AB_SPLIT_TOLERANCE);
    // Deterministic per recipient: the choice is a function of the contact, so a retried expansion picks the same.
    for (const r of rows) expect(expectedTemplate(r.contact_id, weights)).toBe(r.template_id);
    await query('UPDATE email_blasts SET expanded_at = NULL WHERE id = $1', [id]);
    await expandBlast(h.runtime.ctx, id);
    const again = await query<{ contact_id: string; template_id: string }>(
      'SELECT contact_id, template_id FROM outbox WHERE blast_id = $1 ORDER BY contact_id',
      [id],
    );
    expect(again).toEqual([...rows].sort((a, b) => a.contact_id.localeCompare(b.contact_id)));
  });
});
