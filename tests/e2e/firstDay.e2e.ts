/**
 * A new customer's first day, as they see it in the browser on a fresh demo account (in its sandbox): the traps a
 * first walk through the product found, each shown fixed where the customer meets it — a subscribe form made in the
 * sandbox is flagged in the console and its visitors are told in plain words that sign-ups are not open, and a
 * workflow's delay reads as waiting until a date, not as done.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { demoContext, launchChromium } from '../helpers/browser.ts';
import { apiCaller, startServer, type ServerProcess } from '../helpers/processes.ts';
import { displayToTree, type DisplayNode } from '../../src/domain/workflowGraph.ts';

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: ReturnType<typeof apiCaller>;
const pageErrors: string[] = [];
const TWO_DAYS_MS = 2 * 24 * 3600 * 1000;

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-first-day-'));
  server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off' });
  browser = await launchChromium();
  const demo = await demoContext(browser, server.url, 'first.day@example.net', { width: 1280, height: 900 });
  context = demo.context;
  api = apiCaller(
    () => server.url,
    () => demo.session.api_client_key,
  );
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

/** first returns the first record of a create answer ({data: [...]} or {data: {...}}). */
const first = (answer: { data: Array<{ id: string }> | { id: string } }) => (Array.isArray(answer.data) ? answer.data[0] : answer.data);

describe('first day in the sandbox (e2e)', () => {
  it('a subscribe form made in the sandbox is flagged on its screen, and a visitor is told sign-ups are not open, in plain words', async () => {
    const persona = first(
      await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'hello@firstday.example.com', first_name: 'Hana' }] }),
    );
    const segment = first(await api('POST', '/api/segment/segments', { segments: [{ name: 'Website sign-ups', user_ids: [] }] }));
    const form = first(
      await api('POST', '/api/subscriptions/forms', {
        name: 'Footer',
        segment_id: segment.id,
        sender_persona_id: persona.id,
        heading: 'The First Day letter',
        consent_text: 'Send me the letter.',
      }),
    );
    await page.goto(`${server.url}/people/subscribe-forms`);
    const notice = page.getByTestId('forms-sandbox-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Your forms cannot take sign-ups yet');
    expect(await notice.getByRole('link', { name: 'Ask for activation on Insights' }).getAttribute('href')).toBe('/insights');

    await page.goto(`${server.url}/s/${form.id}`);
    await page.getByLabel('Email').fill('visitor@example.org');
    await page.getByRole('button').click();
    await page.getByRole('heading', { name: 'Sign-ups are not open yet' }).waitFor();
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).toContain('The First Day letter is not taking new subscribers yet. Nothing was saved; please try again in a few days.');
    expect(body).not.toMatch(/Please check|sandbox/i);
  });

  it('a contact in a two-day delay is shown waiting until a date, not done', async () => {
    const template = first(
      await api('POST', '/api/template/templates', {
        templates: [{ name: 'Day three', subject: 'Day three', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Hi</p>' }],
      }),
    );
    const [persona] = (await api<{ data: Array<{ id: string }> }>('GET', '/api/senderpersonawrapper/sender_personas?limit=1')).data;
    const node = (id: string, type: DisplayNode['type'], properties: DisplayNode['properties']): DisplayNode => ({
      id,
      type,
      position: { x: 0, y: 0 },
      properties,
    });
    const display = {
      nodes: [
        node('t', 'event', { eventName: 'trial_started' }),
        node('d', 'delay', { delayMS: TWO_DAYS_MS }),
        node('s', 'sender', { templateId: template.id, senderPersonaId: persona.id }),
      ],
      links: [
        { id: 't-d', from: { nodeId: 't', portId: 'output' }, to: { nodeId: 'd', portId: 'input' } },
        { id: 'd-s', from: { nodeId: 'd', portId: 'output' }, to: { nodeId: 's', portId: 'input' } },
      ],
    };
    await api('POST', '/api/workflowwrapper/workflows', { id: randomUUID(), name: 'Trial follow-up', display, tree: displayToTree(display).tree });
    const contact = first(await api('POST', '/api/user/users', { users: [{ email: 'trial@firstday.example.com', first_name: 'Tia' }] }));
    const entered = Date.now();
    // The workflow is saved by a job: emit until a run exists.
    const deadline = Date.now() + 30_000;
    for (;;) {
      await api('POST', '/api/event/events', { events: [{ name: 'trial_started', email: 'trial@firstday.example.com' }] });
      const runs = await api<{ data: unknown[] }>('GET', `/api/workflowwrapper/runs?contact_id=${contact.id}`);
      if (runs.data.length) break;
      if (Date.now() > deadline) throw new Error('the contact never entered the workflow');
      await new Promise((r) => setTimeout(r, 1000));
    }
    await page.goto(`${server.url}/people/users/edit/${contact.id}`);
    const run = page.getByRole('article', { name: 'Run of trial@firstday.example.com through Trial follow-up' });
    await run.waitFor();
    const delay = run.getByRole('row').filter({ hasText: /^Delay/ });
    await delay.waitFor();
    const cells = await delay.getByRole('cell').allTextContents();
    expect(cells[1]).toBe('waiting');
    const until = new Date(entered + TWO_DAYS_MS);
    // The date as the browser's own language writes it.
    const day = await page.evaluate((ms) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(ms)), until.getTime());
    expect(cells[4]).toMatch(new RegExp(`^waiting until ${day.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, `));
    expect(cells.join(' ')).not.toMatch(/ ms\b|\d{4}-\d\d-\d\dT/);
    expect(pageErrors).toEqual([]);
  });
});
