/**
 * Insights and reports in a real browser against the built product (spec part 1 §2 Insights and reports,
 * §8, §9): a blast reaches two recipients through a real SMTP server; the browser loads one message's open pixel twice
 * and follows its tracked link once; a campaign (made through the API) groups the blast; /insights/stats for that
 * campaign shows the quick-stat cards with their rates, the most-clicked link and the charts, and the daily series'
 * column checkboxes live in the URL (deselected_columns1) across a reload; /insights/issues keeps campaign_id and
 * deselected_columns1 in the URL; /insights itself starts with the issue columns hidden on both charts, keeps each
 * chart's checkboxes in its own parameter (deselected_columns1 for 30 days, deselected_columns2 for 24 hours; 'none'
 * when every column is shown) across a reload, and its campaign filter (campaign_id) narrows both charts; a malformed
 * campaign_id shows the error state and the report toast.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeProblems } from '../helpers/axe.ts';
import { api, landingPage, marketingTemplate, sandboxRecipients, sendBlastNow, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { MAIL_CLIENT_UA, readerDelay } from '../helpers/reader.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { chartName } from '../../src/domain/reports.ts';

const PERSONA = 'reports@demo-company.example.com';
const CAMPAIGN = 'Autumn reports campaign';

let sink: SmtpSink;
let server: ServerProcess;
let landingUrl: string;
let browser: Browser;
let page: Page;
let campaignId: string;

/** card is the quick-stat card named `label` (a region labelled by its heading). */
const card = (label: string) => page.getByRole('region', { name: label, exact: true });
const section = (title: string) => page.getByRole('region', { name: title });

e2eHooks();
beforeAll(async () => {
  landingUrl = await landingPage('Autumn', '/autumn?src=email');
  ({ sink, server, browser, page } = await startE2E({
    tag: 'insights',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' },
    demo: 'insights@example.net',
  }));

  // The demo account is in the sandbox: it may mail the simulator's success address and its own sender personas.
  const persona = await verifiedPersona({ email: PERSONA, first_name: 'Demo', last_name: 'Reports' });
  const templateId = await marketingTemplate(
    'Autumn news',
    // A subject with a variable: the charts show what varies in words, never the raw {{…}}.
    '{{user.first_name}}, Autumn news',
    `<html><body><p>Hi {{user.first_name}}</p><p><a href="${landingUrl}">See autumn</a></p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>`,
  );
  const contacts = await sandboxRecipients(PERSONA);
  const blastId = await sendBlastNow({ name: 'Autumn blast', template_id: templateId, sender_persona_id: persona.id, to_user_ids: contacts.map((c) => c.id) });
  await sink.waitFor(() => sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS) || m.envelopeTo.includes(PERSONA)).length >= 2, 60_000);

  // One recipient opens the email twice (images shown twice) and clicks its link once.
  const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!;
  const html = String(mail.html);
  const pixel = /<img src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)![1];
  const tracked = /<a href="([^"]+\/t\/c\/[^"]+)">See autumn<\/a>/.exec(html)![1];
  // As a person reads: a mail client's user agent, a while after delivery, so neither counts as a machine's.
  const delivered = sink.messages.find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!.receivedAt;
  await readerDelay(delivered, 'click');
  const reader = await browser.newContext({ userAgent: MAIL_CLIENT_UA });
  const visitor = await reader.newPage();
  expect((await visitor.goto(pixel))!.status()).toBe(200);
  expect((await visitor.goto(pixel))!.status()).toBe(200);
  await visitor.goto(tracked);
  expect(visitor.url()).toBe(landingUrl);
  await reader.close();
  // Apple Mail Privacy Protection's proxy fetches the pixel too: a machine's open, shown only when asked for.
  expect((await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0' } })).status).toBe(200);

  // A test email of the same template to the persona: the account's figures never count it.
  const tested = sink.messages.length;
  await api('POST', '/api/event/emit_send_single_email_event', {
    mailer_payload: { is_test_email: true, template_id: templateId, from: { email: PERSONA }, to: [{ email: PERSONA }] },
  });
  await sink.waitFor(() => sink.messages.length > tested, 60_000);

  campaignId = (
    await api('POST', '/api/campaign/campaigns', { campaign: { name: CAMPAIGN, type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blastId] } })
  ).campaign.id;
});

describe('insights and reports (e2e)', () => {
  it("shows a campaign's quick stats, rates, most-clicked link and charts on /insights/stats", async () => {
    await page.goto(`${server.url}/insights/stats?campaign_id=${campaignId}`);
    await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
    await expect.poll(() => page.getByLabel('Campaign', { exact: true }).inputValue()).toBe(CAMPAIGN);

    await card('Sends').getByText('Unique: 2').waitFor();
    expect(await card('Sends').getByRole('paragraph').first().textContent()).toBe('2');
    expect(await card('Opens').getByRole('paragraph').first().textContent()).toBe('2');
    await card('Opens').getByText('Unique: 1').waitFor();
    await card('Opens').getByText('Rate: 50.0%').waitFor();
    expect(await card('Clicks').getByRole('paragraph').first().textContent()).toBe('1');
    await card('Clicks').getByText('Rate: 50.0%').waitFor();
    await card('Bounces').getByText('Rate: 0.0%').waitFor();
    expect(await card('Click per open').getByRole('paragraph').first().textContent()).toBe('100.0%');

    // People by default; the switch adds the machine open (Apple's proxy) and keeps the choice in the URL.
    await page.getByLabel('Include machine opens').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('machine')).toBe('include');
    await expect.poll(() => card('Opens').getByRole('paragraph').first().textContent()).toBe('3');
    await card('Opens').getByText('Unique: 1').waitFor();
    await page.getByLabel('Include machine opens').click();
    await expect.poll(() => card('Opens').getByRole('paragraph').first().textContent()).toBe('2');
    expect(new URL(page.url()).searchParams.get('machine')).toBeNull();

    const links = section('Most-clicked links');
    const row = links.getByRole('row').filter({ hasText: landingUrl });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([landingUrl, '1', '1']);
    await section('Recently clicked links').getByRole('row').filter({ hasText: SIMULATOR_SUCCESS_ADDRESS }).waitFor();
    await section('Recently opened emails').getByRole('row').filter({ hasText: 'Autumn news' }).first().waitFor();
    await section('Most-opened templates by subject').getByRole('row').filter({ hasText: '[first name], Autumn news' }).waitFor();
    const legend = (await section('Most-opened templates by subject').locator('.MuiChartsLegend-root').allTextContents()).join(' ');
    expect(legend).toContain('[first name], Autumn…');
    expect(legend).not.toContain('{{');
    // "Person" is never broken mid-word beside a long address, even on a phone: its text is on one line.
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    const by = section('Recently opened emails').getByRole('cell', { name: 'Person', exact: true }).first();
    const lines = await by.evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    await page.setViewportSize(viewport);
    expect(lines).toBe(1);

    // The charts render: device groups, the recipients' domain, and the daily series (times in UTC).
    await section('Opens and clicks by device').locator('svg').getByText('Desktop / Other').waitFor();
    await section('Opens and clicks by domain').locator('svg').getByText('simulator.mailwright…').waitFor();
    const daily = section('Daily sends, last 31 days (UTC)');
    await daily.locator('svg path').first().waitFor();

    // The filled page has no serious or critical accessibility violations (the empty one is checked in a11y.e2e.ts).
    expect(await axeProblems(page)).toEqual([]);
  });

  it("keeps the daily series' deselected columns in the URL as deselected_columns1, across a reload", async () => {
    const daily = section('Daily sends, last 31 days (UTC)');
    // Defaults: the four issue columns are hidden.
    expect(await daily.getByRole('checkbox', { name: 'Bounces' }).isChecked()).toBe(false);
    expect(await daily.getByRole('checkbox', { name: 'Sends' }).isChecked()).toBe(true);
    expect(new URL(page.url()).searchParams.has('deselected_columns1')).toBe(false);

    await daily.getByRole('checkbox', { name: 'Bounces' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,complaints');
    await expect.poll(() => daily.getByRole('checkbox', { name: 'Bounces' }).isChecked()).toBe(true);
    await daily.getByRole('checkbox', { name: 'Opens' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,opens,complaints');
    expect(new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);

    await page.reload();
    const reloaded = section('Daily sends, last 31 days (UTC)');
    await reloaded.getByRole('checkbox', { name: 'Bounces' }).waitFor();
    expect(await reloaded.getByRole('checkbox', { name: 'Bounces' }).isChecked()).toBe(true);
    expect(await reloaded.getByRole('checkbox', { name: 'Opens' }).isChecked()).toBe(false);
    expect(await reloaded.getByRole('checkbox', { name: 'Complaints' }).isChecked()).toBe(false);
    expect(new URL(page.url()).searchParams.get('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,opens,complaints');
  });

  it('clearing the campaign filter removes campaign_id and reports every campaign', async () => {
    await page.getByLabel('Campaign', { exact: true }).click();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.has('campaign_id')).toBe(false);
    expect(new URL(page.url()).searchParams.get('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,opens,complaints');
    await page.getByText('Showing every campaign').waitFor();
    // The test email sent beside the blast is not a send: 2, not 3, and the open rate stays 50 %.
    await card('Sends').getByText('Unique: 2').waitFor();
    expect(await card('Sends').getByRole('paragraph').first().textContent()).toBe('2');
    await card('Opens').getByText('Rate: 50.0%').waitFor();
  });

  it('keeps campaign_id and deselected_columns1 in the URL on /insights/issues', async () => {
    await page.goto(`${server.url}/insights/issues?campaign_id=${campaignId}&deselected_columns1=bounces`);
    await page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    const chart = section('Issues in the last month (UTC)');
    await chart.getByRole('checkbox', { name: 'Failures' }).waitFor();
    expect(await chart.getByRole('checkbox').count()).toBe(4);
    expect(await chart.getByRole('checkbox', { name: 'Bounces' }).isChecked()).toBe(false);
    expect(await chart.getByRole('checkbox', { name: 'Complaints' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByLabel('Campaign', { exact: true }).inputValue()).toBe(CAMPAIGN);
    await card('Sends').getByText('Unique: 2').waitFor();
    expect(new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);
    expect(new URL(page.url()).searchParams.get('deselected_columns1')).toBe('bounces');

    await chart.getByRole('checkbox', { name: 'Complaints' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('deselected_columns1')).toBe('complaints,bounces');
    expect(new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);
    await page.reload();
    await section('Issues in the last month (UTC)').getByRole('checkbox', { name: 'Complaints' }).waitFor();
    expect(await section('Issues in the last month (UTC)').getByRole('checkbox', { name: 'Complaints' }).isChecked()).toBe(false);
  });

  it("keeps each /insights chart's columns in its own URL parameter, and filters both charts by campaign_id", async () => {
    await page.goto(`${server.url}/insights`);
    await page.getByRole('heading', { level: 1, name: 'Insights' }).waitFor();
    const month = section('Sends in the last 30 days (UTC)');
    const day = section('Sends in the last 24 hours (UTC)');
    const param = (name: string) => new URL(page.url()).searchParams.get(name);
    const checked = async (chart: typeof month) =>
      Object.fromEntries(
        await Promise.all(
          ['Sends', 'Failures', 'Unsubscribes', 'Opens', 'Clicks', 'Complaints', 'Bounces'].map(
            async (label) => [label, await chart.getByRole('checkbox', { name: label }).isChecked()] as const,
          ),
        ),
      );
    const defaults = { Sends: true, Failures: false, Unsubscribes: false, Opens: true, Clicks: true, Complaints: false, Bounces: false };

    // Defaults: the four issue columns are hidden on both charts, and neither parameter is in the URL.
    await month.getByRole('checkbox', { name: 'Bounces' }).waitFor();
    await day.getByRole('checkbox', { name: 'Bounces' }).waitFor();
    expect(await checked(month)).toEqual(defaults);
    expect(await checked(day)).toEqual(defaults);
    expect(param('deselected_columns1')).toBeNull();
    expect(param('deselected_columns2')).toBeNull();

    // Each chart writes its own parameter and leaves the other's alone.
    await month.getByRole('checkbox', { name: 'Bounces' }).click();
    await expect.poll(() => param('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,complaints');
    expect(param('deselected_columns2')).toBeNull();
    await day.getByRole('checkbox', { name: 'Opens' }).click();
    await expect.poll(() => param('deselected_columns2')).toBe('unsuccessful_sends,unsubscribes,opens,complaints,bounces');
    expect(param('deselected_columns1')).toBe('unsuccessful_sends,unsubscribes,complaints');

    // Every column shown reads 'none' (not absent, which would mean the defaults).
    for (const label of ['Failures', 'Unsubscribes', 'Complaints']) await month.getByRole('checkbox', { name: label }).click();
    await expect.poll(() => param('deselected_columns1')).toBe('none');
    await expect.poll(async () => Object.values(await checked(month)).every(Boolean)).toBe(true);

    await page.reload();
    await section('Sends in the last 30 days (UTC)').getByRole('checkbox', { name: 'Bounces' }).waitFor();
    expect(Object.values(await checked(section('Sends in the last 30 days (UTC)'))).every(Boolean)).toBe(true);
    // The 24-hour chart reads its parameter on its own render: wait for it rather than read it once.
    await expect.poll(() => checked(section('Sends in the last 24 hours (UTC)'))).toEqual({ ...defaults, Opens: false });
    expect(await month.getByText(/^Campaign: /).count()).toBe(0);

    // Choosing a campaign puts campaign_id in the URL and reads both charts for that campaign only.
    const readFor = (report: string) =>
      page.waitForRequest((r) => r.url().includes(`/${report}`) && new URL(r.url()).searchParams.get('campaign_id') === campaignId);
    const reads = Promise.all([readFor('sendslast31days'), readFor('sendslast24hours')]);
    await page.getByLabel('Campaign', { exact: true }).fill('autumn');
    await page.getByRole('option', { name: CAMPAIGN }).click();
    await expect.poll(() => param('campaign_id')).toBe(campaignId);
    await reads;
    await month.getByText(`Campaign: ${chartName(CAMPAIGN)}`).waitFor();
    await day.getByText(`Campaign: ${chartName(CAMPAIGN)}`).waitFor();
    expect(param('deselected_columns1')).toBe('none');
    expect(param('deselected_columns2')).toBe('unsuccessful_sends,unsubscribes,opens,complaints,bounces');
  });

  it('compares the campaign on /insights/analysis and links to its statistics', async () => {
    await page.goto(`${server.url}/insights/analysis`);
    const row = page.getByRole('row').filter({ hasText: CAMPAIGN });
    await row.waitFor();
    // Campaign, Type, Sends, open, click, click-to-open, unsubscribe, bounce and failure rates, Added.
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 9)).toEqual([CAMPAIGN, 'Scheduled Email Blast / Newsletter', '2', '50.0%', '50.0%', '100.0%', '0.0%', '0.0%', '0.0%']);
    await row.getByRole('link', { name: CAMPAIGN }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);
    await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
  });

  it('shows the error state and the report toast for a malformed campaign_id', async () => {
    await page.goto(`${server.url}/insights/stats?campaign_id=not-a-campaign`);
    // Every report fails with the gateway's 400; the toasts (one at a time) name the report.
    await page
      .getByText(/^Couldn't fetch .*report data: campaign_id/)
      .first()
      .waitFor();
    await page
      .getByText(/^Unable to load data: campaign_id/)
      .first()
      .waitFor();
    await section('Most-clicked links')
      .getByText(/^Unable to load data: campaign_id/)
      .waitFor();
  });

  it('opens on the account at a glance: contacts, campaigns, this month’s sends and the latest campaign’s results', async () => {
    await page.goto(`${server.url}/insights`);
    const glance = page.getByTestId('at-a-glance');
    const cardText = (label: string | RegExp) => glance.getByRole('region', { name: label }).textContent();
    const contacts = (await api<{ num_users: number }>('GET', '/api/user/users/count')).num_users;
    // The whole console loads first (a cold page: 1.5-6 s here with other tests running); the four cards fill together.
    await expect.poll(() => cardText('Contacts'), { timeout: 20_000 }).toBe(`Contacts${contacts.toLocaleString('en-US')}`);
    await expect.poll(() => cardText('Campaigns')).toBe('Campaigns1');
    // The blast's two sends; the test email is not one of them.
    await expect.poll(() => cardText(/^Sent in /)).toMatch(/^Sent in [A-Z][a-z]+ \(UTC\)2$/);
    await expect.poll(() => cardText('Latest campaign')).toBe(`Latest campaign${CAMPAIGN}2 sent · 50.0% opened · 50.0% clicked`);
    await glance.getByRole('region', { name: 'Latest campaign' }).getByRole('link').click();
    await page.waitForURL(new RegExp(`/insights/stats\\?campaign_id=${campaignId}$`));
  });

  it('shows an icon for each section of the navigation and a user menu with the account, the API keys and sign-out', async () => {
    await page.goto(`${server.url}/insights`);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Insights', exact: true }).waitFor();
    for (const section of ['Insights', 'Campaigns', 'Send wizard', 'People', 'Components', 'Account']) {
      expect(await nav.getByRole('link', { name: section, exact: true }).locator('svg').count()).toBe(1);
    }
    await page.getByRole('button', { name: /^Account menu of / }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    // It names who is signed in, and where.
    expect(await menu.textContent()).toMatch(/@.+ \/ /);
    expect(await menu.getByRole('menuitem', { name: 'API keys' }).getAttribute('href')).toBe('/account/api');
    expect(await menu.getByRole('menuitem', { name: 'Account settings' }).getAttribute('href')).toBe('/account');
    expect(await menu.getByRole('menuitem', { name: 'Sign out' }).getAttribute('href')).toBe('/logout');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    expect(await axeProblems(page)).toEqual([]);
  });
});
