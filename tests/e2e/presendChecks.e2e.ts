/**
 * Pre-send checks in a real browser against the built product (docs/architecture.md §12 "Pre-send checks", §15): the
 * template editor's "Check" lists the findings with their severity, at desktop width and at 390 px; the send
 * wizard's review shows the checklist of the chosen template, and a marketing template whose unsubscribe link is only
 * inside a comment (which the save accepts: the variable is there) keeps Launch disabled with the reason, until a
 * template with a real unsubscribe link is chosen.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { e2eHooks } from '../helpers/e2e.ts';
import { Wizard, createContacts, createSegment, createVerifiedPersona, startWorld, type WizardWorld } from './wizardFlow.ts';

const PERSONA = 'ivy@checks.example.com';
const UNSUBSCRIBE_MISSING = 'This marketing email has no unsubscribe link readers can see';

let w: WizardWorld;
let wizard: Wizard;
const ids: Record<string, string> = {};

e2eHooks();
beforeAll(async () => {
  w = await startWorld('presend');
  wizard = new Wizard(w.page, w.server.url);
  await createVerifiedPersona(w, PERSONA, 'Ivy');
  const { data } = await w.api('POST', '/api/template/templates', {
    templates: [
      {
        name: 'Hidden unsubscribe',
        subject: 'Autumn picks',
        type: 'TEMPLATE_MARKETING',
        html_body: '<p>Autumn picks for {{user.email}}</p><img src="/template-images/none.png"><!-- <a href="{{unsubscribe_link}}">Unsubscribe</a> -->',
      },
      {
        name: 'Proper news',
        subject: 'Proper news',
        type: 'TEMPLATE_MARKETING',
        html_body: '<p>Proper news for {{user.email}}</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p>',
      },
    ],
  });
  for (const t of data as Array<{ id: string; name: string }>) ids[t.name] = t.id;
  await createSegment(w, 'Checked readers', await createContacts(w, ['ann@checks.test', 'bob@checks.test']));
});

describe('pre-send checks (e2e)', () => {
  it("the template editor's Check lists the findings with their severity, on a desktop and at 390 px", async () => {
    const page = w.page;
    await page.goto(`${w.server.url}/components/templates/edit/${ids['Hidden unsubscribe']}`);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    const list = page.getByTestId('template-checklist');
    const error = list.locator('[data-code="unsubscribe_missing"]');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.getAttribute('data-severity')).toBe('error');
    expect(await error.textContent()).toContain(`Error: ${UNSUBSCRIBE_MISSING}`);
    expect(await list.locator('[data-code="image_alt"]').textContent()).toContain('Warning: An image has no alt text');
    await list.getByText(/^1 error, \d+ warnings?\. HTML as sent: [\d.]+ KB\.$/).waitFor();

    // On a phone the editor shows the email, with the same checklist under it, and nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.getByTestId('template-checklist').locator('[data-code="unsubscribe_missing"]').waitFor({ timeout: 30_000 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await page.setViewportSize({ width: 1400, height: 1000 });
    }
  });

  it("the wizard's review shows the checklist; an error finding disables Launch with the reason", async () => {
    const page = w.page;
    await wizard.open();
    await wizard.chooseType(/^One-time blast/);
    await wizard.next('Campaign name');
    await wizard.name('Checked launch');
    await wizard.next('Sender persona');
    await wizard.pick('Sender persona', 'ivy', new RegExp(PERSONA));
    await wizard.next('Template');
    await wizard.pick('Template', 'hidden', 'Hidden unsubscribe');
    await wizard.next('Recipients');
    await wizard.next('Segments');
    await wizard.tick('segments', ['Checked readers']);
    await wizard.next('When to send');
    await page.getByRole('button', { name: 'Send now' }).click();
    await wizard.next('Review and launch');

    const checklist = page.getByTestId('presend-checklist');
    await checklist.getByRole('heading', { name: 'Pre-send checks' }).waitFor();
    await checklist.locator('[data-code="unsubscribe_missing"]').waitFor({ timeout: 30_000 });
    const reason = page.getByRole('alert', { name: 'Check errors' });
    await reason.getByText('Launch is disabled until these are fixed in the template:').waitFor();
    expect(await reason.textContent()).toContain(UNSUBSCRIBE_MISSING);
    // The audience preview has no problem with this template: the checks alone hold the launch.
    await page
      .getByRole('table', { name: 'Audience and cost' })
      .getByRole('row', { name: /Recipients to be sent 2$/ })
      .waitFor();
    expect(await page.getByRole('alert', { name: 'Launch problems' }).count()).toBe(0);
    const launch = page.getByRole('button', { name: 'Launch', exact: true });
    expect(await launch.isDisabled()).toBe(true);

    // A template with a real unsubscribe link: the checklist has no error, and Launch can go.
    await wizard.back('When to send');
    await wizard.back('Segments');
    await wizard.back('Recipients');
    await wizard.back('Template');
    await wizard.pick('Template', 'proper', 'Proper news');
    await wizard.next('Recipients');
    await wizard.next('Segments');
    await wizard.next('When to send');
    await wizard.next('Review and launch');
    await checklist.getByText(/^(No problems found|\d+ warnings?)\. HTML as sent/).waitFor({ timeout: 30_000 });
    expect(await checklist.locator('[data-severity="error"]').count()).toBe(0);
    expect(await page.getByRole('alert', { name: 'Check errors' }).count()).toBe(0);
    await expect.poll(() => launch.isEnabled(), { timeout: 30_000 }).toBe(true);
  });
});
