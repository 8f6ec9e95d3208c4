/**
 * The reputation circuit-breaker's banner in a real browser (src/console/account/PauseBanner.tsx): a project whose
 * complaint rate crosses the limit (PAUSE_MIN_SENDS=1 here; one real send — a single email to the mailbox simulator,
 * which the product records itself — and a complaint through the JSON feedback endpoint) shows the banner on every
 * console page; Resume asks for confirmation, resumes,
 * and the banner goes.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { apiCaller, startServer, type ServerProcess } from '../helpers/processes.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

let sink: SmtpSink;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let apiKey: string;

const api = apiCaller(
  () => server.url,
  () => apiKey,
);

beforeAll(async () => {
  sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-pause-'));
  server = await startServer({ DATA_DIR: dataDir, SMTP_URL: smtpUrl, LOG_LEVEL: 'error', PAUSE_MIN_SENDS: '1' });
  const login = await (
    await fetch(`${server.url}/api/login/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }),
    })
  ).json();
  apiKey = login.api_client_key ?? login.data?.api_client_key;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  await sink?.stop();
});

describe('sending paused by the circuit-breaker (e2e)', () => {
  it('shows the banner on every page with the reason, and Resume (confirmed) resumes', async () => {
    // One email the product sends and records (the events API refuses send events: issue 36 §10).
    const [persona] = (await api<{ data: Array<{ id: string }> }>('GET', '/api/senderpersonawrapper/sender_personas')).data;
    const [template] = (await api<{ data: Array<{ id: string }> }>('GET', '/api/template/templates')).data;
    await api('POST', '/api/event/emit_send_single_email_event', {
      mailer_payload: { template_id: template.id, from: { user_id: persona.id }, to: [{ email: SIMULATOR_SUCCESS_ADDRESS }] },
    });
    await expect.poll(async () => (await api<{ sends_24h: number }>('GET', '/api/scheduler/sending_status')).sends_24h, { timeout: 30_000 }).toBe(1);
    await api('POST', '/api/event/feedback', { notifications: [{ type: 'complaint', email: 'reader@example.com', feedback_type: 'abuse' }] });
    const status = await api<{ paused: boolean; reason: string }>('GET', '/api/scheduler/sending_status');
    expect(status.paused).toBe(true);

    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email').fill(DEMO_ACCOUNT.email);
    await page.getByLabel('Password').fill(DEMO_ACCOUNT.password);
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(/\/insights$/);
    const banner = page.getByTestId('pause-banner');
    await expect.poll(() => banner.textContent(), { timeout: 15_000 }).toContain('Marketing sending is paused');
    expect(await banner.textContent()).toContain(status.reason);
    // Another page shows it too.
    await page.goto(`${server.url}/components/email-blasts`);
    await expect.poll(() => banner.isVisible(), { timeout: 15_000 }).toBe(true);

    await banner.getByRole('button', { name: 'Resume sending' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resume marketing sending?' });
    await expect.poll(() => dialog.textContent()).toContain('the complaint rate 100 %');
    await dialog.getByRole('button', { name: 'Resume anyway' }).click();
    await expect.poll(() => banner.count(), { timeout: 15_000 }).toBe(0);
    expect((await api<{ paused: boolean }>('GET', '/api/scheduler/sending_status')).paused).toBe(false);
  });
});
