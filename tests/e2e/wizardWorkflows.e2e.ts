/**
 * The send wizard's workflow types in a real browser against the built product (spec
 * part 2 §2 Send wizard, §3 Workflow: event, delay, delay_until and sender nodes; §4 Wizard launch; §5 Campaign):
 * - an event-triggered email: launched (campaign, workflow, its JOB_CREATE_WORKFLOW wait, the link), it mails a
 *   contact when an event of its name is posted to the public events API with the x-api-key;
 * - the workflow step made to fail (the save answered with an error): the error shows under it and the later steps
 *   are cancelled;
 * - an event-triggered drip and a drip campaign of existing segments, each of two emails one minute apart: the first
 *   email at once, the second no sooner than a minute after the event (or the launch that entered the segment);
 * - the success links open the created campaign, workflow, templates, persona, segment and /account/api.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eHooks } from '../helpers/e2e.ts';
import { sendCost } from '../../src/domain/pricing.ts';
import { formatDollars } from '../../src/console/wizard/wizardModel.ts';
import { Wizard, checkLinksOpen, createContacts, createSegment, createTemplates, createVerifiedPersona, startWorld, type WizardWorld } from './wizardFlow.ts';

const PERSONA = 'hi@flow.example.com';

let w: WizardWorld;
let wizard: Wizard;
let personaId = '';
let templates: Record<string, string> = {};
let segmentId = '';

e2eHooks();
beforeAll(async () => {
  w = await startWorld('wizflow');
  wizard = new Wizard(w.page, w.server.url);
  personaId = await createVerifiedPersona(w, PERSONA, 'Hi');
  templates = await createTemplates(w, [
    { name: 'Receipt', subject: 'Your receipt' },
    { name: 'Welcome one', subject: 'Welcome one' },
    { name: 'Welcome two', subject: 'Welcome two' },
  ]);
  const ids = await createContacts(w, ['eve@flow.test', 'fay@flow.test', 'gus@flow.test', 'hal@flow.test']);
  segmentId = await createSegment(w, 'Drip pair', ids.slice(2));
});

/** campaignNamed reads a campaign by its name through the API. */
async function campaignNamed(name: string) {
  return (await w.api('GET', `/api/campaign/campaigns?names=${encodeURIComponent(name)}`)).campaigns[0];
}

/** mailTo lists the subjects and arrival times of the emails the sink received for `email`. */
async function mailTo(email: string) {
  const parsed = await w.sink.parsed();
  return parsed.map((m, i) => ({ to: m.envelopeTo[0], subject: m.subject, at: w.sink.messages[i].receivedAt })).filter((m) => m.to === email);
}

/** eventSetup walks type, name, event name, persona and template of an event-triggered email to the review. */
async function eventSetup(name: string, event: string) {
  await wizard.open();
  await wizard.chooseType(/^Event-triggered email/);
  await wizard.next('Campaign name');
  await wizard.name(name);
  await wizard.next('Event name');
  expect(await wizard.attempt()).toBe('Required field');
  await w.page.getByLabel('Event name').fill(event);
  await wizard.next('Sender persona');
  await wizard.pick('Sender persona', 'hi', new RegExp(PERSONA));
  await wizard.next('Template');
  await wizard.pick('Template', 'receipt', 'Receipt');
  await wizard.next('Review and launch');
}

/** dripEmails fills the drip's per-email pages: both from the persona, templates one and two, the second a minute after the first. */
async function dripEmails() {
  const page = w.page;
  await wizard.at('Number of emails');
  const count = page.getByLabel('Number of emails');
  expect(await count.inputValue()).toBe('2');
  await count.fill('0');
  expect(await count.inputValue()).toBe('1'); // below 1 becomes 1
  await count.fill('2');
  await wizard.next('Sender persona of email 1');
  await wizard.pick('Sender persona', 'hi', new RegExp(PERSONA));
  await wizard.next('Sender persona of email 2');
  await wizard.pick('Sender persona', 'hi', new RegExp(PERSONA));
  await wizard.next('Template of email 1');
  await wizard.pick('Template', 'welcome one', 'Welcome one');
  await wizard.next('Template of email 2');
  await wizard.pick('Template', 'welcome two', 'Welcome two');
  await wizard.next('When to send email 1');
  expect(await page.getByLabel('Wait after the contact enters').inputValue()).toBe('0');
  await wizard.next('When to send email 2');
  const wait = page.getByLabel('Wait after the previous email');
  await wait.fill('soon');
  await page.getByText('missing delay for email 2. Using 0 delay').waitFor();
  await wait.fill('1');
  await page.getByLabel('Unit').click();
  await page.getByRole('option', { name: 'minutes' }).click();
  expect(await page.getByText('Using 0 delay').count()).toBe(0);
}

describe('send wizard: event and drip types (e2e)', () => {
  it('launches an event-triggered email that mails a contact when its event is posted', async () => {
    await eventSetup('Order receipts', 'order_placed');
    const page = w.page;
    await page.getByRole('table', { name: 'Audience and cost' }).waitFor();
    expect(await page.getByRole('row', { name: /^Price per 1,000 emails this month/ }).count()).toBe(1);
    expect(await page.getByTestId('estimated-cost').textContent()).toBe(formatDollars(sendCost(0, 1000).dollars));
    await wizard.launch();
    const links = await wizard.successLinks();
    expect(await wizard.stepStatuses()).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const campaign = await campaignNamed('Order receipts');
    expect(campaign.type).toBe('workflow');
    const [workflowId] = campaign.workflow_ids;
    const [workflow] = (await w.api('GET', `/api/workflowwrapper/workflows?ids=${workflowId}`)).data;
    expect(workflow).toMatchObject({ name: 'Order receipts', enabled: true });
    expect(workflow.root_node).toMatchObject({
      type: 'event',
      event_topic: 'order_placed',
      children: [{ type: 'sender', settings: { template_id: templates.Receipt, sender_persona_id: personaId } }],
    });

    expect((await w.api('POST', '/api/event/events', { events: [{ name: 'order_placed', email: 'eve@flow.test' }] })).stored).toBe(1);
    await w.sink.waitFor(() => w.sink.messages.length >= 1, 60_000);
    expect((await mailTo('eve@flow.test')).map((m) => m.subject)).toEqual(['Your receipt']);

    expect(links.map((l) => l.href)).toEqual([
      '/campaigns',
      `/campaigns/edit/${campaign.id}`,
      `/components/workflows/edit/${workflowId}`,
      `/components/templates/edit/${templates.Receipt}`,
      `/components/templates/new/${templates.Receipt}`,
      `/people/sender-personas/edit/${personaId}`,
      '/account/api',
    ]);
    await checkLinksOpen(page, w.server.url, links, {
      '/campaigns': { text: 'Order receipts' },
      [`/campaigns/edit/${campaign.id}`]: { input: 'Order receipts' },
      [`/components/workflows/edit/${workflowId}`]: { input: 'Order receipts' },
      [`/components/templates/edit/${templates.Receipt}`]: { input: 'Receipt' },
      [`/components/templates/new/${templates.Receipt}`]: { input: 'Copy of Receipt' },
      [`/people/sender-personas/edit/${personaId}`]: { input: PERSONA },
      '/account/api': { text: 'Integrations' },
    });
  });

  it('shows a failed workflow step’s error under it and cancels the later steps', async () => {
    const page = w.page;
    await page.route('**/api/workflowwrapper/workflows', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ errors: ['tree: refused by the test'] }) })
        : route.continue(),
    );
    try {
      await eventSetup('Broken flow', 'never_sent');
      await wizard.launch();
      const steps = page.getByRole('list', { name: 'Launch steps' });
      await steps.getByRole('listitem').filter({ hasText: 'Create the workflow: failed' }).getByText('tree: refused by the test').waitFor({ timeout: 30_000 });
      expect(await wizard.stepStatuses()).toEqual(['succeeded', 'failed', 'cancelled', 'cancelled']);
      await page.getByText('The launch stopped at a failed step and the later steps were cancelled.', { exact: false }).waitFor();
      expect(await page.getByRole('button', { name: 'Launch', exact: true }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Cancel', exact: true }).isEnabled()).toBe(true);
      // The campaign was made (its step succeeded) but never linked to a workflow.
      expect((await campaignNamed('Broken flow')).workflow_ids).toEqual([]);
    } finally {
      await page.unroute('**/api/workflowwrapper/workflows');
    }
  });

  it('launches an event-triggered drip and a drip campaign whose second emails come no sooner than a minute later', async () => {
    const page = w.page;
    w.sink.messages.length = 0;
    // Event-triggered drip: signed_up → Welcome one → 1 minute → Welcome two.
    await wizard.open();
    await wizard.chooseType(/^Event-triggered drip campaign/);
    await wizard.next('Campaign name');
    await wizard.name('Onboarding drip');
    await wizard.next('Event name');
    await page.getByLabel('Event name').fill('signed_up');
    await wizard.next('Number of emails');
    await dripEmails();
    await wizard.next('Review and launch');
    await wizard.launch();
    const eventLinks = await wizard.successLinks();
    expect(await wizard.stepStatuses()).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(eventLinks.at(-1)?.href).toBe('/account/api');
    const onboarding = await campaignNamed('Onboarding drip');
    const [flow] = (await w.api('GET', `/api/workflowwrapper/workflows?ids=${onboarding.workflow_ids[0]}`)).data;
    expect(flow.root_node).toMatchObject({
      type: 'event',
      event_topic: 'signed_up',
      children: [
        {
          type: 'sender',
          settings: { template_id: templates['Welcome one'] },
          children: [{ type: 'delay', settings: { delay_ms: 60_000 }, children: [{ type: 'sender', settings: { template_id: templates['Welcome two'] } }] }],
        },
      ],
    });
    const eventAt = Date.now();
    expect((await w.api('POST', '/api/event/events', { events: [{ name: 'signed_up', email: 'fay@flow.test' }] })).stored).toBe(1);

    // Drip campaign: the segment 'Drip pair' entered into root → Welcome one → 1 minute → Welcome two.
    await wizard.open();
    await wizard.chooseType(/^Drip campaign/);
    await wizard.next('Campaign name');
    await wizard.name('Garden drip');
    await wizard.next('Number of emails');
    await dripEmails();
    await wizard.next('Segments to enter into the drip campaign');
    expect(await wizard.attempt()).toBe('Please select one or more segments');
    await wizard.tick('segments', ['Drip pair']);
    await wizard.next('Review and launch');
    const audience = page.getByRole('table', { name: 'Audience and cost' });
    await audience.getByRole('row', { name: 'Recipients to be sent 2' }).waitFor();
    await audience.getByRole('row', { name: 'Emails this launch sends 4' }).waitFor();
    const launchAt = Date.now();
    await wizard.launch();
    const links = await wizard.successLinks();
    expect(await wizard.stepStatuses()).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const garden = await campaignNamed('Garden drip');
    const gardenFlow = garden.workflow_ids[0];
    expect(links.map((l) => l.href)).toEqual([
      '/campaigns',
      `/campaigns/edit/${garden.id}`,
      `/components/workflows/edit/${gardenFlow}`,
      `/components/templates/edit/${templates['Welcome one']}`,
      `/components/templates/new/${templates['Welcome one']}`,
      `/components/templates/edit/${templates['Welcome two']}`,
      `/components/templates/new/${templates['Welcome two']}`,
      `/people/sender-personas/edit/${personaId}`,
      `/people/segments/edit/${segmentId}`,
    ]);
    const [dripFlow] = (await w.api('GET', `/api/workflowwrapper/workflows?ids=${gardenFlow}`)).data;
    expect(dripFlow.root_node.type).toBe('root');

    // Each contact: Welcome one at once, Welcome two no sooner than a minute after it entered.
    await w.sink.waitFor(() => w.sink.messages.length >= 6, 180_000);
    const fay = await mailTo('fay@flow.test');
    expect(fay.map((m) => m.subject)).toEqual(['Welcome one', 'Welcome two']);
    expect(fay[1].at).toBeGreaterThanOrEqual(eventAt + 60_000);
    for (const email of ['gus@flow.test', 'hal@flow.test']) {
      const got = await mailTo(email);
      expect(got.map((m) => m.subject)).toEqual(['Welcome one', 'Welcome two']);
      expect(got[1].at).toBeGreaterThanOrEqual(launchAt + 60_000);
    }

    await checkLinksOpen(page, w.server.url, links, {
      '/campaigns': { text: 'Garden drip' },
      [`/campaigns/edit/${garden.id}`]: { input: 'Garden drip' },
      [`/components/workflows/edit/${gardenFlow}`]: { input: 'Garden drip' },
      [`/components/templates/edit/${templates['Welcome one']}`]: { input: 'Welcome one' },
      [`/components/templates/edit/${templates['Welcome two']}`]: { input: 'Welcome two' },
      [`/components/templates/new/${templates['Welcome one']}`]: { input: 'Copy of Welcome one' },
      [`/components/templates/new/${templates['Welcome two']}`]: { input: 'Copy of Welcome two' },
      [`/people/sender-personas/edit/${personaId}`]: { input: PERSONA },
      [`/people/segments/edit/${segmentId}`]: { input: 'Drip pair' },
    });
  });
});
