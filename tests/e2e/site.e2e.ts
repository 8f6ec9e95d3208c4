/**
 * The public site in a real browser against the built product: the home page's main action is Start free and leads to
 * /signup (Log in only in the top bar); its product pictures load, with their sizes and alt text, the ones below the
 * fold lazily; its prices are the pricing formula's; nothing is fetched from another origin; every page has its own
 * title and description; the favicon, touch icon and web manifest are served as what they are; the footer's links
 * all lead to a page; and /status reads the server's health.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { startServer, type ServerProcess } from '../helpers/processes.ts';
import { planCards } from '../../src/console/public/pricingCards.ts';
import { FOOTER_COLUMNS } from '../../src/console/public/siteLinks.ts';

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
const pageErrors: string[] = [];

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-site-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off', WORKERS: 'off' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.on('page', (p) => p.on('pageerror', (error) => pageErrors.push(error.message)));
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

/** open loads `route` in a fresh page and waits for its main heading. */
async function open(route: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}${route}`);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  return page;
}

describe('the public site (e2e)', () => {
  it("the hero's main action is Start free, which leads to sign-up; Log in is only in the top bar", async () => {
    const page = await open('/');
    const hero = page.locator('.mw-hero');
    const actions = hero.locator('.mw-actions a');
    expect(await actions.first().textContent()).toBe('Start free');
    expect(await actions.first().getAttribute('class')).toContain('mw-contained');
    expect(await actions.nth(1).textContent()).toBe('Try the demo');
    expect(await hero.getByRole('link', { name: 'Log in' }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);
    await actions.first().click();
    await page.waitForURL(`${server.url}/signup`);
    await page.getByRole('heading', { level: 1, name: 'Sign up' }).waitFor();
    expect(await page.title()).toBe('Sign up · Mailwright');
    await page.close();
  });

  it('loads its product pictures, sized and described, the ones below the fold lazily; nothing from another origin', async () => {
    const page = await context.newPage();
    const origins = new Set<string>();
    page.on('request', (r) => {
      if (!r.url().startsWith('data:')) origins.add(new URL(r.url()).origin);
    });
    await page.goto(`${server.url}/`);
    const pictures = page.locator('.mw-shot img');
    expect(await pictures.count()).toBe(4);
    // The hero's picture loads at once; the others when scrolled near.
    expect(await pictures.first().getAttribute('loading')).toBe('eager');
    for (let i = 1; i < 4; i++) expect(await pictures.nth(i).getAttribute('loading')).toBe('lazy');
    for (let i = 0; i < 4; i++) {
      const img = pictures.nth(i);
      await img.scrollIntoViewIfNeeded();
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { timeout: 10_000 }).toBe(true);
      expect(await img.getAttribute('width')).toBe('1200');
      expect(await img.getAttribute('height')).toBe('750');
      expect((await img.getAttribute('alt'))!.length).toBeGreaterThan(40);
    }
    await page.waitForLoadState('networkidle');
    expect([...origins]).toEqual([server.url]);
    await page.close();
  });

  it("says the pricing formula's figures, as the pricing cards do", async () => {
    const page = await open('/');
    for (const card of planCards()) expect(await page.getByTestId(`home-price-${card.name}`).locator('.mw-price-figure').textContent()).toBe(card.exactCost);
    await page.goto(`${server.url}/pricing`);
    for (const card of planCards()) {
      expect(await page.getByTestId(`price-${card.name}`).textContent()).toBe(`$${card.monthlyDollars.toLocaleString('en-US')} / month`);
      expect(await page.getByTestId(`price-detail-${card.name}`).textContent()).toContain(card.exactCost);
    }
    await page.close();
  });

  it('gives every page its own title and description', async () => {
    const expected: Array<[string, string]> = [
      ['/', 'Email marketing and transactional email, sent exactly once · Mailwright'],
      ['/pricing', 'Pricing · Mailwright'],
      ['/about', 'About · Mailwright'],
      ['/contact-us', 'Contact us · Mailwright'],
      ['/testimonials', 'Why teams switch · Mailwright'],
      ['/signup', 'Sign up · Mailwright'],
      ['/demo-login', 'Try the demo · Mailwright'],
      ['/login', 'Log in · Mailwright'],
      ['/blog', 'Blog · Mailwright'],
      ['/blog/timezone-based-email-delivery', 'Timezone-based email delivery · Mailwright'],
      ['/privacy', 'Privacy · Mailwright'],
      ['/terms', 'Terms · Mailwright'],
      ['/security', 'Security · Mailwright'],
      ['/status', 'Status · Mailwright'],
      ['/no-such-page', 'Page not found · Mailwright'],
    ];
    const descriptions = new Set<string>();
    for (const [route, title] of expected) {
      const page = await open(route);
      await expect.poll(() => page.title()).toBe(title);
      const description = await page.locator('meta[name="description"]').getAttribute('content');
      expect(description, route).toBeTruthy();
      descriptions.add(description!);
      await page.close();
    }
    expect(descriptions.size).toBe(expected.length);
  });

  it('serves the favicon, the touch icon and the web manifest with its icons', async () => {
    const ico = await fetch(`${server.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO header: reserved 0, type 1 (icon)
    expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
    const svg = await fetch(`${server.url}/favicon.svg`);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const touch = await fetch(`${server.url}/apple-touch-icon.png`);
    expect(touch.headers.get('content-type')).toBe('image/png');
    const manifest = (await (await fetch(`${server.url}/site.webmanifest`)).json()) as { icons: Array<{ src: string; sizes: string }> };
    expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons) expect((await fetch(`${server.url}${icon.src}`)).headers.get('content-type')).toBe('image/png');
    for (const file of ['/brand/mark.svg', '/brand/wordmark.svg']) expect((await fetch(`${server.url}${file}`)).status).toBe(200);
    // The page names them, so browsers find them.
    const page = await open('/');
    const links = await page
      .locator('link[rel~="icon"], link[rel="apple-touch-icon"], link[rel="manifest"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(links).toEqual(expect.arrayContaining(['/favicon.ico', '/favicon.svg', '/apple-touch-icon.png', '/site.webmanifest']));
    await page.close();
  });

  it('has a footer whose every link leads to a page, opened from the site and loaded afresh', async () => {
    const page = await open('/pricing');
    const footer = page.getByRole('contentinfo');
    for (const column of FOOTER_COLUMNS) await footer.getByRole('heading', { name: column.heading }).waitFor();
    const links = await footer
      .getByRole('navigation', { name: 'Footer' })
      .getByRole('link')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')!));
    expect(links).toEqual(FOOTER_COLUMNS.flatMap((c) => c.links.map(([to]) => to)));
    for (const label of ['Pricing', 'Docs', 'Privacy', 'Terms', 'Security', 'Status', 'Contact'])
      await footer.getByRole('link', { name: label, exact: true }).waitFor();
    for (const href of links) {
      // Followed inside the site…
      await page.goto(`${server.url}/about`);
      await page
        .getByRole('contentinfo')
        .getByRole('link')
        .and(page.locator(`a[href="${href}"]`))
        .click();
      await page.waitForURL(`${server.url}${href}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await page.getByRole('heading', { level: 1, name: /not found/i }).count(), href).toBe(0);
      if (href === '/#features') await expect.poll(() => page.locator('#features').evaluate((el) => el.getBoundingClientRect().top < innerHeight)).toBe(true);
      // …and loaded as a new visit.
      const fresh = await context.newPage();
      const answer = await fresh.goto(`${server.url}${href}`);
      expect(answer!.status(), href).toBe(200);
      await fresh.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await fresh.getByRole('heading', { level: 1, name: /not found/i }).count(), href).toBe(0);
      await fresh.close();
    }
    await page.close();
  });

  it('/status says all systems are operational when the server is ready', async () => {
    const page = await open('/status');
    await expect.poll(() => page.getByTestId('status-headline').textContent()).toBe('All systems operational');
    const parts = page.getByRole('list', { name: 'Parts of the service' }).getByRole('listitem');
    expect(await parts.count()).toBe(4);
    expect(await parts.allTextContents()).toEqual(Array.from({ length: 4 }, () => expect.stringMatching(/Operational$/)));
    await page.close();
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
