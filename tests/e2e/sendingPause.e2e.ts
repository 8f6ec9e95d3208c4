/**
 * The reputation circuit-breaker's banner in a real browser (src/console/account/PauseBanner.tsx): a project whose
 * complaint rate crosses the limit (PAUSE_MIN_SENDS=1 here; one real send — a single email to the mailbox simulator,
 * which the product records itself — and a complaint through the JSON feedback endpoint) shows the banner on every
 * console page; Resume asks for confirmation, resumes,
 * and the banner goes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, signInWithForm, e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

let server: ServerProcess;
let page: Page;

e2eHooks();
beforeAll(async () => {
  ({ server, page } = await startE2E({ tag: 'pause', env: { PAUSE_MIN_SENDS: '1' }, login: DEMO_ACCOUNT, viewport: { width: 390, height: 844 } }));
});

describe('sending paused by the circuit-breaker (e2e)', () => {
  it('shows the banner on every page with the reason, and Resume (confirmed) resumes', async () => {
    // One email the product sends and records (the events API refuses send events).
    const [persona] = (await api<{ data: Array<{ id: string }> }>('GET', '/api/senderpersonawrapper/sender_personas')).data;
    const [template] = (await api<{ data: Array<{ id: string }> }>('GET', '/api/template/templates')).data;
    await api('POST', '/api/event/emit_send_single_email_event', {
      mailer_payload: { template_id: template.id, from: { user_id: persona.id }, to: [{ email: SIMULATOR_SUCCESS_ADDRESS }] },
    });
    await expect.poll(async () => (await api<{ sends_24h: number }>('GET', '/api/scheduler/sending_status')).sends_24h, { timeout: 30_000 }).toBe(1);
    await api('POST', '/api/event/feedback', { notifications: [{ type: 'complaint', email: 'reader@example.com', feedback_type: 'abuse' }] });
    const status = await api<{ paused: boolean; reason: string }>('GET', '/api/scheduler/sending_status');
    expect(status.paused).toBe(true);

    await signInWithForm(page, server.url, DEMO_ACCOUNT);
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
