/**
 * The console never counts itself, in a real browser against the built product:
 * a marketing email reaches a contact through a real SMTP server; the signed-in user opens its stored copy in the
 * email viewer (whose sandboxed iframe really loads the tracking pixel), clicks its link inside the viewer, opens it
 * again from the contact's email history, and previews the template — and the contact's opens and clicks stay 0 in
 * every report (totals, not only people's) and in filter_users num_opens greater_than 0, machine opens included.
 * The pixel's load is awaited in the server's request log, so the test shows it was requested and answered, not
 * blocked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, signInWithForm, e2eHooks, startE2E, marketingTemplate, sendBlastNow, verifiedPersona } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';
import { EVENT } from '../../src/domain/events.ts';

const PERSONA = 'news@demo-company.example.com';

let sink: SmtpSink;
let server: ServerProcess;
let page: Page;

/** servedAtLeast waits until the server's request log (LOG_LEVEL info) shows `n` answered requests under `prefix`, each 2xx or 3xx. */
async function servedAtLeast(prefix: string, n: number) {
  const answered = () => {
    const lines = server.output().split('\n');
    const ids = new Set(lines.filter((l) => l.includes(`"url":"${prefix}`)).map((l) => /"reqId":"([^"]+)"/.exec(l)?.[1]));
    return lines.filter((l) => {
      const m = /"reqId":"([^"]+)".*"statusCode":(\d+)/.exec(l);
      return m && ids.has(m[1]) && Number(m[2]) < 400;
    }).length;
  };
  for (const end = Date.now() + 30_000; answered() < n; await new Promise((r) => setTimeout(r, 200)))
    if (Date.now() > end) throw new Error(`the server answered ${answered()} requests under ${prefix}, not ${n}`);
}

e2eHooks();
beforeAll(async () => {
  ({ sink, server, page } = await startE2E({ tag: 'views', env: { SEND_POLL_MS: '200', LOG_LEVEL: 'info' }, login: DEMO_ACCOUNT }));
});

describe('the console never records an open or a click (e2e)', () => {
  it('views of the stored copy, the contact history and the template preview leave every count at 0', async () => {
    const persona = await verifiedPersona({ email: PERSONA, first_name: 'Demo' });
    const templateId = await marketingTemplate(
      'Quiet views',
      'Quiet views, {{user.first_name}}',
      `<html><body><p>Hi {{user.first_name}}</p><p><a href="${server.url}/pricing">See the prices</a></p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>`,
    );
    const [contact] = (await api('POST', '/api/user/users', { users: [{ email: SIMULATOR_SUCCESS_ADDRESS, first_name: 'Sim' }] })).data;
    await sendBlastNow({ name: 'Quiet views', template_id: templateId, sender_persona_id: persona.id, to_user_ids: [contact.id] });
    await sink.waitFor(() => sink.messages.some((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)), 60_000);
    const mail = (await sink.parsed()).find((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS))!;
    expect(String(mail.html)).toMatch(/\/t\/o\/[^"]+\.gif/);
    let history: { send_results: Array<{ location: string }> } = { send_results: [] };
    for (let end = Date.now() + 30_000; !history.send_results.length && Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
      history = await api('GET', `/api/reporting/email_send_results?email=${encodeURIComponent(SIMULATOR_SUCCESS_ADDRESS)}`);
    const location = history.send_results[0].location;

    await signInWithForm(page, server.url, DEMO_ACCOUNT);

    // 1. The viewer: its sandboxed iframe loads the pixel (the server's request log shows it answered; Playwright does
    // not report requests of a sandboxed frame) and the link is followed inside it.
    await page.goto(`${server.url}/email/${encodeURIComponent(location)}`);
    await servedAtLeast('/t/o/', 1);
    const frame = page.frameLocator('iframe[title="Email body"]');
    await frame.getByRole('link', { name: 'See the prices' }).click();
    await servedAtLeast('/t/c/', 1);

    // 2. The contact's email history, and the copy it opens in a new tab.
    await page.goto(`${server.url}/people/users`);
    await page.getByRole('searchbox', { name: 'Search' }).fill(SIMULATOR_SUCCESS_ADDRESS);
    await expect.poll(() => page.getByRole('row').count(), { timeout: 10_000 }).toBe(2);
    await page.getByRole('row').filter({ hasText: SIMULATOR_SUCCESS_ADDRESS }).getByRole('link', { name: 'Edit' }).click();
    const historyLink = page.getByRole('region', { name: 'Email history' }).getByRole('link', { name: 'Quiet views, Sim' });
    await historyLink.waitFor();
    const [tab] = await Promise.all([page.context().waitForEvent('page'), historyLink.click()]);
    await servedAtLeast('/t/o/', 2);
    await tab.close();

    // 3. The template's preview with its variables rendered.
    await page.goto(`${server.url}/components/templates/edit/${templateId}`);
    await page.getByRole('button', { name: 'Render variables' }).click();
    await page.frameLocator('iframe[title="Template preview"]').getByRole('link', { name: 'See the prices' }).waitFor();

    // Nothing was recorded: every report, totals included, and the contact filters, machine opens included.
    await new Promise((r) => setTimeout(r, 1000));
    const stats = (await api<{ data: Array<{ name: string; num: number; num_human: number }> }>('GET', '/api/reporting/quickstats')).data;
    for (const name of [EVENT.open, EVENT.click])
      expect(
        stats.find((r) => r.name === name),
        name,
      ).toMatchObject({ num: 0, num_human: 0 });
    expect(stats.find((r) => r.name === EVENT.sendSuccess)!.num).toBeGreaterThan(0);
    expect((await api<{ data: unknown[] }>('GET', '/api/reporting/mostclickedlinks')).data).toEqual([]);
    expect((await api<{ data: unknown[] }>('GET', '/api/reporting/recentlyopenedemails')).data).toEqual([]);
    for (const include_machine of [false, true]) {
      for (const attribute of ['num_opens', 'num_clicks']) {
        const found = await api<{ total_users: number }>('POST', '/api/segment/segments/filter_users', {
          user_filters: [{ attribute, operator: 'greater_than', values: [0], include_machine }],
        });
        expect(found.total_users, `${attribute} include_machine=${include_machine}`).toBe(0);
      }
    }
  });
});
