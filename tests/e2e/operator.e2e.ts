/**
 * Activation the customer sees: a new customer asks for activation from the console's
 * checklist (expected volume, sending domain, use case); an operator signs in at /operator, finds the company by its
 * admin's email, reads the request and activates it; the customer's console, open all along, drops "(sandbox)" within
 * 30 s without a new sign-in and shows the notice and "Send your first campaign"; the admin got the email; the audit
 * log shows the action. Operator and customer are apart: two browser contexts, two cookies.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signInWithForm } from '../helpers/e2e.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import { axeProblems } from '../helpers/axe.ts';

let server: ServerProcess;
let browser: Browser;
let sink: SmtpSink;
let customer: Page;
let operator: Page;
let env: NodeJS.ProcessEnv;
const stamp = Date.now();
const admin = { email: `owner-${stamp}@harbor.example.com`, password: 'harbor-passw0rd' };
const ops = { email: `ops-${stamp}@mailwright.example.com`, password: 'operator-passw0rd' };

beforeAll(async () => {
  sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-e2e-operator-'));
  env = { DATA_DIR: dataDir, SMTP_URL: smtpUrl, LOG_LEVEL: 'error', DEMO_RESET_CRON: 'off' };
  server = await startServer(env);
  // Both commands reach the running server (it holds the PGlite folder).
  await runTs('src/server/admin.ts', ['create-operator', '--email', ops.email, '--password', ops.password], env);
  await runTs(
    'src/server/admin.ts',
    [
      'create-account',
      '--company',
      `Harbor Goods ${stamp}`,
      '--project',
      'Main project',
      '--email',
      admin.email,
      '--password',
      admin.password,
      '--first-name',
      'Hana',
    ],
    env,
  );
  browser = await launchChromium();
  customer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  operator = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  await sink?.stop();
});

describe('operator activation (e2e)', () => {
  it('the customer requests activation from the checklist, in the console', async () => {
    await signInWithForm(customer, server.url, admin);
    await customer.getByText(`Harbor Goods ${stamp} / Main project (sandbox)`).waitFor();
    await customer.getByTestId('activation-support_email').getByRole('button', { name: 'Request activation' }).click();
    const dialog = customer.getByRole('dialog', { name: 'Request activation' });
    await dialog.getByLabel('Expected emails a month').fill('40,000');
    await dialog.getByLabel('Sending domain').fill('not a domain');
    await dialog.getByLabel('What you send, to whom, and how you got the addresses').fill('Order updates and a monthly newsletter to customers who opted in.');
    await dialog.getByRole('button', { name: 'Send request' }).click();
    await dialog.getByText('Invalid domain name').waitFor(); // the server's field error, under its field
    await dialog.getByLabel('Sending domain').fill('mail.harbor.example.com');
    await dialog.getByRole('button', { name: 'Send request' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => customer.getByTestId('activation-support_email').getAttribute('data-done')).toBe('true');
    expect(await customer.getByTestId('activation-next').textContent()).toMatch(/you will get an email and a notice here when your account is active/);
  });

  it('an operator signs in, finds the company by its admin email, reads the request and activates it', async () => {
    await operator.goto(`${server.url}/operator`);
    await operator.waitForURL(/\/operator\/login$/); // no operator session: the sign-in page
    await operator.getByLabel('Email').fill(ops.email);
    await operator.getByLabel('Password').fill(ops.password);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator.getByRole('tab', { name: 'Companies and projects' }).waitFor();
    await operator.getByRole('searchbox', { name: 'Search company, project or admin email' }).fill(admin.email);
    const link = operator.getByRole('link', { name: `Harbor Goods ${stamp} / Main project` });
    await expect.poll(() => operator.getByRole('table', { name: 'Projects' }).getByRole('row').count()).toBe(2); // header + the one match
    expect(await operator.getByRole('table', { name: 'Projects' }).textContent()).toContain('Activation requested');
    await link.click();
    await operator.getByRole('heading', { name: `Harbor Goods ${stamp} / Main project` }).waitFor();
    const request = operator.getByTestId('operator-message').first();
    expect(await request.textContent()).toContain('Expected monthly volume: 40,000');
    expect(await request.textContent()).toContain('mail.harbor.example.com');
    expect(await request.textContent()).toContain('Order updates and a monthly newsletter');
    expect(await axeProblems(operator)).toEqual([]); // no serious or critical accessibility finding on the project page
    await operator.getByRole('button', { name: 'Activate' }).click();
    await operator.getByRole('button', { name: 'Return to sandbox' }).waitFor();
    const entry = operator.getByTestId('audit-entry').first();
    await entry.waitFor();
    expect(await entry.textContent()).toContain(ops.email);
    expect(await entry.textContent()).toContain('activate');
    expect(await entry.textContent()).toContain('not_in_sandbox: false → true');
  });

  it("the customer's open console drops (sandbox) within 30 s, shows the notice and offers the first campaign; the admin got the email", async () => {
    await customer.getByText(`Harbor Goods ${stamp} / Main project`, { exact: true }).waitFor({ timeout: 30_000 });
    expect(await customer.getByText('(sandbox)').count()).toBe(0);
    await customer.getByText('Your account is active: you can now send to anyone').waitFor({ timeout: 30_000 });
    await customer.getByTestId('account-active').getByRole('link', { name: 'Send your first campaign' }).waitFor();
    await sink.waitFor(() => sink.messages.some((m) => m.envelopeTo.includes(admin.email)));
    const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(admin.email))!;
    expect(mail.subject).toBe('Your Mailwright account is active');
    expect(mail.text).toContain('Hello Hana,');
  });

  it('the whole audit log lists the action too; a customer cannot open the back-office with their session', async () => {
    await operator.getByRole('link', { name: 'Mailwright operators' }).click();
    await operator.getByRole('tab', { name: 'Audit log' }).click();
    const rows = operator.getByRole('table', { name: 'Audit log' });
    await rows.waitFor();
    expect(await rows.textContent()).toContain('activate');
    await operator.setViewportSize({ width: 390, height: 844 }); // a phone: the table scrolls inside its paper, the page does not
    expect(await operator.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await axeProblems(operator)).toEqual([]);
    await customer.goto(`${server.url}/operator`);
    await customer.waitForURL(/\/operator\/login$/);
  });
});
