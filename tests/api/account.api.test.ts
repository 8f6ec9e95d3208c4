/**
 * Sign-up, the contact form, sign-in throttling, the demo login and its reset, the team, the sandbox activation steps
 * and the assistant proxy, against a real database. The
 * captcha and assistant providers are real HTTP servers on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { buildApp } from '../../src/server/app.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { DEMO_CONTENT, resetDemoAccount } from '../../src/server/core/accounts/demo.ts';
import { companies, contactMessages, demoLogins } from '../../src/server/db/schema.ts';
import { DEAL_MIRROR_PROMO_CODE, DEAL_MIRROR_SOURCE } from '../../src/domain/promo.ts';

/** A provider stand-in: answers each POST with `answer(path, body)` and records the requests. */
async function provider(answer: (path: string, body: string) => { status: number; json: unknown }) {
  const seen: Array<{ path: string; body: string; auth?: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body, auth: req.headers.authorization });
      const a = answer(req.url ?? '', body);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

let h: Harness;
let captcha: Awaited<ReturnType<typeof provider>>;
let assistant: Awaited<ReturnType<typeof provider>>;
let tenant: Tenant;
let companyName: string;

beforeAll(async () => {
  captcha = await provider((_p, body) => {
    const token = new URLSearchParams(body).get('response');
    return {
      status: 200,
      json:
        token === 'good-token'
          ? { success: true, score: 0.9, action: 'submit' }
          : token === 'bot-token'
            ? { success: true, score: 0.1 }
            : { success: false, 'error-codes': ['invalid-input-response'] },
    };
  });
  assistant = await provider((path) => ({ status: 200, json: { client_secret: `secret-for-${path}` } }));
  h = await startHarness({ config: { loginMaxFailures: 3, loginMaxFailuresPerAccount: 5 } });
  tenant = await h.tenant();
  const [row] = await h.runtime.database.db.select({ name: companies.name }).from(companies).orderBy(companies.createdAt);
  companyName = row.name;
});
afterAll(async () => {
  await h?.close();
  await captcha?.close();
  await assistant?.close();
});

const signupBody = (over: Record<string, unknown> = {}, user: Record<string, unknown> = {}) => ({
  company_user: {
    email: `owner-${Math.random().toString(36).slice(2, 8)}@acme.example.com`,
    first_name: 'Olive',
    last_name: 'Owner',
    json: { business_website: 'https://acme.example.com' },
    ...user,
  },
  company_display_name: `Acme ${Math.random().toString(36).slice(2, 8)}`,
  password: 'a-good-passw0rd',
  product_package_id: 'Enterprise',
  ...over,
});

describe(`sign-up (${API_DB})`, () => {
  it('creates the company, its sandboxed project and first admin, who can then sign in', async () => {
    const body = signupBody({ source: DEAL_MIRROR_SOURCE });
    const res = await h.call('POST', '/api/signup/signup', { body });
    expect(res).toEqual({ status: 200, body: { code: 200, errors: [] } });
    const login = await h.call('POST', '/api/login/login', { body: { email: body.company_user.email, password: body.password } });
    expect(login.status).toBe(200);
    expect(login.body.company.name).toBe(body.company_display_name);
    expect(login.body.project.name).toBe('Main project');
    expect(login.body.not_in_sandbox).toBe(false);
    const [company] = await h.runtime.database.db.select().from(companies).where(eq(companies.name, body.company_display_name));
    expect(company.json).toMatchObject({
      plan: 'Enterprise',
      business_website: 'https://acme.example.com',
      source: DEAL_MIRROR_SOURCE,
      promo_code: DEAL_MIRROR_PROMO_CODE,
    });
    // The new admin is the team's super-admin.
    const team = await h.call('GET', '/api/companyauthwrapper/company_users', { key: login.body.api_client_key });
    expect(team.body.data).toHaveLength(1);
    expect(team.body.data[0]).toMatchObject({ email: body.company_user.email, super_admin: true, first_name: 'Olive' });
  });

  it('defaults the plan to Professional and records no promo code without the marker', async () => {
    const body = signupBody({ product_package_id: undefined, source: 'newsletter' });
    expect((await h.call('POST', '/api/signup/signup', { body })).status).toBe(200);
    const [company] = await h.runtime.database.db.select().from(companies).where(eq(companies.name, body.company_display_name));
    expect(company.json.plan).toBe('Professional');
    expect(company.json.promo_code).toBeUndefined();
  });

  it('refuses bad input with code 400 and a message routed to each field, writing nothing', async () => {
    const before = (await h.runtime.database.db.select({ n: count() }).from(companies))[0].n;
    const cases: Array<[unknown, string[]]> = [
      [signupBody({}, { email: tenant.email.toUpperCase() }), ['company_user.email: Another user with that email already exists']],
      [signupBody({ password: '' }), ['password: Required field']],
      [signupBody({ password: 'short1' }), ['password: must be at least 8 characters']],
      [signupBody({ password: 'onlyletters' }), ['password: must contain a letter and a digit']],
      [
        signupBody({}, { json: { business_website: 'acme dot com' } }),
        ['company_user.json.business_website: must be a web address such as https://example.com'],
      ],
      [signupBody({}, { email: 'owner.acme.example.com' }), ['company_user.email: Invalid email']],
      [signupBody({ company_display_name: companyName }), [`company_display_name: a company named ${companyName} already exists`]],
      [signupBody({ product_package_id: 'Gold' }), ['product_package_id: must be one of Starter, Professional, Enterprise']],
    ];
    for (const [body, errors] of cases) {
      const res = await h.call('POST', '/api/signup/signup', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.errors).toEqual(errors);
    }
    expect((await h.call('POST', '/api/signup/signup', { body: { password: 'x' } })).body).toEqual({
      code: 400,
      errors: ['company_user: Required field', 'company_display_name: Required field'],
    });
    expect((await h.runtime.database.db.select({ n: count() }).from(companies))[0].n).toBe(before);
  });

  it('says the captcha and conversion tracking are off unless configured', async () => {
    expect(await h.call('GET', '/api/signup/signup/config')).toEqual({ status: 200, body: { captcha: null, conversion_tracking_url: null } });
  });
});

describe(`contact form (${API_DB})`, () => {
  it('stores a message and answers code 200', async () => {
    const res = await h.call('POST', '/api/contact_us/contact_us', {
      body: { email: 'visitor@example.org', name: 'Vera', details: 'We send 200,000 emails a month.', captcha_answer: '', captcha_id: '' },
    });
    expect(res).toEqual({ status: 200, body: { code: 200, errors: [] } });
    const rows = await h.runtime.database.db.select().from(contactMessages).where(eq(contactMessages.email, 'visitor@example.org'));
    expect(rows.map((r) => [r.name, r.details])).toEqual([['Vera', 'We send 200,000 emails a month.']]);
  });

  it('refuses empty messages, bad emails and over-long input with code 400', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ email: 'visitor@example.org', details: '   ' }, ['details: Required field']],
      [{ email: 'visitor', details: 'hello' }, ['email: Invalid email']],
      [{ email: 'visitor@example.org', details: 'x'.repeat(5001) }, ['details: must NOT have more than 5000 characters']],
      [{ email: 'visitor@example.org', name: 'n'.repeat(201), details: 'hi' }, ['name: must NOT have more than 200 characters']],
    ];
    for (const [body, errors] of cases) {
      const res = await h.call('POST', '/api/contact_us/contact_us', { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, errors });
    }
  });
});

describe(`captcha when configured (${API_DB})`, () => {
  let hc: Harness;
  beforeAll(async () => {
    hc = await startHarness({
      config: { captcha: { verifyUrl: `${captcha.url}/siteverify`, secret: 'server-secret', siteKey: 'site-key', scriptUrl: '/captcha.js', minScore: 0.5 } },
    });
  });
  afterAll(async () => {
    await hc?.close();
  });

  it('verifies the answer server-side with the provider and routes failures to the captcha field', async () => {
    expect((await hc.call('GET', '/api/signup/signup/config')).body.captcha).toEqual({ site_key: 'site-key', script_url: '/captcha.js' });
    const ok = await hc.call('POST', '/api/signup/signup', { body: signupBody({ captcha_answer: 'good-token' }) });
    expect(ok.body).toEqual({ code: 200, errors: [] });
    const sent = new URLSearchParams(captcha.seen.at(-1)!.body);
    expect([sent.get('secret'), sent.get('response')]).toEqual(['server-secret', 'good-token']);
    const bad = await hc.call('POST', '/api/signup/signup', { body: signupBody({ captcha_answer: 'forged' }) });
    expect(bad.body).toEqual({ code: 400, errors: ['captcha: verification failed (invalid-input-response); please try again'] });
    const bot = await hc.call('POST', '/api/contact_us/contact_us', { body: { email: 'v@example.org', details: 'hi', captcha_answer: 'bot-token' } });
    expect(bot.body.errors).toEqual(['captcha: verification failed (the answer looked automated); please try again']);
    const none = await hc.call('POST', '/api/contact_us/contact_us', { body: { email: 'v@example.org', details: 'hi', captcha_answer: '' } });
    expect(none.body.errors[0]).toMatch(/^captcha: please complete the captcha/);
  });
});

describe(`sign-in throttling (${API_DB})`, () => {
  // h allows 3 failures per address and 5 per account in 15 minutes (beforeAll).
  const attempt = (email: string, password: string, remoteAddress: string, app = h.app) =>
    app.inject({ method: 'POST', url: '/api/login/login', remoteAddress, payload: { email, password } });

  it('refuses an address after 3 failed sign-ins with 429 and a clear message, even with the right password', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt(tenant.email, 'wrong-password-1', '10.1.1.1')).statusCode).toBe(401);
    const blocked = await attempt(tenant.email, tenant.password, '10.1.1.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().errors).toEqual(['login: too many failed sign-in attempts from your address; try again in 15 minutes']);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    // Another address is not affected.
    expect((await attempt(tenant.email, tenant.password, '10.1.1.2')).statusCode).toBe(200);
  });

  it('an attacker cannot reset the count by signing in to an account of their own from the same address', async () => {
    const own = await h.tenant();
    const victim = await h.tenant();
    for (let i = 0; i < 2; i++) expect((await attempt(victim.email, 'guess-number-1', '10.2.2.2')).statusCode).toBe(401);
    expect((await attempt(own.email, own.password, '10.2.2.2')).statusCode).toBe(200);
    expect((await attempt(victim.email, 'guess-number-2', '10.2.2.2')).statusCode).toBe(401);
    const blocked = await attempt(victim.email, 'guess-number-3', '10.2.2.2');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().errors[0]).toMatch(/^login: too many failed sign-in attempts from your address/);
    // The attacker's own account is refused from that address too: the count is the address's.
    expect((await attempt(own.email, own.password, '10.2.2.2')).statusCode).toBe(429);
  });

  it("counts failures per account from any address; a success clears only that account's count", async () => {
    const victim = await h.tenant();
    // Four failures from four addresses, then the owner signs in: the account's count starts again.
    for (let i = 0; i < 4; i++) expect((await attempt(victim.email, 'guess-1', `10.3.0.${i}`)).statusCode).toBe(401);
    expect((await attempt(victim.email, victim.password, '10.3.1.1')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await attempt(victim.email.toUpperCase(), 'guess-2', `10.3.2.${i}`)).statusCode).toBe(401);
    // Five failures in the window: the account is refused from a fresh address, even with the right password.
    const blocked = await attempt(victim.email, victim.password, '10.3.3.3');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().errors).toEqual(['login: too many failed sign-in attempts for this account; try again in 15 minutes, or reset the password']);
    // Other accounts from that address are not affected.
    expect((await attempt(tenant.email, tenant.password, '10.3.3.3')).statusCode).toBe(200);
  });

  it('keeps the counts in the database, so every server process sees them', async () => {
    const second = await buildApp(h.runtime.ctx, { logLevel: 'silent' });
    try {
      for (let i = 0; i < 3; i++) expect((await attempt(tenant.email, 'wrong-password-1', '10.4.4.4')).statusCode).toBe(401);
      expect((await attempt(tenant.email, tenant.password, '10.4.4.4', second)).statusCode).toBe(429);
      const [row] = await h.runtime.database.query<{ points: number }>("SELECT points FROM rate_limits WHERE key = 'login-ip:10.4.4.4'");
      expect(row.points).toBe(3);
    } finally {
      await second.close();
    }
  });
});

describe(`demo login (${API_DB})`, () => {
  it('needs the terms accepted, records the visitor and signs in to the shared demo account', async () => {
    expect((await h.call('POST', '/api/login/demo_login', { body: { email: 'curious@example.net', agreed: false } })).body.errors).toEqual([
      'agreed: must be equal to constant',
    ]);
    const res = await h.call('POST', '/api/login/demo_login', { body: { email: 'curious@example.net', agreed: true } });
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(DEMO_ACCOUNT.email);
    const visitors = await h.runtime.database.db.select().from(demoLogins).where(eq(demoLogins.email, 'curious@example.net'));
    expect(visitors).toHaveLength(1);
    const key = res.body.api_client_key;
    expect((await h.call('GET', '/api/user/users/count', { key })).body.num_users).toBe(DEMO_CONTENT.contacts.length);
  });

  it('the reset puts back the known contents and removes what visitors added', async () => {
    const { body: session } = await h.call('POST', '/api/login/demo_login', { body: { email: 'spoiler@example.net', agreed: true } });
    const key = session.api_client_key;
    await h.call('POST', '/api/user/users', { key, body: { users: [{ email: 'graffiti@example.com' }] } });
    await h.call('DELETE', '/api/user/users', { key, query: { emails: 'ada@example.com' } });
    await h.call('POST', '/api/companyauthwrapper/company_users', {
      key,
      body: { company_user: { email: 'intruder@example.com' }, password: 'intruder-pass-1' },
    });
    expect((await h.call('GET', '/api/user/users/count', { key })).body.num_users).toBe(DEMO_CONTENT.contacts.length);
    await resetDemoAccount(h.runtime.database.db);
    const users = await h.call('GET', '/api/user/users', { key, query: { limit: 100, sort_columns: 'email' } });
    expect(users.body.data.map((u: { email: string }) => u.email)).toEqual(DEMO_CONTENT.contacts.map((c) => c.email).sort());
    const team = await h.call('GET', '/api/companyauthwrapper/company_users', { key });
    expect(team.body.data.map((m: { email: string }) => m.email)).toEqual([DEMO_ACCOUNT.email]);
    expect((await h.call('GET', '/api/template/templates', { key })).body.data.map((t: { name: string }) => t.name)).toEqual([DEMO_CONTENT.template.name]);
    expect((await h.call('GET', '/api/senderpersonawrapper/sender_personas', { key })).body.data).toHaveLength(1);
    expect((await h.call('GET', '/api/segment/segments', { key })).body.data.map((s: { name: string; num_users: number }) => [s.name, s.num_users])).toEqual([
      [DEMO_CONTENT.segment, DEMO_CONTENT.contacts.length],
    ]);
  });
});

describe(`team (${API_DB})`, () => {
  it("lists the project's admins with the earliest as super-admin, adds one and removes them", async () => {
    const key = tenant.apiKey;
    const added = await h.call('POST', '/api/companyauthwrapper/company_users', {
      key,
      body: {
        company_user: { email: 'second@tenant.example.com', first_name: 'Sam' },
        company_name: companyName,
        password: 'second-pass-1',
        added_by: tenant.email,
      },
    });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({
      email: 'second@tenant.example.com',
      first_name: 'Sam',
      last_name: null,
      super_admin: false,
      json: { addedBy: tenant.email },
    });
    // The new admin can sign in to the same project.
    const login = await h.call('POST', '/api/login/login', { body: { email: 'second@tenant.example.com', password: 'second-pass-1' } });
    expect(login.body.api_client_key).toBe(key);
    const team = await h.call('GET', '/api/companyauthwrapper/company_users', { key, query: { company_name: companyName } });
    expect(team.body.data.map((m: { email: string; super_admin: boolean }) => [m.email, m.super_admin])).toEqual([
      [tenant.email, true],
      ['second@tenant.example.com', false],
    ]);
    const removed = await h.call('DELETE', '/api/companyauthwrapper/company_users', { key, body: { company_user: { id: added.body.data.id } } });
    expect(removed).toEqual({ status: 200, body: { data: { id: added.body.data.id } } });
    expect((await h.call('GET', '/api/companyauthwrapper/company_users', { key })).body.data).toHaveLength(1);
    expect((await h.call('POST', '/api/login/login', { body: { email: 'second@tenant.example.com', password: 'second-pass-1' } })).status).toBe(401);
  });

  it('refuses to remove the super-admin, with the contact-support hint', async () => {
    const team = await h.call('GET', '/api/companyauthwrapper/company_users', { key: tenant.apiKey });
    const res = await h.call('DELETE', '/api/companyauthwrapper/company_users', { key: tenant.apiKey, body: { company_user: { id: team.body.data[0].id } } });
    expect(res).toEqual({
      status: 400,
      body: { errors: ['company_user: the super-admin (the earliest-created admin) cannot be removed; contact support to change its email'] },
    });
  });

  it("refuses a used email, a weak password, another company's names and another project's admins", async () => {
    const key = tenant.apiKey;
    const dup = await h.call('POST', '/api/companyauthwrapper/company_users', {
      key,
      body: { company_user: { email: tenant.email.toUpperCase() }, password: 'another-pass-1' },
    });
    expect(dup).toEqual({ status: 400, body: { errors: ['company_user.email: Another user with that email already exists'] } });
    const weak = await h.call('POST', '/api/companyauthwrapper/company_users', {
      key,
      body: { company_user: { email: 'weak@example.com' }, password: 'weak' },
    });
    expect(weak.body.errors).toEqual(['password: must be at least 8 characters']);
    const other = await h.tenant();
    const foreign = await h.call('GET', '/api/companyauthwrapper/company_users', { key, query: { company_name: 'Someone Else Inc' } });
    expect(foreign.status).toBe(403);
    const otherTeam = await h.call('GET', '/api/companyauthwrapper/company_users', { key: other.apiKey });
    expect(otherTeam.body.data.map((m: { email: string }) => m.email)).toEqual([other.email]);
    const cross = await h.call('DELETE', '/api/companyauthwrapper/company_users', { key, body: { company_user: { id: otherTeam.body.data[0].id } } });
    expect(cross.status).toBe(404);
    expect((await h.call('GET', '/api/companyauthwrapper/company_users', { key: other.apiKey })).body.data).toHaveLength(1);
  });
});

describe(`sandbox activation (${API_DB})`, () => {
  it('reports each step as the project completes it', async () => {
    const t = await h.tenant();
    const steps = async () => (await h.call('GET', '/api/companyauthwrapper/sandbox_activation', { key: t.apiKey })).body;
    expect(await steps()).toEqual({
      not_in_sandbox: false,
      steps: [
        { id: 'template', label: 'Add a template', done: false },
        { id: 'contacts', label: 'Create contacts', done: false },
        { id: 'sender_persona', label: 'Create a sender persona', done: false },
        { id: 'support_email', label: 'Email support with your expected monthly volume', done: false },
      ],
    });
    await h.call('POST', '/api/template/templates', {
      key: t.apiKey,
      body: { templates: [{ name: 'T', subject: 'S', type: 'TEMPLATE_TRANSACTIONAL', enabled: true, html_body: '<p>Hi</p>' }] },
    });
    await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: 'c@example.com' }] } });
    expect((await steps()).steps.map((s: { done: boolean }) => s.done)).toEqual([true, true, false, false]);
    const saved = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: t.apiKey,
      body: { sender_personas: [{ first_name: 'S', email: 's@example.com' }] },
    });
    const persona = saved.body.data[0];
    // A persona that cannot send yet does not complete the step; the step says what is missing.
    expect((await steps()).steps[2]).toEqual({
      id: 'sender_persona',
      label: 'Create a sender persona',
      done: false,
      detail: 'Created: confirm its address by the link we emailed to it (Sender personas → Resend the link if it did not arrive)',
    });
    // Resending mails a new link to the address; another project cannot, and a verified persona is refused.
    const links = (await h.sink.personaVerificationLinks()).length;
    const resent = await h.call('POST', `/api/senderpersonawrapper/sender_personas/${persona.id}/verification`, { key: t.apiKey });
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(resent.body).toMatchObject({ data: { id: persona.id, verified_at: null }, errors: [] });
    expect((await h.sink.personaVerificationLinks()).length).toBe(links + 1);
    const other = await h.tenant();
    expect(await h.call('POST', `/api/senderpersonawrapper/sender_personas/${persona.id}/verification`, { key: other.apiKey })).toEqual({
      status: 404,
      body: { errors: [`id: no sender persona ${persona.id} in this project`] },
    });
    // Three resends an hour per persona; the fourth waits.
    for (let i = 0; i < 2; i++) {
      expect((await h.call('POST', `/api/senderpersonawrapper/sender_personas/${persona.id}/verification`, { key: t.apiKey })).status).toBe(200);
    }
    const flooded = await h.app.inject({
      method: 'POST',
      url: `/api/senderpersonawrapper/sender_personas/${persona.id}/verification`,
      headers: { 'x-api-key': t.apiKey },
    });
    expect(flooded.statusCode).toBe(429);
    expect(flooded.json()).toEqual({ errors: ['id: the verification link was sent to s@example.com 3 times in the last hour; try again in 60 minutes'] });
    expect(Number(flooded.headers['retry-after'])).toBeGreaterThan(3500);
    expect((await h.sink.personaVerificationLinks()).length).toBe(links + 3);
    const link = new URL((await h.sink.personaVerificationLinks()).at(-1)!);
    expect((await h.app.inject({ method: 'POST', url: link.pathname })).statusCode).toBe(200);
    expect(await h.call('POST', `/api/senderpersonawrapper/sender_personas/${persona.id}/verification`, { key: t.apiKey })).toEqual({
      status: 400,
      body: { errors: ['id: this sender persona is already verified'] },
    });
    await h.call('POST', '/api/contact_us/contact_us', { body: { email: t.email.toUpperCase(), details: 'About 50,000 emails a month.' } });
    expect((await steps()).steps.map((s: { done: boolean }) => s.done)).toEqual([true, true, true, true]);
  });
});

describe(`assistant (${API_DB})`, () => {
  it('is not offered unless the company is the configured internal one', async () => {
    expect((await h.call('GET', '/api/companyauthwrapper/assistant/status', { key: tenant.apiKey })).body).toEqual({ enabled: false, configured: false });
    expect((await h.call('POST', '/api/companyauthwrapper/assistant/session', { key: tenant.apiKey, body: { email: tenant.email } })).status).toBe(403);
  });

  it('says "assistant not configured" without a provider, and proxies to one when configured', async () => {
    const bare = await startHarness({ config: { assistant: { company: DEMO_ACCOUNT.company } } });
    try {
      const { body: s } = await bare.call('POST', '/api/login/demo_login', { body: { email: 'a@example.net', agreed: true } });
      expect((await bare.call('GET', '/api/companyauthwrapper/assistant/status', { key: s.api_client_key })).body).toEqual({
        enabled: true,
        configured: false,
      });
      const res = await bare.call('POST', '/api/companyauthwrapper/assistant/session', { key: s.api_client_key, body: { email: 'a@example.net' } });
      expect(res).toEqual({ status: 503, body: { errors: ['assistant: assistant not configured'] } });
    } finally {
      await bare.close();
    }
    const full = await startHarness({ config: { assistant: { company: DEMO_ACCOUNT.company, providerUrl: assistant.url, providerKey: 'provider-key' } } });
    try {
      const { body: s } = await full.call('POST', '/api/login/demo_login', { body: { email: 'a@example.net', agreed: true } });
      const created = await full.call('POST', '/api/companyauthwrapper/assistant/session', {
        key: s.api_client_key,
        body: { email: s.user.email, endpoints: s.endpoints, api_key: s.api_client_key },
      });
      expect(created.body).toEqual({ client_secret: 'secret-for-/session' });
      expect(assistant.seen.at(-1)!.auth).toBe('Bearer provider-key');
      expect(JSON.parse(assistant.seen.at(-1)!.body)).toMatchObject({ email: DEMO_ACCOUNT.email, api_key: s.api_client_key });
      const refreshed = await full.call('POST', '/api/companyauthwrapper/assistant/session/refresh', {
        key: s.api_client_key,
        body: { client_secret: 'secret-for-/session' },
      });
      expect(refreshed.body).toEqual({ client_secret: 'secret-for-/session/refresh' });
    } finally {
      await full.close();
    }
  });
});
