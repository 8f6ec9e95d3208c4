/**
 * Accessibility with axe-core in Debian's chromium against the built product (issue 7 "Done when": no serious or
 * critical violations on the public pages and on /insights, /people/users and /components/templates; issue 6 adds the
 * report and campaign screens, issue 8 the workflow list and editor). Each page is checked once its heading is shown;
 * the violations are listed by rule, impact and target so a failure says what to fix.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeProblems } from '../helpers/axe.ts';
import { type Browser, type BrowserContext } from 'playwright-core';
import { demoContext, launchChromium } from '../helpers/browser.ts';
import { startServer, type ServerProcess } from '../helpers/processes.ts';

let server: ServerProcess;
let browser: Browser;

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-a11y-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off', WORKERS: 'off' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

/** seriousViolations opens `route` in `context`, waits for its main heading and returns axe's serious/critical findings. */
async function seriousViolations(context: BrowserContext, route: string): Promise<string[]> {
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}${route}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.waitForLoadState('networkidle');
    return (await axeProblems(page)).map((p) => `${route}: ${p}`);
  } finally {
    await page.close();
  }
}

const PUBLIC_PAGES = [
  '/',
  '/pricing',
  '/about',
  '/about/contact-us',
  '/about/contact-us/2',
  '/contact-us',
  '/testimonials',
  '/signup',
  '/signup?plan=Enterprise',
  '/demo-login',
  '/waiting-for-architecture',
  '/login',
  '/no-such-page',
  '/blog',
  '/blog/how-to-send-an-email-campaign',
  '/blog/make-integration',
];
const CONSOLE_PAGES = [
  '/insights',
  '/insights/stats',
  '/insights/issues',
  '/insights/analysis',
  '/campaigns',
  '/campaigns/new',
  '/people/users',
  '/components/templates',
  '/components/workflows',
  '/components/workflows/new',
  '/account/team',
  '/account/settings',
  '/account/api',
  '/account/domains',
];

describe('accessibility (axe-core, e2e)', () => {
  it('finds no serious or critical violations on the public pages', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const found: string[] = [];
    for (const route of PUBLIC_PAGES) found.push(...(await seriousViolations(context, route)));
    await context.close();
    expect(found).toEqual([]);
  });

  it('finds no serious or critical violations on the console screens', async () => {
    const { context } = await demoContext(browser, server.url, 'axe@example.net');
    const found: string[] = [];
    for (const route of CONSOLE_PAGES) found.push(...(await seriousViolations(context, route)));
    await context.close();
    expect(found).toEqual([]);
  });
});
