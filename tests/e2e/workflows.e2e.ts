/**
 * Workflows in a real browser against the built product (spec part 2 §2 Workflows, §4 Workflow
 * save and graph rules, §5 Workflow): in the editor at /components/workflows/new a workflow event trigger
 * 'signed_up' → Delay 2 seconds → Filter (email contains 'a') → Send is built from the toolbar, the settings modals,
 * a link dragged on the canvas and the modals' "Next node" selects; it is saved (the page lands on its edit route
 * once the save job has ended). 'signed_up' events posted through the public events API for three contacts, two of
 * whose addresses contain 'a', reach a real SMTP server as two emails, each no sooner than 2 s after its event; the
 * Runs panel shows each contact's path (match / no match) and the contact page its run. Also: the graph rules in the
 * UI (one trigger; no link into the trigger or to the node itself), the validation messages, Run segment (disabled
 * while there are unsaved changes; the spec's toast, the count in the modal), and the list's disable and archive.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Locator, type Page } from 'playwright-core';
import { api, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';

const OWNER = { email: 'ops@flows.example.com', password: 'flows-password-1' };
const PERSONA = 'hello@flows.example.com';
const TEMPLATE = 'Welcome letter';
const WORKFLOW = 'Welcome flow';
// Two addresses contain an 'a', one does not (the filter is contact_email contains 'a').
const MATCHING = ['ann@mail.test', 'carla@web.test'];
const NOT_MATCHING = 'bob@film.test';

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;
let workflowId: string;
const contactIds: Record<string, string> = {};

e2eHooks();
beforeAll(async () => {
  ({ sink, server, page } = await startE2E({
    tag: 'workflows',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' },
    owner: { company: 'Flow Co', project: 'flows', ...OWNER },
    viewport: { width: 1400, height: 1000 },
  }));
  await verifiedPersona({ email: PERSONA, first_name: 'Hello', last_name: 'Flows' });
  sink.messages.length = 0; // from here on the sink holds the workflow's emails only
  await api('POST', '/api/template/templates', {
    templates: [
      {
        name: TEMPLATE,
        subject: 'Welcome aboard',
        type: 'TEMPLATE_TRANSACTIONAL',
        html_body: '<p>Hi {{user.email}}, thanks for {{event.name}}.</p>',
      },
    ],
  });
  const contacts = (
    await api<{ data: Array<{ id: string; email: string }> }>('POST', '/api/user/users', {
      users: [...MATCHING, NOT_MATCHING].map((email) => ({ email })),
    })
  ).data;
  for (const c of contacts) contactIds[c.email] = c.id;
});

/** dialog returns the open settings modal of a node, e.g. 'Delay settings'. */
const dialog = (name: string) => page.getByRole('dialog', { name });

/** pick chooses `option` in a pick list (an Autocomplete) labelled `label` inside `scope`, typing `text` first. */
async function pick(scope: Locator, label: string, text: string, option: string | RegExp) {
  await scope.getByLabel(label, { exact: true }).fill(text);
  await page.getByRole('option', { name: option }).click();
}

/** nodeOnCanvas is the canvas element of the node of `type` (its data-node-type). */
const nodeOnCanvas = (type: string) => page.locator(`[data-testid="workflow-canvas"] g.joint-element[data-node-type="${type}"]`);

/** dragLink drags from the output port of `from` to the middle of the left edge of `to` (its input port). */
async function dragLink(from: Locator, portId: string, to: Locator) {
  const port = await from.locator(`[port="${portId}"]`).last().boundingBox();
  const target = await to.boundingBox();
  if (!port || !target) throw new Error('the canvas did not draw the nodes');
  await page.mouse.move(port.x + port.width / 2, port.y + port.height / 2);
  await page.mouse.down();
  await page.mouse.move(target.x + 20, target.y + target.height / 2, { steps: 12 });
  await page.mouse.move(target.x + 2, target.y + target.height / 2, { steps: 4 });
  await page.mouse.up();
}

/** nodeRow is the node's line in the editor's Nodes list (title: summary, then its links). */
const nodeRow = (title: string) =>
  page
    .getByRole('list', { name: 'Workflow nodes' })
    .getByRole('listitem')
    .filter({ hasText: new RegExp(`^${title}:`) });

describe('workflows (e2e)', () => {
  it('shows an empty list that points to the send wizard, and says when a workflow cannot be loaded', async () => {
    await page.goto(`${server.url}/components/workflows`);
    await page.getByText(/^No workflows yet/).waitFor();
    expect(await page.getByRole('link', { name: 'Open the send wizard' }).getAttribute('href')).toBe('/email-send-wizard');

    const missing = '00000000-0000-4000-8000-000000000000';
    await page.goto(`${server.url}/components/workflows/edit/${missing}`);
    await page.getByText(`an error occurred while loading your workflow: no workflow with id ${missing}`).waitFor();
  });

  it('refuses a workflow without a name or a trigger, a second trigger and links into the trigger or to itself', async () => {
    await page.goto(`${server.url}/components/workflows/new`);
    await page.getByRole('heading', { level: 1, name: 'New Workflow' }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#workflow-name-helper-text').getByText('You must provide a workflow name', { exact: true }).waitFor();

    // A workflow without a trigger does not pass validation.
    await page.getByLabel('Name').fill('No trigger');
    await page.getByRole('navigation', { name: 'Node toolbar' }).getByRole('button', { name: 'Delay', exact: true }).click();
    await dialog('Delay settings').getByRole('button', { name: 'OK' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const problems = page.getByRole('alert', { name: 'Save problems' });
    await problems.getByText('Workflow ‘No trigger’ failed workflow validation').waitFor();
    await problems.getByText('Please add a trigger node to the workflow').waitFor();
    expect(page.url()).toMatch(/\/components\/workflows\/new$/);

    // One trigger: its toolbar item is disabled once the graph has one.
    const toolbar = page.getByRole('navigation', { name: 'Node toolbar' });
    await toolbar.getByRole('button', { name: 'Event trigger' }).click();
    const trigger = dialog('Event trigger settings');
    expect(await trigger.getByRole('button', { name: 'OK' }).isDisabled()).toBe(true); // no event name yet
    await trigger.getByText('event name: Required field').waitFor();
    // Opens and clicks count people unless machines are included; other events offer no such choice.
    await trigger.getByLabel('Event name').fill('ses_event_open');
    const machines = trigger.getByLabel('Include machine opens and bot clicks (mail privacy proxies, link scanners)');
    expect(await machines.isChecked()).toBe(false);
    await trigger.getByLabel('Event name').fill('tried');
    expect(await machines.count()).toBe(0);
    await trigger.getByRole('button', { name: 'OK' }).click();
    expect(await toolbar.getByRole('button', { name: 'Event trigger' }).isDisabled()).toBe(true);
    await toolbar.getByText('A workflow has one trigger node, and this one already has it.').waitFor();

    // Nothing links into the trigger (it has no input port) nor from a node to itself, by drag or by the modal.
    expect(await nodeOnCanvas('event').locator('[port="input"]').count()).toBe(0);
    await dragLink(nodeOnCanvas('delay'), 'output', nodeOnCanvas('event'));
    await dragLink(nodeOnCanvas('delay'), 'output', nodeOnCanvas('delay'));
    await nodeRow('Delay').getByRole('button', { name: 'Settings of Delay' }).click();
    const choices = await dialog('Delay settings').getByLabel('Next node').locator('option').allTextContents();
    expect(choices).toEqual(['(none: the contact’s path ends here)']);
    await dialog('Delay settings').getByRole('button', { name: 'Cancel' }).click();

    // The same drag from the trigger's output to the delay's input is drawn and listed; the refused ones never were.
    // (The delay came first, so the trigger, added while the delay was selected, could not follow it.)
    await dragLink(nodeOnCanvas('event'), 'output', nodeOnCanvas('delay'));
    await nodeRow('Event trigger').getByText('→ Delay').waitFor();
    expect(await page.locator('[data-testid="workflow-canvas"] g.joint-link').count()).toBe(1);
    expect(await nodeRow('Delay').textContent()).not.toContain('→');

    // The settings icon on the canvas toggles the node's selection.
    await nodeOnCanvas('delay').locator('[joint-selector="settings"]').click();
    await expect.poll(() => nodeRow('Delay').getAttribute('aria-current')).toBe('true');
    await nodeOnCanvas('delay').locator('[joint-selector="settings"]').click();
    await expect.poll(() => nodeRow('Delay').getAttribute('aria-current')).toBeNull();

    // With nothing selected a new node stands alone; saving names it by its title and marks it on the canvas.
    await toolbar.getByRole('button', { name: 'Unsubscribe' }).click();
    await dialog('Unsubscribe settings').getByRole('button', { name: 'OK' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await problems.getByText('Unsubscribe is not connected to the trigger; connect it or delete it').waitFor();
    expect(await problems.textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/); // no raw ids
    await expect.poll(() => nodeOnCanvas('unsubscriber').getAttribute('data-problem')).toBe('true');
    expect(await nodeOnCanvas('delay').getAttribute('data-problem')).toBeNull();
    expect(await nodeRow('Unsubscribe').getAttribute('data-problem')).toBe('true');
  });

  it('builds event → delay 2 s → filter → send in the editor and saves it', async () => {
    await page.goto(`${server.url}/components/workflows/new`);
    await page.getByRole('heading', { level: 1, name: 'New Workflow' }).waitFor();
    await page.getByLabel('Name').fill(WORKFLOW);
    const toolbar = page.getByRole('navigation', { name: 'Node toolbar' });
    for (const group of ['Triggers', 'Flow Control', 'Actions']) await toolbar.getByRole('heading', { name: group }).waitFor();
    expect(await toolbar.getByRole('button').allTextContents()).toEqual([
      'Event trigger',
      'Delay',
      'Delay until',
      'Filter',
      'Segmentation',
      'Update metadata',
      'Unsubscribe',
      'To workflow',
      'Send',
    ]);

    await toolbar.getByRole('button', { name: 'Event trigger' }).click();
    await dialog('Event trigger settings').getByLabel('Event name').fill('signed_up');
    await dialog('Event trigger settings').getByRole('button', { name: 'OK' }).click();

    await toolbar.getByRole('button', { name: 'Delay', exact: true }).click();
    const delay = dialog('Delay settings');
    expect(await delay.getByLabel('Wait').inputValue()).toBe('1'); // the default: 1 second
    expect(await delay.getByLabel('Unit').inputValue()).toBe('seconds');
    await delay.getByLabel('Wait').fill('2');
    await delay.getByRole('button', { name: 'OK' }).click();

    await toolbar.getByRole('button', { name: 'Filter', exact: true }).click();
    const filter = dialog('Filter settings');
    await filter.getByRole('combobox', { name: 'Filter 1' }).click();
    await page.getByRole('option', { name: 'Email', exact: true }).click();
    await filter.getByRole('combobox', { name: 'Operator' }).click();
    await page.getByRole('option', { name: 'contains', exact: true }).click();
    await filter.getByLabel('Value').first().fill('a');
    await filter.getByRole('button', { name: 'OK' }).click();

    await toolbar.getByRole('button', { name: 'Send', exact: true }).click();
    const send = dialog('Send settings');
    expect(await send.getByRole('button', { name: 'OK' }).isDisabled()).toBe(true);
    await pick(send, 'Template', 'welcome', TEMPLATE);
    await pick(send, 'Sender persona', 'hello', new RegExp(PERSONA));
    await send.getByRole('button', { name: 'OK' }).click();

    // Links: each node added followed the selected one (the one added before it; a filter's first free output is
    // 'match'), as the modals' "Next node" selects show.
    await nodeRow('Event trigger').getByText('→ Delay').waitFor();
    await nodeRow('Delay').getByRole('button', { name: 'Settings of Delay' }).click();
    expect(await dialog('Delay settings').getByLabel('Next node').locator('option:checked').textContent()).toBe('Filter: email contains a');
    await dialog('Delay settings').getByRole('button', { name: 'Cancel' }).click();
    await nodeRow('Filter').getByText(`match → Send`).waitFor();
    // The Send node is named by its template on the canvas, not by an id's tail.
    await expect.poll(() => nodeOnCanvas('sender').textContent()).toContain(TEMPLATE.slice(0, 10));
    expect(await page.locator('[data-testid="workflow-canvas"] g.joint-link').count()).toBe(3);
    expect(await page.locator('[data-testid="workflow-canvas"] g.joint-element').filter({ hasText: 'no match' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/components\/workflows\/edit\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    workflowId = page.url().split('/').pop()!;
    await page.getByText(`Successfully saved workflow ‘${WORKFLOW}’`).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Edit Workflow' }).waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe(WORKFLOW);
    await nodeRow('Filter').getByText(`match → Send`).waitFor(); // drawn again from the saved display
    // The Send node is named by its template after the save too, not by an id's tail.
    await expect.poll(() => nodeOnCanvas('sender').textContent()).toContain(TEMPLATE.slice(0, 10));
    expect(await nodeOnCanvas('sender').textContent()).not.toMatch(/…[0-9a-f]{6}/);

    const saved = (await api('GET', `/api/workflowwrapper/workflows?ids=${workflowId}`)).data[0];
    expect(saved.enabled).toBe(true);
    const types = new Map<string, string>(saved.display.nodes.map((n: { id: string; type: string }) => [n.id, n.type]));
    expect(
      saved.display.links
        .map(
          (l: { from: { nodeId: string; portId: string }; to: { nodeId: string; portId: string } }) =>
            `${types.get(l.from.nodeId)}.${l.from.portId} → ${types.get(l.to.nodeId)}.${l.to.portId}`,
        )
        .sort(),
    ).toEqual(['delay.output → splitter.input', 'event.output → delay.input', 'splitter.output1 → sender.input']);
    expect(saved.root_node).toMatchObject({
      type: 'event',
      event_topic: 'signed_up',
      children: [
        {
          type: 'delay',
          settings: { delay_ms: 2000 },
          children: [
            {
              type: 'splitter',
              settings: { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }] },
              children: [{ type: 'sender', port: 'output1' }],
            },
          ],
        },
      ],
    });
  });

  it('mails only the contacts whose address contains an a, each no sooner than 2 s after its event', async () => {
    for (const email of [...MATCHING, NOT_MATCHING]) {
      const res = await api<{ stored: number }>('POST', '/api/event/events', { events: [{ name: 'signed_up', email }] });
      expect(res.stored).toBe(1);
    }
    await sink.waitFor(() => sink.messages.length >= 2, 60_000);
    const runs = async () =>
      (await api<{ data: Array<{ email: string; status: string; created_at: string }> }>('GET', `/api/workflowwrapper/workflows/${workflowId}/runs?limit=10`))
        .data;
    const end = Date.now() + 60_000;
    while ((await runs()).filter((r) => r.status === 'completed').length < 3) {
      if (Date.now() > end) throw new Error(`the runs did not complete: ${JSON.stringify(await runs())}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const entered = new Map((await runs()).map((r) => [r.email, Date.parse(r.created_at)]));
    expect([...entered.keys()].sort()).toEqual([...MATCHING, NOT_MATCHING].sort());
    expect(sink.messages.map((m) => m.envelopeTo.join(',')).sort()).toEqual([...MATCHING].sort());
    for (const m of sink.messages) {
      const to = m.envelopeTo[0];
      expect(m.receivedAt - entered.get(to)!, `the email to ${to} came too soon after its event`).toBeGreaterThanOrEqual(2000);
    }
    const parsed = await sink.parsed();
    expect(parsed.map((m) => m.subject)).toEqual(['Welcome aboard', 'Welcome aboard']);
    expect(String(parsed[0].html)).toContain('thanks for signed_up');
  });

  it('shows each contact’s path in the Runs panel and on the contact page', async () => {
    await page.getByRole('region', { name: 'Runs' }).getByRole('button', { name: 'Refresh' }).click();
    const run = (email: string) => page.getByRole('article', { name: `Run of ${email} through ${WORKFLOW}` });
    for (const email of MATCHING) {
      await run(email).waitFor();
      const outcomes = await run(email).getByRole('row').allTextContents();
      expect(outcomes.some((t) => t.startsWith('Filter') && t.endsWith('match') && !t.endsWith('no match'))).toBe(true);
      expect(outcomes.some((t) => t.startsWith('Send') && t.includes('queued email'))).toBe(true);
      // The 2 s delay is over by now: it reads as waited until a date in the browser's locale, not as milliseconds.
      expect(outcomes.some((t) => t.startsWith('Delay') && /waited until [A-Z][a-z]{2} \d{1,2}, \d{4}/.test(t))).toBe(true);
    }
    const bob = await run(NOT_MATCHING).getByRole('row').allTextContents();
    expect(bob.some((t) => t.startsWith('Filter') && t.endsWith('no match'))).toBe(true);
    expect(bob.some((t) => t.startsWith('Send'))).toBe(false);

    await page.goto(`${server.url}/people/users/edit/${contactIds[MATCHING[0]]}`);
    const section = page.getByRole('region', { name: 'Workflows' });
    const contactRun = section.getByRole('article', { name: `Run of ${MATCHING[0]} through ${WORKFLOW}` });
    await contactRun.waitFor();
    expect((await contactRun.getByRole('row').allTextContents()).some((t) => t.startsWith('Send') && t.includes('queued email'))).toBe(true);
    await contactRun.getByRole('link', { name: WORKFLOW }).click();
    await page.waitForURL(new RegExp(`/components/workflows/edit/${workflowId}$`));
    await page.getByRole('heading', { level: 1, name: 'Edit Workflow' }).waitFor();
  });

  it('runs a segment through the saved workflow from the Run segment modal, not while there are unsaved changes', async () => {
    await api('POST', '/api/segment/segments', { segments: [{ name: 'Film people', user_ids: [contactIds[NOT_MATCHING]] }] });
    const runSegment = page.getByRole('button', { name: 'Run segment' });
    // An unsaved change disables it, with the reason; undoing the change enables it again.
    await page.getByLabel('Name').fill(`${WORKFLOW} (renamed)`);
    await expect.poll(() => runSegment.isDisabled()).toBe(true);
    await page.getByText('Save your changes before running a segment: the saved workflow is the one that runs.').waitFor();
    await page.getByLabel('Name').fill(WORKFLOW);
    await expect.poll(() => runSegment.isEnabled()).toBe(true);
    expect(await page.getByText('Save your changes before running a segment').count()).toBe(0);
    // On an event-triggered workflow the page says what Run segment does without the event.
    await page.getByText('This workflow starts when a contact has the event ‘signed_up’. Run segment sends a segment’s contacts through it now').waitFor();

    await runSegment.click();
    const modal = page.getByRole('dialog', { name: 'Run segment' });
    await modal.getByRole('button', { name: 'Submit' }).click();
    await modal.getByText('Please select a segment!').waitFor();
    await pick(modal, 'Segment', 'film', 'Film people');
    await modal.getByRole('button', { name: 'Submit' }).click();
    // The toast says exactly the spec's words (part 2 §8); the modal says how many contacts entered.
    await page.getByText('Segment submitted successfully', { exact: true }).waitFor();
    await modal.getByRole('status').getByText('1 contact entered the workflow.', { exact: true }).waitFor();
    expect(await modal.getByRole('button', { name: 'Submit' }).count()).toBe(0);
    await modal.getByRole('button', { name: 'Close' }).click();
    await modal.waitFor({ state: 'detached' });
    const end = Date.now() + 30_000;
    for (;;) {
      const runs = (await api<{ data: Array<{ email: string }> }>('GET', `/api/workflowwrapper/workflows/${workflowId}/runs?limit=10`)).data;
      if (runs.filter((r) => r.email === NOT_MATCHING).length === 2) break;
      if (Date.now() > end) throw new Error('the segment did not enter the workflow');
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  it('disables the workflow from the list, enables it by saving it again, and archives it', async () => {
    await page.goto(`${server.url}/components/workflows`);
    const row = page.getByRole('row').filter({ hasText: WORKFLOW });
    await row.waitFor();
    await row.getByRole('button', { name: `Disable ${WORKFLOW}` }).click();
    const disable = page.getByRole('dialog', { name: `Disable workflow ‘${WORKFLOW}’?` });
    await disable.getByText(/edit the workflow and remove the links from its root \(trigger\) node/).waitFor();
    await disable.getByRole('button', { name: 'Disable now' }).click();
    await page.getByText('Successfully disabled workflow').waitFor();
    await row.getByRole('button', { name: `Disable ${WORKFLOW}` }).waitFor({ state: 'detached' });
    expect((await api('GET', `/api/workflowwrapper/workflows?ids=${workflowId}`)).data[0].enabled).toBe(false);

    // Saving it again in the editor enables it (a save of an existing workflow waits on its new job, not the first).
    await row.getByRole('link', { name: 'Edit' }).click();
    await page.getByText('This workflow is disabled: it takes no new contacts. Saving it enables it again.').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`Successfully saved workflow ‘${WORKFLOW}’`).waitFor({ timeout: 60_000 });
    expect(await page.getByText('This workflow is disabled').count()).toBe(0);
    expect((await api('GET', `/api/workflowwrapper/workflows?ids=${workflowId}`)).data[0].enabled).toBe(true);
    await page.goto(`${server.url}/components/workflows`);
    await row.getByRole('button', { name: `Disable ${WORKFLOW}` }).waitFor();

    await row.getByRole('button', { name: `Archive ${WORKFLOW}` }).click();
    const archive = page.getByRole('dialog', { name: `Archive workflow ‘${WORKFLOW}’?` });
    await archive.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('Successfully archived workflow').waitFor({ timeout: 60_000 });
    await page.getByText(/^No workflows yet/).waitFor();
    expect((await api('GET', `/api/workflowwrapper/workflows?ids=${workflowId}`)).data).toEqual([]);
    const jobs = (
      await api<{ data: Array<{ job_name: string; ended_at: string | null; start_details: { workflow_id?: string } }> }>('GET', '/api/joblog/joblog?limit=100')
    ).data;
    expect(jobs.some((j) => j.job_name === 'JOB_DELETE_WORKFLOW' && j.ended_at && j.start_details.workflow_id === workflowId)).toBe(true);
  });
});
