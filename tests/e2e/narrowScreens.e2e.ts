/**
 * Every route on a phone: at 390×844 no public page and no console page scrolls sideways, and no heading is
 * covered; a list is cards, not a table. Walks every route of spec part 1 §2 and part 2 §2 (tests/helpers/routes.ts) in
 * Debian's chromium against the built product: the public pages without a session, the console's as the demo account,
 * the edit routes on records made through the API. A page fails when the document is wider than the screen (naming
 * the widest elements that stick out) or when any visible heading's centre is under another element (the fixed top
 * bar was the usual culprit), compared through bounding boxes and `elementFromPoint`, or when its top bar wraps onto a
 * second line; the public site's links fold into a menu that opens and navigates.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { demoContext, launchChromium } from '../helpers/browser.ts';
import { apiCaller, startServer, type ServerProcess } from '../helpers/processes.ts';
import { consoleRoutes, PUBLIC_ROUTES, recordsForEditRoutes, type RouteIds } from '../helpers/routes.ts';

const PHONE = { width: 390, height: 844 };

let server: ServerProcess;
let browser: Browser;
let apiKey: string;
let ids: RouteIds;
const api = apiCaller(
  () => server.url,
  () => apiKey,
);

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-narrow-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off' });
  browser = await launchChromium();
  const demo = await demoContext(browser, server.url, 'phone@example.net', PHONE);
  apiKey = demo.session.api_client_key;
  await demo.context.close();
  ids = await recordsForEditRoutes(api);
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

/**
 * layoutProblems opens `route` and returns what is wrong with its layout at the context's width: sideways scrolling
 * (with the elements that stick out furthest) and headings whose centre another element covers.
 */
async function layoutProblems(context: BrowserContext, route: string): Promise<string[]> {
  const page: Page = await context.newPage();
  try {
    await page.goto(`${server.url}${route}`);
    await page.getByRole('heading').first().waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(200); // fonts and late layout (charts) settle
    const found = await page.evaluate(() => {
      const problems: string[] = [];
      const doc = document.documentElement;
      const describe = (el: Element) =>
        `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : ''}> "${(el.textContent ?? '').trim().slice(0, 30)}"`;
      if (doc.scrollWidth > window.innerWidth) {
        const wide = [...document.body.querySelectorAll('*')]
          .map((el) => ({ el, right: el.getBoundingClientRect().right }))
          .filter((x) => x.right > window.innerWidth + 1)
          .sort((a, b) => b.right - a.right)
          .slice(0, 3)
          .map((x) => `${describe(x.el)} ends at ${Math.round(x.right)}px`);
        problems.push(`scrolls sideways: ${doc.scrollWidth}px wide on a ${window.innerWidth}px screen (${wide.join('; ')})`);
      }
      for (const h of document.querySelectorAll('h1, h2, h3, [role="heading"]')) {
        const box = h.getBoundingClientRect();
        if (box.width === 0 || box.height === 0 || getComputedStyle(h).visibility === 'hidden') continue;
        window.scrollTo(0, 0);
        h.scrollIntoView({ block: 'center' });
        const b = h.getBoundingClientRect();
        const x = Math.min(Math.max(b.left + Math.min(b.width, 40) / 2, 0), window.innerWidth - 1);
        const y = b.top + b.height / 2;
        if (y < 0 || y >= window.innerHeight) continue;
        const top = document.elementFromPoint(x, y);
        if (top && top !== h && !h.contains(top) && !top.contains(h)) problems.push(`heading ${describe(h)} is covered by ${describe(top)}`);
        if (b.right > window.innerWidth + 1) problems.push(`heading ${describe(h)} is cut off at the right (${Math.round(b.right)}px)`);
      }
      // A table wider than its box is cut off or needs a sideways swipe: the public site's tables must fit (the pricing
      // table did not); the console's data tables may scroll inside their card, as every ESP's do on a phone.
      if (!location.pathname.startsWith('/insights') && !document.querySelector('[aria-label="Open menu"]')) {
        for (const table of document.querySelectorAll('table')) {
          const box = table.parentElement!;
          if (table.getBoundingClientRect().width > box.clientWidth + 1)
            problems.push(`${describe(table)} is wider than its box (${Math.round(table.getBoundingClientRect().width)}px in ${box.clientWidth}px)`);
        }
      }
      const header = document.querySelector('header');
      if (header && header.getBoundingClientRect().height > 64) problems.push(`the top bar wraps: ${Math.round(header.getBoundingClientRect().height)}px high`);
      return problems;
    });
    return found.map((p) => `${route}: ${p}`);
  } finally {
    await page.close();
  }
}

describe('every route on a 390×844 phone (e2e)', () => {
  it('no public page scrolls sideways or hides a heading', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const found: string[] = [];
    for (const route of PUBLIC_ROUTES) found.push(...(await layoutProblems(context, route)));
    await context.close();
    expect(found).toEqual([]);
  });

  it("folds the public site's links into a menu that opens and navigates", async () => {
    const page = await browser.newPage({ viewport: PHONE, isMobile: true, hasTouch: true });
    await page.goto(`${server.url}/`);
    const site = page.getByRole('navigation', { name: 'Site' });
    expect(await site.getByRole('link', { name: 'Pricing' }).isVisible()).toBe(false);
    await site.getByText('Menu').click();
    await site.getByRole('link', { name: 'Pricing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pricing' }).waitFor();
    expect(await site.getByRole('link', { name: 'Pricing' }).isVisible()).toBe(false); // the menu closed behind it
    expect(await site.getByRole('link', { name: 'Sign up' }).isVisible()).toBe(true);
    await page.close();
  });

  it('no console page scrolls sideways or hides a heading', async () => {
    const { context } = await demoContext(browser, server.url, 'phone@example.net', PHONE);
    const found: string[] = [];
    for (const route of consoleRoutes(ids)) found.push(...(await layoutProblems(context, route)));
    // A list's row actions are on screen without a sideways swipe (they were off-screen on Campaigns).
    const page = await context.newPage();
    await page.goto(`${server.url}/campaigns`);
    const archive = page.getByRole('button', { name: 'Archive A campaign for the phone walk' });
    const box = (await archive.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    // A list is cards on a phone: no table to swipe across, each value named by its column.
    expect(await page.getByRole('table').count()).toBe(0);
    const card = page.getByRole('list', { name: 'Campaigns' }).getByRole('listitem').filter({ hasText: 'A campaign for the phone walk' });
    expect(await card.locator('dt').count()).toBeGreaterThan(1);
    expect(await card.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await context.close();
    expect(found).toEqual([]);
    // It walks every console route (about 60 pages): 236 s of the e2e default 240 s on a busy machine.
  }, 600_000);
});
