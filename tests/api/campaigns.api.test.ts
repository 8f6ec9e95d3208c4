/**
 * The campaign gateway: save (create and update), the name rule, the
 * type and association rules with a 400 naming the field, references checked against the project, list by ids,
 * exact names and a name search, archive (idempotent, 404 for another tenant's), and campaign_metrics sorted and
 * paged with its count.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { CAMPAIGN_NAME_TAKEN } from '../../src/domain/campaigns.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let a: Tenant;
let b: Tenant;
let query: QueryFn;
let templateA = '';
let templateB = '';
const blastA = randomUUID();
const blastA2 = randomUUID();
const blastB = randomUUID();

const save = (key: string, campaign: Record<string, unknown>) => h.call('POST', '/api/campaign/campaigns', { key, body: { campaign } });

async function insertBlast(id: string, projectId: string, templateId: string, name: string) {
  await query(
    `INSERT INTO email_blasts (id, project_id, name, template_id, sender_persona_id, send_at, timezone, due_at)
               VALUES ($1, $2, $3, $4, $5, '2030-01-01T12:30', 'UTC', '2030-01-01T12:30:00Z')`,
    [id, projectId, name, templateId, randomUUID()],
  );
}

beforeAll(async () => {
  h = await startHarness();
  query = h.runtime.ctx.database.query.bind(h.runtime.ctx.database) as QueryFn;
  a = await h.tenant({ activated: true });
  b = await h.tenant({ activated: true });
  const tpl = async (key: string) =>
    (
      await h.call('POST', '/api/template/templates', {
        key,
        body: { templates: [{ name: 'T', subject: 'S', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>x</p>' }] },
      })
    ).body.data[0].id;
  templateA = await tpl(a.apiKey);
  templateB = await tpl(b.apiKey);
  await insertBlast(blastA, a.projectId, templateA, 'Blast A');
  await insertBlast(blastA2, a.projectId, templateA, 'Blast A2');
  await insertBlast(blastB, b.projectId, templateB, 'Blast B');
});

afterAll(async () => {
  await h?.close();
});

describe(`campaign gateway (${API_DB})`, () => {
  it('creates a campaign with a new id, reads it back by id, exact name (any case) and name search, and updates it by id', async () => {
    const made = await save(a.apiKey, {
      name: 'Autumn Newsletter',
      type: 'scheduled_email_group',
      scheduled_email_blast_group_ids: [blastA],
      template_ids: [templateA],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const c = made.body.campaign;
    expect(c).toMatchObject({
      name: 'Autumn Newsletter',
      type: 'scheduled_email_group',
      scheduled_email_blast_group_ids: [blastA],
      workflow_ids: [],
      template_ids: [templateA],
    });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    const list = async (q: Record<string, string | number>) =>
      (await h.call('GET', '/api/campaign/campaigns', { key: a.apiKey, query: q })).body.campaigns.map((x: { id: string }) => x.id);
    expect(await list({ ids: c.id })).toEqual([c.id]);
    expect(await list({ names: 'autumn newsletter' })).toEqual([c.id]);
    expect(await list({ names: 'Autumn' })).toEqual([]); // names are exact
    expect(await list({ search_value: 'NEWS' })).toEqual([c.id]);
    const changed = await save(a.apiKey, {
      id: c.id,
      name: 'Autumn Newsletter 2026',
      type: 'scheduled_email_group',
      scheduled_email_blast_group_ids: [blastA, blastA2],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.campaign).toMatchObject({
      id: c.id,
      name: 'Autumn Newsletter 2026',
      scheduled_email_blast_group_ids: [blastA, blastA2],
      template_ids: [],
    });
    expect(Date.parse(changed.body.campaign.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
    // A client-chosen id (the wizard makes one before the blast exists) is kept.
    const id = randomUUID();
    expect((await save(a.apiKey, { id, name: 'Wizard made', type: 'a_b_test' })).body.campaign.id).toBe(id);
  });

  it('keeps names unique among live campaigns (case-insensitive); an archived campaign frees its name', async () => {
    const first = await save(a.apiKey, { name: 'Black Friday', type: '' });
    expect(first.status).toBe(200);
    const dup = await save(a.apiKey, { name: 'black friday', type: 'template' });
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([`name: ${CAMPAIGN_NAME_TAKEN}`]);
    // Another tenant may use the same name.
    expect((await save(b.apiKey, { name: 'Black Friday', type: '' })).status).toBe(200);
    expect((await h.call('DELETE', `/api/campaign/campaigns/${first.body.campaign.id}`, { key: a.apiKey })).status).toBe(200);
    expect((await save(a.apiKey, { name: 'Black Friday', type: '' })).status).toBe(200);
  });

  it('refuses bad names, types and associations with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: '   ', type: '' }, /^name: Required field$/],
      [{ type: '' }, /^campaign\.name: Required field/],
      [{ name: 'X', type: 'newsletter' }, /^campaign\.type/],
      [{ name: 'X', type: 'workflow', scheduled_email_blast_group_ids: [blastA] }, /^type: a workflow campaign holds workflows only/],
      [{ name: 'X', type: 'scheduled_email_group', workflow_ids: [randomUUID()] }, /^workflow_ids/],
      [{ name: 'X', type: '', template_ids: [templateA] }, /^type: choose a type/],
      [{ name: 'X', type: 'template', template_ids: ['not-a-uuid'] }, /^campaign\.template_ids/],
      [{ name: 'X', type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blastB] }, /^scheduled_email_blast_group_ids: no email blast with id/],
      [{ name: 'X', type: 'template', template_ids: [templateB] }, /^template_ids: no template with id/],
      [{ name: 'X', type: 'template', extra: 1 }, /extra|additional/],
    ];
    for (const [campaign, message] of cases) {
      const res = await save(a.apiKey, campaign);
      expect(res.status, JSON.stringify(campaign)).toBe(400);
      expect(res.body.errors.join('\n'), JSON.stringify(campaign)).toMatch(message);
    }
    // Another tenant's campaign id cannot be taken over.
    const theirs = await save(b.apiKey, { name: 'Theirs', type: '' });
    const res = await save(a.apiKey, { id: theirs.body.campaign.id, name: 'Mine now', type: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatch(/^id: /);
    expect((await h.call('GET', '/api/campaign/campaigns', { key: b.apiKey, query: { ids: theirs.body.campaign.id } })).body.campaigns[0].name).toBe('Theirs');
  });

  it("archives once (again answers the same), 404 for another tenant's, and an archived campaign leaves every list", async () => {
    const c = (await save(a.apiKey, { name: 'To archive', type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blastA] })).body.campaign;
    expect((await h.call('DELETE', `/api/campaign/campaigns/${c.id}`, { key: b.apiKey })).status).toBe(404);
    for (let i = 0; i < 2; i++) {
      const res = await h.call('DELETE', `/api/campaign/campaigns/${c.id}`, { key: a.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ campaign_id: c.id, errors: [] });
    }
    expect((await h.call('GET', '/api/campaign/campaigns', { key: a.apiKey, query: { ids: c.id } })).body.campaigns).toEqual([]);
    expect((await h.call('GET', '/api/campaign/campaign_metrics', { key: a.apiKey, query: { ids: c.id } })).body.campaigns_with_metrics).toEqual([]);
    expect((await h.call('GET', '/api/campaign/campaign_metrics/count', { key: a.apiKey, query: { ids: c.id } })).body).toEqual({ num_campaigns: 0 });
    const again = await save(a.apiKey, { id: c.id, name: 'To archive', type: '' });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatch(/^id: .*archived/);
    expect((await h.call('DELETE', `/api/campaign/campaigns/${randomUUID()}`, { key: a.apiKey })).status).toBe(404);
  });

  it('sorts and pages campaign_metrics by a metric, with the count of live campaigns', async () => {
    const t = await h.tenant({ activated: true });
    const tpl = (
      await h.call('POST', '/api/template/templates', {
        key: t.apiKey,
        body: { templates: [{ name: 'T', subject: 'S', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>x</p>' }] },
      })
    ).body.data[0].id;
    const blasts = [randomUUID(), randomUUID(), randomUUID()];
    const ids: string[] = [];
    for (const [i, blast] of blasts.entries()) {
      await insertBlast(blast, t.projectId, tpl, `B${i}`);
      // Blast i gets i + 1 sends (one email each) and, for blast 0 only, three opens of one email (one unique open).
      for (let k = 0; k <= i; k++) {
        await query(`INSERT INTO events (project_id, name, email, is_system, blast_id, json) VALUES ($1, '${EVENT.sendSuccess}', $2, true, $3, $4)`, [
          t.projectId,
          `r${k}@example.com`,
          blast,
          JSON.stringify({ message_id: `<${blast}-${k}>` }),
        ]);
      }
      ids.push((await save(t.apiKey, { name: `C${i}`, type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blast] })).body.campaign.id);
    }
    for (let k = 0; k < 3; k++) {
      await query(`INSERT INTO events (project_id, name, email, is_system, blast_id, json) VALUES ($1, '${EVENT.open}', 'r0@example.com', true, $2, $3)`, [
        t.projectId,
        blasts[0],
        JSON.stringify({ message_id: `<${blasts[0]}-0>` }),
      ]);
    }
    const page = async (q: Record<string, string | number>) =>
      (await h.call('GET', '/api/campaign/campaign_metrics', { key: t.apiKey, query: q })).body.campaigns_with_metrics;
    expect((await page({ sort_columns: 'sends DESC', limit: 2 })).map((r: { name: string; sends: number }) => [r.name, r.sends])).toEqual([
      ['C2', 3],
      ['C1', 2],
    ]);
    expect((await page({ sort_columns: 'sends DESC', limit: 2, offset: 2 })).map((r: { name: string }) => r.name)).toEqual(['C0']);
    expect((await page({ sort_columns: 'opens DESC', limit: 1 }))[0]).toMatchObject({ name: 'C0', opens: 1, sends: 1 });
    expect((await page({ sort_columns: 'name ASC' })).map((r: { name: string }) => r.name)).toEqual(['C0', 'C1', 'C2']);
    expect((await h.call('GET', '/api/campaign/campaign_metrics/count', { key: t.apiKey })).body).toEqual({ num_campaigns: 3 });
    const bad = await h.call('GET', '/api/campaign/campaign_metrics', { key: t.apiKey, query: { sort_columns: 'password DESC' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.join(' ')).toMatch(/sort_columns/);
    expect(ids).toHaveLength(3);
  });
});
