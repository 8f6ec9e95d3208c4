/**
 * Transactional sending in a real browser against the built product, with SMTP submission on: Account → SMTP shows
 * the connection (host, the STARTTLS port, the TLS port off), makes a credential whose password is shown once — it
 * signs in to the real submission server, and after a reload it is nowhere on the page — switches a stream's tracking,
 * and revokes the credential, which then no longer signs in. Messages lists emails sent through POST /api/email and
 * SMTP, a recipient search leaves only that recipient's message, and its page shows its timeline (queued, then sent
 * with the relay's answer) beside its stored copy (the HTML in a sandboxed frame, the text part), the way back keeping
 * the search; Load more pages on past the newest 50. At 390 px the list is cards and the pages do not scroll sideways;
 * axe finds nothing serious on them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import nodemailer from 'nodemailer';
import { api, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import { freePort, type ServerProcess } from '../helpers/processes.ts';
import { axeProblems } from '../helpers/axe.ts';

const OWNER = { email: 'dev@shop.example.com', password: 'shop-password-1' };
const PERSONA = 'orders@shop.example.com';
const CREDENTIAL = 'Shop backend';

interface Message {
  id: string;
  email: string;
  status: string;
  message_id: string;
  subject: string | null;
}
interface Detail extends Message {
  timeline: Array<{ type: string; detail: string; relay?: string | null }>;
}

let server: ServerProcess;
let page: Page;
let submissionPort: number;

e2eHooks();
beforeAll(async () => {
  submissionPort = await freePort();
  ({ server, page } = await startE2E({
    tag: 'transactional',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off', SUBMISSION_PORT: String(submissionPort), SUBMISSION_HOST: '127.0.0.1' },
    owner: { company: 'Shop Co', project: 'shop', ...OWNER },
    viewport: { width: 1280, height: 900 },
  }));
  await verifiedPersona({ email: PERSONA, first_name: 'Shop', last_name: 'Orders' });
});

/** submit sends one message through the submission server signed in as `user`; resolves to the server's answer, rejects on a refusal. */
async function submit(user: string, pass: string, to: string, subject: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: submissionPort, secure: false, ignoreTLS: true, auth: { user, pass } });
  try {
    return (await transport.sendMail({ from: `Shop <${PERSONA}>`, to, subject, text: `${subject}, sent over SMTP.` })).response;
  } finally {
    transport.close();
  }
}

/** sentMessages waits until every message of the project is sent (at least `count` of them) and returns them, newest first. */
async function sentMessages(count: number): Promise<Message[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const { data } = await api<{ data: Message[] }>('GET', '/api/messages');
    if (data.length >= count && data.every((m) => m.status === 'sent')) return data;
    if (Date.now() > end) throw new Error(`messages not sent: ${JSON.stringify(data.map((m) => [m.email, m.status]))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** noSidewaysScroll: the document is no wider than the window. */
function noSidewaysScroll(): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('Account → SMTP', () => {
  it('shows how to connect, makes a credential whose password is shown once and works, and switches a stream’s tracking', async () => {
    await page.goto(`${server.url}/account/smtp`);
    await page.getByRole('heading', { name: 'SMTP', level: 1 }).waitFor();
    await page.getByText('No SMTP credentials yet').waitFor();
    const { host } = await api<{ host: string }>('GET', '/api/email/smtp_credentials');
    expect(await page.getByRole('textbox', { name: 'Host' }).inputValue()).toBe(host);
    await page.getByText(`${submissionPort}, STARTTLS`).waitFor();
    await page.getByText('off on this install').waitFor();
    await page.getByText('AUTH PLAIN or LOGIN', { exact: false }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Django (settings.py)' }).inputValue()).toContain(`EMAIL_PORT = ${submissionPort}`);

    // The streams: transactional untracked, broadcast tracked; switching broadcast's off is saved.
    const broadcast = page.getByRole('switch', { name: 'Track opens and clicks on broadcast' });
    expect(await page.getByRole('switch', { name: 'Track opens and clicks on transactional' }).isChecked()).toBe(false);
    expect(await broadcast.isChecked()).toBe(true);
    await broadcast.click();
    await page.getByText('Opens and clicks are no longer tracked on broadcast').waitFor();
    const streams = (await api<{ data: Array<{ name: string; tracking: boolean }> }>('GET', '/api/email/streams')).data;
    expect(streams.find((s) => s.name === 'broadcast')?.tracking).toBe(false);
    await broadcast.click();
    await page.getByText('Opens and clicks are tracked on broadcast').waitFor();

    await page.getByRole('textbox', { name: /^Name/ }).fill(CREDENTIAL);
    await page.getByLabel('Message stream', { exact: true }).selectOption('transactional');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const card = page.getByTestId(`credential-${CREDENTIAL}`);
    await card.getByText('Copy the password now: it is not shown again').waitFor();
    const password = await card.getByRole('textbox', { name: 'Password' }).inputValue();
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await card.getByRole('button', { name: 'Copy password' }).waitFor();
    const [credential] = (await api<{ data: Array<{ username: string; last_used_at: string | null }> }>('GET', '/api/email/smtp_credentials')).data;
    await card.getByText(credential.username).waitFor();
    await card.getByText('never', { exact: true }).waitFor();

    // The password signs in to the submission server.
    expect(await submit(credential.username, password, 'dee@customer.test', 'Sent with the shop credential')).toMatch(/^250 /);

    // After a reload the password is nowhere on the page; the credential was used.
    await page.reload();
    await card.waitFor();
    expect(await card.getByRole('textbox', { name: 'Password' }).count()).toBe(0);
    expect(await page.content()).not.toContain(password);
    expect(await card.getByText('never', { exact: true }).count()).toBe(0);
    expect(await axeProblems(page)).toEqual([]);
  });

  it('revokes the credential after a confirmation: its card says revoked and it no longer signs in', async () => {
    const [credential] = (await api<{ data: Array<{ username: string }> }>('GET', '/api/email/smtp_credentials')).data;
    const card = page.getByTestId(`credential-${CREDENTIAL}`);
    await card.getByRole('button', { name: `Revoke ${CREDENTIAL}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this credential?' });
    await dialog.getByText(`${CREDENTIAL} stops working at once`).waitFor();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await card.getByText('Revoked', { exact: true }).first().waitFor();
    expect(await card.getByRole('button', { name: `Revoke ${CREDENTIAL}` }).count()).toBe(0);
    const [after] = (await api<{ data: Array<{ revoked_at: string | null }> }>('GET', '/api/email/smtp_credentials')).data;
    expect(after.revoked_at).not.toBeNull();
    await expect(submit(credential.username, 'any-password', 'dee@customer.test', 'Refused')).rejects.toThrow(/535/);
  });
});

describe('Messages', () => {
  let ann: Message;

  it('lists the emails sent through the API and SMTP, newest first, and a recipient search leaves only that recipient’s', async () => {
    const send = (body: Record<string, unknown>) => api('POST', '/api/email', { from: `Shop Orders <${PERSONA}>`, ...body });
    await send({
      to: 'ann@customer.test',
      subject: 'Your receipt 1001',
      html: '<h1>Thanks for your order</h1><p>Order 1001 is on its way.</p>',
      text: 'Thanks for your order. Order 1001 is on its way.',
      tags: ['receipt'],
      metadata: { order: '1001' },
    });
    await send({ to: 'bo@customer.test', subject: 'Reset your password', html: '<p>Reset it here.</p>' });
    await send({ to: 'cy@customer.test', subject: 'Welcome aboard', text: 'Welcome aboard, Cy. This one has no HTML.' });
    const messages = await sentMessages(4);
    ann = messages.find((m) => m.email === 'ann@customer.test')!;

    await page.goto(`${server.url}/messages`);
    const table = page.getByRole('table', { name: 'Messages' });
    await table.waitFor();
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(5); // the header and four messages
    expect(await rows.locator('td:first-child').allInnerTexts()).toEqual(['cy@customer.test', 'bo@customer.test', 'ann@customer.test', 'dee@customer.test']);
    const dee = table.getByRole('row', { name: /dee@customer\.test/ });
    expect(await dee.getByRole('cell').allInnerTexts()).toEqual([
      'dee@customer.test',
      'Sent with the shop credential',
      'transactional',
      'Sent',
      'SMTP',
      expect.any(String),
      '—',
    ]);
    expect(
      await table
        .getByRole('row', { name: /ann@customer\.test/ })
        .getByRole('cell')
        .nth(4)
        .innerText(),
    ).toBe('API');

    await page.getByLabel('Recipient').fill('ANN@customer.test');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/messages\?recipient=ANN%40customer\.test$/);
    await table.getByRole('link', { name: 'ann@customer.test' }).waitFor();
    await page.getByText('1 shown, no more').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);

    await page.getByLabel('Recipient').fill('nobody@customer.test');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No messages match these filters').waitFor();
    await page.goBack();
    await table.getByRole('link', { name: 'ann@customer.test' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
  });

  it('opens a message: its header, its timeline with the relay’s answer, and its stored copy; back keeps the search', async () => {
    await page.getByRole('link', { name: 'ann@customer.test' }).click();
    await page.waitForURL(new RegExp(`/messages/${ann.id}$`));
    await page.getByRole('heading', { name: 'Your receipt 1001', level: 1 }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Message-ID' }).inputValue()).toBe(ann.message_id);
    await page.getByRole('button', { name: 'Copy message-id' }).waitFor();
    await page.getByText('receipt', { exact: true }).waitFor();
    await page.getByText('order: 1001').waitFor();
    await page.getByText(PERSONA, { exact: true }).waitFor();

    const detail = (await api<{ data: Detail }>('GET', `/api/messages/${ann.id}`)).data;
    const sent = detail.timeline.find((t) => t.type === 'sent')!;
    expect(sent.detail).toMatch(/^250 /);
    const entries = page.getByRole('list', { name: 'Timeline' }).getByTestId('timeline-entry');
    expect(await entries.count()).toBe(detail.timeline.length);
    expect(await entries.first().innerText()).toContain('Queued on the transactional stream');
    const sentEntry = entries.filter({ hasText: /^Sent/ });
    expect(await sentEntry.innerText()).toContain(sent.detail);
    if (sent.relay) expect(await sentEntry.innerText()).toContain(`Relay: ${sent.relay}`);

    const frame = page.locator('iframe[title="The email to ann@customer.test as sent"]');
    expect(await frame.getAttribute('sandbox')).toBe('allow-same-origin');
    await page.frameLocator('iframe[title="The email to ann@customer.test as sent"]').getByRole('heading', { name: 'Thanks for your order' }).waitFor();
    await page.getByRole('tab', { name: 'Text' }).click();
    expect(await page.getByTestId('copy-text').innerText()).toContain('Thanks for your order. Order 1001 is on its way.');
    expect(await axeProblems(page)).toEqual([]);

    await page.getByRole('link', { name: 'Back to messages' }).click();
    await page.waitForURL(/\/messages\?recipient=ANN%40customer\.test$/);
    expect(await page.getByLabel('Recipient').inputValue()).toBe('ANN@customer.test');
  });

  it('shows the text part of a message without HTML', async () => {
    const [cy] = (await api<{ data: Message[] }>('GET', '/api/messages?recipient=cy@customer.test')).data;
    await page.goto(`${server.url}/messages/${cy.id}`);
    await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor();
    expect(await page.getByRole('tab').count()).toBe(0);
    expect(await page.getByTestId('copy-text').innerText()).toContain('Welcome aboard, Cy. This one has no HTML.');
  });

  it('fits a 390 px phone: the list is cards and no page scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/messages`);
    const cards = page.getByRole('list', { name: 'Messages' });
    await cards.getByRole('link', { name: 'ann@customer.test' }).waitFor();
    expect(await cards.getByRole('listitem').count()).toBe(4);
    expect(await page.getByRole('table', { name: 'Messages' }).count()).toBe(0);
    expect(await noSidewaysScroll()).toBe(true);
    // The filters beyond recipient and status are folded on a phone.
    expect(await page.getByLabel('Subject').count()).toBe(0);
    await page.getByRole('button', { name: 'More filters' }).click();
    await page.getByLabel('Subject').fill('receipt');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/messages\?subject=receipt$/);
    await page.getByText('1 shown, no more').waitFor();
    expect(await cards.getByRole('listitem').count()).toBe(1);
    await cards.getByRole('link', { name: 'ann@customer.test' }).click();
    await page.getByRole('heading', { name: 'Your receipt 1001', level: 1 }).waitFor();
    expect(await noSidewaysScroll()).toBe(true);
    await page.goto(`${server.url}/account/smtp`);
    await page.getByTestId(`credential-${CREDENTIAL}`).waitFor();
    await page.getByRole('list', { name: 'Message streams' }).waitFor();
    expect(await noSidewaysScroll()).toBe(true);
  });
});

describe('Messages, page by page', () => {
  it('shows the newest 50 and pages on to the older ones with Load more', async () => {
    const messages = Array.from({ length: 47 }, (_, i) => ({ from: PERSONA, to: `many${i}@customer.test`, subject: `Notice ${i}`, text: `Notice ${i}` }));
    expect((await api<{ queued: number }>('POST', '/api/email/batch', { messages })).queued).toBe(47);
    await page.goto(`${server.url}/messages`);
    const cards = page.getByRole('list', { name: 'Messages' });
    await page.getByText('50 shown, older ones on request').waitFor();
    expect(await cards.getByRole('listitem').count()).toBe(50);
    expect(await cards.getByRole('listitem').first().getByRole('link').innerText()).toBe('many46@customer.test');
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('51 shown, no more').waitFor();
    expect(await cards.getByRole('listitem').last().getByRole('link').innerText()).toBe('dee@customer.test');
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
  });
});
