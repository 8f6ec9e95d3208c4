/**
 * Delivery feedback in a real browser against the built product: a blast reaches a contact through a real
 * SMTP server; the browser loads the open pixel from the received message and follows its tracked link through the
 * real redirect to a local page; a one-click POST to the List-Unsubscribe URL (as a mail client sends it) unsubscribes
 * the contact; the Events screen shows the send, open, click and unsubscribe; the next marketing blast skips the
 * contact and the blast list reports it as excluded (unsubscribed). A provider's bounce webhook set up on the
 * Integrations page (Brevo, token-signed) shows on the contact page with the receiver's words.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, landingPage, marketingTemplate, sandboxRecipients, sendBlastNow, e2eHooks, startE2E, verifiedPersona, signInWithForm } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { EVENT } from '../../src/domain/events.ts';

const PERSONA = 'news@demo-company.example.com';

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;
let landingUrl: string;

e2eHooks();
beforeAll(async () => {
  landingUrl = await landingPage('Winter sale', '/winter-sale?src=email');
  ({ sink, server, page } = await startE2E({ tag: 'fb', env: { SEND_POLL_MS: '200' }, login: DEMO_ACCOUNT }));
});

describe('opens, clicks and one-click unsubscribe (e2e)', () => {
  it('tracks the open and the click, unsubscribes in one click, shows the events, and excludes the contact next time', async () => {
    // The demo account is in the sandbox: it may mail the simulator's success address and its own sender personas.
    const persona = await verifiedPersona({ email: PERSONA, first_name: 'Demo', last_name: 'News' });
    const templateId = await marketingTemplate(
      'Winter sale',
      'Winter sale, {{user.first_name}}',
      `<html><body><p>Hi {{user.first_name}}</p><p><a href="${landingUrl}">See the sale</a></p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>`,
    );
    const contacts = await sandboxRecipients(PERSONA);
    const sim = contacts.find((c) => c.email === SIMULATOR_SUCCESS_ADDRESS)!;
    await sendBlastNow({ name: 'Winter sale 1', template_id: templateId, sender_persona_id: persona.id, to_user_ids: contacts.map((c) => c.id) });

    await sink.waitFor(() => sink.messages.some((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)), 60_000);
    const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!;
    const html = String(mail.html);
    const pixel = /<img src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)?.[1];
    const tracked = /<a href="([^"]+\/t\/c\/[^"]+)">See the sale<\/a>/.exec(html)?.[1];
    const unsubscribeHeader = mail.headerLines.find((l) => l.key === 'list-unsubscribe')!.line;
    const unsubscribeUrl = /<([^>]+)>/.exec(unsubscribeHeader)![1];
    expect(pixel).toMatch(new RegExp(`^${server.url}/t/o/`));
    expect(tracked).toMatch(new RegExp(`^${server.url}/t/c/`));
    expect(mail.headerLines.find((l) => l.key === 'list-unsubscribe-post')?.line).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');

    // The browser loads the pixel (as a mail client showing images does) and follows the link to the local page.
    const gif = await page.goto(pixel!);
    expect(gif!.status()).toBe(200);
    expect(gif!.headers()['content-type']).toBe('image/gif');
    await page.goto(tracked!);
    expect(page.url()).toBe(landingUrl);
    await page.getByRole('heading', { name: 'Winter sale landing page' }).waitFor();

    // RFC 8058: the mail client POSTs List-Unsubscribe=One-Click to the header's URL, with no cookies and no page.
    const oneClick = await fetch(unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    const contact = (await api('GET', `/api/user/users?ids=${sim.id}`)).data[0];
    expect(contact.unsubscribed_at).toBeTruthy();

    // The Events screen shows the four events for the contact.
    await signInWithForm(page, server.url, DEMO_ACCOUNT);
    await page.goto(`${server.url}/account/events`);
    const search = page.getByLabel('Search events');
    await search.fill(SIMULATOR_SUCCESS_ADDRESS);
    for (const name of [EVENT.sendSuccess, EVENT.open, EVENT.click, EVENT.unsubscribed]) {
      await page.getByRole('row').filter({ hasText: name }).filter({ hasText: SIMULATOR_SUCCESS_ADDRESS }).first().waitFor({ timeout: 15_000 });
    }

    // The next marketing blast skips the unsubscribed contact and says so.
    const before = sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length;
    const second = await sendBlastNow({
      name: 'Winter sale 2',
      template_id: templateId,
      sender_persona_id: persona.id,
      to_user_ids: contacts.map((c) => c.id),
    });
    const saved = (await api('GET', `/api/scheduler/scheduler?ids=${second}`)).data[0];
    expect(saved.audience).toEqual({
      targeted: 2,
      queued: 1,
      excluded: { unconfirmed: 0, unsubscribed: 1, bounced: 0, suppressed: 0, invalid: 0, not_a_contact: 0, sunset: 0, frequency: 0 },
    });
    expect(sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))).toHaveLength(before);
    await page.goto(`${server.url}/components/email-blasts`);
    await page.getByRole('row').filter({ hasText: 'Winter sale 2' }).getByText('1 (1 unsubscribed)').waitFor();
  });

  it("sends a test email of a template to the simulator from the editor, with the spec's toast", async () => {
    const templates = await api<{ data: Array<{ id: string; name: string }> }>('GET', '/api/template/templates');
    const winter = templates.data.find((x) => x.name === 'Winter sale')!;
    const before = sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length;
    await page.goto(`${server.url}/components/templates/edit/${winter.id}`);
    await page.getByRole('button', { name: 'Send test email' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send test email' });
    await dialog.getByRole('button', { name: 'simulator' }).click();
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(`Successfully sent email to ${SIMULATOR_SUCCESS_ADDRESS}`).waitFor();
    await sink.waitFor(() => sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length === before + 1, 30_000);
    const test = (await sink.parsed()).filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).at(-1)!;
    expect(String(test.html)).not.toContain('/t/o/');
  });

  it('sets up Brevo’s webhook on the Integrations page; a signed Brevo bounce then shows on the contact page in the receiver’s words', async () => {
    await page.goto(`${server.url}/account/api`);
    const brevo = page.getByTestId('provider-brevo');
    await brevo.getByText('Not set up').waitFor();
    await brevo.getByLabel('Token').fill('brevo-e2e-token-123');
    await brevo.getByRole('button', { name: 'Save' }).click();
    await brevo.getByText('Set up (secret …-123)').waitFor();
    const url = await brevo.getByRole('textbox', { name: 'Brevo webhook URL' }).inputValue();
    expect(url).toMatch(new RegExp(`^${server.url}/api/event/feedback/brevo/`));

    // Brevo reports a hard bounce of the latest email to the persona's own contact (Pat), with its Message-ID.
    const mail = (await sink.parsed()).filter((m) => m.envelopeTo.includes(PERSONA) && /Winter sale/.test(String(m.subject))).at(-1)!;
    const words = '550 5.1.1 <news@demo-company.example.com>: Recipient address rejected: User unknown';
    const post = (token: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ event: 'hard_bounce', email: PERSONA, 'message-id': mail.messageId, reason: words }),
      });
    expect((await post('not-the-token')).status).toBe(401);
    const answer = await post('brevo-e2e-token-123');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ applied: 1, suppressed: 1 });

    const pat = (await api<{ data: Array<{ id: string; email: string }> }>('GET', '/api/user/users')).data.find((c) => c.email === PERSONA)!;
    await page.goto(`${server.url}/people/users/edit/${pat.id}`);
    const section = page.getByRole('region', { name: 'Bounces and complaints' });
    await section.getByText('Hard bounce').waitFor();
    await section.getByText(words).waitFor();
    await section.getByText('Brevo', { exact: false }).waitFor();
  });
});
