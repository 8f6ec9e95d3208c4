/**
 * Audience health in a real browser against the built product: the owner switches the sunset policy and the frequency
 * cap on in Account → Audience health (the suggested 180 days / 5 emails and 3 emails / 7 days filled in, one switch by
 * keyboard), an out-of-range number is refused by the server beside its field and nothing is saved, then the policies
 * are saved. The segments list marks the built-in sunset segment. In the send wizard a blast to a segment of a contact
 * past the sunset policy, a contact over the frequency cap and one other shows, on its review, the pre-send checklist
 * and Sunset 1 and Frequency cap 1 left out (and that the cap is checked again, the blast going later); best hour is
 * refused with the contact's own timezone; with best hour and re-engagement chosen the review counts the sunset contact
 * back in and the saved blast has both. A campaign whose blast went at the best hour shows the Send-time optimisation
 * panel of its report. At 390 px the settings screen does not scroll sideways; axe finds nothing
 * serious on it nor on the built-in segment's page.
 *
 * The sunset contact's engagement clock is set in the database while the server is stopped (PGlite is one process's
 * at a time): 5 emails and no open for 200 days, as tests/api/audiencePolicies.api.test.ts does; the capped contact
 * really gets 3 emails first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, sendBlastNow, startE2E, verifiedPersona, type E2E } from '../helpers/e2e.ts';
import { startServer } from '../helpers/processes.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { openDatabase } from '../../src/server/db/client.ts';
import { axeProblems } from '../helpers/axe.ts';
import { Wizard, createContacts, createSegment, createTemplates } from './wizardFlow.ts';

const OWNER = { company: 'Health Co', project: 'health', email: 'ops@health.example.com', password: 'health-password-1' };
const CONTACTS = ['sleepy@health.test', 'busy@health.test', 'fresh@health.test'];
const SEGMENT = 'Health club';
const CAMPAIGN = 'Winter news';
const OFF = { sunset_days: null, sunset_min_emails: null, frequency_cap_emails: null, frequency_cap_days: null };
const SUNSET_ROW = 'Left out: Sunset (no opens or clicks in a long time)';
const FREQUENCY_ROW = 'Left out: Frequency cap (already got enough marketing email)';

let e: E2E;
let page: Page;
let templateId = '';
let personaId = '';
let ids: string[] = [];

/** policies reads the saved audience policies through the API. */
async function policies() {
  return (await api<{ data: Record<string, number | null> }>('GET', '/api/companyauthwrapper/audience_policies')).data;
}

/**
 * pastSunset stops the server, sets contact `contactId`'s engagement clock as if its last 5 emails went unopened for
 * 200 days, and starts the server again on the same data folder (on another port: the page signs in again).
 */
async function pastSunset(contactId: string): Promise<void> {
  await e.server.kill('SIGTERM');
  const database = await openDatabase({ dataDir: e.env.DATA_DIR, lockHolder: 'audienceHealth.e2e' });
  try {
    await database.query(
      `INSERT INTO contact_event_counts (contact_id, project_id, sends_since_engaged, unengaged_since)
       SELECT id, project_id, 5, now() - make_interval(days => 200) FROM contacts WHERE id = $1
       ON CONFLICT (contact_id) DO UPDATE SET sends_since_engaged = 5, unengaged_since = now() - make_interval(days => 200)`,
      [contactId],
    );
  } finally {
    await database.close();
  }
  e.server = await startServer(e.env);
  // The console's session names the server's address (its endpoints): sign in again for the new port's.
  const res = await fetch(`${e.server.url}/api/login/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: OWNER.email, password: OWNER.password }),
  });
  expect(res.status).toBe(200);
  const session = await res.json();
  await e.context.addCookies([{ name: 'user_info', value: encodeURIComponent(JSON.stringify(session)), url: e.server.url, sameSite: 'Strict' }]);
}

async function openSettings(): Promise<void> {
  await page.goto(`${e.server.url}/account/audience-health`);
  await page.getByRole('heading', { name: 'Audience health', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Save' }).waitFor();
}

e2eHooks();
beforeAll(async () => {
  e = await startE2E({ tag: 'audhealth', env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' }, owner: OWNER, viewport: { width: 1400, height: 1000 } });
  page = e.page;
  const w = { ...e, api };
  personaId = (await verifiedPersona({ email: 'news@health.example.com', first_name: 'Nell' })).id;
  templateId = (await createTemplates(w, [{ name: 'Winter news', subject: 'Winter news' }]))['Winter news'];
  ids = await createContacts(w, CONTACTS);
  await createSegment(w, SEGMENT, ids);
  // busy@ gets 3 marketing emails: the cap of 3 in 7 days is reached.
  for (let i = 1; i <= 3; i++) {
    await sendBlastNow({ name: `Warm-up ${i}`, template_id: templateId, sender_persona_id: personaId, to_user_ids: [ids[1]] });
  }
  await e.sink.waitFor(() => e.sink.messages.filter((m) => m.envelopeTo.includes(CONTACTS[1])).length >= 3, 60_000);
  await pastSunset(ids[0]);
}, 240_000);

describe('Audience health (e2e)', () => {
  it('switches both policies on with the suggested values, refuses an out-of-range number beside its field, then saves', async () => {
    await page.goto(`${e.server.url}/account`);
    await page.getByRole('link', { name: 'Audience health' }).first().click();
    await page.getByRole('heading', { name: 'Audience health', level: 1 }).waitFor();
    const sunset = page.getByRole('switch', { name: /^Sunset policy/ });
    const cap = page.getByRole('switch', { name: /^Frequency cap/ });
    expect(await sunset.isChecked()).toBe(false);
    expect(await cap.isChecked()).toBe(false);
    expect(await page.getByLabel('Days without an open or click').count()).toBe(0);

    await sunset.check();
    expect(await page.getByLabel('Days without an open or click').inputValue()).toBe('180');
    expect(await page.getByLabel('Emails sent in that time, at least').inputValue()).toBe('5');
    await page
      .getByText(
        'Stop sending marketing email to contacts who have not opened or clicked in 180 days after at least 5 emails. A re-engagement blast reaches them once.',
      )
      .waitFor();
    // The frequency cap by keyboard: Space on the focused switch.
    await cap.focus();
    await page.keyboard.press('Space');
    expect(await cap.isChecked()).toBe(true);
    expect(await page.getByLabel('Marketing emails per contact, at most').inputValue()).toBe('3');
    expect(await page.getByLabel('In this many days').inputValue()).toBe('7');
    await page.getByText('Transactional email is never capped', { exact: false }).waitFor();
    expect(await axeProblems(page)).toEqual([]);

    // 3 days is below the server's 7: its 400 shows under the field, and nothing is saved.
    await page.getByLabel('Days without an open or click').fill('3');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#audience-sunset_days-helper-text').getByText('Must be a whole number from 7 to 3650').waitFor();
    expect(await page.getByLabel('Days without an open or click').getAttribute('aria-invalid')).toBe('true');
    expect(await policies()).toEqual(OFF);

    await page.getByLabel('Days without an open or click').fill('180');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Audience health settings saved').waitFor();
    expect(await policies()).toEqual({ sunset_days: 180, sunset_min_emails: 5, frequency_cap_emails: 3, frequency_cap_days: 7 });
    await page.reload();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    expect(await page.getByRole('switch', { name: /^Sunset policy/ }).isChecked()).toBe(true);
    expect(await page.getByLabel('In this many days').inputValue()).toBe('7');
  });

  it('links to the built-in sunset segment, which the segments list marks and does not offer to edit', async () => {
    await openSettings();
    await page.getByRole('link', { name: 'built-in segment on the Segments page' }).click();
    await page.getByText('Kept by the sunset policy', { exact: false }).first().waitFor();
    await page.getByRole('heading', { level: 1, name: 'Sunset: no opens or clicks' }).waitFor();
    expect(await page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await page.getByText(CONTACTS[0]).waitFor();
    expect(await axeProblems(page)).toEqual([]);

    await page.goto(`${e.server.url}/people/segments`);
    const row = page.getByRole('row', { name: /Sunset: no opens or clicks/ });
    await row.getByText('Built-in').waitFor();
    await row.getByRole('link', { name: 'View Sunset: no opens or clicks' }).waitFor();
    expect(await row.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await page
      .getByRole('row', { name: new RegExp(SEGMENT) })
      .getByRole('link', { name: 'Edit' })
      .waitFor();
  });

  it("the wizard's review leaves out the sunset and capped contacts, and the blast keeps best hour and re-engagement", async () => {
    const wizard = new Wizard(page, e.server.url);
    await wizard.open();
    await wizard.chooseType(/^One-time blast/);
    await wizard.next('Campaign name');
    await wizard.name(CAMPAIGN);
    await wizard.next('Sender persona');
    await wizard.pick('Sender persona', 'news', /news@health\.example\.com/);
    await wizard.next('Template');
    await wizard.pick('Template', 'winter', 'Winter news');
    await wizard.next('Recipients');
    await page.getByRole('radio', { name: 'Segments', exact: true }).check();
    await wizard.next('Segments');
    await wizard.tick('segments', [SEGMENT]);
    await wizard.next('When to send');

    // Best hour is not offered with each contact's own timezone, and says why.
    const bestHour = page.getByRole('checkbox', { name: "Send at each contact's best hour (within 24 h of the time above)" });
    await page.getByRole('radio', { name: "At a date and time in each contact's own timezone" }).check();
    expect(await bestHour.isDisabled()).toBe(true);
    await page.getByText("Not with each contact's own timezone", { exact: false }).waitFor();
    await page.getByRole('radio', { name: 'At a date and time in a timezone' }).check();
    expect(await bestHour.isEnabled()).toBe(true);
    await bestHour.check();
    await wizard.next('Review and launch');

    // Scheduled for later (the next quarter hour): one left out by each policy, the fresh contact sent to.
    await page.getByTestId('presend-checklist').getByRole('heading', { name: 'Pre-send checks' }).waitFor();
    const choices = page.getByRole('table', { name: 'Your choices' });
    await choices.getByRole('row', { name: 'Send time Best hour per contact' }).waitFor();
    const audience = page.getByRole('table', { name: 'Audience and cost' });
    await audience.getByRole('row', { name: /Recipients to be sent 1$/ }).waitFor({ timeout: 30_000 });
    await audience.getByRole('row', { name: `${SUNSET_ROW} 1` }).waitFor();
    await audience.getByRole('row', { name: `${FREQUENCY_ROW} 1` }).waitFor();
    await audience.getByRole('row', { name: /Recipients targeted 3$/ }).waitFor();
    expect(await page.getByTestId('frequency-cap-note').textContent()).toContain('the frequency cap is checked again when each email goes');

    // A re-engagement blast: the sunset contact is let through (once), the capped one still left out.
    await wizard.back('When to send');
    await page.getByRole('checkbox', { name: 'Re-engagement blast' }).check();
    expect(await bestHour.isChecked()).toBe(true);
    await wizard.next('Review and launch');
    await choices.getByRole('row', { name: /^Re-engagement blast Yes/ }).waitFor();
    await audience.getByRole('row', { name: /Recipients to be sent 2$/ }).waitFor({ timeout: 30_000 });
    await audience.getByRole('row', { name: `${SUNSET_ROW} 0` }).waitFor();
    await audience.getByRole('row', { name: `${FREQUENCY_ROW} 1` }).waitFor();

    await wizard.launch();
    await wizard.successLinks();
    const blasts = await api<{ data: Array<{ name: string; re_engagement?: boolean; send_time_optimised?: boolean; send_in_users_timezone: boolean }> }>(
      'GET',
      '/api/scheduler/scheduler',
    );
    const saved = blasts.data.find((b) => b.name === CAMPAIGN);
    expect(saved).toMatchObject({ re_engagement: true, send_time_optimised: true, send_in_users_timezone: false });
  });

  it("shows a campaign's Send-time optimisation panel once it sent such emails", async () => {
    // Sent now at best hour: the project has no opens yet, so the fresh contact's email goes at the blast's own time.
    const blastId = crypto.randomUUID();
    await api('POST', '/api/scheduler/scheduler', {
      id: blastId,
      name: 'Best hour now',
      template_id: templateId,
      sender_persona_id: personaId,
      to_user_ids: [ids[2]],
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
      send_time_optimised: true,
    });
    const campaignId = crypto.randomUUID();
    await api('POST', '/api/campaign/campaigns', {
      campaign: { id: campaignId, name: 'Best hour campaign', type: 'scheduled_email_group', scheduled_email_blast_group_ids: [blastId] },
    });
    await expect
      .poll(async () => (await api<{ data: unknown[] }>('GET', `/api/reporting/sendtimeoptimisation?campaign_id=${campaignId}`)).data, { timeout: 60_000 })
      .toEqual([{ group: 'fallback', emails: 1, opened: 0, open_rate: 0 }]);
    await page.goto(`${e.server.url}/insights/stats?campaign_id=${campaignId}`);
    const panel = page.getByRole('region', { name: 'Send-time optimisation' });
    await panel.getByRole('row', { name: 'Sent at a fallback hour 1 0 0%' }).waitFor();
    expect(await panel.getByRole('row', { name: /^Sent at their best hour/ }).count()).toBe(0);
    // Without a campaign chosen there is no panel.
    await page.goto(`${e.server.url}/insights/stats`);
    await page.getByRole('heading', { level: 1, name: 'Statistics' }).waitFor();
    expect(await page.getByRole('region', { name: 'Send-time optimisation' }).count()).toBe(0);
  });

  it('fits a 390 px screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openSettings();
    await page.getByLabel('Marketing emails per contact, at most').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await axeProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Audience health settings saved').waitFor();
  });
});
