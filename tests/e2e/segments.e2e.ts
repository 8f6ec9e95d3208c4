/**
 * Segments in Debian's chromium: the Filter Contacts
 * screen builds a two-filter segment, previews it joined with 'and' and with 'or', shows 'Filter errors: ...' for an
 * unfinished filter, and saves it as a segment that the server's job fills; the edit page creates an empty segment,
 * adds and removes a contact through the In segment / Not in segment lists, renames it, and adds contacts found with
 * the segment-edit filters (is in segment).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';

let server: ServerProcess;
let page: Page;
let pageErrors: string[];

e2eHooks();
beforeAll(async () => {
  ({ server, page, pageErrors } = await startE2E({
    tag: 'segments',
    sink: false,
    env: { DEMO_RESET_CRON: 'off', DOMAIN_CHECK_CRON: 'off' },
    demo: 'segments@example.net',
  }));
  await api('POST', '/api/user/users', {
    users: [
      { email: 'quorra1@segtest.example', first_name: 'Quorra' },
      { email: 'quorra2@segtest.example', first_name: 'Quorra' },
      { email: 'flynn@segtest.example', first_name: 'Flynn' },
      { email: 'quorra@elsewhere.example', first_name: 'Quorra' },
    ],
  });
});

/** pick chooses `option` in the MUI select labelled `label`. */
async function pick(label: string, option: string) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('Segments (e2e)', () => {
  it('builds a two-filter segment, previews it with and / or, and saves it as a segment', async () => {
    await page.goto(`${server.url}/people/segments/new/filter`);
    await page.getByRole('heading', { name: 'Filter Contacts', level: 1 }).waitFor();
    // Nothing chosen yet.
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Filter errors: you must provide at least 1 filter').waitFor();

    await pick('Filter 1', 'Email');
    await pick('Operator', 'contains');
    await page.getByRole('textbox', { name: 'Value' }).fill('segtest.example');
    // A blank trailing filter appeared; fill it as the second filter.
    await pick('Filter 2', 'First name');
    await page.getByTestId('filter-row-2').getByRole('combobox', { name: 'Operator' }).click();
    await page.getByRole('option', { name: 'equals', exact: true }).click();
    await page.getByTestId('filter-row-2').getByRole('textbox', { name: 'Value' }).fill('quorra');
    expect(await page.getByTestId('filter-row-3').getByRole('combobox', { name: 'Filter 3' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('2 contacts match').waitFor();
    const preview = page.getByRole('table', { name: 'Preview' });
    const emails = async () => (await preview.locator('tbody tr td:first-child').allTextContents()).sort();
    expect(await emails()).toEqual(['quorra1@segtest.example', 'quorra2@segtest.example']);
    const link = preview.getByRole('link', { name: 'quorra1@segtest.example' });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('href')).toMatch(/^\/people\/users\/edit\/[0-9a-f-]{36}$/);
    expect(await preview.getByRole('columnheader').allTextContents()).toEqual(['Email', 'First Name', 'Last Name', 'Added']);

    await pick('Join', 'or (match any filter)');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('4 contacts match').waitFor();
    expect(await emails()).toEqual(['flynn@segtest.example', 'quorra1@segtest.example', 'quorra2@segtest.example', 'quorra@elsewhere.example']);

    // An unfinished third filter is named before anything is sent.
    await pick('Filter 3', 'Number of opens');
    // Opens and clicks count people unless the row says otherwise; other rows have no such choice.
    await page.getByTestId('filter-row-3').getByRole('checkbox', { name: 'Include machine opens' }).waitFor();
    expect(await page.getByTestId('filter-row-1').getByRole('checkbox', { name: 'Include machine opens' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Filter errors: filter 3 is not fully filled out').waitFor();
    await page.getByRole('button', { name: 'Remove filter 3' }).click();
    expect(await page.getByText(/^Filter errors/).count()).toBe(0);

    await pick('Join', 'and (match every filter)');
    expect(await page.getByRole('button', { name: 'Save as segment' }).isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Segment name' }).fill('Quorras at segtest');
    await page.getByRole('button', { name: 'Save as segment' }).click();
    // Said in words, and the page moves to the list where the segment shows once built.
    await page.getByText('Segment ‘Quorras at segtest’ is being created with 2 contacts').waitFor();
    await page.waitForURL(/\/people\/segments$/);

    // The job fills the segment; the list shows it once it is built.
    let row = page.getByRole('row').filter({ hasText: 'Quorras at segtest' });
    for (let i = 0; i < 30; i++) {
      await page.goto(`${server.url}/people/segments`);
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
      await page
        .getByRole('button', { name: /Upload File/ })
        .or(page.getByRole('link', { name: 'Upload File' }))
        .first()
        .waitFor();
      if (await row.count()) break;
      await page.waitForTimeout(500);
    }
    row = page.getByRole('row').filter({ hasText: 'Quorras at segtest' });
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('2');
    expect(pageErrors).toEqual([]);
  });

  it('creates an empty segment, adds and removes a contact, and renames it', async () => {
    await page.goto(`${server.url}/people/segments/new/empty`);
    await page.getByRole('heading', { name: 'New Segment', level: 1 }).waitFor();
    const save = page.getByRole('button', { name: 'Save', exact: true });
    expect(await save.isDisabled()).toBe(true);
    await page.getByRole('textbox', { name: 'Name' }).fill('Hand picked');
    await save.click();
    await page.getByText('Successfully saved segment').waitFor();
    await page.getByRole('heading', { name: 'Edit Segment', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/people\/segments\/edit\/[0-9a-f-]{36}$/);

    const inSegment = page.getByRole('region', { name: 'In segment' });
    const notIn = page.getByRole('region', { name: 'Not in segment' });
    await inSegment.getByText('No contacts here.').waitFor();
    await notIn.getByRole('searchbox', { name: 'Search' }).fill('flynn@segtest');
    await notIn.getByRole('button', { name: 'Add flynn@segtest.example' }).click();
    await page.getByText('Successfully added 1 user(s) to segment').waitFor();
    await inSegment.getByRole('button', { name: 'Remove flynn@segtest.example' }).waitFor();
    await page.getByText('1 contact in this segment.').waitFor();
    await inSegment.getByRole('button', { name: 'Remove flynn@segtest.example' }).click();
    await page.getByText('Successfully removed users from segment').waitFor();
    await inSegment.getByText('No contacts here.').waitFor();

    const name = page.getByRole('textbox', { name: 'Name' });
    const rename = page.getByRole('button', { name: 'Rename' });
    await name.fill(' ');
    expect(await rename.isDisabled()).toBe(true);
    await name.fill('Hand picked, renamed');
    await rename.click();
    await page.getByText('Successfully saved segment name').waitFor();
    const id = page.url().split('/').pop();
    const [segment] = (await api('GET', `/api/segment/segments?ids=${id}`)).data;
    expect(segment).toMatchObject({ name: 'Hand picked, renamed', num_users: 0 });

    // The segment-edit filter set: membership of the segment built in the first test (sent as a count above 0).
    const byFilter = page.getByRole('region', { name: 'Add contacts by filter' });
    await byFilter.getByRole('combobox', { name: 'Filter 1' }).click();
    expect(await page.getByRole('option', { name: 'City', exact: true }).count()).toBe(0);
    await page.getByRole('option', { name: 'Is in segment', exact: true }).click();
    await byFilter.getByRole('combobox', { name: 'Segment' }).fill('Quorras');
    await page.getByRole('option', { name: 'Quorras at segtest' }).click();
    await byFilter.getByRole('button', { name: 'Find contacts' }).click();
    await byFilter.getByText('2 contacts match').waitFor();
    await byFilter.getByRole('button', { name: 'Add these 2 contacts' }).click();
    await page.getByText('Successfully added 2 user(s) to segment').waitFor();
    await page.getByText('2 contacts in this segment.').waitFor();
    await inSegment.getByRole('button', { name: 'Remove quorra1@segtest.example' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
