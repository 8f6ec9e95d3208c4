/**
 * A forged request from a sibling origin, in a real browser: an operator signed in to the back-office
 * visits a page served by this test on another port of 127.0.0.1 — the same site, so Chromium sends the SameSite=Strict
 * mw_operator cookie with its requests, but another origin. The page tries what the report found working: form posts
 * (urlencoded, multipart and text/plain) and no-cors fetches with the cookie to reset an admin's password, return the
 * project to the sandbox and verify a sender persona. Each arrives with the cookie and is answered 403, and nothing
 * changes: the admin's password still signs in, the project stays active, the persona unverified. The real
 * back-office then resets the password, and the new one signs in.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { freePort, runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import type { Json } from '../helpers/json.ts';

let server: ServerProcess;
let sink: SmtpSink;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sibling: Server;
let siblingUrl = '';
const stamp = Date.now();
const admin = { email: `owner-${stamp}@forgery.example.com`, password: 'forgery-passw0rd' };
const ops = { email: `ops-${stamp}@mailwright.example.com`, password: 'operator-passw0rd' };
let projectId = '';
let personaId = '';
let adminId = '';

/** The sibling page: auto-submits one form (`?form=<enctype>&action=<url>`) or fires no-cors fetches (`?fetch=<url>,…`). */
function siblingPage(url: URL): string {
  const action = url.searchParams.get('action');
  if (action) {
    const enctype = url.searchParams.get('form')!;
    return `<!doctype html><title>sibling</title><form method="post" action="${action}" enctype="${enctype}"><input name="reason" value="forged"></form>
<script>document.forms[0].submit()</script>`;
  }
  const targets = JSON.stringify((url.searchParams.get('fetch') ?? '').split(','));
  return `<!doctype html><title>sibling</title><script>
Promise.allSettled(${targets}.map((u) => fetch(u, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '' })))
  .then((r) => { document.title = 'done ' + r.map((x) => x.status).join(','); });
</script>`;
}

/** asOperator calls the operator gateway from Node with a session of its own (JSON, as a program does), for reading state. */
async function asOperator(route: string): Promise<Json> {
  const login = await fetch(`${server.url}/api/operator/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ops) });
  const cookie = String(login.headers.get('set-cookie')).split(';')[0];
  return (await fetch(`${server.url}/api/operator${route}`, { headers: { cookie } })).json();
}

/** signsIn says whether the customer admin signs in to the console with `password`. */
async function signsIn(password: string): Promise<boolean> {
  const res = await fetch(`${server.url}/api/login/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: admin.email, password }),
  });
  return res.status === 200;
}

beforeAll(async () => {
  sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-forgery-'));
  const env = { DATA_DIR: dataDir, SMTP_URL: smtpUrl, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off' };
  server = await startServer(env);
  await runTs('src/server/admin.ts', ['create-operator', '--email', ops.email, '--password', ops.password], env);
  const created = await runTs(
    'src/server/admin.ts',
    ['create-account', '--company', `Forgery Co ${stamp}`, '--project', 'Main project', '--email', admin.email, '--password', admin.password, '--activated'],
    env,
  );
  projectId = /project id: (\S+)/.exec(created)![1];
  const apiKey = /api key: (\S+)/.exec(created)![1];
  const persona = await fetch(`${server.url}/api/senderpersonawrapper/sender_personas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ sender_personas: [{ email: `news-${stamp}@forgery.example.com`, first_name: 'News' }] }),
  });
  personaId = ((await persona.json()) as Json).data[0].id;
  adminId = (await asOperator(`/projects/${projectId}`)).admins[0].id;

  const port = await freePort();
  siblingUrl = `http://127.0.0.1:${port}`;
  sibling = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(siblingPage(new URL(req.url!, siblingUrl)));
  });
  await new Promise<void>((resolve) => sibling.listen(port, '127.0.0.1', resolve));

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => sibling?.close(resolve));
  await server?.kill('SIGTERM');
  await sink?.stop();
});

describe('forged requests from another port of the same host (e2e)', () => {
  it('the operator signs in to the back-office', async () => {
    await page.goto(`${server.url}/operator/login`);
    await page.getByLabel('Email').fill(ops.email);
    await page.getByLabel('Password').fill(ops.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('tab', { name: 'Companies and projects' }).waitFor();
  });

  it("a sibling page's form posts reach the server with the operator's cookie and are refused", async () => {
    const targets: Array<[string, string]> = [
      [`/api/operator/projects/${projectId}/sandbox`, 'text/plain'],
      [`/api/operator/personas/${personaId}/verify`, 'text/plain'],
      [`/api/operator/admins/${adminId}/reset_password`, 'text/plain'],
      [`/api/operator/admins/${adminId}/reset_password`, 'application/x-www-form-urlencoded'],
      [`/api/operator/projects/${projectId}/sandbox`, 'multipart/form-data'],
    ];
    for (const [route, enctype] of targets) {
      const target = `${server.url}${route}`;
      const answered = page.waitForResponse((r) => r.url() === target && r.request().method() === 'POST');
      await page.goto(`${siblingUrl}/?form=${encodeURIComponent(enctype)}&action=${encodeURIComponent(target)}`);
      const response = await answered;
      const sent = await response.request().allHeaders();
      expect(sent.cookie, `${route} as ${enctype}`).toMatch(/mw_operator=/); // same-site: the cookie went along
      expect(sent['sec-fetch-site']).toBe('same-site');
      expect(response.status(), `${route} as ${enctype}`).toBe(403);
      expect(((await response.json()) as Json).errors[0]).toMatch(/^origin: /);
    }
  });

  it("a sibling page's no-cors fetches carry the operator's cookie to the server (their answers are opaque to the page)", async () => {
    const targets = [
      `${server.url}/api/operator/admins/${adminId}/reset_password`,
      `${server.url}/api/operator/projects/${projectId}/sandbox`,
      `${server.url}/api/operator/personas/${personaId}/verify`,
    ];
    // The product's Cross-Origin-Resource-Policy hides each answer from the page (and from Playwright's request
    // events), so the headers the browser really sent are read from the DevTools protocol.
    const cdp = await context.newCDPSession(page);
    const urls = new Map<string, string>();
    const sentHeaders = new Map<string, Record<string, string>>();
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
    cdp.on('Network.requestWillBeSentExtraInfo', (e) => sentHeaders.set(e.requestId, e.headers as Record<string, string>));
    await cdp.send('Network.enable');
    await page.goto(`${siblingUrl}/?fetch=${encodeURIComponent(targets.join(','))}`);
    await page.waitForFunction(() => document.title.startsWith('done'));
    const headersOf = (target: string) => [...urls].filter(([, url]) => url === target).map(([id]) => sentHeaders.get(id));
    await expect.poll(() => targets.map((t) => headersOf(t).length)).toEqual([1, 1, 1]);
    for (const target of targets) {
      const [headers] = headersOf(target);
      expect(headers?.Cookie ?? headers?.cookie, target).toMatch(/mw_operator=/);
      expect(headers?.['Sec-Fetch-Site'] ?? headers?.['sec-fetch-site']).toBe('same-site');
    }
    await cdp.detach();
    // Whether they acted is what the server keeps: the next test.
  });

  it('nothing changed: the password still signs in, the project is active, the persona unverified', async () => {
    expect(await signsIn(admin.password)).toBe(true);
    const project = await asOperator(`/projects/${projectId}`);
    expect(project.not_in_sandbox).toBe(true);
    expect(project.personas.map((p: Json) => p.verified_at)).toEqual([null]);
    expect(project.audit).toEqual([]);
  });

  it('the real back-office still resets the password', async () => {
    await page.goto(`${server.url}/operator/projects/${projectId}`);
    await page.getByRole('heading', { name: `Forgery Co ${stamp} / Main project` }).waitFor();
    await page.getByRole('table', { name: 'Admins' }).getByRole('button', { name: 'Reset password' }).click();
    await page
      .getByRole('dialog', { name: `Reset ${admin.email}’s password?` })
      .getByRole('button', { name: 'Reset password' })
      .click();
    const password = (await page.getByTestId('new-password').textContent())!.trim();
    expect(password).toHaveLength(18);
    expect(await signsIn(password)).toBe(true);
    expect(await signsIn(admin.password)).toBe(false);
  });
});
