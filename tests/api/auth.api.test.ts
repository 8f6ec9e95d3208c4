/** Login, the x-api-key check on every operation, and tenant isolation (issue: Foundation, DESIGN.md §2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../generated/operations.gen.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { seedDemoAccount } from '../../src/server/core/accounts/demo.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A request path for an operation, with path parameters filled with a plausible id. */
function urlOf(op: { service: string; path: string }): string {
  return `/api/${op.service}${op.path.replace(/\{[^}]+\}/g, '5f4b1f7e-1c1a-4c1e-9a51-0c2d3e4f5a6b')}`;
}

describe(`login (${API_DB})`, () => {
  it('returns the session for the seeded demo admin, with every gateway endpoint', async () => {
    await seedDemoAccount(h.runtime.database.db);
    const res = await h.call('POST', '/api/login/login', { body: { email: DEMO_ACCOUNT.email.toUpperCase(), password: DEMO_ACCOUNT.password } });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(DEMO_ACCOUNT.email);
    expect(res.body.company.name).toBe(DEMO_ACCOUNT.company);
    expect(res.body.project.name).toBe(DEMO_ACCOUNT.project);
    expect(res.body.not_in_sandbox).toBe(false);
    for (const s of ['user', 'template', 'senderpersona', 'scheduler', 'reporting', 'segment', 'event', 'joblog', 'companyauthwrapper', 'workflowwrapper']) {
      expect(res.body.endpoints[`api_${s}_gateway`]).toMatch(/^http:\/\/localhost:8080\/api\//);
    }
    const users = await h.call('GET', '/api/user/users', { key: res.body.api_client_key });
    expect(users.status).toBe(200);
  });

  it('gives 401 with "401: invalid username / password" for a wrong password or unknown email', async () => {
    for (const body of [
      { email: DEMO_ACCOUNT.email, password: 'nope-nope' },
      { email: 'nobody@example.com', password: 'whatever1' },
    ]) {
      const res = await h.call('POST', '/api/login/login', { body });
      expect(res.status).toBe(401);
      expect(res.body.errors).toEqual(['401: invalid username / password']);
    }
  });

  it('gives 400 naming the missing field', async () => {
    const res = await h.call('POST', '/api/login/login', { body: { email: 'a@b.co' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['password: Required field']);
  });
});

describe(`x-api-key (${API_DB})`, () => {
  // login, and operations marked public (security: [], e.g. SNS's endpoint, guarded by the integration key in its path).
  const guarded = Object.entries(operations).filter(([id, op]) => id !== 'login' && !('public' in op));

  it.each(guarded)('%s: 401 without a key and with a wrong key', async (_id, op) => {
    for (const key of [undefined, 'mk_not-a-real-key']) {
      const res = await h.call(op.method, urlOf(op), { key, body: op.method === 'POST' ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.body.errors[0]).toMatch(/^x-api-key: /);
    }
  });

  it("accepts the session's integration_key and integration_key2 (the Make app's key) for the same project", async () => {
    const t = await h.tenant();
    const login = await h.call('POST', '/api/login/login', { body: { email: t.email, password: t.password } });
    const { integration_key: ik, integration_key2: ik2 } = login.body;
    expect(ik).toBeTruthy();
    expect(ik2).not.toBe(ik);
    await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: 'via-console@example.com' }] } });
    const made = await h.call('POST', '/api/user/users', { key: ik, body: { users: [{ email: 'via-make@example.com' }] } });
    expect(made.status).toBe(200);
    for (const key of [t.apiKey, ik, ik2]) {
      const list = await h.call('GET', '/api/user/users', { key, query: { limit: 10 } });
      expect(list.status).toBe(200);
      expect(list.body.data.map((u: { email: string }) => u.email).sort()).toEqual(['via-console@example.com', 'via-make@example.com']);
    }
  });
});

describe(`tenant isolation (${API_DB})`, () => {
  let a: Tenant;
  let b: Tenant;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    a = await h.tenant({ activated: true });
    b = await h.tenant({ activated: true });
    const contact = await h.call('POST', '/api/user/users', { key: a.apiKey, body: { users: [{ email: 'only-a@example.com', first_name: 'A' }] } });
    ids.contact = contact.body.data[0].id;
    const persona = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: a.apiKey,
      body: { sender_personas: [{ email: 'sender@a.example.com', first_name: 'Ann' }] },
    });
    ids.persona = persona.body.data[0].id;
    const template = await h.call('POST', '/api/template/templates', {
      key: a.apiKey,
      body: { templates: [{ name: 'A news', subject: 'Hi', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>hi</p>' }] },
    });
    ids.template = template.body.data[0].id;
    const segment = await h.call('POST', '/api/segment/segments', { key: a.apiKey, body: { segments: [{ name: 'A seg', user_ids: [ids.contact] }] } });
    ids.segment = segment.body.data[0].id;
    ids.blast = crypto.randomUUID();
    const blast = await h.call('POST', '/api/scheduler/scheduler', {
      key: a.apiKey,
      body: {
        id: ids.blast,
        name: 'A blast',
        template_id: ids.template,
        sender_persona_id: ids.persona,
        to_user_ids: [ids.contact],
        send_at: '2099-01-01T12:30',
        timezone: 'UTC',
      },
    });
    expect(blast.status).toBe(200);
  });

  it('the second tenant lists and counts none of the first tenant’s data, even by id', async () => {
    const lists: Array<[string, string]> = [
      ['/api/user/users', 'contact'],
      ['/api/senderpersonawrapper/sender_personas', 'persona'],
      ['/api/template/templates', 'template'],
      ['/api/segment/segments', 'segment'],
      ['/api/scheduler/scheduler', 'blast'],
    ];
    for (const [url, kind] of lists) {
      const mine = await h.call('GET', url, { key: a.apiKey, query: { ids: ids[kind] } });
      expect(mine.body.data, url).toHaveLength(1);
      const theirs = await h.call('GET', url, { key: b.apiKey, query: { ids: ids[kind] } });
      expect(theirs.status).toBe(200);
      expect(theirs.body.data, url).toEqual([]);
    }
    expect((await h.call('GET', '/api/user/users/count', { key: b.apiKey })).body.num_users).toBe(0);
    expect((await h.call('GET', '/api/user/users/count', { key: b.apiKey, query: { in_segment_ids: ids.segment } })).body.num_users).toBe(0);
  });

  it('the second tenant cannot archive, disable or use the first tenant’s rows', async () => {
    const t = await h.call('DELETE', `/api/template/templates/${ids.template}`, { key: b.apiKey });
    expect(t.body.ids).toEqual([]);
    expect(t.body.errors[0]).toMatch(/^ids: no template/);
    const s = await h.call('DELETE', `/api/scheduler/scheduler/${ids.blast}`, { key: b.apiKey });
    expect(s.body.ids).toEqual([]);
    const u = await h.call('DELETE', '/api/user/users', { key: b.apiKey, query: { emails: 'only-a@example.com' } });
    expect(u.body.archived_email_to_user_map['only-a@example.com']).toBeNull();
    const blast = await h.call('POST', '/api/scheduler/scheduler', {
      key: b.apiKey,
      body: {
        id: crypto.randomUUID(),
        name: 'steal',
        template_id: ids.template,
        sender_persona_id: ids.persona,
        to_user_ids: [ids.contact],
        send_at: '2099-01-01T12:30',
        timezone: 'UTC',
      },
    });
    expect(blast.status).toBe(400);
    expect(blast.body.errors).toEqual(
      expect.arrayContaining([
        `template_id: no template ${ids.template} in this project`,
        `sender_persona_id: no sender persona ${ids.persona} in this project`,
        `to_user_ids: no contact ${ids.contact} in this project`,
      ]),
    );
    // The first tenant's rows are untouched.
    expect((await h.call('GET', '/api/template/templates', { key: a.apiKey, query: { ids: ids.template } })).body.data).toHaveLength(1);
    expect((await h.call('GET', '/api/scheduler/scheduler', { key: a.apiKey, query: { ids: ids.blast } })).body.data[0].enabled).toBe(true);
  });
});
