/**
 * Contact file upload in Debian's chromium against the built product (spec part 2 §2 Contacts
 * /people/users/new/bulk and Segments /people/segments/new/bulk/2, §4 File upload lifecycle, §5 Uploads): a .txt and an
 * empty file refused with the spec's messages before anything is sent; a CSV and an XLSX written by openpyxl, each with
 * bad rows, chosen through the picker the drop zone opens on Enter, confirmed, uploaded, processed to "Imported with
 * refused rows" with every bad row listed by line, and their good rows found in the contacts list; the sample file
 * downloaded and imported to 'Success'; a segment made from a CSV, opened from its link, holding exactly the file's good
 * rows; and a Mailchimp export whose columns are matched on the confirm step, one changed by keyboard,
 * imported with that mapping, at 390 px without the page scrolling sideways.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoContext, launchChromium, type DemoSession } from '../helpers/browser.ts';
import { ROOT, startServer, type ServerProcess } from '../helpers/processes.ts';
import type { Json } from '../helpers/json.ts';
import { writeXlsx } from '../helpers/xlsx.ts';
import { axeProblems } from '../helpers/axe.ts';

let server: ServerProcess;
let browser: Browser;
let page: Page;
let session: DemoSession;
let dir: string;
const pageErrors: string[] = [];
/** Requests for an upload URL or to an upload URL, made by the page. */
const uploadRequests: string[] = [];

const DROP_ZONE = 'Drag and drop CSV or XLSX files here, or click to choose files';
const TWO_ATS = 'Please don’t use confusing email addresses (e.g. with two @s)';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-upload-'));
  server = await startServer({ DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off', DOMAIN_CHECK_CRON: 'off' });
  browser = await launchChromium();
  const signedIn = await demoContext(browser, server.url, 'uploads@example.net');
  session = signedIn.session;
  page = await signedIn.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (req) => {
    if (/upload_url|\/uploads\//.test(req.url())) uploadRequests.push(req.url());
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

async function api<T = Json>(pathAndQuery: string): Promise<T> {
  const res = await fetch(`${server.url}${pathAndQuery}`, { headers: { 'x-api-key': session.api_client_key } });
  if (!res.ok) throw new Error(`${pathAndQuery} answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<T>;
}

/** refusedRows reads the listed refused rows of one uploaded file. */
async function refusedRows(name: string): Promise<string[]> {
  return page
    .getByRole('list', { name: `Refused rows of ${name}` })
    .getByRole('listitem')
    .allTextContents();
}

/** chooseWithKeyboard focuses the drop zone, opens the file picker with Enter and picks `files`. */
async function chooseWithKeyboard(files: string[]): Promise<void> {
  const zone = page.getByRole('button', { name: DROP_ZONE });
  await zone.focus();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), zone.press('Enter')]);
  expect(chooser.isMultiple()).toBe(true);
  await chooser.setFiles(files);
}

/** seriousViolations: axe's serious and critical findings on the page as it is now. */
const seriousViolations = () => axeProblems(page);

/** finished waits until a file's row shows Success (or an error) and returns the row's text. */
async function finished(name: string): Promise<string> {
  const row = page.getByTestId(`upload-${name}`);
  await row.getByText(/^Success$|^Imported with refused rows$|failed with status|Unable to determine/).waitFor({ timeout: 90_000 });
  return (await row.textContent()) ?? '';
}

/** confirmImport waits for a file's confirm step (its columns) and presses its Import button. */
async function confirmImport(name: string): Promise<void> {
  const card = page.getByRole('region', { name: `Check the columns of ${name}` });
  await card.getByRole('button', { name: `Import ${name}` }).click();
}

describe('contact file upload (e2e)', () => {
  it("refuses a .txt file and an empty file with the spec's messages before any upload", async () => {
    await page.goto(`${server.url}/people/users/new/bulk`);
    await page.getByRole('heading', { name: 'Upload Contacts', level: 1 }).waitFor();
    for (const column of ['File', 'Uploading', 'Processing']) expect(await page.getByRole('columnheader', { name: column }).count()).toBe(0);
    // Dropped, as a drag from the desktop would: a DataTransfer carrying both files.
    const transfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['email\nann@example.com\n'], 'notes.txt', { type: 'text/plain' }));
      dt.items.add(new File([], 'empty.csv', { type: 'text/csv' }));
      return dt;
    });
    const zone = page.getByRole('button', { name: DROP_ZONE });
    await zone.dispatchEvent('dragenter', { dataTransfer: transfer });
    await zone.dispatchEvent('drop', { dataTransfer: transfer });
    // On the page (the toast is an alert too, without the list).
    const alert = page.getByRole('alert').filter({ has: page.getByRole('list', { name: 'Refused files' }) });
    await alert.waitFor();
    await alert.getByText("some files didn't meet the size or file-type requirements:", { exact: true }).waitFor();
    expect(await alert.getByRole('list', { name: 'Refused files' }).getByRole('listitem').allTextContents()).toEqual([
      'Incorrect or missing file extension: "notes.txt", please upload a csv or xslx file',
      '"empty.csv" is empty (0 bytes): a file must be 1 byte to 2 GB',
    ]);
    // The toast says the same in one line.
    await page
      .getByText(
        'some files didn\'t meet the size or file-type requirements: Incorrect or missing file extension: "notes.txt", please upload a csv or xslx file; "empty.csv" is empty (0 bytes): a file must be 1 byte to 2 GB',
      )
      .waitFor();
    expect(await page.getByRole('table', { name: 'Uploads' }).count()).toBe(0);
    expect(uploadRequests).toEqual([]);
    expect(await seriousViolations()).toEqual([]);
  });

  it('uploads a CSV and an openpyxl XLSX chosen with the keyboard, lists their bad rows by line, and imports the good ones', async () => {
    const csv = path.join(dir, 'contacts-e2e.csv');
    await writeFile(
      csv,
      [
        'email,first_name,last_name,timezone,date_of_birth,json.plan',
        'good.one@example.com,Good,One,Europe/Paris,1990-02-28,pro',
        'no-at.example.com,Bad,At,,,',
        'two@@example.com,Bad,Two,,,',
        'zone@example.com,Bad,Zone,Mars/Olympus,,',
        'date@example.com,Bad,Date,,28/02/1990,',
        'short@example.com,Too,Few',
        'good.two@example.com,Good,Two,,,basic',
        // The same address in capitals, another person's name: merged into the row above, not applied, and said so.
        'GOOD.TWO@EXAMPLE.COM,Other,Person,,,',
      ].join('\n') + '\n',
    );
    const xlsx = path.join(dir, 'people-e2e.xlsx');
    writeXlsx(xlsx, [
      ['email', 'first_name', 'timezone', 'date_of_birth'],
      ['xl.good@example.com', 'Xena', 'Asia/Tokyo', { date: '1985-07-04' }],
      ['xl-no-at', 'X', null, null],
      ['xl@@two.example.com', 'X', null, null],
      ['xl.zone@example.com', 'Z', 'Nowhere/City', null],
      ['xl.date@example.com', 'D', null, '1985-31-12'],
      ['xl.wide@example.com', 'W', null, null, 'extra'],
      ['xl.good2@example.com', 'Yuri', null, '2001-01-31'],
    ]);

    await page.goto(`${server.url}/people/users/new/bulk`);
    await chooseWithKeyboard([csv, xlsx]);
    // Nothing is sent before the user confirms each file's columns.
    await page.getByRole('region', { name: 'Check the columns of contacts-e2e.csv' }).getByText('1 more file waits to be checked').waitFor();
    expect(uploadRequests, uploadRequests.join(' ')).toEqual([]);
    await confirmImport('contacts-e2e.csv');
    await page
      .getByRole('region', { name: 'Check the columns of people-e2e.xlsx' })
      .getByText(/is not previewed here/)
      .waitFor();
    await confirmImport('people-e2e.xlsx');
    const table = page.getByRole('table', { name: 'Uploads' });
    await table.waitFor();
    for (const column of ['File', 'Uploading', 'Processing']) await table.getByRole('columnheader', { name: column }).waitFor();

    expect(await finished('contacts-e2e.csv')).toContain('Imported with refused rows2 rows imported, 1 merged (same address in another case), 5 failed');
    await expect
      .poll(() => page.getByRole('list', { name: 'Merged rows of contacts-e2e.csv' }).getByRole('listitem').allTextContents())
      .toEqual([
        "Line 9, column email: merged into good.two@example.com (line 8): the same address in another letter case, so this row's values were not applied",
      ]);
    expect(await refusedRows('contacts-e2e.csv')).toEqual([
      'Line 3, column email: Invalid email',
      `Line 4, column email: ${TWO_ATS}`,
      'Line 5, column timezone: unknown time zone "Mars/Olympus": use an IANA name such as America/New_York',
      'Line 6, column date_of_birth: "28/02/1990" is not a date: use YYYY-MM-DD',
      'Line 7: expected 6 columns, found 3',
    ]);
    expect(await finished('people-e2e.xlsx')).toContain('2 rows imported, 5 failed');
    expect(await refusedRows('people-e2e.xlsx')).toEqual([
      'Line 3, column email: Invalid email',
      `Line 4, column email: ${TWO_ATS}`,
      'Line 5, column timezone: unknown time zone "Nowhere/City": use an IANA name such as America/New_York',
      'Line 6, column date_of_birth: "1985-31-12" is not a date: use YYYY-MM-DD',
      'Line 7: expected 4 columns, found 5',
    ]);
    for (const name of ['contacts-e2e.csv', 'people-e2e.xlsx']) {
      expect(await page.getByRole('progressbar', { name: `Upload of ${name}` }).getAttribute('aria-valuenow')).toBe('100');
    }
    expect(await seriousViolations()).toEqual([]);
    // The two uploads asked for URLs from the contacts gateway, never the segment one.
    expect(uploadRequests.filter((u) => u.includes('/api/user/users/upload_url'))).toHaveLength(2);
    expect(uploadRequests.some((u) => u.includes('segmentwrapper'))).toBe(false);

    await page.goto(`${server.url}/people/users`);
    const search = page.getByLabel('Search', { exact: true });
    const [two] = (await api<{ data: Array<Record<string, unknown>> }>('/api/user/users?search_field=email&search_value=good.two%40example.com')).data;
    expect(two).toMatchObject({ email: 'good.two@example.com', first_name: 'Good', last_name: 'Two' });
    for (const email of ['good.two@example.com', 'xl.good@example.com']) {
      await search.fill(email);
      await page.getByRole('cell', { name: email, exact: true }).waitFor();
    }
    await search.fill('zone@example.com');
    await page.getByText('No contacts match the search.').waitFor();
    const [xena] = (await api<{ data: Array<Record<string, unknown>> }>('/api/user/users?search_field=email&search_value=xl.good%40example.com')).data;
    expect(xena).toMatchObject({ first_name: 'Xena', timezone: 'Asia/Tokyo', date_of_birth: '1985-07-04T11:59:59.000Z' });
    const [one] = (await api<{ data: Array<Record<string, unknown>> }>('/api/user/users?search_field=email&search_value=good.one%40example.com')).data;
    expect(one).toMatchObject({ first_name: 'Good', last_name: 'One', timezone: 'Europe/Paris', json: { plan: 'pro' } });

    // Notifications names the job in words and the file, and says a refused row's reason plainly.
    await page.goto(`${server.url}/account/notifications`);
    const row = page.getByRole('table', { name: 'Notifications' }).getByRole('row').filter({ hasText: 'contacts-e2e.csv' });
    await row.waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('Contact file import');
    expect(text).toContain('Line 6, column date_of_birth: 28/02/1990 is not a date: use YYYY-MM-DD');
    expect(text).not.toMatch(/\\|JOB_/);
  });

  it('offers a sample file that imports without a refused row', async () => {
    await page.goto(`${server.url}/people/users/new/bulk`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /sample file/ }).click()]);
    expect(download.suggestedFilename()).toBe('contacts-sample.csv');
    const sample = path.join(dir, 'contacts-sample.csv');
    await download.saveAs(sample);
    const served = await readFile(sample, 'utf8');
    expect(served).toBe(await readFile(path.join(ROOT, 'public/samples/contacts-sample.csv'), 'utf8'));
    const rows = served.trim().split('\n').length - 1;

    await page.locator('input[type=file]').setInputFiles(sample);
    await confirmImport('contacts-sample.csv');
    expect(await finished('contacts-sample.csv')).toContain(`Success${rows} rows imported, 0 failed`);
    expect(await page.getByRole('list', { name: 'Refused rows of contacts-sample.csv' }).count()).toBe(0);
  });

  it('makes a segment from a CSV, named after the file, whose members are its good rows', async () => {
    const csv = path.join(dir, 'Spring leads.csv');
    await writeFile(csv, 'email,first_name\nlead1@example.com,L1\nlead2@example.com,L2\nbad-lead,L3\nlead3@example.com,L4\n');
    await page.goto(`${server.url}/people/segments/new/bulk/2`);
    await page.getByRole('heading', { name: 'New Segment from File', level: 1 }).waitFor();
    await chooseWithKeyboard([csv]);
    await confirmImport('Spring leads.csv');
    expect(await finished('Spring leads.csv')).toContain('3 rows imported, 1 failed');
    expect(await refusedRows('Spring leads.csv')).toEqual(['Line 4, column email: Invalid email']);
    expect(uploadRequests.filter((u) => u.includes('/api/segmentwrapper/segments/upload_url'))).toHaveLength(1);

    await page.getByRole('link', { name: 'Open segment Spring leads' }).click();
    await page.waitForURL(/\/people\/segments\/edit\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const { data } = await api<{ data: Array<{ name: string; num_users: number }> }>(`/api/segment/segments?ids=${id}`);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ name: 'Spring leads', num_users: 3 });
    const members = await api<{ data: Array<{ email: string }> }>(`/api/user/users?in_segment_ids=${id}`);
    expect(members.data.map((c) => c.email).sort()).toEqual(['lead1@example.com', 'lead2@example.com', 'lead3@example.com']);
  });

  it("matches a Mailchimp export's columns on the confirm step, takes a change made by keyboard, and imports with it (390 px)", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/people/users/new/bulk`);
      const file = path.join(ROOT, 'tests/fixtures/exports/mailchimp-audience.csv');
      await page.locator('input[type=file]').setInputFiles(file);
      const card = page.getByRole('region', { name: 'Check the columns of mailchimp-audience.csv' });
      await card.getByRole('table', { name: 'First rows of mailchimp-audience.csv' }).waitFor();
      const choice = (column: string) => card.getByRole('combobox', { name: `Import “${column}” as` });
      expect(await choice('Email Address').textContent()).toBe('Email');
      expect(await choice('First Name').textContent()).toBe('First name');
      expect(await choice('TIMEZONE').textContent()).toBe('Time zone');
      expect(await choice('Phone Number').textContent()).toBe('Metadata: phone_number');
      expect(await card.getByRole('cell', { name: 'grace@mc.example.com', exact: true }).count()).toBe(1);
      // TAGS: "Don't import", chosen with the keyboard.
      await choice('TAGS').focus();
      await page.keyboard.press('Enter');
      const option = page.getByRole('option', { name: "Don't import" });
      await option.waitFor();
      await option.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => choice('TAGS').textContent()).toBe("Don't import");
      // The page itself never scrolls sideways; the wide table scrolls in its own box.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(JSON.stringify(await seriousViolations())).toBe('[]');
      await confirmImport('mailchimp-audience.csv');
      expect(await finished('mailchimp-audience.csv')).toContain('Success2 rows imported, 0 failed');
      const [grace] = (
        await api<{ data: Array<Record<string, unknown> & { json: Record<string, unknown> }> }>(
          '/api/user/users?search_field=email&search_value=grace%40mc.example.com',
        )
      ).data;
      expect(grace).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', timezone: 'America/New_York' });
      expect(grace.json).toMatchObject({ notes: 'Met at the conference' });
      expect(grace.json).not.toHaveProperty('tags');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
