/**
 * The foundation's critical path in a real browser (Playwright driving Debian's chromium) against the built product:
 * sign in to the demo account, create a contact, a sender persona and a template made from a real-world HTML email,
 * schedule a blast from the form (saved due at the minute picked), send one now, and check that a real SMTP server receives exactly one rendered message per
 * recipient, that Recent emails lists it and that its /email/{location} page shows the same body.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { DemoSession } from '../helpers/browser.ts';
import { apiCaller, type ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { e2eHooks, signInWithForm, startE2E } from '../helpers/e2e.ts';
import { DateTime } from 'luxon';
import { fixturePath } from '../helpers/fixtures.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

const FIXTURE = fixturePath('email-templates/leemunroe/email-inlined.html');

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;
let apiKey = '';
/** api calls the product's gateways with the signed-in project's key. */
const api = apiCaller(
  () => server.url,
  () => apiKey,
);

e2eHooks();
beforeAll(async () => {
  ({ sink, server, page } = await startE2E({ tag: 'blast', env: { SEND_POLL_MS: '500' } }));
});

/**
 * saveBlastForm fills the blast form — the Lee Munroe template, sender persona `persona`, the simulator and the
 * persona as contacts — due `when` (a UTC minute picked in the date and time fields, or 'now'), and saves it.
 */
async function saveBlastForm(name: string, persona: string, when: DateTime | 'now'): Promise<void> {
  await page.goto(`${server.url}/components/email-blasts/new`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Template').selectOption({ label: 'Lee Munroe welcome' });
  await page.getByLabel('Sender persona').selectOption({ label: `Pat Sender <${persona}>` });
  if (when === 'now') await page.getByLabel('Send now (as soon as it is saved)').check();
  else {
    await page.getByLabel('Send date').fill(when.toISODate()!);
    const time = page.getByRole('combobox', { name: 'Send time' });
    await time.fill(when.toFormat('h:mm a').toLowerCase());
    await time.press('Escape');
  }
  const contacts = page.getByRole('combobox', { name: 'Contacts' });
  for (const email of [SIMULATOR_SUCCESS_ADDRESS, persona]) {
    await contacts.fill(email.slice(0, 8));
    await page.getByRole('option', { name: email, exact: true }).click();
  }
  await page.getByRole('button', { name: 'Save & Send' }).click();
  await page.waitForURL(/\/components\/email-blasts\/edit\/[0-9a-f-]{36}$/);
}

describe('sign in, build a blast and send it (e2e)', () => {
  it('a logged-out visitor on a protected route sees the about page', async () => {
    await page.goto(`${server.url}/people/users`);
    await expect.poll(() => page.url()).toContain('/people/users');
    await page.getByRole('heading', { name: /about/i }).first().waitFor();
  });

  it('signs in with Enter in the password field', async () => {
    await signInWithForm(page, server.url, DEMO_ACCOUNT);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'user_info');
    expect(cookie?.sameSite).toBe('Strict');
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(23 * 3600_000);
    apiKey = (JSON.parse(decodeURIComponent(cookie!.value)) as DemoSession).api_client_key;
  });

  it('creates two contacts, a sender persona and a template, schedules a blast from the form and sends one that arrives once per recipient', async () => {
    const persona = 'sender@demo-company.example.com';
    for (const [email, first] of [
      [SIMULATOR_SUCCESS_ADDRESS, 'Sim'],
      [persona, 'Pat'],
    ]) {
      await page.goto(`${server.url}/people/users/new`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('First name').fill(first);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/people\/users\/edit\/[0-9a-f-]{36}$/);
    }
    await page.goto(`${server.url}/people/users`);
    await page.getByRole('cell', { name: SIMULATOR_SUCCESS_ADDRESS }).waitFor();

    await page.goto(`${server.url}/people/sender-personas/new`);
    await page.getByLabel('Email').fill(persona);
    await page.getByLabel('First name').fill('Pat');
    await page.getByLabel('Last name').fill('Sender');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/people\/sender-personas\/edit\/[0-9a-f-]{36}$/);
    const personaPage = page.url();
    // The edit page says the persona cannot send yet and resends its link; the list says so too.
    const status = page.getByTestId('persona-status');
    await status.getByText('Not confirmed yet', { exact: true }).waitFor();
    expect(await status.textContent()).toContain(`We emailed a confirmation link to ${persona}. Emails from this persona are blocked`);
    await sink.waitFor(() => sink.count >= 1);
    await status.getByRole('button', { name: 'Resend link' }).click();
    await page.getByText(`Verification email sent to ${persona}: open it and click the link.`).waitFor();
    await sink.waitFor(() => sink.count >= 2);
    await page.goto(`${server.url}/people/sender-personas`);
    await page.getByRole('row').filter({ hasText: persona }).getByText('Not confirmed yet: cannot send').waitFor();
    // The persona's address confirms itself: the link in its verification email, opened in the browser, its button.
    const [link] = await sink.personaVerificationLinks();
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm sender' }).click();
    await page.getByText(`${persona} is confirmed as a sender.`).waitFor();
    await page.goto(personaPage);
    await page.getByTestId('persona-status').getByText('Verified', { exact: true }).waitFor();
    const verificationMails = sink.count;

    const fixture = await readFile(FIXTURE, 'utf8');
    const html = fixture.replace('>Hi there</p>', '>Hi {{user.first_name}}</p>').replace('href="http://htmlemail.io/blog"', 'href="{{unsubscribe_link}}"');
    expect(html).not.toBe(fixture);
    await page.goto(`${server.url}/components/templates/new`);
    await page.getByRole('button', { name: 'Start blank' }).click(); // past the gallery of starters
    await page.getByLabel('Name').fill('Lee Munroe welcome');
    await page.getByLabel('Subject').fill('Welcome, {{user.first_name}}');
    // Written as code: the HTML view detaches it from the visual designer.
    await page.getByRole('tab', { name: 'HTML' }).click();
    await page.getByRole('button', { name: 'Edit HTML directly' }).click();
    await page.getByRole('textbox', { name: 'HTML' }).fill(html);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/components\/templates\/edit\/[0-9a-f-]{36}$/);

    // Scheduled from the form a whole minute ahead, in UTC: the blast is saved due then, and nothing goes before.
    const at = DateTime.utc().plus({ minutes: 2 }).startOf('minute');
    await saveBlastForm('E2E blast, later', persona, at);
    const later = (
      await api<{ data: Array<{ id: string; name: string; send_at: string; send_at_utc: string | null }> }>('GET', '/api/scheduler/scheduler')
    ).data.find((b) => b.name === 'E2E blast, later')!;
    expect(later.send_at).toBe(at.toFormat("yyyy-MM-dd'T'HH:mm"));
    expect(Date.parse(later.send_at_utc!)).toBe(at.toMillis());
    // Its delivery at that minute is the scheduler's (API tests, with due times a second ahead); here it is cancelled
    // and the same recipients get the same blast sent now, so the test does not wait for a clock minute.
    await api('DELETE', `/api/scheduler/scheduler/${later.id}`);
    expect(sink.count).toBe(verificationMails);

    const sentAt = Date.now();
    await saveBlastForm('E2E blast', persona, 'now');

    await sink.waitFor(() => sink.count >= verificationMails + 2, 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    const mails = (await sink.parsed()).slice(verificationMails);
    expect(mails.map((m) => m.envelopeTo[0]).sort()).toEqual([persona, SIMULATOR_SUCCESS_ADDRESS].sort());
    const sim = mails.find((m) => m.envelopeTo[0] === SIMULATOR_SUCCESS_ADDRESS)!;
    expect(sim.subject).toBe('Welcome, Sim');
    expect(sim.html).toContain('>Hi Sim</p>');
    expect(sim.html).toMatch(/href="http:\/\/127\.0\.0\.1:\d+\/u\/[^"]+"/);
    // The editor made the text alternative from the HTML; it is rendered with the same variables.
    expect(sim.text).toMatch(/^Hi Sim$/m);
    expect(sim.text).toMatch(/\[http:\/\/127\.0\.0\.1:\d+\/u\/[^\]]+\]/);
    expect(sim.date!.getTime()).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000);

    await page.goto(`${server.url}/insights`);
    const row = page.getByRole('row').filter({ hasText: SIMULATOR_SUCCESS_ADDRESS });
    await row.first().waitFor();
    const [viewer] = await Promise.all([page.context().waitForEvent('page'), row.first().getByRole('link', { name: 'View email' }).click()]);
    await viewer.waitForURL(/\/email\/[A-Za-z0-9_-]+$/);
    const frame = viewer.locator('iframe[title="Email body"]');
    await frame.waitFor();
    expect(await frame.getAttribute('sandbox')).toBe('allow-same-origin'); // no allow-scripts: nothing in it runs
    expect(await frame.getAttribute('srcdoc')).toBe(sim.html);
    await viewer.close();

    // The contact's own page lists the email in its history, which opens the same copy.
    await page.goto(`${server.url}/people/users`);
    await page.getByRole('searchbox', { name: 'Search' }).fill(SIMULATOR_SUCCESS_ADDRESS);
    const contactRow = page.getByRole('row').filter({ hasText: SIMULATOR_SUCCESS_ADDRESS });
    await expect.poll(() => page.getByRole('row').count(), { timeout: 10_000 }).toBe(2);
    await contactRow.getByRole('link', { name: 'Edit' }).click();
    const history = page.getByRole('region', { name: 'Email history' });
    const sent = history.getByRole('link', { name: 'Welcome, Sim' });
    await sent.waitFor();
    const [copy] = await Promise.all([page.context().waitForEvent('page'), sent.click()]);
    await copy.waitForURL(/\/email\/[A-Za-z0-9_-]+$/);
    expect(await copy.locator('iframe[title="Email body"]').getAttribute('srcdoc')).toBe(sim.html);
    await copy.close();
  });
  it('an empty blast form names each missing field and asks for an audience, and saves nothing', async () => {
    await page.goto(`${server.url}/components/email-blasts/new`);
    await page.getByRole('button', { name: 'Save & Send' }).click();
    await page.getByText('You must choose at least one segment or contact to send the email to').waitFor();
    expect(await page.getByText('Required field').count()).toBe(3); // name, template, sender persona
    await page.getByRole('combobox', { name: 'Send time' }).fill('teatime');
    await page.getByText('Invalid time, e.g. 3:15 pm or 15:15').waitFor();
    expect(page.url()).toMatch(/\/components\/email-blasts\/new$/);
  });

  it('sends a blast now from the form: no date to pick, due the minute it is saved', async () => {
    const before = sink.count;
    await page.goto(`${server.url}/components/email-blasts/new`);
    await page.getByLabel('Name').fill('E2E blast sent now');
    await page.getByLabel('Template').selectOption({ label: 'Lee Munroe welcome' });
    await page.getByLabel('Sender persona').selectOption({ index: 1 });
    await page.getByLabel('Send now (as soon as it is saved)').check();
    expect(await page.getByLabel('Send date').isVisible()).toBe(false);
    const contacts = page.getByRole('combobox', { name: 'Contacts' });
    await contacts.fill(SIMULATOR_SUCCESS_ADDRESS.slice(0, 8));
    await page.getByRole('option', { name: SIMULATOR_SUCCESS_ADDRESS, exact: true }).click();
    await page.getByRole('button', { name: 'Save & Send' }).click();
    await page.waitForURL(/\/components\/email-blasts\/edit\/[0-9a-f-]{36}$/);
    await sink.waitFor(() => sink.count >= before + 1, 60_000);
    const mail = (await sink.parsed()).slice(before);
    // Arrived while the form's default moment (the next quarter hour) was still ahead: it went at once.
    expect(mail.map((m) => m.envelopeTo[0])).toEqual([SIMULATOR_SUCCESS_ADDRESS]);
  });
});
