/**
 * `npm run screens`: the README tour's screenshots, taken from the built product in Debian's
 * chromium at 1440×900 and 390×844 and written to docs/screens/{name}-{1440|390}.png. Starts its own server (an
 * empty data directory, an SMTP sink that accepts everything), signs up a new account for the first-week screens
 * (sign-up errors, the ready page, the new dashboard) and uses the demo account for the rest (the template gallery,
 * the column-mapping step of an import, the workflow editor marking a node that fails, the send wizard's review with
 * the email preview, the pricing page). Needs `npm run build` first; throws when a screen does not show.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { demoContext, launchChromium } from '../tests/helpers/browser.ts';
import { fixturePath } from '../tests/helpers/fixtures.ts';
import { ROOT, startServer } from '../tests/helpers/processes.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';

const OUT = path.join(ROOT, 'docs/screens');
const SIZES = [
  { width: 1440, height: 900, tag: '1440' },
  { width: 390, height: 844, tag: '390' },
] as const;

/** One screen of the tour: how to reach it on a fresh page. */
interface Screen {
  name: string;
  account: 'new' | 'demo';
  show: (page: Page, url: string) => Promise<void>;
}

const SCREENS: Screen[] = [
  {
    name: 'signup-errors',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/signup`);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByTestId('signup-error').waitFor();
    },
  },
  {
    name: 'insights-new-account',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/insights`);
      await page.getByTestId('sandbox-activation').waitFor();
      await page.getByRole('region', { name: 'Recent emails' }).waitFor();
    },
  },
  {
    name: 'template-gallery',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/components/templates/new`);
      await page.getByTitle('Thumbnail of the Password reset starter').waitFor();
      await page.waitForTimeout(800);
    },
  },
  {
    name: 'import-column-mapping',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/people/users/new/bulk`);
      await page.locator('input[type=file]').setInputFiles(fixturePath('exports/mailchimp-audience.csv'));
      await page.getByRole('table', { name: 'First rows of mailchimp-audience.csv' }).waitFor();
    },
  },
  {
    name: 'workflow-save-problem',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/components/workflows/new`);
      await page.getByLabel('Name').fill('Welcome series');
      const toolbar = page.getByRole('navigation', { name: 'Node toolbar' });
      await toolbar.getByRole('button', { name: 'Event trigger' }).click();
      await page.getByRole('dialog').getByLabel('Event name').fill('signed_up');
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await toolbar.getByRole('button', { name: 'Delay', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await page.locator('[data-testid="workflow-canvas"] g.joint-element[data-node-type="delay"] [joint-selector="settings"]').click();
      await toolbar.getByRole('button', { name: 'Unsubscribe' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('alert', { name: 'Save problems' }).waitFor();
    },
  },
  {
    name: 'pricing',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/pricing`);
      await page.getByRole('table', { name: 'Rates compared' }).waitFor();
    },
  },
];

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const server = await startServer({
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'mw-screens-')),
    SMTP_URL: smtpUrl,
    LOG_LEVEL: 'error',
    DEMO_RESET_CRON: 'off',
  });
  const browser = await launchChromium();
  try {
    for (const size of SIZES) {
      const viewport = { width: size.width, height: size.height };
      const demo = (await demoContext(browser, server.url, 'screens@example.net', viewport)).context;
      const fresh = await browser.newContext({ viewport });
      for (const screen of SCREENS) {
        const page = await (screen.account === 'demo' ? demo : fresh).newPage();
        await screen.show(page, server.url);
        await page.evaluate(() => window.scrollTo(0, 0));
        const file = path.join(OUT, `${screen.name}-${size.tag}.png`);
        await page.screenshot({ path: file });
        console.log(`wrote ${path.relative(ROOT, file)}`);
        await page.close();
      }
      await demo.close();
      await fresh.close();
    }
  } finally {
    await browser.close();
    await server.kill('SIGTERM');
    await sink.stop();
  }
}

await main();
