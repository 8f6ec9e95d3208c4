/**
 * The send wizard's A/B test in a real browser against the built product (spec part 2 §2,
 * §5 Campaign): the template count (a whole number, at least 2), each template chosen once, weights set to 70/30
 * on the sliders; the review's audience of a 1,000-contact segment and its estimated cost, which equals the pricing
 * formula (sendCost) for 1,000 emails after 9,500 emails really sent earlier this month (the events API refuses send
 * events: only the product's own count); the launch
 * sends now, the SMTP sink receives 1,000 emails split by template within AB_SPLIT_TOLERANCE of the weights, and
 * after some opens (the tracking pixels of the delivered emails) the Statistics page shows the campaign's Variants
 * with the best marked and the other's difference, confidence and verdict.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eHooks } from '../helpers/e2e.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { MAIL_CLIENT_UA, readerDelay } from '../helpers/reader.ts';
import { sendCost } from '../../src/domain/pricing.ts';
import { AB_SPLIT_TOLERANCE } from '../../src/domain/campaigns.ts';
import { formatDollars, templateTaken } from '../../src/console/wizard/wizardModel.ts';
import { Wizard, checkLinksOpen, createContacts, createSegment, createTemplates, createVerifiedPersona, startWorld, type WizardWorld } from './wizardFlow.ts';

const CAMPAIGN = 'Spring split';
const RECIPIENTS = 1000;
const MONTH_SO_FAR = 9500;

let w: WizardWorld;
let wizard: Wizard;
let templates: Record<string, string> = {};
let personaId = '';
let segmentId = '';
let contactIds: string[] = [];
let campaignId = '';

e2eHooks();
beforeAll(async () => {
  w = await startWorld('wizab');
  wizard = new Wizard(w.page, w.server.url);
  personaId = await createVerifiedPersona(w, 'lab@split.example.com', 'Lab');
  templates = await createTemplates(w, [
    { name: 'Spring A', subject: 'Spring A' },
    { name: 'Spring B', subject: 'Spring B' },
    { name: 'Winter news', subject: 'Winter news' },
  ]);
  const emails = Array.from({ length: RECIPIENTS }, (_, i) => `ab${String(i).padStart(4, '0')}@split.test`);
  contactIds = await createContacts(w, emails);
  segmentId = await createSegment(w, 'Split thousand', contactIds);
  // This month's sends so far: a blast of another template to 9,500 other contacts, sent now and recorded by the
  // product; the sink then forgets them, so that what it holds afterwards is the A/B test's.
  const earlier = await createContacts(
    w,
    Array.from({ length: MONTH_SO_FAR }, (_, i) => `past${String(i).padStart(4, '0')}@winter.test`),
  );
  await w.api('POST', '/api/scheduler/scheduler', {
    id: crypto.randomUUID(),
    name: 'Earlier this month',
    template_id: templates['Winter news'],
    sender_persona_id: personaId,
    to_user_ids: earlier,
    send_at: wallClockUtc(-1),
    timezone: 'UTC',
  });
  await w.sink.waitFor(() => w.sink.messages.filter((m) => m.envelopeTo[0].endsWith('@winter.test')).length >= MONTH_SO_FAR, 180_000);
  w.sink.messages.splice(0);
});

describe('send wizard: A/B test (e2e)', () => {
  it('launches an A/B test whose review shows the formula’s cost and whose 1,000 emails split by the weights', async () => {
    const page = w.page;
    await wizard.open();
    await wizard.chooseType(/^A\/B test/);
    await wizard.next('Campaign name');
    await wizard.name(CAMPAIGN);
    await wizard.next('Number of templates');

    const count = page.getByLabel('Number of templates');
    expect(await count.inputValue()).toBe('2');
    await count.fill('1');
    expect(await wizard.message()).toBe('An A/B test needs at least 2 templates');
    await count.fill('2.5');
    expect(await wizard.message()).toBe('Must be a whole number');
    await count.fill('2');
    await wizard.next('Template A');
    await wizard.pick('Template A', 'spring', 'Spring A');
    await wizard.next('Template B');
    await wizard.pick('Template B', 'spring a', 'Spring A');
    expect(await wizard.message()).toBe(templateTaken('Spring A'));
    expect(await wizard.continueButton.isDisabled()).toBe(true);
    await wizard.pick('Template B', 'spring b', 'Spring B');
    await wizard.next('Weights');

    // Equal weights by default; 70/30 set with the sliders' keys.
    expect(await page.getByTestId('weight-0').textContent()).toBe('50 (50% of recipients)');
    expect(await page.getByTestId('weight-1').textContent()).toBe('50 (50% of recipients)');
    const sliderA = page.getByRole('slider', { name: /^Weight of template A/ });
    await sliderA.focus();
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
    const sliderB = page.getByRole('slider', { name: /^Weight of template B/ });
    await sliderB.focus();
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowLeft');
    expect(await page.getByTestId('weight-0').textContent()).toBe('70 (70% of recipients)');
    expect(await page.getByTestId('weight-1').textContent()).toBe('30 (30% of recipients)');
    await wizard.next('Sender persona');
    await wizard.pick('Sender persona', 'lab', /lab@split\.example\.com/);
    await wizard.next('Recipients');
    await wizard.next('Segments');
    await wizard.tick('segments', ['Split thousand']);
    await wizard.next('When to send');
    const sendAt = wallClockUtc(0);
    await wizard.sendAt(sendAt);
    await wizard.next('Review and launch');

    // The audience and the cost: the pricing formula for 1,000 emails after this month's 9,500.
    const audience = page.getByRole('table', { name: 'Audience and cost' });
    await audience.getByRole('row', { name: 'Recipients to be sent 1,000' }).waitFor();
    await audience.getByRole('row', { name: 'Recipients targeted 1,000' }).waitFor();
    await audience.getByRole('row', { name: 'Emails sent this month so far 9,500' }).waitFor();
    const expected = formatDollars(sendCost(MONTH_SO_FAR, RECIPIENTS).dollars);
    expect(expected).toBe('$0.255'); // 500 emails past the free 10,000, at 51¢ per 1,000
    expect(await page.getByTestId('estimated-cost').textContent()).toBe(expected);
    const choices = page.getByRole('table', { name: 'Your choices' });
    await choices.getByText('Spring A: weight 70 (70%)').waitFor();
    await choices.getByText('Spring B: weight 30 (30%)').waitFor();

    await wizard.launch();
    const links = await wizard.successLinks();
    expect(await wizard.stepStatuses()).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const [campaign] = (await w.api('GET', `/api/campaign/campaigns?names=${encodeURIComponent(CAMPAIGN)}`)).campaigns;
    campaignId = campaign.id;
    expect(campaign).toMatchObject({ type: 'a_b_test', template_ids: [templates['Spring A'], templates['Spring B']] });
    const blastId = campaign.scheduled_email_blast_group_ids[0];
    const [blast] = (await w.api('GET', `/api/scheduler/scheduler?ids=${blastId}`)).data;
    expect(blast.template_ids_with_weights).toEqual([
      { template_id: templates['Spring A'], weight: 70 },
      { template_id: templates['Spring B'], weight: 30 },
    ]);
    expect(blast.to_segment_ids).toEqual([segmentId]);

    // 1,000 emails, one per contact, split by template within the documented tolerance of 70/30.
    await w.sink.waitFor(() => w.sink.messages.length >= RECIPIENTS, 180_000);
    const mail = await w.sink.parsed();
    expect(new Set(mail.map((m) => m.envelopeTo[0])).size).toBe(RECIPIENTS);
    const a = mail.filter((m) => m.subject === 'Spring A').length;
    const b = mail.filter((m) => m.subject === 'Spring B').length;
    expect(a + b).toBe(RECIPIENTS);
    expect(Math.abs(a / RECIPIENTS - 0.7)).toBeLessThanOrEqual(AB_SPLIT_TOLERANCE);
    const due = Date.parse(`${sendAt}:00Z`);
    for (const m of w.sink.messages) expect(m.receivedAt).toBeGreaterThanOrEqual(due);

    expect(links.map((l) => l.href)).toEqual([
      '/campaigns',
      `/campaigns/edit/${campaign.id}`,
      `/components/email-blasts/edit/${blastId}`,
      `/components/templates/edit/${templates['Spring A']}`,
      `/components/templates/new/${templates['Spring A']}`,
      `/components/templates/edit/${templates['Spring B']}`,
      `/components/templates/new/${templates['Spring B']}`,
      `/people/sender-personas/edit/${personaId}`,
      `/people/segments/edit/${segmentId}`,
    ]);
    await checkLinksOpen(page, w.server.url, links, {
      '/campaigns': { text: CAMPAIGN },
      [`/campaigns/edit/${campaign.id}`]: { input: CAMPAIGN },
      [`/components/email-blasts/edit/${blastId}`]: { input: CAMPAIGN },
      [`/components/templates/edit/${templates['Spring A']}`]: { input: 'Spring A' },
      [`/components/templates/edit/${templates['Spring B']}`]: { input: 'Spring B' },
      [`/components/templates/new/${templates['Spring A']}`]: { input: 'Copy of Spring A' },
      [`/components/templates/new/${templates['Spring B']}`]: { input: 'Copy of Spring B' },
      [`/people/sender-personas/edit/${personaId}`]: { input: 'lab@split.example.com' },
      [`/people/segments/edit/${segmentId}`]: { input: 'Split thousand' },
    });

    // Opens through the delivered emails' tracking pixels: 40 % of A's emails, 10 % of B's, by a mail client a while
    // after delivery, so they are people's opens.
    await readerDelay(Math.max(...w.sink.messages.map((m) => m.receivedAt)), 'open');
    const pixel = (html: string) => /(https?:\/\/[^"'\s]+\/t\/o\/[^"'\s]+\.gif)/.exec(html)?.[1];
    const opened = { 'Spring A': Math.round(a * 0.4), 'Spring B': Math.round(b * 0.1) };
    for (const subject of ['Spring A', 'Spring B'] as const) {
      const urls = mail
        .filter((m) => m.subject === subject)
        .slice(0, opened[subject])
        .map((m) => pixel(String(m.html)));
      for (let i = 0; i < urls.length; i += 20) {
        await Promise.all(
          urls.slice(i, i + 20).map(async (u) => {
            expect(u).toBeDefined();
            expect((await fetch(u!, { headers: { 'user-agent': MAIL_CLIENT_UA } })).status).toBe(200);
          }),
        );
      }
    }

    // The Statistics page of the campaign: its Variants, the best marked, the other compared with it.
    await page.goto(`${w.server.url}/insights/stats?campaign_id=${campaignId}`);
    const variants = page.getByRole('table', { name: 'Variants' });
    await variants.waitFor({ timeout: 30_000 });
    const rowA = variants.getByRole('row').filter({ hasText: 'Spring A' });
    const rowB = variants.getByRole('row').filter({ hasText: 'Spring B' });
    await rowA.getByText('Best', { exact: true }).waitFor();
    expect(await rowB.getByText('Best', { exact: true }).count()).toBe(0);
    await expect.poll(async () => rowA.textContent(), { timeout: 30_000 }).toContain(`${((opened['Spring A'] / a) * 100).toFixed(1)}% (${opened['Spring A']})`);
    expect(await rowA.textContent()).toContain(String(a));
    expect(await rowB.textContent()).toContain(`${((opened['Spring B'] / b) * 100).toFixed(1)}% (${opened['Spring B']})`);
    expect(await rowB.textContent()).toMatch(/−(29|30)\.\d points \(>99\.9% confidence\)/);
    expect(await rowB.textContent()).toMatch(/Opened less than the best by (29|30)\.\d points, with >99\.9% confidence/);
  });
});
