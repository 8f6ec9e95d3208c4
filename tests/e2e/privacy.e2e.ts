/**
 * A contact's privacy actions in Debian's chromium against the built product: on the contact's edit page "Download
 * data" saves contact-<id>.json, the export (exportContact) with the contact's address; "Erase…" opens a dialog that
 * says what happens, closes on Escape, keeps "Erase for good" disabled until the address is typed, and, used from the
 * keyboard, erases the contact (eraseContacts), toasts what was erased and goes back to the contacts list, after which
 * the API finds no such contact. A refused export or erasure shows the API's errors; at 390 px both actions and the
 * dialog fit the screen, the dialog with no serious axe finding.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import { axeProblems } from '../helpers/axe.ts';
import type { ServerProcess } from '../helpers/processes.ts';

const OWNER = { email: 'dpo@privacy.example.com', password: 'privacy-password-1' };
const ADA = 'ada.erased@privacy.example.com';
const BEA = 'bea.kept@privacy.example.com';

let server: ServerProcess;
let page: Page;
let pageErrors: string[];
let ids: Record<string, string>;

e2eHooks();
beforeAll(async () => {
  ({ server, page, pageErrors } = await startE2E({
    tag: 'privacy',
    sink: false,
    env: { DEMO_RESET_CRON: 'off', DOMAIN_CHECK_CRON: 'off' },
    owner: { company: 'Privacy Co', project: 'privacy', ...OWNER },
  }));
  const made = await api<{ data: Array<{ id: string; email: string }> }>('POST', '/api/user/users', {
    users: [
      { email: ADA, first_name: 'Ada' },
      { email: BEA, first_name: 'Bea' },
    ],
  });
  ids = Object.fromEntries(made.data.map((c) => [c.email, c.id]));
});

/** contactsWithEmail lists the contacts whose address contains `email`, as the contacts search finds them. */
async function contactsWithEmail(email: string): Promise<Array<{ id: string; email: string }>> {
  return (await api<{ data: Array<{ id: string; email: string }> }>('GET', `/api/user/users?search_field=email&search_value=${encodeURIComponent(email)}`))
    .data;
}

/** openContact opens the edit page of the contact `email` and waits for its actions. */
async function openContact(email: string): Promise<void> {
  await page.goto(`${server.url}/people/users/edit/${ids[email]}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Erase…' }).waitFor();
}

describe('a contact’s data: download and erasure (e2e)', () => {
  it('downloads the contact’s data as contact-<id>.json', async () => {
    await openContact(ADA);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download data' }).click()]);
    expect(download.suggestedFilename()).toBe(`contact-${ids[ADA]}.json`);
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-privacy-download-')), download.suggestedFilename());
    await download.saveAs(file);
    const exported = JSON.parse(await readFile(file, 'utf8')) as { contact: { id: string; email: string; first_name: string } };
    expect(exported.contact).toMatchObject({ id: ids[ADA], email: ADA, first_name: 'Ada' });
    await page.getByRole('button', { name: 'Download data' }).waitFor();
  });

  it('erases the contact from the keyboard once its address is typed, toasts what was erased and goes back to the list', async () => {
    await openContact(ADA);
    const erase = page.getByRole('button', { name: 'Erase…' });
    const dialog = page.getByRole('dialog', { name: `Erase ${ADA} for good?` });
    const confirm = dialog.getByRole('button', { name: 'Erase for good' });

    // Escape closes the dialog and erases nothing; focus goes back to the button.
    await erase.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await erase.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await contactsWithEmail(ADA)).toHaveLength(1);

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await dialog.getByText('Their sends, opens and clicks stay counted in reports without their address.', { exact: false }).waitFor();
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    expect(await confirm.isDisabled()).toBe(true);
    // The address field has the focus: typing all but its last letter leaves the button disabled.
    await page.keyboard.type(ADA.slice(0, -1));
    expect(await confirm.isDisabled()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await contactsWithEmail(ADA)).toHaveLength(1);
    await page.keyboard.type(ADA.slice(-1));
    expect(await confirm.isEnabled()).toBe(true);
    await page.keyboard.press('Enter');

    await page.getByText('Erased: 1 contact, 0 stored emails deleted').waitFor();
    await page.waitForURL(/\/people\/users(\?.*)?$/);
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
    expect(await contactsWithEmail(ADA)).toEqual([]);
    expect(await contactsWithEmail(BEA)).toHaveLength(1);
  });

  it('shows the API’s errors when the export or the erasure is refused', async () => {
    await openContact(BEA);
    await page.route('**/api/user/contacts/*/export', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ errors: ['the export store is busy'] }) }),
    );
    await page.route('**/api/user/contacts/erase', (route) =>
      route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ errors: ['ids.0: not a contact of this project'] }) }),
    );
    try {
      await page.getByRole('button', { name: 'Download data' }).click();
      await page.getByRole('alert').filter({ hasText: 'Couldn’t download the contact’s data: the export store is busy' }).waitFor();

      await page.getByRole('button', { name: 'Erase…' }).click();
      const dialog = page.getByRole('dialog', { name: `Erase ${BEA} for good?` });
      await dialog.getByLabel('Type their email address to confirm').fill(BEA);
      await dialog.getByRole('button', { name: 'Erase for good' }).click();
      await dialog.getByRole('alert').filter({ hasText: 'Couldn’t erase the contact: ids.0: not a contact of this project' }).waitFor();
      // Still on the contact's page, the dialog open for another try or Cancel.
      expect(page.url()).toBe(`${server.url}/people/users/edit/${ids[BEA]}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.unrouteAll();
    }
    expect(await contactsWithEmail(BEA)).toHaveLength(1);
  });

  it('shows both actions and the erase dialog within a 390 px screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openContact(BEA);
      for (const name of ['Download data', 'Erase…']) {
        const box = (await page.getByRole('button', { name }).boundingBox())!;
        expect(box.width, name).toBeGreaterThan(0);
        expect(box.x, name).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name).toBeLessThanOrEqual(390);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.getByRole('button', { name: 'Erase…' }).click();
      const dialog = page.getByRole('dialog', { name: `Erase ${BEA} for good?` });
      await dialog.waitFor();
      for (const name of ['Cancel', 'Erase for good']) {
        const box = (await dialog.getByRole('button', { name }).boundingBox())!;
        expect(box.x + box.width, name).toBeLessThanOrEqual(390);
      }
      expect(await axeProblems(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
