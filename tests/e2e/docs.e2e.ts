/**
 * The documentation (/docs) in a real browser against the built product: the index and every quick start open in the
 * public site's frame with their own titles and descriptions and a navigation between them; the API reference lists
 * every gateway and renders each one's OpenAPI document with swagger-ui, as many operations as openapi/*.yaml declare;
 * the changelog lists its releases newest first; no page cites the product spec or an issue; axe finds no serious
 * problem; a 390 px phone never scrolls sideways; swagger-ui is loaded only by the API pages. And the quick starts'
 * requests work: the documented bodies, sent with a fresh account's key, are accepted, the single send arrives, and a
 * test webhook passes the documented signature check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import YAML from 'yaml';
import codegenConfig from '../../codegen.config.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { RELEASES } from '../../src/console/public/docs/changelog.ts';
import { docsTitle, GATEWAYS, QUICK_STARTS, quickStartPath } from '../../src/console/public/docs/docsPages.ts';
import {
  CREATE_PERSONA,
  createWebhookEndpoint,
  type ExampleCall,
  SAVE_TEMPLATE,
  scheduleBlast,
  SEND_ONE_EMAIL,
  sendWebhookTest,
  UPSERT_CONTACTS,
  VERIFY_FUNCTION,
} from '../../src/console/public/docs/examples.ts';
import { axeProblems } from '../helpers/axe.ts';
import { e2eHooks, startE2E, type E2E } from '../helpers/e2e.ts';
import { ROOT } from '../helpers/processes.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** The operations (path and method pairs) each openapi/<service>.yaml declares, read with the yaml package. */
function yamlOperations(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of readdirSync(path.join(ROOT, 'openapi')).filter((f) => f.endsWith('.yaml'))) {
    const doc = YAML.parse(readFileSync(path.join(ROOT, 'openapi', file), 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
    const n = Object.values(doc.paths ?? {}).reduce((sum, item) => sum + Object.keys(item).filter((k) => METHODS.includes(k)).length, 0);
    counts.set(file.replace(/\.yaml$/, ''), n);
  }
  return counts;
}

let e2e: E2E;
/** Every docs page's visible text, by path, for the check that none cites internal documents. */
const texts = new Map<string, string>();
const requested: string[] = [];

e2eHooks();
beforeAll(async () => {
  e2e = await startE2E({ tag: 'docs', env: { WEBHOOK_ALLOW_PRIVATE: 'on' } });
  e2e.context.on('request', (r) => requested.push(r.url()));
});

/** open loads `route` in a fresh page at `width` and waits for its h1. */
async function open(route: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const page = await e2e.context.newPage();
  await page.setViewportSize(viewport);
  page.on('pageerror', (error) => e2e.pageErrors.push(`${route}: ${error.message}`));
  await page.goto(`${e2e.server.url}${route}`);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  return page;
}

/** remember keeps the page's visible text under its path. */
async function remember(page: Page): Promise<void> {
  texts.set(new URL(page.url()).pathname, await page.evaluate(() => document.body.innerText));
}

/** meta returns the page's title and meta description. */
function meta(page: Page): Promise<{ title: string; description: string }> {
  return page.evaluate(() => ({ title: document.title, description: document.querySelector('meta[name="description"]')?.getAttribute('content') ?? '' }));
}

/** sideways says how far the page scrolls sideways (0 when it does not). */
function sideways(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('the documentation (e2e)', () => {
  it('/docs says what the docs hold, in the site’s frame, with a navigation to every page', async () => {
    const page = await open('/docs');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Mailwright documentation');
    const { title, description } = await meta(page);
    expect(title).toBe(docsTitle('Documentation'));
    expect(description).toMatch(/^Mailwright documentation: quick starts/);
    await page.getByRole('navigation', { name: 'Site' }).waitFor(); // the public site's top bar
    const nav = page.getByRole('navigation', { name: 'Documentation' });
    const navLinks = await nav.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(navLinks).toEqual(['/docs', ...QUICK_STARTS.map((q) => quickStartPath(q.slug)), '/docs/api', '/docs/changelog']);
    expect(await nav.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    const main = page.getByRole('article');
    for (const q of QUICK_STARTS)
      expect(await main.getByRole('link', { name: q.title, exact: true }).first().getAttribute('href')).toBe(quickStartPath(q.slug));
    expect(await main.getByRole('link', { name: 'API reference', exact: true }).getAttribute('href')).toBe('/docs/api');
    expect(await main.getByRole('link', { name: 'Changelog', exact: true }).getAttribute('href')).toBe('/docs/changelog');
    await remember(page);

    await nav.getByRole('link', { name: 'Send from your app' }).click();
    await page.getByRole('heading', { level: 1, name: 'Send from your app' }).waitFor();
    expect((await meta(page)).title).toBe('Quick start: send from your app — Mailwright docs');
    await page.close();
  });

  it('each quick start is a page of numbered steps with its own title and description', async () => {
    for (const q of QUICK_STARTS) {
      const page = await open(quickStartPath(q.slug));
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(q.title);
      expect(await meta(page)).toEqual({ title: docsTitle(`Quick start: ${q.title[0].toLowerCase()}${q.title.slice(1)}`), description: q.description });
      const steps = page.getByRole('list', { name: /^Steps / }).locator(':scope > li');
      expect(await steps.count(), q.slug).toBeGreaterThanOrEqual(3);
      for (const step of await steps.all()) expect(await step.getByRole('heading', { level: 2 }).count()).toBe(1);
      expect(await page.getByRole('navigation', { name: 'Documentation' }).getByRole('link', { name: q.title }).getAttribute('aria-current')).toBe('page');
      await remember(page);
      await page.close();
    }
    const app = await open(quickStartPath('send-from-your-app'));
    const code = (await app.getByRole('region').allTextContents()).join('\n');
    expect(code).toContain(`export MAILWRIGHT_URL='${e2e.server.url}'`);
    for (const p of ['/api/senderpersonawrapper/sender_personas', '/api/email', '/api/user/users', '/api/template/templates', '/api/scheduler/scheduler'])
      expect(code, p).toContain(`curl -sS -X POST "$MAILWRIGHT_URL${p}"`);
    expect(code).toContain('-H "x-api-key: $MAILWRIGHT_API_KEY"');
    // The Node.js tab shows the same call with fetch.
    await app.getByRole('tab', { name: 'Node.js' }).first().click();
    expect(await app.getByRole('region', { name: 'Create a sender persona (Node.js)' }).textContent()).toContain("'x-api-key': process.env.MAILWRIGHT_API_KEY");
    await app.close();
    const hooks = await open(quickStartPath('receive-webhooks'));
    const text = await hooks.evaluate(() => document.body.innerText);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'HMAC-SHA256', 'whsec_']) expect(text).toContain(header);
    await hooks.close();
  });

  it('the API reference lists every gateway and renders each one’s operations, as many as openapi/*.yaml declare', async () => {
    const declared = yamlOperations();
    expect([...declared.keys()].sort()).toEqual([...codegenConfig.services].sort());
    const index = await open('/docs/api');
    expect((await meta(index)).title).toBe(docsTitle('API reference'));
    const listed = await index
      .getByRole('article')
      .getByRole('heading', { level: 3 })
      .getByRole('link')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect([...listed].sort()).toEqual(codegenConfig.services.map((s) => `/docs/api/${s}`).sort());
    await remember(index);
    expect(requested.filter((u) => /swagger/i.test(u))).toEqual([]); // not on the docs' own pages
    await index.close();

    let rendered = 0;
    for (const gateway of GATEWAYS) {
      const page = await open(`/docs/api/${gateway.service}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(gateway.name);
      expect((await meta(page)).title).toBe(docsTitle(`API reference: ${gateway.name}`));
      const expected = declared.get(gateway.service)!;
      const blocks = page.locator('.swagger-ui .opblock');
      await blocks.nth(expected - 1).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await blocks.count(), gateway.service).toBe(expected);
      rendered += expected;
      expect(requested).toContain(`${e2e.server.url}/openapi/${gateway.service}.json`);
      await remember(page);
      await page.close();
    }
    const total = [...declared.values()].reduce((a, b) => a + b, 0);
    expect(rendered).toBe(total);
    console.log(`API reference: ${rendered} operations rendered over ${GATEWAYS.length} gateways (openapi/*.yaml declares ${total})`);
  });

  it('the changelog lists its releases newest first, dated', async () => {
    const page = await open('/docs/changelog');
    expect((await meta(page)).title).toBe(docsTitle('Changelog'));
    const releases = page.getByRole('list', { name: 'Releases, newest first' }).locator(':scope > li');
    expect(await releases.count()).toBe(RELEASES.length);
    const dates = await releases.locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')));
    expect(dates).toEqual(RELEASES.map((r) => r.date));
    expect(dates).toEqual([...dates].sort().reverse());
    expect(await page.getByRole('article').first().getByRole('heading', { level: 2 }).allTextContents()).toEqual(RELEASES.map((r) => r.title));
    await remember(page);
    await page.close();
  });

  it('no docs page cites the product spec, its sections or an issue', () => {
    expect(texts.size).toBe(3 + QUICK_STARTS.length + GATEWAYS.length); // index, API index, changelog, quick starts, gateways
    const found: string[] = [];
    for (const [route, text] of texts) {
      for (const re of [/spec part/i, /§/, /issue/i]) {
        const at = text.search(re);
        if (at >= 0) found.push(`${route}: "${text.slice(Math.max(0, at - 40), at + 40)}"`);
      }
    }
    expect(found).toEqual([]);
  });

  it('axe finds no serious or critical problem on /docs, a quick start and an API page', async () => {
    const found: string[] = [];
    for (const route of ['/docs', quickStartPath('receive-webhooks'), '/docs/api/user']) {
      const page = await open(route);
      if (route.startsWith('/docs/api/')) {
        // One operation opened: swagger-ui shows an example request body made from its schema.
        const upsert = page.locator('.swagger-ui .opblock-post').filter({ has: page.locator('.opblock-summary-path[data-path="/users"]') });
        await upsert.locator('.opblock-summary').click();
        await upsert.locator('.body-param__example').waitFor();
        expect(await upsert.locator('.body-param__example').textContent()).toMatch(/"users":\s*\[\s*\{\s*"id"/);
      }
      await page.waitForLoadState('networkidle');
      found.push(...(await axeProblems(page)).map((p) => `${route}: ${p}`));
      await page.close();
    }
    expect(found).toEqual([]);
  });

  it('a 390 px phone does not scroll sideways, and the docs’ navigation folds into a menu', async () => {
    const phone = { width: 390, height: 844 };
    const found: string[] = [];
    for (const route of ['/docs', ...QUICK_STARTS.map((q) => quickStartPath(q.slug)), '/docs/api', '/docs/api/user', '/docs/changelog']) {
      const page = await open(route, phone);
      await page.waitForLoadState('networkidle');
      const over = await sideways(page);
      if (over > 0) found.push(`${route} scrolls ${over}px sideways`);
      await page.close();
    }
    expect(found).toEqual([]);

    const page = await open(quickStartPath('send-from-your-app'), phone);
    const nav = page.getByRole('navigation', { name: 'Documentation' });
    expect(await nav.getByRole('link', { name: 'Changelog' }).isVisible()).toBe(false);
    await nav.getByText('Docs menu').click();
    await nav.getByRole('link', { name: 'Changelog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Changelog' }).waitFor();
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.close();
  });

  it('the quick starts’ requests work: the documented bodies are accepted, the email arrives, a webhook passes the signature check', async () => {
    const base = e2e.server.url;
    const account = { email: `owner-${Date.now()}@docs-e2e.example`, password: 'docs-password-1' };
    const signup = await fetch(`${base}/api/signup/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company_user: { email: account.email, first_name: 'Dee' },
        company_display_name: `Docs ${Date.now()}`,
        password: account.password,
      }),
    });
    expect(signup.status).toBe(200);
    const login = await fetch(`${base}/api/login/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) });
    const key = ((await login.json()) as { api_client_key: string }).api_client_key;
    expect(key).toBeTruthy();
    /** send makes a documented call with the key; answers the status and JSON. */
    const send = async (call: ExampleCall, withKey = true) => {
      const res = await fetch(`${base}${call.path}`, {
        method: call.method,
        headers: { ...(withKey ? { 'x-api-key': key } : {}), ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
      });
      return { status: res.status, body: (await res.json()) as { data: never; errors?: string[] } };
    };

    expect((await send(UPSERT_CONTACTS, false)).status).toBe(401);
    const persona = await send(CREATE_PERSONA);
    expect(persona.status).toBe(200);
    const personaId = (persona.body.data as Array<{ id: string }>)[0].id;
    // Confirm the persona by its link, as its owner would.
    await e2e.sink.waitFor(() => e2e.sink.messages.length > 0);
    const [link] = await e2e.sink.personaVerificationLinks();
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);

    const single = await send(SEND_ONE_EMAIL);
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ stream: 'transactional', recipients: [{ email: SIMULATOR_SUCCESS_ADDRESS, status: 'queued' }] });
    await e2e.sink.waitFor(() => e2e.sink.messages.some((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)));
    const mail = (await e2e.sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!;
    expect(mail.subject).toBe('Your order has shipped');

    expect((await send(UPSERT_CONTACTS)).status).toBe(200);
    const template = await send(SAVE_TEMPLATE);
    expect(template.status).toBe(200);
    const blast = await send(
      scheduleBlast({
        blastId: crypto.randomUUID(),
        templateId: (template.body.data as Array<{ id: string }>)[0].id,
        personaId,
        sendAt: new Date().toISOString().slice(0, 16),
      }),
    );
    expect(blast.status, JSON.stringify(blast.body)).toBe(200);

    // The refusals the pages quote.
    expect((await send({ method: 'POST', path: UPSERT_CONTACTS.path, body: { users: [{ email: '' }] } })).body.errors).toEqual([
      'users[0].email: Required field',
    ]);
    const noSender = await send({ method: 'POST', path: SEND_ONE_EMAIL.path, body: { to: SIMULATOR_SUCCESS_ADDRESS, subject: 's', text: 'b' } });
    expect(noSender.body.errors).toContain('from: Required field');

    // Webhooks: the endpoint as documented, a test event, and the documented check of its signature.
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      const endpoint = await send(createWebhookEndpoint(url));
      expect(endpoint.status).toBe(200);
      const { id, secret } = endpoint.body.data as { id: string; secret: string };
      expect(secret).toMatch(/^whsec_/);
      expect((await send(sendWebhookTest(id))).status).toBe(200);
      await receiver.waitFor(() => receiver.ofType('webhook.test').length > 0);
      const [message] = receiver.ofType('webhook.test');
      const folder = await mkdtemp(path.join(os.tmpdir(), 'mw-docs-verify-'));
      await writeFile(path.join(folder, 'verify.mjs'), VERIFY_FUNCTION);
      process.env.MAILWRIGHT_WEBHOOK_SECRET = secret;
      const { verify } = (await import(pathToFileURL(path.join(folder, 'verify.mjs')).href)) as { verify: (h: unknown, body: string) => boolean };
      expect(verify(message.headers, message.body)).toBe(true);
      expect(verify(message.headers, message.body.replace('webhook.test', 'webhook.tost'))).toBe(false);
    } finally {
      await receiver.stop();
    }
  });

  it('fetched nothing from another origin and raised no errors in the page', () => {
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.filter((u) => !u.startsWith(`${e2e.server.url}/`) && !/^(data|blob):/.test(u))).toEqual([]);
    expect(e2e.pageErrors).toEqual([]);
  });
});
