/**
 * The send wizard's one-time blast in a real browser against the built product (spec part 2 §2
 * Send wizard, §4, §5 Campaign, §8): every page blocks Continue with its message until valid (type, a taken name
 * found case-insensitively, persona, segments, contacts), a sender persona is created inline (the wizard's toast),
 * choosing segments clears the chosen contacts, the review stops the launch while the persona is unverified and
 * lets it go once the persona is confirmed through the link the SMTP sink received; the launch's steps all succeed,
 * the review estimates the sending time under the relay's max_rate, the blast reaches a real SMTP server no sooner than the chosen time, and every success link opens its object.
 * The persona's domain is registered, and the domains page then shows the warm-up day the blast started and its use.
 * Also: a reload restarts the wizard, and /sender-wizard leads to it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eHooks } from '../helpers/e2e.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { timeLabel12 } from '../../src/console/wizard/wizardModel.ts';
import { Wizard, checkLinksOpen, createContacts, createSegment, createTemplates, startWorld, verifyPersonas, type WizardWorld } from './wizardFlow.ts';
import { axeProblems } from '../helpers/axe.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

const PERSONA = 'nia@garden.example.com';
const CONTACTS = ['ann@garden.test', 'bob@garden.test', 'cat@garden.test'];
const CAMPAIGN = 'Spring newsletter';

let w: WizardWorld;
let wizard: Wizard;
let templateId = '';
let segmentId = '';
let contactIds: string[] = [];

e2eHooks();
beforeAll(async () => {
  // The relay takes 2 emails/s (SMTP_URL max_rate): the review estimates how long the launch takes to go out.
  w = await startWorld('wizblast', { relayParams: 'max_rate=2' });
  wizard = new Wizard(w.page, w.server.url);
  templateId = (await createTemplates(w, [{ name: 'Spring news', subject: 'Spring news' }]))['Spring news'];
  contactIds = await createContacts(w, CONTACTS);
  segmentId = await createSegment(w, 'Garden club', contactIds.slice(0, 2));
  await w.api('POST', '/api/campaign/campaigns', { campaign: { name: 'Taken Name', type: 'scheduled_email_group' } });
  // The persona's domain is a registered sending domain: the blast's emails count toward its warm-up.
  await w.api('POST', '/api/domains/domains', { domain: 'garden.example.com' });
});

describe('send wizard: one-time blast (e2e)', () => {
  it('restarts on a reload, and /sender-wizard leads to it', async () => {
    await w.page.goto(`${w.server.url}/sender-wizard`);
    await w.page.waitForURL(/\/email-send-wizard$/);
    // Before a type is chosen the number of pages is not known, so the counter does not guess one.
    expect(await wizard.counter()).toBe('Step 1');
    await wizard.chooseType(/^One-time blast/);
    const total = /^Step 1 of (\d+) · One-time blast$/.exec(await wizard.counter())?.[1];
    expect(Number(total)).toBeGreaterThan(2);
    await wizard.next('Campaign name');
    expect(await wizard.counter()).toBe(`Step 2 of ${total} · One-time blast`);
    await wizard.name('Half done');
    await w.page.reload();
    await wizard.at('Campaign type');
    expect(await w.page.getByRole('radio', { name: /^One-time blast/ }).isChecked()).toBe(false);
    expect(await wizard.attempt()).toBe('Please choose a campaign type');
  });

  it('blocks each page until valid, then launches a blast that is delivered no sooner than its time', async () => {
    const page = w.page;
    await wizard.open();
    expect(await axeProblems(page)).toEqual([]);
    await wizard.chooseType(/^One-time blast/);
    await wizard.next('Campaign name');

    // The name: required, and free among campaigns (case-insensitive), looked up after a pause.
    expect(await wizard.attempt()).toBe('Required field');
    await wizard.name('taken name');
    await expect.poll(() => wizard.message()).toBe('A campaign with this name already exists. Please choose a different name!');
    expect(await wizard.continueButton.isDisabled()).toBe(true);
    await wizard.name(CAMPAIGN);
    await wizard.next('Sender persona');

    // A persona created inline: first name and email required; the wizard's toast asks to verify it.
    expect(await wizard.attempt()).toBe('Required field');
    await page.getByRole('button', { name: 'Create a new sender persona' }).click();
    await page.getByRole('button', { name: 'Save sender persona' }).click();
    await page.locator('#wizard-persona-first-name-helper-text').getByText('Required field').waitFor();
    await page.getByLabel('First name').fill('Nia');
    await page.getByLabel('Email').fill(PERSONA);
    await page.getByRole('button', { name: 'Save sender persona' }).click();
    await page.getByText(`Successfully saved sender persona, please log in to ${PERSONA} and verify the account.`).waitFor();
    await wizard.next('Template');

    expect(await wizard.attempt()).toBe('Required field');
    await wizard.pick('Template', 'spring', 'Spring news');
    // The chosen template shows as a thumbnail with its subject.
    const chosen = page.getByTestId('chosen-template');
    await chosen.getByText('Subject: Spring news').waitFor();
    expect(await chosen.getByTitle('Thumbnail of Spring news').getAttribute('srcdoc')).toContain('Spring news for jane.doe@example.com');
    await wizard.next('Recipients');
    await page.getByRole('radio', { name: 'Segments and contacts' }).check();
    await wizard.next('Segments');
    expect(await wizard.attempt()).toBe('Please select one or more segments');
    // The segment list loads after the page shows: wait for it rather than count at once.
    await expect.poll(() => page.getByText('Page 1 of 1 (1 segments)').count()).toBe(1);
    await wizard.tick('segments', ['Garden club']);
    expect(await axeProblems(page)).toEqual([]);
    await wizard.next('Contacts');
    expect(await wizard.attempt()).toBe('Please select one or more contacts');
    await wizard.tick('contacts', [CONTACTS[2]]);
    await wizard.next('When to send');
    expect(await axeProblems(page)).toEqual([]);

    // Choosing segments clears the chosen contacts; Back keeps every other choice.
    await wizard.back('Contacts');
    await wizard.back('Segments');
    await wizard.back('Recipients');
    await page.getByRole('radio', { name: 'Segments', exact: true }).check();
    await page.getByRole('radio', { name: 'Segments and contacts' }).check();
    await wizard.next('Segments');
    expect(await page.getByRole('checkbox', { name: 'Choose Garden club' }).isChecked()).toBe(true);
    await wizard.next('Contacts');
    expect(await wizard.message()).toBe('Please select one or more contacts');
    await wizard.tick('contacts', [CONTACTS[2]]);
    await wizard.next('When to send');

    // The default moment is the next quarter hour in UTC, never one already past.
    const shownDate = await page.locator('#wizard-timing-date').inputValue();
    const shownTime = await page.locator('#wizard-timing-time').inputValue();
    expect(shownTime).toMatch(/^\d{1,2}:(00|15|30|45) (am|pm)$/);
    const [, h, m, half] = /^(\d{1,2}):(\d\d) (am|pm)$/.exec(shownTime)!;
    const hour = (Number(h) % 12) + (half === 'pm' ? 12 : 0);
    const shownAt = Date.parse(`${shownDate}T${String(hour).padStart(2, '0')}:${m}:00Z`);
    expect(shownAt - Date.now()).toBeGreaterThan(0);
    expect(shownAt - Date.now()).toBeLessThanOrEqual(16 * 60_000);
    expect(await page.locator('#wizard-timing-timezone').inputValue()).toBe('UTC');
    // Send now: no moment to pick, and the review says the emails go at launch.
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByText('The emails go as soon as you launch the campaign.').waitFor();
    expect(await page.locator('#wizard-timing-date').count()).toBe(0);
    await wizard.next('Review and launch');
    await page.getByRole('table', { name: 'Your choices' }).getByText('now, as soon as you launch').waitFor();
    expect(await page.getByTestId('past-send-time').count()).toBe(0);
    await wizard.back('When to send');
    await page.getByRole('button', { name: 'Schedule' }).click();
    expect(await page.locator('#wizard-timing-time').inputValue()).toBe(shownTime); // the scheduled moment was kept
    // A moment already past is said on the review before Launch sends at once.
    const past = wallClockUtc(-60);
    await wizard.sendAt(past);
    await wizard.next('Review and launch');
    expect(await page.getByTestId('past-send-time').textContent()).toBe(
      `${past.slice(0, 10)} at ${timeLabel12(past.slice(11))} (UTC) has already passed: launching sends at once. To send later, go back to "When to send" and choose a later time.`,
    );
    await wizard.back('When to send');
    // The test sends at the next whole minute at least 30 s away (the next one may be a second off: past by the review).
    const sendAt = wallClockUtc(Date.now() % 60_000 > 30_000 ? 2 : 1);
    await wizard.sendAt(sendAt);
    await wizard.next('Review and launch');

    // The review: choices, audience, and the unverified persona stopping the launch; no warning for a future moment.
    expect(await page.getByTestId('past-send-time').count()).toBe(0);
    const choices = page.getByRole('table', { name: 'Your choices' });
    await choices.getByText('Garden club').waitFor();
    await choices.getByText(CONTACTS[2]).waitFor();
    await choices.getByText(`${sendAt.slice(0, 10)} at ${timeLabel12(sendAt.slice(11))} (UTC)`).waitFor();
    const audience = page.getByRole('table', { name: 'Audience and cost' });
    await audience.getByRole('row', { name: /Recipients to be sent 3$/ }).waitFor();
    await audience.getByRole('row', { name: /Recipients targeted 3$/ }).waitFor();
    await audience.getByRole('row', { name: "Estimated sending time About 2 s (the relay's limit of 2 emails/s)" }).waitFor();
    const problems = page.getByRole('alert', { name: 'Launch problems' });
    await problems.getByText(`sender persona ${PERSONA} is not verified yet`, { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Launch', exact: true }).isDisabled()).toBe(true);
    // Not a stop, but said before launching: the persona's domain has no DKIM record yet, so its mail goes out unsigned.
    expect(await page.getByTestId('delivery-warnings').textContent()).toContain(
      `Mail from ${PERSONA} will not be DKIM-signed: the DKIM record of garden.example.com is not found in DNS yet`,
    );
    expect(await wizard.stepStatuses()).toEqual(['waiting', 'waiting', 'waiting']);
    expect(await axeProblems(page)).toEqual([]);

    // The email as it will read: rendered with a sample contact, at desktop and at phone width.
    const preview = page.getByTestId('email-preview');
    await preview.getByText('Subject: Spring news').waitFor();
    const frame = preview.locator('iframe');
    expect(await frame.getAttribute('srcdoc')).toContain('<p>Spring news for jane.doe@example.com</p>');
    // Signed by the persona chosen, not the sample one.
    await preview.getByText(`From: Nia <${PERSONA}>`).waitFor();
    await expect.poll(async () => (await frame.getAttribute('srcdoc')) ?? '').toContain('<p>Signed, Nia</p>');
    expect(await frame.getAttribute('sandbox')).toBe('allow-same-origin');
    expect(Math.round((await frame.boundingBox())!.width)).toBe(600);
    await preview.getByRole('button', { name: 'Phone' }).click();
    await expect.poll(async () => Math.round((await frame.boundingBox())!.width)).toBe(375);

    // Confirmed through the link the persona's inbox received; the review checks again when it opens.
    await verifyPersonas(w.sink, 1);
    await wizard.back('When to send');
    await wizard.next('Review and launch');
    await audience.getByRole('row', { name: /Recipients to be sent 3$/ }).waitFor();
    expect(await problems.count()).toBe(0);
    // A test send from the review reaches the simulator (not tracked, not one of the campaign's sends).
    await preview.getByRole('button', { name: 'Send a test email' }).click();
    const testDialog = page.getByRole('dialog', { name: 'Send test email' });
    await testDialog.getByRole('button', { name: 'simulator' }).click();
    await testDialog.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(`Successfully sent email to ${SIMULATOR_SUCCESS_ADDRESS}`).waitFor();
    await w.sink.waitFor(() => w.sink.messages.some((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)), 30_000);
    expect((await w.sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!.subject).toBe('Spring news');
    w.sink.messages.length = 0;
    await wizard.launch();
    const links = await wizard.successLinks();
    expect(await wizard.stepStatuses()).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(await axeProblems(page)).toEqual([]);
    // The success page says when the emails go (the moment may have passed while the persona confirmed).
    expect([`Its emails go out on ${sendAt.slice(0, 10)} at ${timeLabel12(sendAt.slice(11))} (UTC).`, 'Its emails are being sent now.']).toContain(
      await page.getByTestId('launched-send-time').textContent(),
    );

    const [campaign] = (await w.api('GET', `/api/campaign/campaigns?names=${encodeURIComponent(CAMPAIGN)}`)).campaigns;
    expect(campaign).toMatchObject({ type: 'scheduled_email_group', template_ids: [] });
    const blastId = campaign.scheduled_email_blast_group_ids[0];
    const [blast] = (await w.api('GET', `/api/scheduler/scheduler?ids=${blastId}`)).data;
    expect(blast).toMatchObject({
      name: CAMPAIGN,
      template_id: templateId,
      to_segment_ids: [segmentId],
      to_user_ids: [contactIds[2]],
      send_at: sendAt,
      timezone: 'UTC',
    });
    const persona = (await w.api('GET', '/api/senderpersonawrapper/sender_personas')).data.find((p: { email: string }) => p.email === PERSONA);
    expect(blast.sender_persona_id).toBe(persona.id);

    // Delivered to the three contacts, none before the chosen minute.
    await w.sink.waitFor(() => w.sink.messages.length >= 3, 150_000);
    const due = Date.parse(`${sendAt}:00Z`);
    const mail = await w.sink.parsed();
    expect(mail.map((m) => m.envelopeTo[0]).sort()).toEqual([...CONTACTS].sort());
    expect(mail.every((m) => m.subject === 'Spring news')).toBe(true);
    for (const m of w.sink.messages) expect(m.receivedAt).toBeGreaterThanOrEqual(due);

    // Every success link opens the object it names, in a new tab.
    expect(links.map((l) => l.href)).toEqual([
      '/campaigns',
      `/campaigns/edit/${campaign.id}`,
      `/components/email-blasts/edit/${blastId}`,
      `/components/templates/edit/${templateId}`,
      `/components/templates/new/${templateId}`,
      `/people/sender-personas/edit/${persona.id}`,
      `/people/segments/edit/${segmentId}`,
    ]);
    await checkLinksOpen(page, w.server.url, links, {
      '/campaigns': { text: CAMPAIGN },
      [`/campaigns/edit/${campaign.id}`]: { input: CAMPAIGN },
      [`/components/email-blasts/edit/${blastId}`]: { input: CAMPAIGN },
      [`/components/templates/edit/${templateId}`]: { input: 'Spring news' },
      [`/components/templates/new/${templateId}`]: { input: 'Copy of Spring news' },
      [`/people/sender-personas/edit/${persona.id}`]: { input: PERSONA },
      [`/people/segments/edit/${segmentId}`]: { input: 'Garden club' },
    });

    // The domains page shows the warm-up: day 1, four emails of today's cap of 50 — the blast's three and the review's
    // test email, which left from the same domain and counts towards its reputation like any other.
    await page.goto(`${w.server.url}/account/domains`);
    const warmup = page.getByTestId('warmup-garden.example.com');
    await warmup.getByText('Warm-up: day 1 of 10. 4 of today’s 50 emails sent (UTC day).').waitFor();
    await warmup.getByRole('progressbar', { name: 'Warm-up use today: 4 of 50' }).waitFor();
  });
});
