/**
 * Charts that do not mislead, in a real browser against the built product: on a fresh project both
 * /insights charts (and the Issues chart) say 'No sends yet' instead of drawing an empty axis; after single sends
 * through a real SMTP server and one open, the 30-day and 24-hour charts are bar charts (no smoothed curve: no cubic
 * 'C' command in any path of their SVG) whose y axis starts at 0 with whole-number ticks only, and each chart's 'Show
 * as table' toggle (a keyboard-reachable button with aria-expanded) reveals a captioned table whose rows equal the
 * reporting gateway's series rows (GET /api/reporting/sendslast31days and sendslast24hours); the Statistics page's
 * by-device chart has the same toggle. The pages with their tables open have no serious accessibility violation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import { axeProblems } from '../helpers/axe.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

/** How many emails the test sends (all in the current UTC hour, so one day and one hour hold them all). */
const SENDS = 3;

/** A desktop Chrome's user agent, for the one open (the device chart groups it as Desktop / Other). */
const DESKTOP_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** One row of sendslast31days / sendslast24hours (only the fields the test reads). */
interface SeriesRow {
  emitted_at_trunc: string;
  sends: number;
  opens: number;
  clicks: number;
}

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;

/** series reads one sends report of the signed-in project, as the console does (every campaign). */
const series = async (report: 'sendslast31days' | 'sendslast24hours') => (await api<{ data: SeriesRow[] }>('GET', `/api/reporting/${report}`)).data;

const section = (title: string) => page.getByRole('region', { name: title });
const MONTH = 'Sends in the last 30 days (UTC)';
const DAY = 'Sends in the last 24 hours (UTC)';

/** tableRows answers a table's body rows as [row header, ...cells] text. */
async function tableRows(table: Locator): Promise<string[][]> {
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children, (cell) => (cell.textContent ?? '').trim())));
}

/**
 * expectBarsFromZero checks a drawn series chart: bars (at least one with a height), no curve in any SVG path (a
 * line chart's smoothed series is drawn with cubic 'C' commands), and a y axis whose labels are whole numbers
 * starting at 0.
 */
async function expectBarsFromZero(chart: Locator): Promise<void> {
  const svg = chart.locator('svg').filter({ has: page.locator('.MuiBarChart-element') });
  await svg.first().waitFor();
  const heights = await svg.locator('.MuiBarChart-element').evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('height'))));
  expect(heights.some((h) => h > 0)).toBe(true);
  const paths = await svg.locator('path').evaluateAll((ps) => ps.map((p) => p.getAttribute('d') ?? ''));
  expect(paths.filter((d) => /[Cc]/.test(d))).toEqual([]);
  const yLabels = await svg.locator('.MuiChartsAxis-directionY .MuiChartsAxis-tickLabel').allTextContents();
  expect(yLabels.length).toBeGreaterThan(1);
  expect(yLabels.every((l) => /^\d+$/.test(l))).toBe(true);
  expect(Math.min(...yLabels.map(Number))).toBe(0);
}

/**
 * openTable reaches a chart's 'Show as table' button with the keyboard (Tab from the chart's last column checkbox,
 * when it has checkboxes), opens it with Enter and answers the table it controls.
 */
async function openTable(chart: Locator, caption: string): Promise<Locator> {
  const button = chart.getByRole('button', { name: 'Show as table' });
  expect(await button.getAttribute('aria-expanded')).toBe('false');
  if ((await chart.getByRole('checkbox').count()) > 0) {
    await chart.getByRole('checkbox').last().focus();
    for (let i = 0; i < 5 && !(await button.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
  } else {
    await button.focus();
  }
  expect(await button.evaluate((b) => b === document.activeElement)).toBe(true);
  await page.keyboard.press('Enter');
  const open = chart.getByRole('button', { name: 'Hide table' });
  await expect.poll(() => open.getAttribute('aria-expanded')).toBe('true');
  const table = page.locator(`[id="${await open.getAttribute('aria-controls')}"]`).getByRole('table', { name: caption });
  await table.waitFor();
  return table;
}

e2eHooks();
beforeAll(async () => {
  // REPORT_CACHE_MS=0: the sends reports are read afresh after the sends, not from the empty answer cached before.
  ({ sink, server, page } = await startE2E({
    tag: 'charts',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off', REPORT_CACHE_MS: '0' },
    demo: 'charts@example.net',
  }));
});

describe('charts that do not mislead (e2e)', () => {
  it("says 'No sends yet' on a fresh project's charts instead of drawing an empty axis", async () => {
    expect((await series('sendslast31days')).every((r) => r.sends === 0 && r.opens === 0 && r.clicks === 0)).toBe(true);
    await page.goto(`${server.url}/insights`);
    await page.getByRole('heading', { level: 1, name: 'Insights' }).waitFor();
    for (const title of [MONTH, DAY]) {
      const chart = section(title);
      await chart.getByRole('status').filter({ hasText: 'No sends yet' }).waitFor();
      expect(await chart.locator('svg .MuiChartsAxis-root').count()).toBe(0);
      expect(await chart.getByRole('button', { name: 'Show as table' }).count()).toBe(0);
      // The column checkboxes stay, so the choice of columns can still be made.
      expect(await chart.getByRole('checkbox').count()).toBe(7);
    }

    await page.goto(`${server.url}/insights/issues`);
    await section('Issues in the last month (UTC)').getByRole('status').filter({ hasText: 'No sends yet' }).waitFor();
  });

  it("draws bars from zero after sends, and its table shows the gateway's series rows", async () => {
    // The demo project's persona is the simulator's success address, already verified.
    const personas = await api<{ data: Array<{ id: string; email: string }> }>('GET', '/api/senderpersonawrapper/sender_personas');
    const persona = personas.data.find((p) => p.email === SIMULATOR_SUCCESS_ADDRESS)!;
    // On the broadcast stream, whose emails are tracked (the transactional stream's are not).
    await api('POST', '/api/event/emit_send_single_email_event', {
      mailer_payload: {
        stream: 'broadcast',
        from: { user_id: persona.id },
        to: Array.from({ length: SENDS }, () => ({ email: SIMULATOR_SUCCESS_ADDRESS })),
        subject: 'Chart e2e send',
        body: '<p>A send for the charts</p>',
      },
    });
    await sink.waitFor(() => sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length >= SENDS, 60_000);
    // One recipient opens one email (its pixel loaded once), so the opens column and the device chart have a count:
    // a desktop browser's user agent, a few seconds after delivery, so the open counts as a person's (a
    // headless browser's agent or an open on delivery is a machine's).
    const html = String((await sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!.html);
    const pixel = /<img src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)![1];
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await fetch(pixel, { headers: { 'user-agent': DESKTOP_AGENT } })).status).toBe(200);
    await expect
      .poll(async () => (await series('sendslast31days')).reduce((n, r) => [n[0] + r.sends, n[1] + r.opens], [0, 0]), { timeout: 30_000 })
      .toEqual([SENDS, 1]);
    await expect.poll(async () => (await series('sendslast24hours')).reduce((n, r) => n + r.sends, 0), { timeout: 30_000 }).toBe(SENDS);
    const month = await series('sendslast31days');
    const day = await series('sendslast24hours');
    expect(month).toHaveLength(31);
    expect(day).toHaveLength(24);

    await page.goto(`${server.url}/insights`);
    await page.getByRole('heading', { level: 1, name: 'Insights' }).waitFor();
    const monthChart = section(MONTH);
    const dayChart = section(DAY);
    await expectBarsFromZero(monthChart);
    await expectBarsFromZero(dayChart);
    expect(await page.getByText('No sends yet').count()).toBe(0);

    // The 30-day table: a caption, a header row (the day, then the shown columns: Sends, Opens, Clicks by default),
    // and one row per UTC day of the gateway's answer, oldest first, with its numbers.
    const monthTable = await openTable(monthChart, MONTH);
    expect(await monthTable.locator('caption').textContent()).toBe(MONTH);
    expect(await monthTable.getByRole('columnheader').allTextContents()).toEqual(['Day (UTC)', 'Sends', 'Opens', 'Clicks']);
    expect(await tableRows(monthTable)).toEqual(month.map((r) => [r.emitted_at_trunc.slice(0, 10), String(r.sends), String(r.opens), String(r.clicks)]));
    expect(await monthTable.getByRole('rowheader').count()).toBe(31);

    // The 24-hour table names each hour with its date (the 24 hours span two UTC days).
    const dayTable = await openTable(dayChart, DAY);
    expect(await dayTable.getByRole('columnheader').allTextContents()).toEqual(['Hour (UTC)', 'Sends', 'Opens', 'Clicks']);
    expect(await tableRows(dayTable)).toEqual(
      day.map((r) => [`${r.emitted_at_trunc.slice(0, 10)} ${r.emitted_at_trunc.slice(11, 13)}:00`, String(r.sends), String(r.opens), String(r.clicks)]),
    );

    // The table follows the column checkboxes: hiding Opens removes its column.
    await dayChart.getByRole('checkbox', { name: 'Opens' }).click();
    await expect.poll(() => dayTable.getByRole('columnheader').allTextContents()).toEqual(['Hour (UTC)', 'Sends', 'Clicks']);
    expect(await tableRows(dayTable)).toEqual(
      day.map((r) => [`${r.emitted_at_trunc.slice(0, 10)} ${r.emitted_at_trunc.slice(11, 13)}:00`, String(r.sends), String(r.clicks)]),
    );

    expect(await axeProblems(page)).toEqual([]);

    // The toggle closes the table again.
    await monthChart.getByRole('button', { name: 'Hide table' }).click();
    expect(await monthChart.getByRole('button', { name: 'Show as table' }).getAttribute('aria-expanded')).toBe('false');
    expect(await monthChart.getByRole('table').count()).toBe(0);
  });

  it("gives the Statistics page's bar charts the same axis and table", async () => {
    await page.goto(`${server.url}/insights/stats`);
    await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
    const daily = section('Daily sends, last 31 days (UTC)');
    await expectBarsFromZero(daily);
    const devices = section('Opens and clicks by device');
    await expectBarsFromZero(devices);
    const table = await openTable(devices, 'Opens and clicks by device');
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Device', 'Opens', 'Clicks']);
    const rows = await tableRows(table);
    expect(rows.map((r) => r[0])).toEqual(['Desktop / Other', 'Tablet', 'Mobile']);
    expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBe(1);
    expect(await axeProblems(page)).toEqual([]);
  });
});
