/**
 * The public /pricing page in a real browser against the built product (spec part 1 §2, §9): the plan
 * cards' rounded-up prices, the default and chosen plan carried to /signup?plan=, the slider's fixed volumes, and the
 * comparison table with the lowest calculation marked; and /deal-mirror's promo cookie and toast. Expected figures are worked out by hand from §9, not taken
 * from src/domain/pricing.ts, so a wrong formula there fails here too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';

let server: ServerProcess;
let page: Page;
let pageErrors: string[];

e2eHooks();
beforeAll(async () => {
  ({ server, page, pageErrors } = await startE2E({ tag: 'pricing', sink: false }));
});

describe('pricing and promo pages (e2e)', () => {
  it('shows each plan at the cheapest rate rounded up, with Professional chosen by default', async () => {
    await page.goto(`${server.url}/pricing`);
    await page.getByRole('heading', { name: 'Pricing', level: 1 }).waitFor();
    // Starter 10,000: $0. Professional 100,000: min(45.90, 9 + 35.10, 26 + 32.40) = 44.10 → $45.
    // Enterprise 1,000,000: min(504.90, 395.10, 26 + 356.40 = 382.40) → $383.
    expect(await page.getByTestId('price-Starter').textContent()).toBe('$0 / month');
    expect(await page.getByTestId('price-Professional').textContent()).toBe('$45 / month');
    expect(await page.getByTestId('price-Enterprise').textContent()).toBe('$383 / month');
    expect(await page.getByRole('radio', { name: 'Professional' }).getAttribute('aria-checked')).toBe('true');
    expect(await page.getByRole('radio', { name: 'Starter' }).getAttribute('aria-checked')).toBe('false');
  });

  it('choosing a card carries that plan to sign-up', async () => {
    await page.getByRole('radio', { name: 'Enterprise' }).click();
    expect(await page.getByRole('radio', { name: 'Enterprise' }).getAttribute('aria-checked')).toBe('true');
    expect(await page.getByRole('radio', { name: 'Professional' }).getAttribute('aria-checked')).toBe('false');
    await page.getByRole('link', { name: 'Sign up for Enterprise' }).click();
    await page.waitForURL(/\/signup\?plan=Enterprise$/);
    // A plan in the URL is chosen when the page opens.
    await page.goto(`${server.url}/pricing?plan=Starter`);
    expect(await page.getByRole('radio', { name: 'Starter' }).getAttribute('aria-checked')).toBe('true');
  });

  it('the slider moves between fixed volumes only, quoting the cheapest rate', async () => {
    await page.goto(`${server.url}/pricing`);
    const quote = page.getByTestId('slider-quote');
    expect(await quote.textContent()).toBe('100,000 emails a month: $44.10 ($9 + 39¢ per 1,000)');
    const slider = page.getByRole('slider');
    await slider.focus();
    await slider.press('ArrowRight'); // the next fixed count: 250,000 → min(122.40, 9 + 93.60, 26 + 86.40) = 102.60
    await expect.poll(() => quote.textContent()).toBe('250,000 emails a month: $102.60 ($9 + 39¢ per 1,000)');
    await slider.press('Home');
    await expect.poll(() => quote.textContent()).toBe('10,000 emails a month: $0.00 ($0 + 51¢ per 1,000)');
    expect(await slider.getAttribute('aria-valuetext')).toBe('10,000 emails a month');
  });

  it('the comparison table marks the lowest of the three calculations at each volume', async () => {
    const table = page.getByRole('table', { name: 'Rates compared' });
    const row = (emails: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: emails, exact: true }) });
    expect(await table.getByRole('rowheader').allTextContents()).toEqual(['2,500', '50,000', '100,000', '500,000', '1,000,000', '10,000,000']);
    const lowest = async (emails: string) => row(emails).locator('td[aria-current="true"]').textContent();
    expect(await row('2,500').getByRole('cell').allTextContents()).toEqual(['$0.00 (lowest)', '$6.08', '$23.30']);
    expect(await lowest('50,000')).toBe('$20.40 (lowest)');
    expect(await lowest('100,000')).toBe('$44.10 (lowest)');
    expect(await lowest('10,000,000')).toBe('$3,622.40 (lowest)');
    expect(await row('500,000').locator('td[aria-current="true"]').count()).toBe(1);
  });

  it('/deal-mirror stores the promo source for 12 hours, says so, and continues to pricing', async () => {
    const before = Date.now() / 1000;
    await page.goto(`${server.url}/deal-mirror`);
    await page.getByText('Your Deal Mirror Promo code has been applied!').waitFor();
    await page.waitForURL(/\/pricing$/);
    const cookie = (await page.context().cookies(server.url)).find((c) => c.name === 'source_info');
    expect(cookie?.value).toContain('deal-mirror');
    expect(cookie?.sameSite).toBe('Strict');
    expect(cookie!.expires - before).toBeGreaterThan(12 * 3600 - 60);
    expect(cookie!.expires - before).toBeLessThan(12 * 3600 + 60);
  });

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
