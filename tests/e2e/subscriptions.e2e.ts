/**
 * Double opt-in, subscription topics and webhooks in a real browser against the built product:
 * topics and a subscribe form are made on their console screens; a visitor subscribes through the hosted form, the
 * confirmation email reaches a real SMTP server, its link's page confirms nothing until its button is pressed, and the
 * contact is then subscribed (in the form's segment) with its consent record. A marketing email's unsubscribe link
 * opens the preference centre, which unsubscribes from that email's topic: the next blast of that topic skips the
 * contact while a blast of another topic — chosen on the console's blast form — still reaches them. Account →
 * Webhooks registers an endpoint, sends a test event to a real receiver and shows the delivered message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, e2eHooks, startE2E, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { wallClockUtc } from '../helpers/time.ts';
import type { Json } from '../helpers/json.ts';

const OWNER = { email: 'ops@letters.example.com', password: 'letters-password-1' };
const PERSONA = 'news@letters.example.com';
const READER = 'pia@reader.test';

let sink: SmtpSink;
let server: ServerProcess;
let browser: Browser;
let page: Page;
let segmentId: string;
const receiver = new WebhookReceiver();

e2eHooks();
beforeAll(async () => {
  ({ sink, server, browser, page } = await startE2E({
    tag: 'subscriptions',
    env: { SEND_POLL_MS: '200', DEMO_RESET_CRON: 'off', WEBHOOK_ALLOW_PRIVATE: 'on' },
    owner: { company: 'Letters Co', project: 'letters', ...OWNER },
    viewport: { width: 1400, height: 1000 },
  }));
  await verifiedPersona({ email: PERSONA, first_name: 'News', last_name: 'Letters' });
  segmentId = (await api<{ data: Array<{ id: string }> }>('POST', '/api/segment/segments', { segments: [{ name: 'Newsletter', user_ids: [] }] })).data[0].id;
});
afterAll(() => receiver.stop());

/** mailTo waits for an email to `to` with `subject` and returns its HTML. */
async function mailTo(to: string, subject: string): Promise<string> {
  const end = Date.now() + 60_000;
  for (;;) {
    const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(to) && m.subject === subject);
    if (mail) return String(mail.html);
    if (Date.now() > end) throw new Error(`no email "${subject}" to ${to}; got ${(await subjectsTo(to)).join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** subjectsTo lists the subjects of every email `to` received, in order. */
async function subjectsTo(to: string): Promise<string[]> {
  return (await sink.parsed()).filter((m) => m.envelopeTo.includes(to)).map((m) => m.subject ?? '');
}

/** distributed waits until blast `id` has sent everything it will (its JOB_DISTRIBUTE_EMAIL_BLAST entry), then returns it. */
async function distributed(id: string): Promise<Json> {
  const end = Date.now() + 60_000;
  for (;;) {
    const log = await api<{ data: Array<{ job_name: string; start_details: Record<string, Json> }> }>('GET', '/api/joblog/joblog?limit=100');
    if (log.data.some((j) => j.job_name === 'JOB_DISTRIBUTE_EMAIL_BLAST' && j.start_details.scheduled_email_group_id === id)) break;
    if (Date.now() > end) throw new Error(`blast ${id} not distributed`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return (await api<{ data: Json[] }>('GET', `/api/scheduler/scheduler?ids=${id}`)).data[0];
}

describe('double opt-in and the preference centre', () => {
  let formUrl: string;

  it('topics and a subscribe form are made on their console screens', async () => {
    await page.goto(`${server.url}/people/topics`);
    await page.getByText('No topics yet').waitFor();
    for (const name of ['Product news', 'Weekly digest']) {
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Add topic' }).click();
      await page.getByRole('cell', { name, exact: true }).waitFor();
    }
    // A duplicate is named under the field.
    await page.getByLabel('Name').fill('product NEWS');
    await page.getByRole('button', { name: 'Add topic' }).click();
    await page.getByText('Name: a topic named product NEWS already exists').waitFor();

    await page.goto(`${server.url}/people/subscribe-forms`);
    await page.getByText('No forms yet').waitFor();
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByText('Choose the segment subscribers join').waitFor();
    await page.getByLabel('Name').fill('Footer form');
    await page.getByLabel('Segment').selectOption({ label: 'Newsletter' });
    await page.getByLabel('Sender persona').selectOption({ label: PERSONA });
    await page.getByLabel('Heading').fill('The Letters newsletter');
    await page.getByRole('button', { name: 'Create form' }).click();
    const card = page.getByTestId('form-Footer form');
    await card.waitFor();
    formUrl = (await card.getByRole('link').getAttribute('href'))!;
    expect(formUrl).toMatch(new RegExp(`^${server.url}/s/[0-9a-f-]{36}$`));
    expect(await card.getByRole('textbox', { name: 'HTML snippet for your website' }).inputValue()).toContain(`action="${formUrl}"`);
  });

  it('subscribes through the hosted form: confirmation email, a page that asks, a button that confirms, a consent record', async () => {
    const visitor = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await visitor.goto(formUrl);
    await visitor.getByRole('heading', { name: 'The Letters newsletter' }).waitFor();
    await visitor.getByLabel('Email').fill(READER);
    await visitor.getByLabel('First name (optional)').fill('Pia');
    await visitor.getByRole('button', { name: 'Subscribe' }).click();
    await visitor.getByRole('heading', { name: 'Check your inbox' }).waitFor();

    const html = await mailTo(READER, 'Please confirm your subscription to The Letters newsletter');
    const link = /href="([^"]+\/s\/c\/[^"]+)"/.exec(html)![1];
    await visitor.goto(link);
    await visitor.getByRole('heading', { name: 'Confirm your subscription' }).waitFor();
    // Opening the link (as a mail scanner would) confirmed nothing.
    const before = await api<{ data: Array<Record<string, Json>> }>('GET', `/api/subscriptions/consents?email=${encodeURIComponent(READER)}`);
    expect(before.data).toHaveLength(1);
    expect(before.data[0].confirmed_at).toBeNull();
    await visitor.getByRole('button', { name: 'Confirm subscription' }).click();
    await visitor.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    await visitor.close();

    const [consent] = (await api<{ data: Array<Record<string, Json>> }>('GET', `/api/subscriptions/consents?email=${encodeURIComponent(READER)}`)).data;
    expect(consent).toMatchObject({ email: READER, form_name: 'Footer form', submitted_ip: expect.any(String), confirmed_ip: expect.any(String) });
    expect(consent.consent_text).toContain('I agree to receive these emails');
    expect(consent.submitted_user_agent).toContain('Chrome');
    expect(consent.confirmed_at).not.toBeNull();
    const segment = (await api<{ data: Array<{ num_users: number }> }>('GET', `/api/segment/segments?ids=${segmentId}`)).data[0];
    expect(segment.num_users).toBe(1);
    await page.goto(`${server.url}/people/subscribe-forms`);
    await page.getByText('1 confirmed, 0 waiting for their click').waitFor();
  });

  it('the preference centre leaves one topic: that topic’s next blast skips the contact, another topic’s still reaches them', async () => {
    const templates = await api<{ data: Array<{ id: string; name: string }> }>('POST', '/api/template/templates', {
      templates: ['News 1', 'News 2', 'Digest 1'].map((name) => ({
        name,
        subject: name,
        type: 'TEMPLATE_MARKETING',
        html_body: `<p>${name} for {{user.first_name}}</p><a href="{{unsubscribe_link}}">Manage your subscription</a>`,
      })),
    });
    const topics = (await api<{ data: Array<{ id: string; name: string }> }>('GET', '/api/subscriptions/topics')).data;
    const topic = (name: string) => topics.find((t) => t.name === name)!.id;
    const template = (name: string) => templates.data.find((t) => t.name === name)!.id;
    const persona = (await api<{ data: Array<{ id: string }> }>('GET', '/api/senderpersonawrapper/sender_personas')).data[0].id;
    const blast = async (name: string, topicId: string) => {
      const id = crypto.randomUUID();
      await api('POST', '/api/scheduler/scheduler', {
        id,
        name,
        template_id: template(name),
        sender_persona_id: persona,
        to_segment_ids: [segmentId],
        topic_id: topicId,
        send_at: wallClockUtc(-1),
        timezone: 'UTC',
      });
      return id;
    };
    await distributed(await blast('News 1', topic('Product news')));
    const html = await mailTo(READER, 'News 1');
    const centre = /href="([^"]+\/u\/[^"]+)"/.exec(html)![1];

    const reader = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await reader.goto(centre);
    await reader.getByRole('heading', { name: 'Email preferences' }).waitFor();
    expect(await reader.getByLabel('Product news').isChecked()).toBe(true);
    expect(await reader.getByLabel('Weekly digest').isChecked()).toBe(true);
    await reader.getByRole('button', { name: 'Unsubscribe from Product news' }).click();
    await reader.getByText(`${READER} no longer receives Product news email`).waitFor();
    await reader.getByRole('link', { name: 'Manage your email preferences' }).click();
    expect(await reader.getByLabel('Product news').isChecked()).toBe(false);
    expect(await reader.getByLabel('Weekly digest').isChecked()).toBe(true);
    await reader.close();

    // The next Product news blast leaves Pia out.
    const second = await distributed(await blast('News 2', topic('Product news')));
    expect(second.audience).toMatchObject({ targeted: 1, queued: 0, excluded: { unsubscribed: 1 } });

    // A Weekly digest blast, its topic chosen on the console's blast form, still reaches her.
    await page.goto(`${server.url}/components/email-blasts/new`);
    await page.getByLabel('Name').fill('Digest 1');
    await page.getByLabel('Template').selectOption({ label: 'Digest 1' });
    await page.getByLabel('Sender persona').selectOption({ index: 1 });
    await page.getByLabel('Topic').selectOption({ label: 'Weekly digest' });
    await page.getByLabel('Send now (as soon as it is saved)').check();
    await page.getByRole('combobox', { name: 'Segments' }).fill('News');
    await page.getByRole('option', { name: /^Newsletter/ }).click();
    await page.getByRole('button', { name: 'Save & Send' }).click();
    await page.waitForURL(/\/components\/email-blasts\/edit\/[0-9a-f-]{36}$/);
    const digestId = page.url().split('/').pop()!;
    const digest = await distributed(digestId);
    expect(digest.topic_id).toBe(topic('Weekly digest'));
    await mailTo(READER, 'Digest 1');
    expect(await subjectsTo(READER)).toEqual(['Please confirm your subscription to The Letters newsletter', 'News 1', 'Digest 1']);

    // The topics screen counts the unsubscribe.
    await page.goto(`${server.url}/people/topics`);
    const row = page.getByRole('row', { name: /Product news/ });
    await row.waitFor();
    expect(await row.getByRole('cell').allInnerTexts()).toEqual(['Product news', '', '1', '1', expect.any(String)]);
  });
});

describe('Account → Webhooks', () => {
  let url = '';
  it('registers an endpoint, sends a test event to a real receiver and shows it delivered', async () => {
    url = await receiver.start();
    await page.goto(`${server.url}/account/webhooks`);
    await page.getByText('No endpoints yet').waitFor();
    await page.getByLabel('URL').fill('ftp://example.com/x');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('URL: must be http or https, not ftp').waitFor();
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Description (optional)').fill('Our CRM');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.getByTestId(`endpoint-${url}`);
    await card.waitFor();
    const secret = await card.getByRole('textbox', { name: 'Signing secret (Standard Webhooks)' }).inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/); // in full, right after it was made, with a copy button
    await card.getByRole('button', { name: 'Copy signing secret (standard webhooks)' }).waitFor();
    await card.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor(() => receiver.requests.length === 1);
    expect((new Webhook(secret).verify(receiver.requests[0].body, receiver.requests[0].headers as Record<string, string>) as { type: string }).type).toBe(
      'webhook.test',
    );
    await card.getByRole('button', { name: 'Refresh' }).click();
    await card.getByRole('cell', { name: 'HTTP 204', exact: false }).waitFor();
    await card.getByRole('button', { name: /^Details of webhook\.test/ }).click();
    await page.getByTestId('delivery-payload').getByText('"type": "webhook.test"').waitFor();
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('hides the secret once the page is left, reveals it on demand (noted in Notifications), and shows a rotated one', async () => {
    await page.goto(`${server.url}/account/webhooks`);
    const card = page.getByTestId(`endpoint-${url}`);
    const field = card.getByRole('textbox', { name: 'Signing secret (Standard Webhooks)' });
    await field.waitFor();
    const [listed] = (await api<{ data: Array<{ secret_hint: string }> }>('GET', '/api/webhooks/endpoints')).data;
    expect(await field.inputValue()).toBe(listed.secret_hint); // the hint only: whsec_…last 4
    expect(listed.secret_hint).toMatch(/^whsec_….{4}$/);
    expect(await card.getByRole('button', { name: 'Copy signing secret (standard webhooks)' }).count()).toBe(0);

    await card.getByRole('button', { name: `Reveal the signing secret of ${url}` }).click();
    await expect.poll(() => field.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const secret = await field.inputValue();
    expect(secret.slice(-4)).toBe(listed.secret_hint.slice(-4));
    await card.getByRole('button', { name: 'Copy signing secret (standard webhooks)' }).waitFor();
    await card.getByRole('button', { name: 'Hide' }).click();
    await expect.poll(() => field.inputValue()).toBe(listed.secret_hint);

    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate' }).click();
    await expect.poll(() => field.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const rotated = await field.inputValue();
    expect(rotated).not.toBe(secret);
    const before = receiver.requests.length;
    await card.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor(() => receiver.requests.length === before + 1);
    const request = receiver.requests[before];
    expect((new Webhook(rotated).verify(request.body, request.headers as Record<string, string>) as { type: string }).type).toBe('webhook.test');

    await page.goto(`${server.url}/account/notifications`);
    const row = page.getByRole('table', { name: 'Notifications' }).getByRole('row').filter({ hasText: 'Webhook signing secret revealed' });
    await row.waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain(url);
    expect(await page.content()).not.toContain(secret.slice('whsec_'.length));
  });
});

describe('the generated edit and delete dialogs', () => {
  it('renames a topic in its dialog, names a clash under the field, and keeps the typed value', async () => {
    await page.goto(`${server.url}/people/topics`);
    await page.getByRole('button', { name: 'Edit Weekly digest' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit topic' });
    await dialog.getByLabel('Name').fill('product news');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Name: a topic named product news already exists').waitFor();
    expect(await dialog.getByLabel('Name').inputValue()).toBe('product news');
    await dialog.getByLabel('Name').fill('Weekly letter');
    await dialog.getByLabel('Description').fill('Every Friday');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /Weekly letter/ });
    expect((await row.getByRole('cell').allInnerTexts()).slice(0, 2)).toEqual(['Weekly letter', 'Every Friday']);
    const topics = (await api<{ data: Array<{ name: string; description: string }> }>('GET', '/api/subscriptions/topics')).data;
    expect(topics.map((t) => t.name).sort()).toEqual(['Product news', 'Weekly letter']);
  });

  it('edits an endpoint’s event types and deletes a subscribe form after confirming', async () => {
    await page.goto(`${server.url}/account/webhooks`);
    const card = page.getByTestId(/^endpoint-/);
    await card.getByRole('button', { name: /^Edit / }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit endpoint' });
    await dialog.getByLabel('Link clicked (email.clicked)').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await card.getByText(/Listens to: .*email\.clicked/).waitFor();
    const [endpoint] = (await api<{ data: Array<{ event_types: string[] }> }>('GET', '/api/webhooks/endpoints')).data;
    expect(endpoint.event_types).toContain('email.clicked');

    await page.goto(`${server.url}/people/subscribe-forms`);
    await page.getByRole('button', { name: 'Delete Footer form' }).click();
    await page.getByRole('dialog', { name: 'Delete ‘Footer form’?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No forms yet').waitFor();
    expect((await api<{ data: unknown[] }>('GET', '/api/subscriptions/forms')).data).toHaveLength(0);
  });
});
