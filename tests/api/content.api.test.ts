/**
 * Sender personas, templates, segments, events and the job log on a real database (spec part 2 §3, §5 Email, Template;
 * part 1 §3 Event, Notification, §5 search rules, §7): saving with field-named validation, listing order, counting,
 * archiving, the event filters and combined search, and the job log's order and ids filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Q = Record<string, string | number | boolean>;

async function ok<T = Json>(method: string, url: string, t: Tenant, opts: { body?: unknown; query?: Q } = {}): Promise<T> {
  const res = await h.call(method, url, { key: t.apiKey, ...opts });
  expect(res.status, `${method} ${url} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

async function bad(method: string, url: string, t: Tenant, opts: { body?: unknown; query?: Q } = {}): Promise<string[]> {
  const res = await h.call(method, url, { key: t.apiKey, ...opts });
  expect(res.status, `${method} ${url} ${JSON.stringify(res.body)}`).toBe(400);
  return res.body.errors;
}

const PERSONAS = '/api/senderpersonawrapper/sender_personas';
const TEMPLATES = '/api/template/templates';
const SEGMENTS = '/api/segment/segments';
const EVENTS = '/api/event/all_events';

describe(`sender personas (${API_DB})`, () => {
  let t: Tenant;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await h.tenant();
  });

  it('creates personas with version 1', async () => {
    for (const [email, first_name] of [
      ['news@sender.example.com', 'Nora'],
      ['ops@sender.example.com', 'Otto'],
      ['help@sender.example.com', 'Hana'],
    ]) {
      const { data } = await ok('POST', PERSONAS, t, { body: { sender_personas: [{ email, first_name, json: { team: first_name } }] } });
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({ email, first_name, last_name: null, json: { team: first_name }, version: 1 });
      ids.push(data[0].id);
      await sleep(3);
    }
  });

  it('lists newest first by default and counts', async () => {
    const { data } = await ok('GET', PERSONAS, t);
    expect(data.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
    expect((await ok('GET', `${PERSONAS}/count`, t)).num_sender_personas).toBe(3);
    expect((await ok('GET', `${PERSONAS}/count`, t, { query: { ids: `${ids[0]},${ids[2]}` } })).num_sender_personas).toBe(2);
    expect((await ok('GET', PERSONAS, t, { query: { sort_columns: 'first_name ASC' } })).data.map((p: { first_name: string }) => p.first_name)).toEqual([
      'Hana',
      'Nora',
      'Otto',
    ]);
    expect((await ok('GET', PERSONAS, t, { query: { limit: 1, offset: 1 } })).data.map((p: { id: string }) => p.id)).toEqual([ids[1]]);
  });

  it('updates by id: same id, version+1, newer updated_at', async () => {
    const [before] = (await ok('GET', PERSONAS, t, { query: { ids: ids[0] } })).data;
    await sleep(5);
    const { data } = await ok('POST', PERSONAS, t, {
      body: { sender_personas: [{ id: ids[0], email: 'news@sender.example.com', first_name: 'Nina', last_name: 'Lane' }] },
    });
    expect(data[0]).toMatchObject({ id: ids[0], first_name: 'Nina', last_name: 'Lane', version: 2, created_at: before.created_at });
    expect(Date.parse(data[0].updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect((await ok('GET', `${PERSONAS}/count`, t)).num_sender_personas).toBe(3);
    // Fields left out of an update keep their values.
    const kept = await ok('POST', PERSONAS, t, { body: { sender_personas: [{ id: ids[0], email: 'news@sender.example.com', first_name: 'Nina' }] } });
    expect(kept.data[0]).toMatchObject({ last_name: 'Lane', json: before.json, version: 3 });
  });

  it('a missing first_name is "Required field" (schema), as is a blank one', async () => {
    expect(await bad('POST', PERSONAS, t, { body: { sender_personas: [{ email: 'x@sender.example.com' }] } })).toContain(
      'sender_personas[0].first_name: Required field',
    );
    expect(await bad('POST', PERSONAS, t, { body: { sender_personas: [{ email: 'x@sender.example.com', first_name: '  ' }] } })).toEqual([
      'sender_personas[0].first_name: Required field',
    ]);
  });

  it.each([
    ['', 'Required field'],
    ['sender.example.com', 'Invalid email'],
    ['a@@sender.example.com', 'Please don’t use confusing email addresses (e.g. with two @s)'],
    ['a@localhost', 'Must contain dot'],
  ])('email %j → %s', async (email, message) => {
    expect(await bad('POST', PERSONAS, t, { body: { sender_personas: [{ email, first_name: 'X' }] } })).toEqual([`sender_personas[0].email: ${message}`]);
  });

  it('writes nothing when one persona of a batch is invalid', async () => {
    const errors = await bad('POST', PERSONAS, t, {
      body: {
        sender_personas: [
          { email: 'fine@sender.example.com', first_name: 'Fine' },
          { email: 'nope', first_name: '' },
        ],
      },
    });
    expect(errors).toEqual(['sender_personas[1].email: Invalid email', 'sender_personas[1].first_name: Required field']);
    expect((await ok('GET', `${PERSONAS}/count`, t)).num_sender_personas).toBe(3);
  });

  it('cannot take over another project’s persona by its id', async () => {
    const other = await h.tenant();
    expect(await bad('POST', PERSONAS, other, { body: { sender_personas: [{ id: ids[1], email: 'evil@x.example.com', first_name: 'Evil' }] } })).toEqual([
      'sender_personas[0].id: id is already in use',
    ]);
    expect((await ok('GET', PERSONAS, t, { query: { ids: ids[1] } })).data[0]).toMatchObject({ email: 'ops@sender.example.com', version: 1 });
    expect((await ok('GET', `${PERSONAS}/count`, other)).num_sender_personas).toBe(0);
  });

  it('keeps one persona per address: a second one, in any letter case or in the same request, is refused naming email', async () => {
    expect(await bad('POST', PERSONAS, t, { body: { sender_personas: [{ email: 'News@Sender.example.com', first_name: 'Nora' }] } })).toEqual([
      'sender_personas[0].email: a sender persona with the email News@Sender.example.com already exists',
    ]);
    expect(
      await bad('POST', PERSONAS, t, {
        body: {
          sender_personas: [
            { email: 'twice@sender.example.com', first_name: 'A' },
            { email: 'TWICE@sender.example.com', first_name: 'B' },
          ],
        },
      }),
    ).toEqual(['sender_personas[1].email: a sender persona with the email TWICE@sender.example.com already exists']);
    // Moving a persona onto another's address is refused; saving a persona with its own address is not.
    expect(await bad('POST', PERSONAS, t, { body: { sender_personas: [{ id: ids[1], email: 'help@sender.example.com', first_name: 'Otto' }] } })).toEqual([
      'sender_personas[0].email: a sender persona with the email help@sender.example.com already exists',
    ]);
    await ok('POST', PERSONAS, t, { body: { sender_personas: [{ id: ids[1], email: 'OPS@sender.example.com', first_name: 'Otto' }] } });
    expect((await ok('GET', `${PERSONAS}/count`, t)).num_sender_personas).toBe(3);
    // Another project may use the same address.
    const other = await h.tenant();
    await ok('POST', PERSONAS, other, { body: { sender_personas: [{ email: 'news@sender.example.com', first_name: 'Nora' }] } });
  });

  it('rejects an unknown sort column naming sort_columns', async () => {
    expect((await bad('GET', PERSONAS, t, { query: { sort_columns: 'version' } }))[0]).toMatch(/^sort_columns: /);
  });
});

describe(`templates (${API_DB})`, () => {
  let t: Tenant;
  const ids: string[] = [];
  const MARKETING = '<p>Hello {{user.first_name}}</p><a href="{{unsubscribe_link}}">Unsubscribe</a>';
  const template = (over: Record<string, unknown> = {}) => ({
    name: 'News',
    subject: 'Hi {{user.first_name}}',
    type: 'TEMPLATE_MARKETING',
    html_body: MARKETING,
    ...over,
  });
  const count = async (tt: Tenant = t) => (await ok('GET', `${TEMPLATES}/count`, tt)).num_templates as number;

  beforeAll(async () => {
    t = await h.tenant();
  });

  it('creates templates with defaults and version 1', async () => {
    for (const name of ['First', 'Second', 'Third']) {
      const { data } = await ok('POST', TEMPLATES, t, { body: { templates: [template({ name })] } });
      expect(data[0]).toMatchObject({
        name,
        subject: 'Hi {{user.first_name}}',
        type: 'TEMPLATE_MARKETING',
        enabled: true,
        html_body: MARKETING,
        plain_text_body: null,
        channel_id: null,
        json: null,
        version: 1,
      });
      ids.push(data[0].id);
      await sleep(3);
    }
    const { data } = await ok('POST', TEMPLATES, t, {
      body: {
        templates: [{ name: 'Receipt', subject: 'Receipt', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Thanks</p>', enabled: false, json: { design: 1 } }],
      },
    });
    expect(data[0]).toMatchObject({ type: 'TEMPLATE_TRANSACTIONAL', enabled: false, json: { design: 1 } });
    ids.push(data[0].id);
  });

  it('lists newest first by default, sorts by name, and counts', async () => {
    const { data } = await ok('GET', TEMPLATES, t);
    expect(data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    expect((await ok('GET', TEMPLATES, t, { query: { sort_columns: 'name ASC' } })).data.map((x: { name: string }) => x.name)).toEqual([
      'First',
      'Receipt',
      'Second',
      'Third',
    ]);
    expect(await count()).toBe(4);
    expect((await ok('GET', TEMPLATES, t, { query: { ids: ids[1] } })).data.map((x: { name: string }) => x.name)).toEqual(['Second']);
  });

  it('updates by id, bumping version and replacing the content', async () => {
    const [before] = (await ok('GET', TEMPLATES, t, { query: { ids: ids[0] } })).data;
    await sleep(5);
    const { data } = await ok('POST', TEMPLATES, t, {
      body: { templates: [template({ id: ids[0], name: 'First v2', subject: 'New subject', plain_text_body: 'Hi {{user.first_name}}' })] },
    });
    expect(data[0]).toMatchObject({
      id: ids[0],
      name: 'First v2',
      subject: 'New subject',
      plain_text_body: 'Hi {{user.first_name}}',
      version: 2,
      created_at: before.created_at,
    });
    expect(Date.parse(data[0].updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    const again = await ok('POST', TEMPLATES, t, { body: { templates: [template({ id: ids[0], name: 'First v3' })] } });
    expect(again.data[0].version).toBe(3);
    expect(await count()).toBe(4);
  });

  it('a marketing template without {{unsubscribe_link}} is refused with the spec’s message', async () => {
    expect(await bad('POST', TEMPLATES, t, { body: { templates: [template({ html_body: '<p>No link</p>' })] } })).toEqual([
      'templates[0].html_body: Marketing emails must include an unsubscribe link! Please see the instructions below the template editor',
    ]);
    // The same html is fine for a transactional template, and `{{ unsubscribe_link }}` counts.
    await ok('POST', TEMPLATES, t, { body: { templates: [template({ name: 'Tx', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>No link</p>' })] } });
    await ok('POST', TEMPLATES, t, { body: { templates: [template({ name: 'Spaced', html_body: '<a href="{{ unsubscribe_link }}">u</a>' })] } });
  });

  it('empty html, or html of exactly 4999 characters, is "You must add email contents"', async () => {
    for (const html_body of ['', '   ', `<a href="{{unsubscribe_link}}">u</a>${'x'.repeat(4999 - 36)}`]) {
      expect(await bad('POST', TEMPLATES, t, { body: { templates: [template({ html_body })] } }), String(html_body.length)).toEqual([
        'templates[0].html_body: You must add email contents',
      ]);
    }
  });

  it('malformed variables are refused naming the field', async () => {
    const html = await bad('POST', TEMPLATES, t, { body: { templates: [template({ type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{#if}}</p>' })] } });
    expect(html).toHaveLength(1);
    expect(html[0]).toMatch(/^templates\[0\]\.html_body: invalid template variables/);
    const subject = await bad('POST', TEMPLATES, t, { body: { templates: [template({ subject: 'Hi {{user.first_name' })] } });
    expect(subject[0]).toMatch(/^templates\[0\]\.subject: invalid template variables/);
    const text = await bad('POST', TEMPLATES, t, { body: { templates: [template({ plain_text_body: '{{/each}}' })] } });
    expect(text[0]).toMatch(/^templates\[0\]\.plain_text_body: invalid template variables/);
  });

  it('a type outside the enum, missing fields and unknown fields are named', async () => {
    const type = await bad('POST', TEMPLATES, t, { body: { templates: [template({ type: 'TEMPLATE_OTHER' })] } });
    expect(type).toEqual(['templates[0].type: must be one of TEMPLATE_MARKETING, TEMPLATE_TRANSACTIONAL']);
    const missing = await bad('POST', TEMPLATES, t, { body: { templates: [{ name: 'x', type: 'TEMPLATE_MARKETING', html_body: MARKETING }] } });
    expect(missing).toContain('templates[0].subject: Required field');
    expect(await bad('POST', TEMPLATES, t, { body: { templates: [template({ name: ' ' })] } })).toEqual(['templates[0].name: Required field']);
    expect(await bad('POST', TEMPLATES, t, { body: { templates: [template({ colour: 'red' })] } })).toContain('templates[0].colour: unknown field');
  });

  it('writes nothing when one template of a batch is invalid', async () => {
    const before = await count();
    const errors = await bad('POST', TEMPLATES, t, {
      body: { templates: [template({ name: 'Good' }), template({ name: 'Bad', html_body: '<p>no link</p>' })] },
    });
    expect(errors).toEqual([
      'templates[1].html_body: Marketing emails must include an unsubscribe link! Please see the instructions below the template editor',
    ]);
    expect(await count()).toBe(before);
  });

  it('archives by comma-separated ids, reporting unknown ids; archived templates leave list and count', async () => {
    const before = await count();
    const unknown = crypto.randomUUID();
    const res = await ok('DELETE', `${TEMPLATES}/${ids[1]},${unknown}`, t);
    expect(res).toEqual({ ids: [ids[1]], errors: [`ids: no template ${unknown} in this project`] });
    expect(await count()).toBe(before - 1);
    const listed = (await ok('GET', TEMPLATES, t, { query: { limit: 100 } })).data.map((x: { id: string }) => x.id);
    expect(listed).not.toContain(ids[1]);
    expect(listed).toContain(ids[2]);
    expect((await ok('GET', TEMPLATES, t, { query: { ids: ids[1] } })).data).toEqual([]);
    // Archiving again finds nothing; an archived template cannot be updated by id either.
    expect(await ok('DELETE', `${TEMPLATES}/${ids[1]}`, t)).toEqual({ ids: [], errors: [`ids: no template ${ids[1]} in this project`] });
    expect(await bad('POST', TEMPLATES, t, { body: { templates: [template({ id: ids[1] })] } })).toEqual(['templates[0].id: id is already in use']);
  });

  it('archives several ids at once and rejects ids that are not UUIDs', async () => {
    const res = await ok('DELETE', `${TEMPLATES}/${ids[2]},${ids[3]}`, t);
    expect([...res.ids].sort()).toEqual([ids[2], ids[3]].sort());
    expect(res.errors).toEqual([]);
    expect(await bad('DELETE', `${TEMPLATES}/abc`, t)).toEqual(['ids: not a valid id: abc']);
  });

  it('another project can neither see nor archive these templates', async () => {
    const other = await h.tenant();
    expect(await count(other)).toBe(0);
    const res = await ok('DELETE', `${TEMPLATES}/${ids[0]}`, other);
    expect(res).toEqual({ ids: [], errors: [`ids: no template ${ids[0]} in this project`] });
    expect((await ok('GET', TEMPLATES, t, { query: { ids: ids[0] } })).data).toHaveLength(1);
  });
});

describe(`segments (${API_DB})`, () => {
  let t: Tenant;
  let contactIds: string[];
  const count = async (tt: Tenant = t) => (await ok('GET', `${SEGMENTS}/count`, tt)).num_segments as number;

  beforeAll(async () => {
    t = await h.tenant();
    contactIds = (
      await ok('POST', '/api/user/users', t, { body: { users: [{ email: 's1@example.com' }, { email: 's2@example.com' }, { email: 's3@example.com' }] } })
    ).data.map((c: { id: string }) => c.id);
  });

  it('creates a segment with members; num_users counts them (duplicates once)', async () => {
    const { data } = await ok('POST', SEGMENTS, t, {
      body: { segments: [{ name: ' VIPs ', user_ids: [contactIds[0], contactIds[1], contactIds[0].toUpperCase()] }] },
    });
    expect(data[0]).toMatchObject({ name: 'VIPs', num_users: 2 });
    const listed = (await ok('GET', SEGMENTS, t)).data;
    expect(listed.map((s: { id: string; name: string }) => [s.id, s.name])).toEqual([[data[0].id, 'VIPs']]);
    expect(listed[0].num_users).toBe(2);
    const members = (await ok('GET', '/api/user/users', t, { query: { in_segment_ids: data[0].id } })).data.map((c: { email: string }) => c.email);
    expect(members).toEqual(['s1@example.com', 's2@example.com']);
    expect(await count()).toBe(1);
  });

  it('a user id from another project is a 400 naming segments[0].user_ids; nothing is created', async () => {
    const other = await h.tenant();
    const [foreign] = (await ok('POST', '/api/user/users', other, { body: { users: [{ email: 'foreign@example.com' }] } })).data;
    const before = await count();
    const errors = await bad('POST', SEGMENTS, t, { body: { segments: [{ name: 'Mixed', user_ids: [contactIds[2], foreign.id] }] } });
    expect(errors).toEqual([`segments[0].user_ids: no such contacts in this project: ${foreign.id}`]);
    expect(await count()).toBe(before);
    const rows = await h.runtime.database.query<{ n: number | string }>('SELECT count(*) AS n FROM segments WHERE project_id = $1', [t.projectId]);
    expect(Number(rows[0].n)).toBe(before);
  });

  it('a failing segment later in the batch rolls back the ones before it', async () => {
    const before = await count();
    const missing = crypto.randomUUID();
    const errors = await bad('POST', SEGMENTS, t, {
      body: {
        segments: [
          { name: 'Fine', user_ids: [contactIds[2]] },
          { name: 'Broken', user_ids: [missing] },
        ],
      },
    });
    expect(errors).toEqual([`segments[1].user_ids: no such contacts in this project: ${missing}`]);
    expect(await count()).toBe(before);
    const members = await h.runtime.database.query<{ n: number | string }>(
      'SELECT count(*) AS n FROM segment_members sm JOIN segments s ON s.id = sm.segment_id WHERE s.project_id = $1',
      [t.projectId],
    );
    expect(Number(members[0].n)).toBe(2);
  });

  it('an archived contact cannot be added', async () => {
    await ok('DELETE', '/api/user/users', t, { query: { emails: 's3@example.com' } });
    expect(await bad('POST', SEGMENTS, t, { body: { segments: [{ name: 'Late', user_ids: [contactIds[2]] }] } })).toEqual([
      `segments[0].user_ids: no such contacts in this project: ${contactIds[2]}`,
    ]);
  });

  it('a blank name is "Required field"; an empty segment is allowed', async () => {
    expect(await bad('POST', SEGMENTS, t, { body: { segments: [{ name: '  ' }] } })).toEqual(['segments[0].name: Required field']);
    expect((await ok('POST', SEGMENTS, t, { body: { segments: [{ name: 'Empty' }] } })).data[0]).toMatchObject({ name: 'Empty', num_users: 0 });
    expect((await ok('GET', SEGMENTS, t)).data.map((s: { name: string }) => s.name)).toEqual(['Empty', 'VIPs']);
  });

  it("POST /segments/{id}/users adds live contacts once; a foreign or archived id adds nothing; another project's segment is 404", async () => {
    const [empty] = (await ok('GET', SEGMENTS, t)).data.filter((s: { name: string }) => s.name === 'Empty');
    const added = await ok('POST', `${SEGMENTS}/${empty.id}/users`, t, { body: { user_ids: [contactIds[0], contactIds[0].toUpperCase()] } });
    expect(added.data).toMatchObject({ id: empty.id, name: 'Empty', num_users: 1 });
    expect((await ok('POST', `${SEGMENTS}/${empty.id}/users`, t, { body: { user_ids: [contactIds[0], contactIds[1]] } })).data.num_users).toBe(2);
    // contactIds[2] was archived above: nothing of this request is added.
    expect(await bad('POST', `${SEGMENTS}/${empty.id}/users`, t, { body: { user_ids: [contactIds[2]] } })).toEqual([
      `user_ids: no such contacts in this project: ${contactIds[2]}`,
    ]);
    expect((await ok('GET', SEGMENTS, t, { query: { ids: empty.id } })).data[0].num_users).toBe(2);
    const other = await h.tenant();
    const res = await h.call('POST', `${SEGMENTS}/${empty.id}/users`, { key: other.apiKey, body: { user_ids: [contactIds[0]] } });
    expect(res.status).toBe(404);
  });

  it('adds by email too, and says how many were new; an unknown email adds nothing', async () => {
    const { data } = await ok('POST', SEGMENTS, t, { body: { segments: [{ name: 'By email' }] } });
    const added = await ok('POST', `${SEGMENTS}/${data[0].id}/users`, t, { body: { emails: ['S1@example.com'], user_ids: [contactIds[1]] } });
    expect(added).toMatchObject({ data: { num_users: 2 }, num_added: 2 });
    expect((await ok('POST', `${SEGMENTS}/${data[0].id}/users`, t, { body: { emails: ['s1@example.com'] } })).num_added).toBe(0);
    expect(await bad('POST', `${SEGMENTS}/${data[0].id}/users`, t, { body: { emails: ['nobody@example.com', 's2@example.com'] } })).toEqual([
      'emails: no such contacts in this project: nobody@example.com',
    ]);
    expect(await bad('POST', `${SEGMENTS}/${data[0].id}/users`, t, { body: { emails: [] } })).toEqual(['user_ids: Required field']);
  });

  it("PATCH renames; a blank name is refused; a missing or foreign segment is the spec's 404", async () => {
    const { data } = await ok('POST', SEGMENTS, t, { body: { segments: [{ name: 'Old name' }] } });
    expect((await ok('PATCH', `${SEGMENTS}/${data[0].id}`, t, { body: { name: ' New name ' } })).data).toMatchObject({ id: data[0].id, name: 'New name' });
    expect(await bad('PATCH', `${SEGMENTS}/${data[0].id}`, t, { body: { name: ' ' } })).toEqual(['name: Required field']);
    const other = await h.tenant();
    const res = await h.call('PATCH', `${SEGMENTS}/${data[0].id}`, { key: other.apiKey, body: { name: 'Stolen' } });
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([`Couldn't find segment with id ${data[0].id} to update`]);
    expect((await ok('GET', SEGMENTS, t, { query: { ids: data[0].id } })).data[0].name).toBe('New name');
  });

  it('DELETE /segments/{id}/users/{ids} removes members and keeps the contacts', async () => {
    const { data } = await ok('POST', SEGMENTS, t, { body: { segments: [{ name: 'Shrinking', user_ids: [contactIds[0], contactIds[1]] }] } });
    const stranger = crypto.randomUUID();
    const out = await ok('DELETE', `${SEGMENTS}/${data[0].id}/users/${contactIds[0].toUpperCase()},${stranger}`, t);
    expect(out).toMatchObject({ data: { id: data[0].id, num_users: 1 }, num_removed: 1 });
    expect((await ok('GET', '/api/user/users', t, { query: { ids: contactIds[0] } })).data).toHaveLength(1);
    expect(await bad('DELETE', `${SEGMENTS}/${data[0].id}/users/not-an-id`, t)).toEqual([expect.stringMatching(/^user_ids: /)]);
    const other = await h.tenant();
    expect((await h.call('DELETE', `${SEGMENTS}/${data[0].id}/users/${contactIds[1]}`, { key: other.apiKey })).status).toBe(404);
    expect((await ok('GET', SEGMENTS, t, { query: { ids: data[0].id } })).data[0].num_users).toBe(1);
  });

  it('searches by name (search_value or names) and counts the same; with_counts=false skips counting', async () => {
    const names = async (query: Q) => (await ok('GET', SEGMENTS, t, { query })).data.map((s: { name: string }) => s.name).sort();
    expect(await names({ search_field: 'name', search_value: 'NAME' })).toEqual(['New name']);
    expect(await names({ names: 'vip' })).toEqual(['VIPs']);
    expect((await ok('GET', `${SEGMENTS}/count`, t, { query: { names: 'e' } })).num_segments).toBe((await names({ names: 'e' })).length);
    const bySize = (await ok('GET', SEGMENTS, t, { query: { sort_columns: 'num_users DESC,name ASC', limit: 100 } })).data.map(
      (s: { num_users: number }) => s.num_users,
    );
    expect(bySize).toEqual([...bySize].sort((a, b) => b - a));
    const [vips] = (await ok('GET', SEGMENTS, t, { query: { names: 'VIPs', with_counts: false } })).data;
    expect(vips.num_users).toBe(0);
  });
});

describe(`events (${API_DB})`, () => {
  let t: Tenant;
  let other: Tenant;
  const U1 = crypto.randomUUID();
  const U2 = crypto.randomUUID();
  const E: Record<string, string> = {};
  const names = async (query: Q = {}, tt: Tenant = t) =>
    (await ok('GET', EVENTS, tt, { query: { limit: 100, ...query } })).data.map((e: { id: string }) => key(e.id));
  const num = async (query: Q = {}) => (await ok('GET', `${EVENTS}/count`, t, { query })).num_events as number;
  const key = (id: string) => Object.keys(E).find((k) => E[k] === id) ?? id;

  beforeAll(async () => {
    t = await h.tenant();
    const rows: Array<[string, string, string, string | null, string, boolean]> = [
      ['E1', 'signed_up', 'ann@example.com', U1, '2026-11-20T08:00:00Z', false],
      ['E2', 'purchase', 'bob@example.com', U2, '2026-11-20T23:59:59Z', false],
      ['E3', 'purchase', 'ann@example.com', U1, '2026-11-21T00:00:00Z', false],
      ['E4', EVENT.sendSuccess, 'ann@example.com', U1, '2026-11-19T12:00:00Z', true],
      ['E5', EVENT.open, 'carl@example.com', null, '2026-11-20T10:00:00Z', true],
    ];
    for (const [k, name, email, userId, at, system] of rows) {
      E[k] = crypto.randomUUID();
      await h.runtime.database.query(
        'INSERT INTO events (id, project_id, name, email, user_id, emitted_at, is_system, json, metric1) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [E[k], t.projectId, name, email, userId, at, system, JSON.stringify({ k }), k === 'E2' ? 19.99 : null],
      );
    }
    // Another project's event on the same day, with the same name and email.
    other = await h.tenant();
    await h.runtime.database.query('INSERT INTO events (project_id, name, email, user_id, emitted_at) VALUES ($1, $2, $3, $4, $5)', [
      other.projectId,
      'purchase',
      'ann@example.com',
      U1,
      '2026-11-20T12:00:00Z',
    ]);
  });

  it('lists customer events newest first, without system events by default', async () => {
    const { data } = await ok('GET', EVENTS, t);
    expect(data.map((e: { id: string }) => key(e.id))).toEqual(['E3', 'E2', 'E1']);
    expect(data[1]).toMatchObject({
      name: 'purchase',
      email: 'bob@example.com',
      user_id: U2,
      emitted_at: '2026-11-20T23:59:59.000Z',
      metric1: 19.99,
      metric2: null,
      json: { k: 'E2' },
    });
    expect(await num()).toBe(3);
  });

  it('include_system_events adds the product’s own events', async () => {
    expect(await names({ include_system_events: true })).toEqual(['E3', 'E2', 'E5', 'E1', 'E4']);
    expect(await num({ include_system_events: true })).toBe(5);
    expect(await names({ include_system_events: false })).toEqual(['E3', 'E2', 'E1']);
  });

  it('include_events keeps only the named events', async () => {
    expect(await names({ include_events: 'purchase' })).toEqual(['E3', 'E2']);
    expect(await names({ include_events: 'purchase, signed_up' })).toEqual(['E3', 'E2', 'E1']);
    expect(await names({ include_events: EVENT.sendSuccess })).toEqual([]);
    expect(await names({ include_events: EVENT.sendSuccess, include_system_events: true })).toEqual(['E4']);
    expect(await names({ include_events: 'purchase,ses_event_open', include_system_events: true })).toEqual(['E3', 'E2', 'E5']);
    expect(await num({ include_events: 'purchase' })).toBe(2);
  });

  it('search_field=email and search_field=name are case-insensitive substrings', async () => {
    expect(await names({ search_field: 'email', search_value: 'ANN@' })).toEqual(['E3', 'E1']);
    expect(await names({ search_field: 'email', search_value: 'ANN@', include_system_events: true })).toEqual(['E3', 'E1', 'E4']);
    expect(await num({ search_field: 'email', search_value: 'ANN@' })).toBe(2);
    expect(await names({ search_field: 'name', search_value: 'CHASE' })).toEqual(['E3', 'E2']);
    expect(await names({ search_field: 'name', search_value: '_' })).toEqual(['E1']);
    expect(await names({ search_field: 'name', search_value: '%' })).toEqual([]);
  });

  it('search_field=emitted_at matches that UTC day; a non-date is a 400', async () => {
    expect(await names({ search_field: 'emitted_at', search_value: '2026-11-21' })).toEqual(['E3']);
    expect(await num({ search_field: 'emitted_at', search_value: '2026-11-20', include_system_events: true })).toBe(3);
    expect(await bad('GET', EVENTS, t, { query: { search_field: 'emitted_at', search_value: 'nonsense' } })).toEqual(['search_value: not a date: nonsense']);
  });

  it('the combined search: a UUID matches id or user_id', async () => {
    expect(await names({ search_value: U1 })).toEqual(['E3', 'E1']);
    expect(await names({ search_value: U1.toUpperCase(), include_system_events: true })).toEqual(['E3', 'E1', 'E4']);
    expect(await names({ search_value: E['E2'] })).toEqual(['E2']);
    expect(await names({ search_field: 'combined', search_value: E['E2'] })).toEqual(['E2']);
    expect(await num({ search_value: U1 })).toBe(2);
    expect(await names({ search_value: crypto.randomUUID() })).toEqual([]);
  });

  it('the combined search: a date matches that UTC day (boundaries included/excluded correctly)', async () => {
    expect(await names({ search_value: '2026-11-20' })).toEqual(['E2', 'E1']);
    expect(await names({ search_value: '2026-11-20', include_system_events: true })).toEqual(['E2', 'E5', 'E1']);
    expect(await names({ search_value: '2026-11-21' })).toEqual(['E3']);
    expect(await num({ search_value: '2026-11-20' })).toBe(2);
    expect(await names({ search_value: '2026-11-22' })).toEqual([]);
  });

  it('the combined search: other text matches email or name', async () => {
    expect(await names({ search_value: 'bob' })).toEqual(['E2']);
    expect(await names({ search_value: 'SIGN' })).toEqual(['E1']);
    expect(await names({ search_value: 'example.com' })).toEqual(['E3', 'E2', 'E1']);
    expect(await names({ search_value: 'open', include_system_events: true })).toEqual(['E5']);
    expect(await num({ search_value: 'purchase' })).toBe(2);
    expect(await names({ search_value: '   ' })).toEqual(['E3', 'E2', 'E1']);
  });

  it('text with a number in it is not mistaken for a date', async () => {
    const u = await h.tenant();
    for (const [name, at] of [
      ['purchase 2', '2026-11-19T12:00:00Z'],
      ['signed_up', '2026-11-20T12:00:00Z'],
    ]) {
      await h.runtime.database.query('INSERT INTO events (project_id, name, email, emitted_at) VALUES ($1, $2, $3, $4)', [
        u.projectId,
        name,
        'x@example.com',
        at,
      ]);
    }
    const search = async (search_value: string, search_field?: string) =>
      h.call('GET', EVENTS, { key: u.apiKey, query: { search_value, ...(search_field ? { search_field } : {}) } });
    expect((await search('purchase 2')).body.data.map((e: { name: string }) => e.name)).toEqual(['purchase 2']);
    expect((await search('Nov 20, 2026')).body.data.map((e: { name: string }) => e.name)).toEqual(['signed_up']);
    const bad = await search('level 9000', 'emitted_at');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['search_value: not a date: level 9000']);
  });

  it('sorts by sort_columns and pages', async () => {
    expect(await names({ sort_columns: 'email ASC,emitted_at ASC' })).toEqual(['E1', 'E3', 'E2']);
    expect(await names({ sort_columns: 'name ASC,emitted_at DESC' })).toEqual(['E3', 'E2', 'E1']);
    expect(await names({ sort_columns: 'emitted_at ASC', include_system_events: true })).toEqual(['E4', 'E1', 'E5', 'E2', 'E3']);
    expect(await names({ limit: 2, offset: 1 })).toEqual(['E2', 'E1']);
    expect((await bad('GET', EVENTS, t, { query: { sort_columns: 'metric1' } }))[0]).toMatch(/^sort_columns: /);
  });

  it('filters by ids, with system events still hidden unless asked for', async () => {
    expect(await names({ ids: `${E['E1']},${E['E4']}` })).toEqual(['E1']);
    expect(await names({ ids: `${E['E1']},${E['E4']}`, include_system_events: true })).toEqual(['E1', 'E4']);
    expect(await bad('GET', EVENTS, t, { query: { ids: 'nope' } })).toEqual(['ids: not a valid id: nope']);
  });

  it('each project sees only its own events', async () => {
    const seen = await names({ include_system_events: true, search_value: U1 }, other);
    expect(seen).toHaveLength(1);
    expect(Object.keys(E)).not.toContain(seen[0]);
    expect(await names({ include_system_events: true }, await h.tenant())).toEqual([]);
  });
});

describe(`job log (${API_DB})`, () => {
  let t: Tenant;
  const J: Record<string, string> = {};
  const key = (id: string) => Object.keys(J).find((k) => J[k] === id) ?? id;

  beforeAll(async () => {
    t = await h.tenant();
    const rows: Array<[string, string, string, string | null, boolean | null, object, object | null]> = [
      ['J1', 'JOB_PROCESS_EMAIL_BLAST', '2026-11-20T10:00:00Z', '2026-11-20T10:00:05Z', true, { scheduled_email_group_id: 'b1' }, { num: 3 }],
      ['J2', 'JOB_PARSE_CONTACT_FILE', '2026-11-21T09:00:00Z', null, null, { filename: 'contacts.csv' }, null],
      ['J3', 'JOB_DISTRIBUTE_EMAIL_BLAST', '2026-11-19T08:00:00Z', '2026-11-19T08:01:00Z', false, {}, { error: 'boom' }],
    ];
    for (const [k, name, started, ended, success, start, end] of rows) {
      J[k] = crypto.randomUUID();
      await h.runtime.database.query(
        'INSERT INTO job_log (id, project_id, job_name, started_at, ended_at, success, start_details, end_details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [J[k], t.projectId, name, started, ended, success, JSON.stringify(start), end === null ? null : JSON.stringify(end)],
      );
    }
    const other = await h.tenant();
    await h.runtime.database.query('INSERT INTO job_log (project_id, job_name, started_at) VALUES ($1, $2, $3)', [
      other.projectId,
      'JOB_OTHER',
      '2026-11-22T00:00:00Z',
    ]);
  });

  it('lists the project’s entries newest first with their fields', async () => {
    const { data } = await ok('GET', '/api/joblog/joblog', t);
    expect(data.map((j: { id: string }) => key(j.id))).toEqual(['J2', 'J1', 'J3']);
    expect(data[0]).toEqual({
      id: J.J2,
      job_name: 'JOB_PARSE_CONTACT_FILE',
      started_at: '2026-11-21T09:00:00.000Z',
      ended_at: null,
      success: null,
      start_details: { filename: 'contacts.csv' },
      end_details: null,
    });
    expect(data[1]).toMatchObject({ ended_at: '2026-11-20T10:00:05.000Z', success: true, end_details: { num: 3 } });
    expect(data[2]).toMatchObject({ success: false, start_details: {}, end_details: { error: 'boom' } });
  });

  it('filters by ids and pages', async () => {
    const byIds = (await ok('GET', '/api/joblog/joblog', t, { query: { ids: `${J.J3},${J.J1}` } })).data;
    expect(byIds.map((j: { id: string }) => key(j.id))).toEqual(['J1', 'J3']);
    const page = (await ok('GET', '/api/joblog/joblog', t, { query: { limit: 1, offset: 1 } })).data;
    expect(page.map((j: { id: string }) => key(j.id))).toEqual(['J1']);
    expect(await bad('GET', '/api/joblog/joblog', t, { query: { ids: 'x' } })).toEqual(['ids: not a valid id: x']);
  });

  it('another project sees none of them, even by id', async () => {
    const other = await h.tenant();
    expect((await ok('GET', '/api/joblog/joblog', other, { query: { ids: J.J1 } })).data).toEqual([]);
    expect((await ok('GET', '/api/joblog/joblog', other)).data).toEqual([]);
  });
});
