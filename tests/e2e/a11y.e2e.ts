/**
 * Accessibility with axe-core in Debian's chromium against the built product: no serious or critical violation on
 * any route of spec part 1 §2 and part 2 §2 (tests/helpers/routes.ts), the edit routes opened on records made through the API. Each page is checked once its heading is shown;
 * the violations are listed by rule, impact and target so a failure says what to fix.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeProblems } from '../helpers/axe.ts';
import { type Browser, type BrowserContext } from 'playwright-core';
import { demoContext, launchChromium } from '../helpers/browser.ts';
import { apiCaller, startServer, type ServerProcess } from '../helpers/processes.ts';
import { consoleRoutes, PUBLIC_ROUTES, recordsForEditRoutes, type RouteIds } from '../helpers/routes.ts';

let server: ServerProcess;
let browser: Browser;
let apiKey: string;
let ids: RouteIds;

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-a11y-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off' });
  browser = await launchChromium();
  const demo = await demoContext(browser, server.url, 'axe@example.net');
  apiKey = demo.session.api_client_key;
  await demo.context.close();
  ids = await recordsForEditRoutes(
    apiCaller(
      () => server.url,
      () => apiKey,
    ),
  );
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
    const started = Date.now();
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 20_000 });
    // Pages that poll (the job log, a designer) may never go quiet for long; half a second of quiet or 5 s will do.
    await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
    const found = (await axeProblems(page)).map((p) => `${route}: ${p}`);
    if (process.env.A11Y_TIMINGS) console.log(`${route}: ${Date.now() - started} ms`);
    return found;
  } finally {
    await page.close();
  }
}

describe('accessibility (axe-core, e2e)', () => {
  it('finds no serious or critical violations on the public pages', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const found: string[] = [];
    for (const route of PUBLIC_ROUTES) found.push(...(await seriousViolations(context, route)));
    await context.close();
    expect(found).toEqual([]);
  });

  it('finds no serious or critical violations on the console screens', async () => {
    const { context } = await demoContext(browser, server.url, 'axe@example.net');
    const found: string[] = [];
    for (const route of consoleRoutes(ids)) found.push(...(await seriousViolations(context, route)));
    await context.close();
    expect(found).toEqual([]);
  }, 600_000);
});
