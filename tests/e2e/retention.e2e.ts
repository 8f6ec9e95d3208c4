/**
 * Account → Data retention in a real browser against the built product: a new project keeps everything for ever; the
 * owner sets raw events to 365 days and the job log to 90 with the keyboard-usable choices, saves, and after a reload
 * (and through getRetention) they stuck; 0 days is refused beside the field and nothing is saved. At 390 px the page
 * does not scroll sideways and axe finds nothing serious on it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import { axeProblems } from '../helpers/axe.ts';

const OWNER = { email: 'owner@keep.example.com', password: 'keep-password-1' };
const LABELS = ['Raw events', 'Stored copies of sent emails', 'Sign-ups never confirmed', 'Job log'];

interface Retention {
  events_days: number | null;
  copies_days: number | null;
  unconfirmed_days: number | null;
  job_log_days: number | null;
}

let server: ServerProcess;
let page: Page;

e2eHooks();
beforeAll(async () => {
  ({ server, page } = await startE2E({
    tag: 'retention',
    env: { DEMO_RESET_CRON: 'off' },
    owner: { company: 'Keep Co', project: 'keep', ...OWNER },
    viewport: { width: 1280, height: 900 },
  }));
});

/** setting is one setting's group of choices, found by its label. */
function setting(label: string) {
  return page.getByRole('radiogroup', { name: label, exact: true });
}

async function openPage(): Promise<void> {
  await page.goto(`${server.url}/account/retention`);
  await page.getByRole('heading', { name: 'Data retention', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Save' }).waitFor();
}

describe('Account → Data retention', () => {
  it('is in the Account menu and shows every setting kept for ever at first', async () => {
    await page.goto(`${server.url}/account`);
    await page.getByRole('link', { name: 'Data retention' }).first().click();
    await page.getByRole('heading', { name: 'Data retention', level: 1 }).waitFor();
    await page.getByText('Retention runs nightly').waitFor();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    for (const label of LABELS) {
      expect(await setting(label).getByRole('radio', { name: 'Keep for ever' }).isChecked(), label).toBe(true);
      expect(await page.getByLabel(`${label}: days`).isDisabled(), label).toBe(true);
    }
  });

  it('saves raw events at 365 days and the job log at 90, which stay after a reload', async () => {
    await openPage();
    // Raw events by keyboard: from "Keep for ever" the arrow key moves to "Delete after", then Tab to the days.
    await setting('Raw events').getByRole('radio', { name: 'Keep for ever' }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await setting('Raw events').getByRole('radio', { name: 'Delete after' }).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.type('365');
    expect(await page.getByLabel('Raw events: days').inputValue()).toBe('365');
    await setting('Job log').getByRole('radio', { name: 'Delete after' }).check();
    await page.getByLabel('Job log: days').fill('90');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Retention settings saved').waitFor();

    await page.reload();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(await page.getByLabel('Raw events: days').inputValue()).toBe('365');
    expect(await page.getByLabel('Job log: days').inputValue()).toBe('90');
    expect(await setting('Stored copies of sent emails').getByRole('radio', { name: 'Keep for ever' }).isChecked()).toBe(true);
    expect(await setting('Sign-ups never confirmed').getByRole('radio', { name: 'Keep for ever' }).isChecked()).toBe(true);
    const { data } = await api<{ data: Retention }>('GET', '/api/companyauthwrapper/retention');
    expect(data).toEqual({ events_days: 365, copies_days: null, unconfirmed_days: null, job_log_days: 90 });
  });

  it('refuses 0 days beside the field and saves nothing', async () => {
    await openPage();
    await setting('Stored copies of sent emails').getByRole('radio', { name: 'Delete after' }).check();
    await page.getByLabel('Stored copies of sent emails: days').fill('0');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Stored copies of sent emails: enter a whole number of days from 1 to 3650/).waitFor();
    const { data } = await api<{ data: Retention }>('GET', '/api/companyauthwrapper/retention');
    expect(data).toEqual({ events_days: 365, copies_days: null, unconfirmed_days: null, job_log_days: 90 });
  });

  it('fits a 390 px screen and has no serious accessibility findings', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openPage();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
  });
});
