/**
 * The Events and Notifications screens in a real browser (Playwright driving Debian's chromium) against the built
 * product (spec part 1 §2 Events screen and Notifications screen, §3, §4 pager and sort, §5 event search, §9): sign in
 * to the demo account, make real events and job-log entries through the API (eleven single sends to the simulator
 * address, then a blast to the account's own sender persona, both delivered to a real SMTP server), and check what the
 * two screens show, and that the logged-in 15 s job-log poll announces the finished blast.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signInWithForm } from '../helpers/e2e.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium, localeDateTime } from '../helpers/browser.ts';
import { DateTime } from 'luxon';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { startServer, type ServerProcess } from '../helpers/processes.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { EVENT } from '../../src/domain/events.ts';

const PERSONA = 'sender@demo-company.example.com';
const SINGLE_SENDS = 11;
const TOTAL_EVENTS = SINGLE_SENDS + 1; // eleven single sends and one blast recipient: two pages of 10
const BLAST = 'E2E events blast';
const SECOND_BLAST = 'Second e2e blast';

interface ApiEvent {
  id: string;
  name: string;
  email: string | null;
  emitted_at: string;
  json: Record<string, unknown>;
}
interface ApiJob {
  id: string;
  job_name: string;
  ended_at: string | null;
  success: boolean | null;
  start_details: Record<string, unknown>;
}

let sink: SmtpSink;
let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey = '';
let personaId = '';
let templateId = '';
const pageErrors: string[] = [];

/** api calls one gateway operation as the demo account and returns the JSON body; a non-2xx answer throws. */
async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}/api/${url}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** apiEvents lists the demo account's events the way the screen asks for them (system events included). */
async function apiEvents(query: Record<string, string>): Promise<ApiEvent[]> {
  const qs = new URLSearchParams({ include_system_events: 'true', limit: '10', ...query });
  return (await api<{ data: ApiEvent[] }>('GET', `event/all_events?${qs}`)).data;
}

async function scheduleBlastNow(name: string): Promise<string> {
  const id = randomUUID();
  await api('POST', 'scheduler/scheduler', {
    id,
    name,
    template_id: templateId,
    sender_persona_id: personaId,
    to_user_emails: [PERSONA],
    send_at: DateTime.utc().toFormat("yyyy-MM-dd'T'HH:mm"),
    timezone: 'UTC',
  });
  return id;
}

async function distributedJob(blastId: string): Promise<ApiJob> {
  return until(`the JOB_DISTRIBUTE_EMAIL_BLAST entry of ${blastId}`, async () => {
    const { data } = await api<{ data: ApiJob[] }>('GET', 'joblog/joblog?limit=100');
    return data.find((j) => j.job_name === 'JOB_DISTRIBUTE_EMAIL_BLAST' && j.start_details.scheduled_email_group_id === blastId && j.ended_at);
  });
}

/** gridRowIds are the event ids of the grid's rows, top to bottom. */
async function gridRowIds(): Promise<string[]> {
  return page.locator('.MuiDataGrid-row[data-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id') ?? ''));
}

const range = () => page.getByTestId('events-range');

beforeAll(async () => {
  sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-account-'));
  server = await startServer({ DATA_DIR: dataDir, SMTP_URL: smtpUrl, SEND_POLL_MS: '500', LOG_LEVEL: 'error' });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  await sink?.stop();
});

describe('events and notifications screens (e2e)', () => {
  it('signs in, sends real emails through the API, and the 15 s job-log poll announces the finished blast', async () => {
    await signInWithForm(page, server.url, DEMO_ACCOUNT);

    const login = await fetch(`${server.url}/api/login/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }),
    });
    apiKey = ((await login.json()) as { api_client_key: string }).api_client_key;
    expect(apiKey).toBeTruthy();

    personaId = (
      await api<{ data: Array<{ id: string }> }>('POST', 'senderpersonawrapper/sender_personas', {
        sender_personas: [{ email: PERSONA, first_name: 'Pat', last_name: 'Sender' }],
      })
    ).data[0].id;
    // The persona confirms its address: the one link of its verification email, POSTed as the page's button does.
    const links = await sink.personaVerificationLinks();
    expect(links).toHaveLength(1);
    expect((await fetch(links[0], { method: 'POST' })).status).toBe(200);
    await api('POST', 'user/users', { users: [{ email: PERSONA, first_name: 'Pat' }] });
    templateId = (
      await api<{ data: Array<{ id: string }> }>('POST', 'template/templates', {
        templates: [
          {
            name: 'E2E events template',
            subject: 'Hello {{user.first_name}}',
            type: 'TEMPLATE_TRANSACTIONAL',
            html_body: '<p>Hello {{user.first_name}}, from the blast</p>',
          },
        ],
      })
    ).data[0].id;

    await api('POST', 'event/emit_send_single_email_event', {
      mailer_payload: {
        from: { user_id: personaId },
        to: Array.from({ length: SINGLE_SENDS }, () => ({ email: SIMULATOR_SUCCESS_ADDRESS })),
        subject: 'Single e2e send',
        body: '<p>A single send</p>',
      },
    });
    await until(
      "the single sends' success events",
      async () => (await apiEvents({ search_field: 'name', search_value: EVENT.sendSuccess, limit: '100' })).length >= SINGLE_SENDS,
    );

    const blastId = await scheduleBlastNow(BLAST);
    const job = await distributedJob(blastId);
    expect(job.success).toBe(true);
    await until("the blast's success event", async () => (await apiEvents({ search_field: 'email', search_value: PERSONA })).length === 1);
    expect(sink.count).toBe(TOTAL_EVENTS + 1); // and the persona's verification email

    // The page was loaded before the blast ended, so a later poll (at most 15 s on) reports it.
    await page.getByText(`Email blast sent (${BLAST}): succeeded`).waitFor({ timeout: 45_000 });
  });

  it('lists the events newest first, 10 a page, with a pager that wraps from the first page to the last', async () => {
    const newest = await apiEvents({ sort_columns: 'emitted_at DESC' });
    expect(newest).toHaveLength(10);
    expect(newest[0].email).toBe(PERSONA); // the blast went out after the single sends

    await page.goto(`${server.url}/account/events`);
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await expect.poll(() => range().textContent()).toBe(`1–10 of ${TOTAL_EVENTS}`);
    expect(await page.getByLabel('Include system events').isChecked()).toBe(true);
    // The grid renders new rows a frame after the range text changes, so row checks poll too.
    await expect.poll(gridRowIds).toEqual(newest.map((e) => e.id));
    const first = page.getByRole('row').filter({ hasText: newest[0].id });
    expect(await first.getByRole('gridcell').allTextContents()).toEqual(
      expect.arrayContaining([await localeDateTime(page, newest[0].emitted_at, true), PERSONA, EVENT.sendSuccess]),
    );
    expect(await page.getByRole('columnheader', { name: 'Occurred' }).getAttribute('aria-sort')).toBe('descending');

    // Previous on the first page wraps to the last page (spec part 1 §4); next stops there.
    const lastPage = await apiEvents({ sort_columns: 'emitted_at DESC', offset: '10' });
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => range().textContent()).toBe(`11–${TOTAL_EVENTS} of ${TOTAL_EVENTS}`);
    await expect.poll(gridRowIds).toEqual(lastPage.map((e) => e.id));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => range().textContent()).toBe(`1–10 of ${TOTAL_EVENTS}`);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => range().textContent()).toBe(`11–${TOTAL_EVENTS} of ${TOTAL_EVENTS}`);
  });

  it('toggles the sort of a column between ascending and descending', async () => {
    const oldest = await apiEvents({ sort_columns: 'emitted_at ASC' });
    const newest = await apiEvents({ sort_columns: 'emitted_at DESC' });
    expect(oldest[0].id).not.toBe(newest[0].id);
    const header = page.getByRole('columnheader', { name: 'Occurred' });

    await header.click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => range().textContent()).toBe(`1–10 of ${TOTAL_EVENTS}`); // a new sort starts on page 1
    await expect.poll(gridRowIds).toEqual(oldest.map((e) => e.id));

    await header.click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(gridRowIds).toEqual(newest.map((e) => e.id));

    const emailHeader = page.getByRole('columnheader').and(page.locator('[data-field="email"]'));
    await emailHeader.click();
    await expect.poll(() => emailHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(async () => (await gridRowIds())[0]).toBe((await apiEvents({ sort_columns: 'email ASC' }))[0].id);
    await emailHeader.click();
    await expect.poll(() => emailHeader.getAttribute('aria-sort')).toBe('descending');
    await expect.poll(async () => (await gridRowIds())[0]).toBe((await apiEvents({ sort_columns: 'email DESC' }))[0].id);
    await emailHeader.click(); // a third click goes back to ascending, never to unsorted
    await expect.poll(() => emailHeader.getAttribute('aria-sort')).toBe('ascending');
  });

  it('shows system events only with the toggle on', async () => {
    const toggle = page.getByLabel('Include system events');
    await toggle.click();
    expect(await toggle.isChecked()).toBe(false);
    await expect.poll(() => range().textContent()).toBe('0–0 of 0');
    await page.getByText('Nothing here, yet').waitFor();
    await expect.poll(() => page.getByRole('gridcell', { name: EVENT.sendSuccess }).count()).toBe(0);

    await toggle.click();
    await expect.poll(() => range().textContent()).toBe(`1–10 of ${TOTAL_EVENTS}`);
    await expect.poll(() => page.getByRole('gridcell', { name: EVENT.sendSuccess }).count()).toBe(10);
  });

  it('searches by recipient email once typing has paused for a second, and clearing shows everything again', async () => {
    const search = page.getByLabel('Search events');
    await search.fill(PERSONA);
    await page.waitForTimeout(400);
    expect(await range().textContent()).toBe(`1–10 of ${TOTAL_EVENTS}`); // debounced: not applied yet
    await expect.poll(() => range().textContent(), { timeout: 5000 }).toBe('1–1 of 1');
    const rows = page.getByRole('row').filter({ has: page.getByRole('gridcell', { name: EVENT.sendSuccess }) });
    // The grid renders new rows a frame after the range text changes.
    await expect.poll(() => rows.count(), { timeout: 5000 }).toBe(1);
    expect(await rows.first().getByRole('gridcell', { name: PERSONA }).count()).toBe(1);

    await search.fill(SIMULATOR_SUCCESS_ADDRESS);
    await expect.poll(() => range().textContent(), { timeout: 5000 }).toBe(`1–10 of ${SINGLE_SENDS}`);
    await expect.poll(() => page.getByRole('gridcell', { name: PERSONA }).count(), { timeout: 5000 }).toBe(0);

    await search.fill('');
    await expect.poll(() => range().textContent(), { timeout: 5000 }).toBe(`1–10 of ${TOTAL_EVENTS}`);
  });

  it('opens the details dialog: the parsed grid, and raw JSON without bucket or key, copied to the clipboard', async () => {
    const [event] = await apiEvents({ search_field: 'email', search_value: PERSONA });
    expect(event.json.bucket).toBeTruthy(); // the stored event has the keys the raw view must hide
    expect(event.json.key).toBeTruthy();

    const row = page.getByRole('row').filter({ hasText: event.id });
    await row.getByRole('button', { name: 'Details' }).click();
    const dialog = page.getByRole('dialog', { name: 'Event details' });
    await dialog.waitFor();
    const parsed = dialog.getByRole('table', { name: 'Parsed event' });
    const value = async (field: string) =>
      parsed
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: field, exact: true }) })
        .getByRole('cell')
        .textContent();
    expect(await parsed.getByRole('rowheader').allTextContents()).toEqual([
      'event_name',
      'bounce_type',
      'click_link',
      'email',
      'error',
      'save_copy_error',
      'bounce_code',
      'occurred',
    ]);
    expect(await value('event_name')).toBe(EVENT.sendSuccess);
    expect(await value('email')).toBe(PERSONA);
    expect(await value('occurred')).toBe(await localeDateTime(page, event.emitted_at, true));
    expect(await value('error')).toBe('');

    await dialog.getByRole('tab', { name: 'Raw JSON' }).click();
    const raw = (await dialog.getByLabel('Raw event JSON').textContent()) ?? '';
    const shown = JSON.parse(raw) as ApiEvent;
    expect(shown.id).toBe(event.id);
    expect(shown.json.subject).toBe('Hello Pat');
    expect(raw).not.toMatch(/"bucket"|"key"|"location"/i);

    await dialog.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied the event JSON to the clipboard').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(raw);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('opens the stored email of an event in a new tab', async () => {
    const [event] = await apiEvents({ search_field: 'email', search_value: PERSONA });
    const row = page.getByRole('row').filter({ hasText: event.id });
    const [viewer] = await Promise.all([context.waitForEvent('page'), row.getByRole('button', { name: 'View email' }).click()]);
    await viewer.waitForURL(new RegExp(`/email/${event.json.location}$`));
    const frame = viewer.locator('iframe[title="Email body"]');
    await frame.waitFor();
    expect(await frame.getAttribute('srcdoc')).toContain('Hello Pat, from the blast');
    await viewer.close();
  });

  it('lists job notifications with their labels and status, and Refresh reloads them in place', async () => {
    await page.goto(`${server.url}/account/notifications`);
    const table = page.getByRole('table', { name: 'Notifications' });
    await table.waitFor();
    const distributed = table.getByRole('row').filter({ hasText: 'Email blast sent' });
    expect(await distributed.count()).toBe(1);
    const cells = await distributed.getByRole('cell').allTextContents();
    expect(cells[1]).toBe(BLAST);
    // A date in the browser's own words (no raw ISO string), to the second.
    expect(cells[2]).not.toMatch(/\d{4}-\d\d-\d\d/);
    expect(cells[2]).toMatch(/\d{4}.*\d:\d\d:\d\d/);
    expect(cells[4]).toBe('succeeded');
    const processed = table.getByRole('row').filter({ hasText: 'Email blast queued for sending' });
    expect(await processed.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining([BLAST, 'succeeded']));

    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    const second = await scheduleBlastNow(SECOND_BLAST);
    await distributedJob(second);
    expect(await table.getByRole('row').filter({ hasText: SECOND_BLAST }).count()).toBe(0);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => table.getByRole('row').filter({ hasText: 'Email blast sent' }).count()).toBe(2);
    const secondRow = table.getByRole('row').filter({ hasText: 'Email blast sent' }).filter({ hasText: SECOND_BLAST });
    expect((await secondRow.getByRole('cell').allTextContents())[4]).toBe('succeeded');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
