/**
 * A person's own privacy requests in a real browser against the built product (core/privacy/selfService.ts): a
 * marketing email's unsubscribe link opens the preference centre, whose "Download my data" emails a confirmation link
 * to the address; that link's page (a GET) changes nothing, its button downloads the JSON of what is held. "Delete my
 * data" goes the same way and, confirmed, erases the contact: the customer's API no longer finds it.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';

const OWNER = { email: 'ops@keepers.example.com', password: 'keepers-password-1' };
const PERSONA = 'news@keepers.example.com';
const READER = 'rita@reader.test';

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;

e2eHooks();
beforeAll(async () => {
  ({ sink, server, page } = await startE2E({
    tag: 'self-service',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' },
    owner: { company: 'Keepers Co', project: 'keepers', ...OWNER },
    viewport: { width: 390, height: 844 },
  }));
  await verifiedPersona({ email: PERSONA, first_name: 'News' });
});

/** newestMail waits for an email to READER whose subject matches and returns its raw text (headers unfolded) and HTML. */
async function newestMail(subject: RegExp): Promise<{ raw: string; html: string }> {
  const end = Date.now() + 60_000;
  for (;;) {
    const parsed = (await sink.parsed()).filter((m) => m.envelopeTo.includes(READER) && subject.test(m.subject ?? ''));
    const i = sink.messages.map((m, n) => ({ m, n })).filter(({ m }) => m.envelopeTo.includes(READER));
    if (parsed.length) {
      const mail = parsed.at(-1)!;
      const raw = i.map(({ m }) => m.raw.toString('latin1')).find((r) => r.includes(mail.messageId ?? '\u0000')) ?? '';
      return { raw: raw.replace(/\r\n[ \t]+/g, ' '), html: String(mail.html) };
    }
    if (Date.now() > end) throw new Error(`no email matching ${subject} to ${READER}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** contactCount is how many live contacts the project has with READER's address (through the customer's API). */
async function contactCount(): Promise<number> {
  return (await api<{ data: unknown[] }>('GET', `/api/user/users?search_field=email&search_value=${encodeURIComponent(READER)}`)).data.length;
}

describe("the person's own download and deletion", () => {
  let preferences = '';

  it('a marketing email leads to the preference centre with both requests', async () => {
    await api('POST', '/api/user/users', { users: [{ email: READER, first_name: 'Rita' }] });
    await api('POST', '/api/email', { from: PERSONA, to: READER, subject: 'Keepers news', html: '<p>News from Keepers</p>', stream: 'broadcast' });
    const { raw } = await newestMail(/^Keepers news$/);
    preferences = /^List-Unsubscribe: <([^>]+)>/m.exec(raw)![1];
    expect(preferences.startsWith(`${server.url}/u/`)).toBe(true);
    await page.goto(preferences);
    await expect(page.getByRole('button', { name: 'Download my data' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Delete my data' }).isVisible()).resolves.toBe(true);
  });

  it('"Download my data" is confirmed from the emailed link: its page changes nothing, its button downloads', async () => {
    await page.getByRole('button', { name: 'Download my data' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    expect(await page.textContent('main')).toContain(READER);
    const { html } = await newestMail(/confirm the download/);
    const link = /href="([^"]+\/p\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Download your data' }).waitFor();
    expect(await contactCount()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    const data = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(data.contact).toMatchObject({ email: READER, first_name: 'Rita' });
    expect(data.messages.map((m: { subject: string }) => m.subject)).toContain('Keepers news');
  });

  it('"Delete my data" is confirmed the same way and erases the contact', async () => {
    await page.goto(preferences);
    await page.getByRole('button', { name: 'Delete my data' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    const { html } = await newestMail(/^Delete your data/);
    const link = /href="([^"]+\/p\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Delete your data' }).waitFor();
    // The page asks; it has deleted nothing.
    expect(await contactCount()).toBe(1);
    await page.getByRole('button', { name: 'Delete my data' }).click();
    await page.getByRole('heading', { name: 'Your data is deleted' }).waitFor();
    expect(await contactCount()).toBe(0);
    // The spent link says so, and the address is refused from now on.
    await page.goto(link);
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await expect(api('POST', '/api/email', { from: PERSONA, to: READER, subject: 'Again', text: 'Again' })).rejects.toThrow(/erased/);
  });
});
