/**
 * Campaigns in a real browser against the built product (spec part 2 §2 Campaigns, §4 Campaign type, Forms
 * and Campaign archive, §5, §8): a blast is sent to two recipients through a real SMTP server and opened once; a
 * campaign is made on /campaigns/new (messages only after the first save, type Scheduled Email Blast / Newsletter, the
 * blast chosen through its pick list), a taken name is refused under the field; /campaigns lists it with its metrics
 * and links to its statistics; archiving it from the list runs the dialog's steps (disable the blast, archive the
 * campaign) to succeeded, toasts, takes it off the list and disables the blast; archiving a campaign that is already
 * gone says so; a workflow campaign (its workflow saved through the API) is archived through its steps — archive the
 * workflow (one DELETE, one JOB_DELETE_WORKFLOW job), wait for that job, archive the campaign; an A/B campaign whose
 * blast sent two templates is split by the toggle into one row per template, each named by its template.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, marketingTemplate, sandboxRecipients, sendBlastNow, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { MAIL_CLIENT_UA, readerDelay } from '../helpers/reader.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { displayToTree, type Display } from '../../src/domain/workflowGraph.ts';
import { expectedTemplate } from '../helpers/abSplit.ts';

const PERSONA = 'campaigns@demo-company.example.com';
const BLAST = 'Winter newsletter blast';
const CAMPAIGN = 'Winter newsletter campaign';
const FLOW = 'Winter welcome flow';
const FLOW_CAMPAIGN = 'Winter drip campaign';
const AB_CAMPAIGN = 'Winter A/B campaign';

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;
let blastId: string;
let campaignId: string;
let personaId: string;
let contactIds: string[];

type JobRow = { id: string; job_name: string; ended_at: string | null; success: boolean | null; start_details: Record<string, unknown> };

e2eHooks();
beforeAll(async () => {
  ({ sink, server, page } = await startE2E({ tag: 'campaigns', env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' }, demo: 'campaigns@example.net' }));

  // The demo account is in the sandbox: it may mail the simulator's success address and its own sender personas.
  const persona = await verifiedPersona({ email: PERSONA, first_name: 'Demo', last_name: 'Campaigns' });
  personaId = persona.id;
  const templateId = await marketingTemplate(
    'Winter letter',
    'Winter letter',
    '<html><body><p>Hi {{user.first_name}}</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>',
  );
  const contacts = await sandboxRecipients(PERSONA);
  contactIds = contacts.map((c) => c.id);
  blastId = await sendBlastNow({ name: BLAST, template_id: templateId, sender_persona_id: persona.id, to_user_ids: contactIds });
  await sink.waitFor(() => sink.messages.length >= 3, 60_000); // the persona's verification email and the two sends
  const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!;
  const pixel = /<img src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(String(mail.html))![1];
  // A person opens it (a mail client, a while after delivery), so the list's Opens, people's, counts it.
  await readerDelay(sink.messages.find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!.receivedAt, 'open');
  expect((await fetch(pixel, { headers: { 'user-agent': MAIL_CLIENT_UA } })).status).toBe(200);
});

describe('campaigns (e2e)', () => {
  it('creates a blast campaign on /campaigns/new, picking the blast through its pick list', async () => {
    await page.goto(`${server.url}/campaigns/new`);
    await page.getByRole('heading', { level: 1, name: 'New Campaign Associations' }).waitFor();
    // Messages show only after the first save attempt.
    expect(await page.getByText('Required field').count()).toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Required field').waitFor();

    await page.getByLabel('Name').fill(CAMPAIGN);
    expect(await page.getByLabel('Email blasts').count()).toBe(0);
    await page.getByLabel('Type').selectOption({ label: 'Scheduled Email Blast / Newsletter' });
    expect(await page.getByLabel('Workflows').count()).toBe(0);
    await page.getByLabel('Templates').waitFor();
    await page.getByLabel('Email blasts').fill('winter news');
    await page.getByRole('option', { name: BLAST }).click();
    await page.getByRole('button', { name: BLAST }).waitFor(); // the chosen blast's chip
    await page.getByRole('button', { name: 'Save' }).click();

    await page.getByText(`Successfully saved campaign '${CAMPAIGN}'`).waitFor();
    await page.waitForURL(/\/campaigns\/edit\/[0-9a-f-]{36}$/);
    campaignId = page.url().split('/').pop()!;
    await page.getByRole('heading', { level: 1, name: 'Edit Campaign Associations' }).waitFor();
    await page.getByText(/Changing how this campaign works means archiving it from/).waitFor();
    await page.getByRole('button', { name: BLAST }).waitFor();
    expect(await page.getByLabel('Type').inputValue()).toBe('scheduled_email_group');

    const saved = (await api('GET', `/api/campaign/campaigns?ids=${campaignId}`)).campaigns[0];
    expect(saved).toMatchObject({
      name: CAMPAIGN,
      type: 'scheduled_email_group',
      scheduled_email_blast_group_ids: [blastId],
      workflow_ids: [],
      template_ids: [],
    });
  });

  it('refuses a taken name under the name field and in a toast', async () => {
    await page.goto(`${server.url}/campaigns/new`);
    await page.getByLabel('Name').fill(CAMPAIGN.toUpperCase());
    await page.getByLabel('Type').selectOption({ label: 'Template' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('#campaign-name-helper-text')
      .getByText('A campaign with this name already exists. Please choose a different name!', { exact: true })
      .waitFor();
    await page.getByText("Couldn't save campaign: name: A campaign with this name already exists.").waitFor();
    expect(page.url()).toMatch(/\/campaigns\/new$/);
  });

  it('lists the campaign with its metrics and links to its statistics', async () => {
    await page.goto(`${server.url}/campaigns`);
    const row = page.getByRole('row').filter({ hasText: CAMPAIGN });
    await row.waitFor();
    // Name, Type, Sends, Opens, Clicks, Unsubscribes, Bounces, Failures, Added.
    const cells = (await row.getByRole('cell').allTextContents()).slice(0, 8);
    expect(cells).toEqual([CAMPAIGN, 'Scheduled Email Blast / Newsletter', '2', '1', '0', '0', '0', '0']);
    // On a 1440 px laptop the row's actions are whole and on screen, and the type reads on at most two lines ("ARCHIVE"
    // was once cut and the type wrapped over four).
    await page.setViewportSize({ width: 1440, height: 900 });
    try {
      const archive = (await row.getByRole('button', { name: `Archive ${CAMPAIGN}` }).boundingBox())!;
      expect(archive.x + archive.width).toBeLessThanOrEqual(1440);
      expect(await row.getByRole('button', { name: `Archive ${CAMPAIGN}` }).evaluate((b) => b.scrollWidth <= b.clientWidth)).toBe(true);
      expect(await row.evaluate((r) => r.closest('.MuiCard-root')!.scrollWidth <= r.closest('.MuiCard-root')!.clientWidth)).toBe(true);
      const typeLines = await row
        .getByRole('cell')
        .nth(1)
        .evaluate((c) => Math.round(c.querySelector('span')!.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight)));
      expect(typeLines).toBeLessThanOrEqual(2);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await row.getByRole('link', { name: `Stats of ${CAMPAIGN}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('campaign_id')).toBe(campaignId);
    await page.getByRole('region', { name: 'Sends', exact: true }).getByText('Unique: 2').waitFor();
  });

  it('archives the campaign from the list: disables its blast, then archives it', async () => {
    await page.goto(`${server.url}/campaigns`);
    await page.getByRole('button', { name: `Archive ${CAMPAIGN}` }).click();
    const dialog = page.getByRole('dialog', { name: `Archive campaign '${CAMPAIGN}'?` });
    const steps = dialog.getByRole('list', { name: 'Archive steps' }).getByRole('listitem');
    await dialog.waitFor();
    expect(await steps.allTextContents()).toEqual([`Disable email blast '${BLAST}': waiting`, `Archive campaign '${CAMPAIGN}': waiting`]);
    await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
    await steps.filter({ hasText: `Archive campaign '${CAMPAIGN}': succeeded` }).waitFor();
    expect(await steps.allTextContents()).toEqual([`Disable email blast '${BLAST}': succeeded`, `Archive campaign '${CAMPAIGN}': succeeded`]);
    await page.getByText('Successfully archived campaign').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByText(/^No campaigns yet/).waitFor();
    expect(await page.getByRole('row').filter({ hasText: CAMPAIGN }).count()).toBe(0);

    const blast = (await api('GET', `/api/scheduler/scheduler?ids=${blastId}`)).data[0];
    expect(blast.enabled).toBe(false);
    expect((await api('GET', `/api/campaign/campaigns?ids=${campaignId}`)).campaigns).toEqual([]);
  });

  it('says to reload when the row to archive no longer exists', async () => {
    const gone = (await api('POST', '/api/campaign/campaigns', { campaign: { name: 'Short-lived campaign', type: '' } })).campaign;
    await page.goto(`${server.url}/campaigns`);
    await page.getByRole('row').filter({ hasText: 'Short-lived campaign' }).waitFor();
    await api('DELETE', `/api/campaign/campaigns/${gone.id}`);
    await page.getByRole('button', { name: 'Archive Short-lived campaign' }).click();
    await page.getByText('an error has occurred, please reload the page and try again').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
  });
  it('archives a workflow campaign through its steps: the workflow, the wait for its JOB_DELETE_WORKFLOW job, the campaign', async () => {
    const flowId = crypto.randomUUID();
    const display: Display = {
      nodes: [
        { id: 'trigger', type: 'event', position: { x: 0, y: 0 }, properties: { eventName: 'winter_signup' } },
        { id: 'pause', type: 'delay', position: { x: 240, y: 0 }, properties: { delayMS: 1000 } },
      ],
      links: [{ id: 'trigger-pause', from: { nodeId: 'trigger', portId: 'output' }, to: { nodeId: 'pause', portId: 'input' } }],
    };
    const saved = await api<{ data: { job_log_entry_id: string } }>('POST', '/api/workflowwrapper/workflows', {
      id: flowId,
      name: FLOW,
      display,
      tree: displayToTree(display).tree,
    });
    const end = Date.now() + 60_000;
    for (;;) {
      const [entry] = (await api<{ data: JobRow[] }>('GET', `/api/joblog/joblog?ids=${saved.data.job_log_entry_id}`)).data;
      if (entry?.ended_at) {
        expect(entry.success).toBe(true);
        break;
      }
      if (Date.now() > end) throw new Error('the workflow was not saved in time');
      await new Promise((r) => setTimeout(r, 250));
    }
    const flowCampaign = (await api('POST', '/api/campaign/campaigns', { campaign: { name: FLOW_CAMPAIGN, type: 'workflow', workflow_ids: [flowId] } }))
      .campaign;

    await page.goto(`${server.url}/campaigns`);
    await page.getByRole('button', { name: `Archive ${FLOW_CAMPAIGN}` }).click();
    const dialog = page.getByRole('dialog', { name: `Archive campaign '${FLOW_CAMPAIGN}'?` });
    const steps = dialog.getByRole('list', { name: 'Archive steps' }).getByRole('listitem');
    await dialog.waitFor();
    // The steps name the workflow (looked up through listWorkflows), not its id.
    expect(await steps.allTextContents()).toEqual([
      `Archive workflow '${FLOW}': waiting`,
      `Wait for workflow '${FLOW}' to be archived: waiting`,
      `Archive campaign '${FLOW_CAMPAIGN}': waiting`,
    ]);
    await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
    await steps.filter({ hasText: `Archive campaign '${FLOW_CAMPAIGN}': succeeded` }).waitFor({ timeout: 60_000 });
    expect(await steps.allTextContents()).toEqual([
      `Archive workflow '${FLOW}': succeeded`,
      `Wait for workflow '${FLOW}' to be archived: succeeded`,
      `Archive campaign '${FLOW_CAMPAIGN}': succeeded`,
    ]);
    await page.getByText('Successfully archived campaign').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByText(/^No campaigns yet/).waitFor();

    expect((await api('GET', `/api/workflowwrapper/workflows?ids=${flowId}`)).data).toEqual([]);
    expect((await api('GET', `/api/campaign/campaigns?ids=${flowCampaign.id}`)).campaigns).toEqual([]);
    // One archive request, so one JOB_DELETE_WORKFLOW job, which ended with success.
    const deletes = (await api<{ data: JobRow[] }>('GET', '/api/joblog/joblog?limit=100')).data.filter(
      (j) => j.job_name === 'JOB_DELETE_WORKFLOW' && j.start_details.workflow_id === flowId,
    );
    expect(deletes.map((j) => [!!j.ended_at, j.success])).toEqual([[true, true]]);
  });

  it('splits an A/B campaign into one row per template it sent, each named by its template', async () => {
    const html = '<html><body><p>Hi {{user.first_name}}</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>';
    const made = (
      await api<{ data: Array<{ id: string; name: string }> }>('POST', '/api/template/templates', {
        templates: ['Winter A', 'Winter B'].map((name) => ({
          name,
          subject: name,
          type: 'TEMPLATE_MARKETING',
          html_body: html,
        })),
      })
    ).data;
    const templateA = made.find((t) => t.name === 'Winter A')!.id;
    const templateB = made.find((t) => t.name === 'Winter B')!.id;
    const weights = [
      { template_id: templateA, weight: 1 },
      { template_id: templateB, weight: 1 },
    ];
    // The sandbox mails only the simulator and the project's sender personas: the two contacts of the first blast, then
    // more personas' addresses as contacts until each template has a recipient (the pick is a hash of the contact id).
    const sends: Record<string, number> = { [templateA]: 0, [templateB]: 0 };
    const recipients: string[] = [];
    const add = (id: string) => {
      recipients.push(id);
      sends[expectedTemplate(id, weights)]++;
    };
    contactIds.forEach(add);
    while (!sends[templateA] || !sends[templateB]) {
      if (recipients.length >= 20) throw new Error('no contact was picked for one of the templates');
      const email = `split${recipients.length}@demo-company.example.com`;
      await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email, first_name: 'Split' }] });
      add((await api<{ data: Array<{ id: string }> }>('POST', '/api/user/users', { users: [{ email }] })).data[0].id);
    }
    const abBlast = crypto.randomUUID();
    await api('POST', '/api/scheduler/scheduler', {
      id: abBlast,
      name: 'Winter A/B blast',
      template_ids_with_weights: weights,
      sender_persona_id: personaId,
      to_user_ids: recipients,
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    });
    const ab = (await api('POST', '/api/campaign/campaigns', { campaign: { name: AB_CAMPAIGN, type: 'a_b_test', scheduled_email_blast_group_ids: [abBlast] } }))
      .campaign;
    const end = Date.now() + 60_000;
    for (;;) {
      const rows = (await api<{ campaigns_with_metrics: Array<{ sends: number }> }>('GET', `/api/campaign/campaign_metrics?ids=${ab.id}&split_templates=true`))
        .campaigns_with_metrics;
      if (rows.length === 2 && rows.reduce((n, r) => n + r.sends, 0) === recipients.length) break;
      if (Date.now() > end) throw new Error(`the A/B blast's sends were not counted in time: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    await page.goto(`${server.url}/campaigns`);
    const rows = page.getByRole('row').filter({ hasText: AB_CAMPAIGN });
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    // Name, Type, Sends, Opens, Clicks, Unsubscribes, Bounces, Failures.
    expect((await rows.getByRole('cell').allTextContents()).slice(0, 8)).toEqual([AB_CAMPAIGN, 'A/B Test', String(recipients.length), '0', '0', '0', '0', '0']);

    await page.getByLabel(/Split out A\/B template campaigns by template/).click();
    await expect.poll(() => page.url()).toContain('split_templates');
    await expect.poll(() => rows.count()).toBe(2);
    const cells = await Promise.all([0, 1].map(async (i) => (await rows.nth(i).getByRole('cell').allTextContents()).slice(0, 8)));
    expect(cells.sort((x, y) => x[0].localeCompare(y[0]))).toEqual([
      [`${AB_CAMPAIGN}Template: Winter A`, 'A/B Test', String(sends[templateA]), '0', '0', '0', '0', '0'],
      [`${AB_CAMPAIGN}Template: Winter B`, 'A/B Test', String(sends[templateB]), '0', '0', '0', '0', '0'],
    ]);
    // Each split row still opens its campaign's statistics.
    for (let i = 0; i < 2; i++) {
      const href = await rows
        .nth(i)
        .getByRole('link', { name: `Stats of ${AB_CAMPAIGN}` })
        .getAttribute('href');
      expect(new URL(href!, server.url).searchParams.get('campaign_id')).toBe(ab.id);
    }
  });
});
