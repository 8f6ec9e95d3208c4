/**
 * The operators' back-office gateway: an operator signs in with their own
 * session cookie (a customer's key or session never reaches it), finds a company by its admin's email, reads its
 * activation request (sent from the console, with the expected volume) and activates it — the admin is emailed, the
 * console's account_status and notifications show it, and the audit log holds who, what and the state before and
 * after. Suspension stops all of the project's sending until an operator resumes it; persona verification and an
 * admin's password reset work and are audited; unknown ids are 404s naming the id; failed sign-ins are limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { createOperator, OPERATOR_COOKIE } from '../../src/server/core/operator/index.ts';
import type { Json } from '../helpers/json.ts';

const OPERATOR = { email: 'ops@mailwright.example.com', password: 'operator-password-1' };
let h: Harness;
let t: Tenant;
let cookie = '';

/**
 * op calls the operator gateway as the back-office does — with the operator's session cookie (or `as` other headers
 * instead) and its X-Requested-With header (forged requests without it: operatorForgery.api.test.ts).
 */
async function op(method: string, url: string, body?: unknown, as?: Record<string, string>): Promise<{ status: number; body: Json; headers: Json }> {
  const res = await h.app.inject({
    method: method as never,
    url: `/api/operator${url}`,
    headers: { ...(as ?? { cookie }), 'x-requested-with': 'mailwright-operator', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant();
  await createOperator(h.runtime.database.query.bind(h.runtime.database), OPERATOR.email, OPERATOR.password, 'cli (test)');
});
afterAll(async () => {
  await h?.close();
});

describe(`operator back-office (${API_DB})`, () => {
  it("refuses a customer's key, a customer's session and a wrong password; signs an operator in with an HttpOnly cookie", async () => {
    expect((await op('GET', '/projects', undefined, { 'x-api-key': t.apiKey })).status).toBe(401);
    expect((await op('GET', '/projects', undefined, { cookie: `${OPERATOR_COOKIE}=${t.apiKey}` })).status).toBe(401);
    expect((await op('POST', '/login', { email: t.email, password: t.password }, {})).status).toBe(401); // an admin is not an operator
    const wrong = await op('POST', '/login', { email: OPERATOR.email, password: 'nope-nope-nope' }, {});
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors).toEqual(['401: invalid username / password']);

    const res = await op('POST', '/login', OPERATOR, {});
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(OPERATOR.email);
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(new RegExp(`^${OPERATOR_COOKIE}=`));
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    cookie = set.split(';')[0];
    expect((await op('GET', '/me')).body.email).toBe(OPERATOR.email);
  });

  it("finds a project by its admin's email, shows its activation request and activates it: email, notice, account_status, audit", async () => {
    // The customer asks from the console; a bad domain is refused naming the field, and nothing is stored.
    const bad = await h.call('POST', '/api/companyauthwrapper/activation_request', {
      key: t.apiKey,
      body: { email: t.email, expected_monthly_volume: 50_000, sending_domain: 'not a domain', use_case: 'Newsletters' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(['sending_domain: Invalid domain name']);
    const notAdmin = await h.call('POST', '/api/companyauthwrapper/activation_request', {
      key: t.apiKey,
      body: { email: 'someone@else.example.com', expected_monthly_volume: 50_000, sending_domain: 'news.example.com', use_case: 'Newsletters' },
    });
    expect(notAdmin.body.errors).toEqual(['email: not an admin of this project']);
    const asked = await h.call('POST', '/api/companyauthwrapper/activation_request', {
      key: t.apiKey,
      body: {
        email: t.email,
        expected_monthly_volume: 50_000,
        sending_domain: 'News.Example.com',
        use_case: 'Weekly newsletter to customers who opted in at checkout',
      },
    });
    expect(asked.status).toBe(200);
    const steps = (await h.call('GET', '/api/companyauthwrapper/sandbox_activation', { key: t.apiKey })).body.steps;
    expect(steps.find((s: Json) => s.id === 'support_email').done).toBe(true);

    const found = await op('GET', `/projects?search=${encodeURIComponent(t.email.toUpperCase())}`);
    expect(found.status).toBe(200);
    expect(found.body.total).toBe(1);
    const row = found.body.data[0];
    expect(row).toMatchObject({ project_id: t.projectId, admin_emails: [t.email], not_in_sandbox: false, sends_this_month: 0, sending_suspended: false });
    expect(row.activation_requested_at).toBeTruthy();
    const messages = (await op('GET', '/messages?kind=activation')).body.data;
    expect(messages[0]).toMatchObject({
      kind: 'activation',
      email: t.email,
      project_id: t.projectId,
      expected_monthly_volume: 50_000,
      sending_domain: 'news.example.com',
    });

    expect((await h.call('GET', '/api/companyauthwrapper/account_status', { key: t.apiKey })).body.not_in_sandbox).toBe(false);
    const activated = await op('POST', `/projects/${t.projectId}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body.not_in_sandbox).toBe(true);
    expect((await h.call('GET', '/api/companyauthwrapper/account_status', { key: t.apiKey })).body).toEqual({
      not_in_sandbox: true,
      sending_suspended: false,
      suspend_reason: null,
    });
    // The admin is emailed, and the console's notifications (the job log it polls every 15 s) carry the notice.
    await h.sink.waitFor(() => h.sink.messages.some((m) => m.envelopeTo.includes(t.email)));
    const mail = (await h.sink.parsed()).find((m) => m.envelopeTo.includes(t.email))!;
    expect(mail.subject).toBe('Your Mailwright account is active');
    const jobs = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data;
    expect(jobs[0]).toMatchObject({
      job_name: 'JOB_ACCOUNT_ACTIVATED',
      success: true,
      start_details: { notice: 'Your account is active: you can now send to anyone' },
    });
    // Activating again changes nothing: no second email or notice, but the audit log still records the call.
    await op('POST', `/projects/${t.projectId}/activate`);
    expect((await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data.filter((j: Json) => j.job_name === 'JOB_ACCOUNT_ACTIVATED')).toHaveLength(
      1,
    );

    const audit = (await op('GET', `/audit?project_id=${t.projectId}`)).body.data;
    expect(audit.at(-1)).toMatchObject({
      actor: OPERATOR.email,
      action: 'activate',
      target_type: 'project',
      target_id: t.projectId,
      before: { not_in_sandbox: false },
      after: { not_in_sandbox: true },
    });
  });

  it("suspends all of a project's sending (test emails too) until an operator resumes it", async () => {
    const reason = 'Spam complaints from a purchased list';
    const res = await op('POST', `/projects/${t.projectId}/suspend`, { reason });
    expect(res.body).toMatchObject({ sending_suspended: true, suspend_reason: reason });
    expect((await h.call('GET', '/api/companyauthwrapper/account_status', { key: t.apiKey })).body).toMatchObject({
      sending_suspended: true,
      suspend_reason: reason,
    });
    const n = h.sink.messages.length;
    const persona = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: t.apiKey,
      body: { sender_personas: [{ email: 'ops@sender.example.com', first_name: 'Ops' }] },
    });
    const personaId = persona.body.data[0].id;
    const verified = await op('POST', `/personas/${personaId}/verify`);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.verified_at).toBeTruthy();
    // The project page warns that this persona's mail would go out unsigned (its domain is not set up).
    expect((await op('GET', `/projects/${t.projectId}`)).body.delivery_warnings).toEqual([
      'Mail from ops@sender.example.com will not be DKIM-signed: sender.example.com is not a sending domain of this account. Add it in Domain settings and publish its records. Receivers trust unsigned mail less.',
    ]);
    const template = await h.call('POST', '/api/template/templates', {
      key: t.apiKey,
      body: { templates: [{ name: 'T', subject: 'Hello', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Hello</p>' }] },
    });
    const sent = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: t.apiKey,
      body: {
        mailer_payload: { template_id: template.body.data[0].id, from: { email: 'ops@sender.example.com' }, to: [{ email: 'someone@inbox.example.com' }] },
      },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.sink.messages.slice(n).some((m) => m.envelopeTo.includes('someone@inbox.example.com'))).toBe(false);
    const resumed = await op('POST', `/projects/${t.projectId}/resume`);
    expect(resumed.body).toMatchObject({ sending_suspended: false, suspend_reason: null });
    await h.sink.waitFor(() => h.sink.messages.some((m) => m.envelopeTo.includes('someone@inbox.example.com')));
    const actions = (await op('GET', `/audit?project_id=${t.projectId}`)).body.data.map((e: Json) => e.action);
    expect(actions.slice(0, 3)).toEqual(['resume_sending', 'verify_persona', 'suspend_sending']);
  });

  it("resets an admin's password (shown once, audited without it) and answers 404 naming an unknown id", async () => {
    const detail = await op('GET', `/projects/${t.projectId}`);
    expect(detail.body.admins).toHaveLength(1);
    const reset = await op('POST', `/admins/${detail.body.admins[0].id}/reset_password`);
    expect(reset.status).toBe(200);
    expect((await h.call('POST', '/api/login/login', { body: { email: t.email, password: t.password } })).status).toBe(401);
    expect((await h.call('POST', '/api/login/login', { body: { email: t.email, password: reset.body.password } })).status).toBe(200);
    const entry = (await op('GET', `/audit?project_id=${t.projectId}`)).body.data[0];
    expect(entry.action).toBe('reset_password');
    expect(JSON.stringify(entry)).not.toContain(reset.body.password);

    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [url, field] of [
      [`/projects/${unknown}`, 'project_id'],
      [`/projects/${unknown}/activate`, 'project_id'],
      [`/projects/${unknown}/resume`, 'project_id'],
      [`/personas/${unknown}/verify`, 'persona_id'],
      [`/admins/${unknown}/reset_password`, 'admin_id'],
    ]) {
      const res = await op(url.split('/').length > 3 ? 'POST' : 'GET', url);
      expect(res.status, url).toBe(404);
      expect(res.body.errors[0], url).toMatch(new RegExp(`^${field}: no .*${unknown}`));
    }
  });

  it('signs out: the cookie no longer works', async () => {
    expect((await op('POST', '/logout')).status).toBe(200);
    expect((await op('GET', '/me')).status).toBe(401);
  });
});
