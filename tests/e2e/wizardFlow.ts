/**
 * Shared steps of the send wizard's browser tests (wizard*.e2e.ts): the built product as a child
 * process with a real SMTP sink and an activated account, the gateway called as the console does, persona
 * verification through the links the sink receives, and the wizard's pages driven as a person would.
 */
import { expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import { api, startE2E, verifiedPersona } from '../helpers/e2e.ts';

export interface WizardWorld {
  sink: SmtpSink;
  server: ServerProcess;
  browser: Browser;
  page: Page;
  apiKey: string;
  api: typeof api;
}

/**
 * startWorld starts the suite (tests/helpers/e2e.ts startE2E) with an activated account (not in the sandbox) named
 * after `slug`, signed in on a 1400×1000 page; `relayParams` go on the relay's SMTP_URL. The file calls e2eHooks().
 */
export async function startWorld(slug: string, opts: { relayParams?: string } = {}): Promise<WizardWorld> {
  const e = await startE2E({
    tag: slug,
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off' },
    relayParams: opts.relayParams,
    owner: { company: `${slug} Co`, project: slug, email: `ops@${slug}.example.com`, password: `${slug}-password-1` },
    viewport: { width: 1400, height: 1000 },
  });
  return { ...e, api };
}

/** verifyPersonas follows every persona verification link the sink has received (each confirms its persona). */
export async function verifyPersonas(sink: SmtpSink, count: number): Promise<void> {
  await sink.waitFor(() => sink.messages.length >= count);
  // A plain loop, not expect.poll: this also runs in beforeAll hooks.
  const end = Date.now() + 30_000;
  while ((await sink.personaVerificationLinks()).length < count) {
    if (Date.now() > end) throw new Error(`fewer than ${count} persona verification emails arrived`);
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const link of await sink.personaVerificationLinks()) expect((await fetch(link, { method: 'POST' })).status).toBe(200);
}

/** createPersona makes a sender persona through the API and confirms it, then empties the sink. */
export async function createVerifiedPersona(w: WizardWorld, email: string, firstName: string): Promise<string> {
  const persona = await verifiedPersona({ email, first_name: firstName });
  w.sink.messages.length = 0;
  return persona.id;
}

/** createTemplates makes marketing templates {name, subject} with an unsubscribe link; answers their ids by name. */
export async function createTemplates(w: WizardWorld, templates: Array<{ name: string; subject: string }>): Promise<Record<string, string>> {
  const { data } = await w.api('POST', '/api/template/templates', {
    templates: templates.map((t) => ({
      name: t.name,
      subject: t.subject,
      type: 'TEMPLATE_MARKETING',
      html_body: `<p>${t.subject} for {{user.email}}</p><p>Signed, {{sender_persona.first_name}}</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p>`,
    })),
  });
  return Object.fromEntries(data.map((t: { id: string; name: string }) => [t.name, t.id]));
}

/** createContacts makes contacts (500 per request) and answers their ids in order. */
export async function createContacts(w: WizardWorld, emails: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < emails.length; i += 500) {
    const { data } = await w.api('POST', '/api/user/users', { users: emails.slice(i, i + 500).map((email) => ({ email })) });
    ids.push(...data.map((c: { id: string }) => c.id));
  }
  return ids;
}

/** createSegment makes a segment of the contacts `userIds`; answers its id. */
export async function createSegment(w: WizardWorld, name: string, userIds: string[]): Promise<string> {
  const { data } = await w.api('POST', '/api/segment/segments', { segments: [{ name, user_ids: userIds }] });
  return data[0].id;
}

/** The wizard's page driver. */
export class Wizard {
  constructor(
    private readonly page: Page,
    private readonly url: string,
  ) {}

  /** open loads /email-send-wizard afresh (a reload restarts the wizard). */
  async open(): Promise<void> {
    await this.page.goto(`${this.url}/email-send-wizard`);
    await this.page.getByRole('heading', { level: 1, name: 'Send wizard' }).waitFor();
  }

  /** title waits for the page's heading (h2). */
  async at(title: string | RegExp): Promise<void> {
    await this.page.getByRole('heading', { level: 2, name: title }).waitFor();
  }

  get continueButton() {
    return this.page.getByRole('button', { name: 'Continue', exact: true });
  }

  /** message is the text that blocks Continue (empty when none). */
  async message(): Promise<string> {
    const m = this.page.getByTestId('wizard-page-message');
    return (await m.count()) ? ((await m.textContent()) ?? '') : '';
  }

  /** attempt presses Continue on a page that is not done yet and returns the message it reveals (none shows before). */
  async attempt(): Promise<string> {
    expect(await this.message()).toBe('');
    await this.continueButton.click();
    await this.page.getByTestId('wizard-page-message').waitFor();
    expect(await this.continueButton.isDisabled()).toBe(true);
    return this.message();
  }

  /** counter is the "Step 2 of 8 · One-time blast" line above the page's title. */
  async counter(): Promise<string> {
    return (await this.page.getByText(/^Step \d+/).textContent()) ?? '';
  }

  /** next clicks Continue once it is enabled and waits for `title`. */
  async next(title: string | RegExp): Promise<void> {
    await expect.poll(() => this.continueButton.isEnabled(), { timeout: 15_000 }).toBe(true);
    await this.continueButton.click();
    await this.at(title);
  }

  async back(title: string | RegExp): Promise<void> {
    await this.page.getByRole('button', { name: 'Back', exact: true }).click();
    await this.at(title);
  }

  async chooseType(label: RegExp): Promise<void> {
    await this.at('Campaign type');
    await this.page.getByRole('radio', { name: label }).check();
  }

  async name(name: string): Promise<void> {
    await this.page.getByLabel('Campaign name').fill(name);
  }

  /** pick chooses `option` in the pick list labelled `label`, typing `text` first. */
  async pick(label: string, text: string, option: string | RegExp): Promise<void> {
    await this.page.getByLabel(label, { exact: true }).fill(text);
    await this.page.getByRole('option', { name: option }).first().click();
  }

  /** tick ticks rows of the segment or contact picker, searching for each first. */
  async tick(kind: 'segments' | 'contacts', labels: string[]): Promise<void> {
    const search = this.page.getByLabel(kind === 'segments' ? 'Search segments by name' : 'Search contacts by email, name, id or date');
    for (const label of labels) {
      await search.fill(label);
      const box = this.page.getByRole('checkbox', { name: `Choose ${label}`, exact: true });
      await box.waitFor({ timeout: 15_000 });
      await box.check();
    }
    await search.fill('');
  }

  /** time sets the send date and time (24-hour 'HH:mm'); the zone stays its default, UTC. */
  async sendAt(wallClock: string, prefix = 'wizard-timing'): Promise<void> {
    const [date, time] = wallClock.split('T');
    await this.page.locator(`#${prefix}-date`).fill(date);
    await this.page.locator(`#${prefix}-time`).fill(time);
  }

  /** launch clicks Launch on the review once it is enabled, and waits for the success page (or a failed step). */
  async launch(): Promise<void> {
    const launch = this.page.getByRole('button', { name: 'Launch', exact: true });
    await expect.poll(() => launch.isEnabled(), { timeout: 30_000 }).toBe(true);
    await launch.click();
  }

  /** stepStatuses lists the launch steps' statuses in order. */
  async stepStatuses(): Promise<Array<string | null>> {
    return this.page
      .getByRole('list', { name: 'Launch steps' })
      .getByRole('listitem')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
  }

  /** successLinks waits for the success page and answers its links (text, href, target). */
  async successLinks(): Promise<Array<{ text: string; href: string; target: string | null }>> {
    await this.page.getByRole('heading', { level: 2, name: 'Success' }).waitFor({ timeout: 120_000 });
    return this.page
      .getByRole('list', { name: 'Created objects' })
      .getByRole('link')
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', href: e.getAttribute('href') ?? '', target: e.getAttribute('target') })));
  }
}

/** inputValues lists the values of the page's inputs (an edit page shows its record's name or email in one). */
export async function inputValues(page: Page): Promise<string[]> {
  return page.locator('input, textarea').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
}

/**
 * checkLinksOpen opens each success link (target _blank) in the page and checks it shows the created object:
 * `expect` maps an href to the text an input of its page holds (or that the page shows, for lists).
 */
export async function checkLinksOpen(
  page: Page,
  base: string,
  links: Array<{ href: string; target: string | null }>,
  expected: Record<string, { input?: string; text?: string }>,
): Promise<void> {
  for (const link of links) {
    expect(link.target).toBe('_blank');
    const want = expected[link.href];
    expect(want, `no expectation for ${link.href}`).toBeDefined();
    await page.goto(`${base}${link.href}`);
    if (want.input) await expect.poll(() => inputValues(page), { timeout: 30_000 }).toContain(want.input);
    if (want.text) await page.getByText(want.text, { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByText(/is coming in a later release/).count()).toBe(0);
  }
}
