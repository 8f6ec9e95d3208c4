/**
 * The public blog in a real browser against the built product (spec part 1 §2 /blog, §7 "Documented public API"):
 * the index lists six posts newest first and never loads swagger-ui; the API documentation post renders
 * /docs/api.yml with swagger-ui, whose "Try it out" reaches the right gateway on this origin, and its tutorial shows
 * and hides; the Make API-spec post renders /docs/make_integration.yml; /blog/serverless exists off the index; an
 * unknown slug says so; nothing is fetched from another origin; and axe finds no serious or critical violations.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeProblems } from '../helpers/axe.ts';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import YAML from 'yaml';
import { launchChromium } from '../helpers/browser.ts';
import { startServer, type ServerProcess } from '../helpers/processes.ts';

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
const pageErrors: string[] = [];
const requested: string[] = [];

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-blog-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off', WORKERS: 'off' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('request', (request) => requested.push(request.url()));
  context.on('page', (p) => p.on('pageerror', (error) => pageErrors.push(error.message)));
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

/** open loads `route` in a fresh page and returns it with the URLs it requested. */
async function open(route: string): Promise<{ page: Page; urls: string[] }> {
  const page = await context.newPage();
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  await page.goto(`${server.url}${route}`);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  return { page, urls };
}

/** seriousViolations returns axe's serious and critical findings on `page`, one line each, prefixed with its path. */
async function seriousViolations(page: Page): Promise<string[]> {
  return (await axeProblems(page)).map((p) => `${new URL(page.url()).pathname}: ${p}`);
}

const INDEX = [
  ['api-documentation', '2026-09-15'],
  ['make-integration', '2026-05-19'],
  ['how-to-send-an-email-campaign', '2026-02-10'],
  ['send-event-based-transactional-or-drip-campaign-emails', '2025-10-07'],
  ['timezone-based-email-delivery', '2025-06-24'],
  ['other-esps-guess', '2025-03-04'],
];

describe('the blog (e2e)', () => {
  it('/blog lists six posts, newest first, each linking to its page, without loading swagger-ui', async () => {
    const { page, urls } = await open('/blog');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Blog');
    const items = page.getByRole('list', { name: 'Posts, newest first' }).getByRole('listitem');
    expect(await items.count()).toBe(6);
    const links = items.getByRole('heading', { level: 2 }).getByRole('link');
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(INDEX.map(([slug]) => `/blog/${slug}`));
    expect(await items.locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime')))).toEqual(INDEX.map(([, date]) => date));
    expect(await items.first().textContent()).toContain('September 15, 2026');
    await page.waitForLoadState('networkidle');
    expect(urls.filter((u) => /swagger/i.test(u))).toEqual([]);
    expect(urls.some((u) => /\/docs\//.test(u))).toBe(false);
    expect(urls.some((u) => /BlogIndexPage/.test(u))).toBe(true); // the recording works: the page's own chunk is there

    await links.first().click();
    await page.waitForURL(/\/blog\/api-documentation$/);
    await page.getByRole('heading', { level: 1, name: 'Mailwright API documentation' }).waitFor();
    await page.close();
  });

  it('the API documentation post renders /docs/api.yml with swagger-ui, and its tutorial shows and hides', async () => {
    const { page, urls } = await open('/blog/api-documentation');
    // swagger-ui renders the bundled document: its title, and the public operations by path and summary.
    await page.locator('.swagger-ui .mw-swagger-title').filter({ hasText: 'Mailwright public API' }).waitFor();
    for (const p of ['/users', '/templates', '/sender_personas', '/segments', '/segments/{id}/users', '/scheduler', '/events']) {
      await page.locator(`.opblock-summary-path[data-path="${p}"]`).waitFor();
    }
    expect(await page.locator('.opblock').count()).toBe(7);
    await page.getByText('Create or update contacts').first().waitFor();
    expect(urls).toContain(`${server.url}/docs/api.yml`);
    expect(urls.some((u) => /SwaggerDoc/.test(u))).toBe(true);

    const toggle = page.getByRole('button', { name: 'Show the tutorial' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const step1 = page.getByRole('heading', { level: 3, name: '1. Get your API key' });
    expect(await step1.isVisible()).toBe(false);
    await toggle.click();
    const hide = page.getByRole('button', { name: 'Hide the tutorial' });
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    await step1.waitFor();
    const tutorial = page.locator(`[id="${await hide.getAttribute('aria-controls')}"]`);
    expect(await tutorial.getByRole('link', { name: 'Settings' }).getAttribute('href')).toBe('/account/settings');
    expect(await tutorial.textContent()).toContain('A template must contain an unsubscribe link');
    const curls = await tutorial.getByRole('region').allTextContents();
    expect(curls.join('\n')).toContain(`export MAILWRIGHT='${server.url}/api'`);
    for (const p of ['user/users', 'template/templates', 'senderpersonawrapper/sender_personas', 'segment/segments', 'scheduler/scheduler', 'event/events']) {
      expect(
        curls.some((c) => c.includes(`curl -X POST "$MAILWRIGHT/${p}`)),
        p,
      ).toBe(true);
    }
    expect(await tutorial.getByRole('heading', { level: 3 }).count()).toBe(7);
    await hide.click();
    expect(await page.getByRole('button', { name: 'Show the tutorial' }).getAttribute('aria-expanded')).toBe('false');
    expect(await step1.isVisible()).toBe(false);
    await page.close();
  });

  it('"Try it out" posts to the event gateway on this origin, and an authorised call stores the event', async () => {
    const res = await fetch(`${server.url}/api/login/demo_login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'blog@example.net', agreed: true }),
    });
    expect(res.status).toBe(200);
    const { api_client_key: apiKey } = await res.json();
    expect(apiKey).toBeTruthy();

    const { page } = await open('/blog/api-documentation');
    const events = page.locator('.opblock').filter({ has: page.locator('.opblock-summary-path[data-path="/events"]') });
    await events.locator('.opblock-summary').click();
    await events.getByRole('button', { name: 'Try it out' }).click();
    await events.locator('textarea.body-param__text').fill(JSON.stringify({ events: [{ name: 'blog_read', email: 'reader@example.net', metric1: 1 }] }));

    let call = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/events'));
    await events.getByRole('button', { name: 'Execute' }).click();
    expect((await call).url()).toBe(`${server.url}/api/event/events`);
    await events.locator('.live-responses-table .response-col_status').filter({ hasText: '401' }).waitFor();

    await page
      .locator('.swagger-ui .auth-wrapper')
      .getByRole('button', { name: /Authorize/ })
      .click();
    const dialog = page.locator('.swagger-ui .dialog-ux');
    await dialog.locator('input[type="text"], input[type="password"]').first().fill(apiKey);
    await dialog.getByRole('button', { name: 'Authorize', exact: true }).click();
    await dialog.getByRole('button', { name: 'Close' }).last().click();

    call = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/events'));
    await events.getByRole('button', { name: 'Execute' }).click();
    const authorised = await call;
    expect(authorised.headers()['x-api-key']).toBe(apiKey);
    expect(await (await authorised.response())!.json()).toMatchObject({ stored: 1, failed: [] });
    await events.locator('.live-responses-table .response-col_status').filter({ hasText: '200' }).waitFor();
    await page.close();
  });

  it('serves /docs/api.yml as YAML that parses to the bundled OpenAPI 3.1 document', async () => {
    const res = await fetch(`${server.url}/docs/api.yml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).not.toMatch(/html/);
    const doc = YAML.parse(await res.text());
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/events'].servers[0].url).toBe('/api/event');
  });

  it('the Make API-spec post renders /docs/make_integration.yml', async () => {
    const { page, urls } = await open('/blog/make-integration-api-spec');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Make integration: the API spec');
    await page.locator('.swagger-ui .mw-swagger-title').filter({ hasText: 'Mailwright for Make' }).waitFor();
    await page.locator('.opblock-summary-path[data-path="/users"]').waitFor();
    await page.locator('.opblock-summary-path[data-path="/events"]').waitFor();
    expect(urls).toContain(`${server.url}/docs/make_integration.yml`);
    expect(await page.getByRole('link', { name: 'Integrations' }).getAttribute('href')).toBe('/account/api');
    await page.close();
  });

  it('/blog/serverless exists but is not on the index, and the video post lists its chapters', async () => {
    let { page } = await open('/blog/serverless');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sending email from serverless functions');
    await page.getByRole('heading', { level: 2, name: 'Retries without duplicates' }).waitFor();
    await page.close();

    ({ page } = await open('/blog/how-to-send-an-email-campaign'));
    const chapters = page.getByRole('list', { name: 'Video chapters' }).getByRole('listitem');
    expect(await chapters.count()).toBeGreaterThanOrEqual(5);
    expect(await chapters.first().locator('time').getAttribute('datetime')).toBe('PT0M0S');
    expect(await page.locator('video, iframe').count()).toBe(0);
    await page.close();
  });

  it('an unknown slug says the post is not found and links back to /blog', async () => {
    const { page } = await open('/blog/no-such-post');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Post not found');
    await page.getByRole('link', { name: 'Back to the blog' }).click();
    await page.waitForURL(/\/blog$/);
    await page.getByRole('heading', { level: 1, name: 'Blog' }).waitFor();
    await page.close();
  });

  it('axe finds no serious or critical violations on the blog pages', async () => {
    const found: string[] = [];
    for (const route of ['/blog', '/blog/other-esps-guess', '/blog/how-to-send-an-email-campaign', '/blog/serverless', '/blog/no-such-post']) {
      const { page } = await open(route);
      await page.waitForLoadState('networkidle');
      found.push(...(await seriousViolations(page)));
      await page.close();
    }
    for (const route of ['/blog/api-documentation', '/blog/make-integration-api-spec']) {
      const { page } = await open(route);
      await page.locator('.opblock').first().waitFor();
      if (route === '/blog/api-documentation') {
        // The tutorial open, and one operation expanded in "Try it out" mode (parameters, body editor, Execute).
        await page.getByRole('button', { name: 'Show the tutorial' }).click();
        const events = page.locator('.opblock').filter({ has: page.locator('.opblock-summary-path[data-path="/events"]') });
        await events.locator('.opblock-summary').click();
        await events.getByRole('button', { name: 'Try it out' }).click();
        await events.getByRole('button', { name: 'Execute' }).waitFor();
      }
      await page.waitForLoadState('networkidle');
      found.push(...(await seriousViolations(page)));
      await page.close();
    }
    expect(found).toEqual([]);
  });

  it('fetched nothing from another origin and raised no errors in the page', () => {
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.filter((u) => !u.startsWith(`${server.url}/`) && !/^(data|blob):/.test(u))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
