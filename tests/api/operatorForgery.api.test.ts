/**
 * Forged cross-site requests to the operator back-office. The mw_operator cookie is SameSite=Strict, but
 * a page on another port or a sibling subdomain of the same host is same-site, so the browser sends the cookie with its
 * form posts and no-cors fetches. Every state-changing operator call (sign-in and sign-out included) must come from
 * the back-office's own origin (Origin, Sec-Fetch-Site) and carry a JSON body or the X-Requested-With header, which
 * no form and no no-cors fetch can send. Each forgery below is answered 403 naming the header, and acts on nothing:
 * the admin's password still works, the projects keep their sandbox and suspension states, the persona stays
 * unverified, the operator stays signed in and the audit log gains nothing. The back-office's own calls still work, as
 * do the command line's /cli and the public links (/v/ here), which are not cookie-authenticated and stay open to
 * other sites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, OPERATOR_CLI_SECRET, startHarness, type Harness, type Tenant } from './harness.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import codegenConfig from '../../codegen.config.ts';
import { createOperator, OPERATOR_COOKIE } from '../../src/server/core/operator/index.ts';
import { cookieSessionRoutes } from '../../src/server/plugins/crossSiteGuard.ts';
import type { Json } from '../helpers/json.ts';

const OPERATOR = { email: 'ops@forgery.example.com', password: 'operator-password-1' };
/** The harness's PUBLIC_URL: the back-office's own origin. */
const OWN_ORIGIN = 'http://localhost:8080';
/** What the back-office sends on every call (src/console/operator/operatorApi.ts), besides the cookie. */
const BACK_OFFICE = { origin: OWN_ORIGIN, 'sec-fetch-site': 'same-origin', 'x-requested-with': 'mailwright-operator' };
/** Another port of the same host: same-site, so a SameSite=Strict cookie goes with its requests, but another origin. */
const SIBLING = 'http://localhost:8081';
const EVIL = 'http://evil.example';

let h: Harness;
/** An active project (the target of sandbox and suspend), a sandboxed one (activate) and a suspended one (resume). */
let active: Tenant;
let sandboxed: Tenant;
let suspended: Tenant;
let adminId = '';
let personaId = '';
let cookie = '';

interface Answer {
  status: number;
  body: Json;
  headers: Record<string, unknown>;
}

/** op sends one request to the operator gateway with exactly `headers` (plus the session cookie unless `cookie: false`). */
async function op(method: string, url: string, headers: Record<string, string>, payload?: string, withCookie = true): Promise<Answer> {
  const res = await h.app.inject({
    method: method as never,
    url: `/api/operator${url}`,
    headers: { ...(withCookie ? { cookie } : {}), ...headers },
    payload,
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}

/** backOffice calls the gateway as the back-office does: its origin, its header, a JSON body when there is one. */
const backOffice = (method: string, url: string, body?: unknown) =>
  op(
    method,
    url,
    { ...BACK_OFFICE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body === undefined ? undefined : JSON.stringify(body),
  );

/** A forged request: its headers and body as a browser on another page would send them, and the header the 403 names. */
interface Forgery {
  name: string;
  headers: Record<string, string>;
  payload?: string;
  names: 'origin' | 'sec-fetch-site' | 'content-type';
}

const FORGERIES: Forgery[] = [
  // The request of the report: a cross-site no-cors fetch with an empty text/plain body.
  {
    name: 'text/plain from another site',
    headers: { origin: EVIL, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
    payload: '',
    names: 'origin',
  },
  { name: 'no content type and no body, no Origin', headers: {}, names: 'content-type' },
  { name: 'text/plain without Origin or Sec-Fetch-Site', headers: { 'content-type': 'text/plain' }, payload: '{"reason":"x"}', names: 'content-type' },
  {
    name: 'a urlencoded form from another port of the same host',
    headers: { origin: SIBLING, 'sec-fetch-site': 'same-site', 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'reason=forged&email=ops%40forgery.example.com',
    names: 'origin',
  },
  {
    name: 'a multipart form from another port of the same host',
    headers: { origin: SIBLING, 'sec-fetch-site': 'same-site', 'content-type': 'multipart/form-data; boundary=xyz' },
    payload: '--xyz\r\nContent-Disposition: form-data; name="reason"\r\n\r\nforged\r\n--xyz--\r\n',
    names: 'origin',
  },
  { name: 'a urlencoded form, no Origin', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'reason=forged', names: 'content-type' },
  { name: 'JSON with a foreign Origin', headers: { origin: EVIL, 'content-type': 'application/json' }, payload: '{"reason":"forged"}', names: 'origin' },
  { name: 'JSON with Origin null', headers: { origin: 'null', 'content-type': 'application/json' }, payload: '{"reason":"forged"}', names: 'origin' },
  {
    name: 'JSON with Sec-Fetch-Site cross-site',
    headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
    payload: '{"reason":"forged"}',
    names: 'sec-fetch-site',
  },
  {
    name: 'JSON with Sec-Fetch-Site same-site',
    headers: { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
    payload: '{"reason":"forged"}',
    names: 'sec-fetch-site',
  },
  { name: 'the custom header from another port of the same host', headers: { origin: SIBLING, 'x-requested-with': 'x' }, names: 'origin' },
];

/** Every state-changing operation of the operator gateway that the session cookie authenticates (all but /cli). */
const routes = () => [
  `/projects/${active.projectId}/sandbox`,
  `/projects/${active.projectId}/suspend`,
  `/projects/${sandboxed.projectId}/activate`,
  `/projects/${suspended.projectId}/resume`,
  `/personas/${personaId}/verify`,
  `/admins/${adminId}/reset_password`,
  '/logout',
  '/login',
];

beforeAll(async () => {
  h = await startHarness();
  active = await h.tenant({ activated: true });
  sandboxed = await h.tenant();
  suspended = await h.tenant({ activated: true });
  await createOperator(h.runtime.database.query.bind(h.runtime.database), OPERATOR.email, OPERATOR.password, 'cli (test)');
  const login = await backOffice('POST', '/login', OPERATOR);
  expect(login.status).toBe(200);
  cookie = String(login.headers['set-cookie']).split(';')[0];
  expect((await backOffice('POST', `/projects/${suspended.projectId}/suspend`, { reason: 'Complaints' })).status).toBe(200);
  const persona = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
    key: active.apiKey,
    body: { sender_personas: [{ email: 'news@forgery.example.com', first_name: 'News' }] },
  });
  personaId = persona.body.data[0].id;
  adminId = (await backOffice('GET', `/projects/${active.projectId}`)).body.admins[0].id;
});
afterAll(async () => {
  await h?.close();
});

describe(`forged requests to the operator back-office (${API_DB})`, () => {
  it('guards, from the specs, every state-changing operator operation but /cli, and nothing of another gateway', () => {
    const guarded = codegenConfig.services.flatMap((service) => {
      const spec = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../generated/openapi', `${service}.json`), 'utf8'));
      return [...cookieSessionRoutes(spec, `/api/${service}`)];
    });
    expect(guarded.sort()).toEqual(
      [
        'POST /api/operator/login',
        'POST /api/operator/logout',
        'POST /api/operator/projects/:project_id/activate',
        'POST /api/operator/projects/:project_id/sandbox',
        'POST /api/operator/projects/:project_id/suspend',
        'POST /api/operator/projects/:project_id/resume',
        'POST /api/operator/personas/:persona_id/verify',
        'POST /api/operator/admins/:admin_id/reset_password',
      ].sort(),
    );
  });

  it('are refused with 403 naming the header, and act on nothing', async () => {
    const auditBefore = (await backOffice('GET', '/audit?limit=100')).body.data.length;
    const notRefused: string[] = [];
    for (const url of routes()) {
      for (const f of FORGERIES) {
        const res = await op(
          'POST',
          url,
          f.headers,
          url === '/login' && f.payload !== undefined ? f.payload.replace(/^\{.*\}$/, JSON.stringify(OPERATOR)) : f.payload,
        );
        if (res.status !== 403) notRefused.push(`${url} ${f.name}: ${res.status} ${JSON.stringify(res.body)}`);
        else {
          expect(
            res.body.errors.some((e: string) => e.startsWith(`${f.names}: `)),
            `${url} ${f.name}: ${JSON.stringify(res.body)}`,
          ).toBe(true);
          expect(res.headers['set-cookie'], `${url} ${f.name}`).toBeUndefined();
        }
      }
    }
    expect(notRefused).toEqual([]);

    // Nothing changed: the admin's password, the three projects, the persona, the session and the audit log.
    expect((await h.call('POST', '/api/login/login', { body: { email: active.email, password: active.password } })).status).toBe(200);
    const state = async (t: Tenant) => {
      const p = (await backOffice('GET', `/projects/${t.projectId}`)).body;
      return { not_in_sandbox: p.not_in_sandbox, sending_suspended: p.sending_suspended, personas: p.personas.map((x: Json) => x.verified_at) };
    };
    expect(await state(active)).toEqual({ not_in_sandbox: true, sending_suspended: false, personas: [null] });
    expect(await state(sandboxed)).toEqual({ not_in_sandbox: false, sending_suspended: false, personas: [] });
    expect(await state(suspended)).toEqual({ not_in_sandbox: true, sending_suspended: true, personas: [] });
    expect((await backOffice('GET', '/me')).status).toBe(200);
    expect((await backOffice('GET', '/audit?limit=100')).body.data.length).toBe(auditBefore);
    const notices = (await h.call('GET', '/api/joblog/joblog', { key: sandboxed.apiKey })).body.data;
    expect(notices.filter((j: Json) => j.job_name === 'JOB_ACCOUNT_ACTIVATED')).toEqual([]);
  });

  it('names every header that is wrong, in words', async () => {
    const res = await op('POST', `/projects/${active.projectId}/sandbox`, { origin: EVIL, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' }, '');
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([
      expect.stringMatching(/^origin: .*http:\/\/evil\.example/),
      expect.stringMatching(/^sec-fetch-site: .*cross-site/),
      expect.stringMatching(/^content-type: .*X-Requested-With/),
    ]);
  });

  it("still takes the back-office's own calls, from PUBLIC_URL's origin or the request's own, and JSON calls without Origin", async () => {
    const verified = await backOffice('POST', `/personas/${personaId}/verify`);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.verified_at).toBeTruthy();
    const reset = await backOffice('POST', `/admins/${adminId}/reset_password`);
    expect(reset.status).toBe(200);
    expect((await h.call('POST', '/api/login/login', { body: { email: active.email, password: reset.body.password } })).status).toBe(200);
    // The request's own origin (here http://localhost:80, as inject's Host is localhost:80) is the back-office too.
    const sandbox = await op('POST', `/projects/${active.projectId}/sandbox`, {
      origin: 'http://localhost',
      'sec-fetch-site': 'same-origin',
      'x-requested-with': '1',
    });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(200);
    expect(sandbox.body.not_in_sandbox).toBe(false);
    // A JSON call from a program (no Origin, no Sec-Fetch-Site) is no browser's forgery.
    const suspend = await op('POST', `/projects/${active.projectId}/suspend`, { 'content-type': 'application/json' }, JSON.stringify({ reason: 'By script' }));
    expect(suspend.status, JSON.stringify(suspend.body)).toBe(200);
    expect(suspend.body.sending_suspended).toBe(true);
    const actions = (await backOffice('GET', `/audit?project_id=${active.projectId}`)).body.data.map((e: Json) => e.action);
    expect(actions.slice(0, 4)).toEqual(['suspend_sending', 'return_to_sandbox', 'reset_password', 'verify_persona']);
  });

  it('leaves /cli (the command line: loopback and its secret, no cookie) and the public links open as before', async () => {
    const cli = await h.app.inject({
      method: 'POST',
      url: '/api/operator/cli',
      headers: { 'content-type': 'application/json', 'x-operator-secret': OPERATOR_CLI_SECRET },
      payload: JSON.stringify({ command: 'contact-messages', args: {}, actor: 'cli (test)' }),
    });
    expect(cli.statusCode).toBe(200);
    // A persona's verification link is followed from a mail client or webmail: another site, a form post.
    await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: sandboxed.apiKey,
      body: { sender_personas: [{ email: 'hello@link.example.com', first_name: 'Hello' }] },
    });
    const link = (await h.sink.parsed()).find((m) => m.envelopeTo.includes('hello@link.example.com'))!;
    const url = new URL(/(https?:\/\/\S+\/v\/[A-Za-z0-9_.-]+)/.exec(link.text ?? '')![1]);
    const confirmed = await h.app.inject({
      method: 'POST',
      url: url.pathname,
      headers: { origin: EVIL, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(confirmed.statusCode).toBe(200);
    const personas = (await backOffice('GET', `/projects/${sandboxed.projectId}`)).body.personas;
    expect(personas[0].verified_at).toBeTruthy();
  });

  it('signs out only from the back-office; a forged sign-in sets no cookie', async () => {
    const forged = await op(
      'POST',
      '/login',
      { origin: SIBLING, 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
      JSON.stringify(OPERATOR),
      false,
    );
    expect(forged.status).toBe(403);
    expect(forged.headers['set-cookie']).toBeUndefined();
    expect((await backOffice('POST', '/logout')).status).toBe(200);
    expect((await backOffice('GET', '/me')).status).toBe(401);
    expect(cookie).toMatch(new RegExp(`^${OPERATOR_COOKIE}=`));
  });
});
