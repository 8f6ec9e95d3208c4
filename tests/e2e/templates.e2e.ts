/**
 * The template editor offline in Debian's chromium: every request
 * that leaves the test server is refused, as on a machine without internet. Unlayer's script cannot load, so the
 * editor falls back to the self-hosted GrapesJS designer within the readiness window; a button block is dragged into
 * the design, the template is saved (and reopens in the same designer), previewed with variables, and sent as a test
 * email to the simulator through a real SMTP server. A real-world HTML email (Postmark's welcome) is imported as a
 * transactional template and the suspicious-variable warning behaves as spec part 2 §5 says. Images upload through
 * the pre-signed URL and are served publicly; a non-image gets a clear error.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import type { Json } from '../helpers/json.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

const POSTMARK_WELCOME = fixturePath('email-templates/postmark/welcome/content.html');
/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let sink: SmtpSink;
let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** Requests the page tried to send off this machine (all refused). */
const offline: string[] = [];

e2eHooks();
beforeAll(async () => {
  ({ sink, server, browser, context, page, pageErrors } = await startE2E({
    tag: 'templates',
    env: { SEND_POLL_MS: '300', DEMO_RESET_CRON: 'off', DOMAIN_CHECK_CRON: 'off' },
    demo: 'templates@example.net',
    viewport: { width: 1400, height: 1000 },
  }));
  // Offline: nothing but the test server answers.
  const own = new URL(server.url).origin;
  await context.route(
    (url) => url.origin !== own,
    (route) => {
      offline.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
});

/**
 * dragBlockIntoCanvas drags a GrapesJS block onto the first paragraph of the design with the browser's own HTML5
 * drag events (dragstart on the block; dragenter, dragover and drop in the canvas; dragend), the events GrapesJS's
 * block manager and canvas handle. Playwright's mouse drag does not carry a native drag into the canvas iframe.
 * The script is a string so the test runner's transpiler adds nothing to it.
 */
async function dragBlockIntoCanvas(label: string): Promise<void> {
  await page.evaluate(`(async () => {
    const block = [...document.querySelectorAll('[data-testid="grapesjs-designer"] .gjs-block')].find((b) => b.textContent.trim() === ${JSON.stringify(label)});
    const body = document.querySelector('[data-testid="grapesjs-designer"] iframe.gjs-frame').contentDocument.body;
    const dt = new DataTransfer();
    const fire = (el, type, x, y) => el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt, clientX: x || 0, clientY: y || 0 }));
    fire(block, 'dragstart');
    const target = body.querySelector('p') || body;
    const r = target.getBoundingClientRect();
    fire(target, 'dragenter', r.x + 10, r.y + 5);
    for (let i = 0; i < 5; i++) { fire(target, 'dragover', r.x + 10 + i, r.y + 5); await new Promise((res) => setTimeout(res, 50)); }
    fire(target, 'drop', r.x + 14, r.y + 5);
    fire(block, 'dragend');
  })()`);
}

const canvas = () => page.frameLocator('[data-testid="grapesjs-designer"] iframe.gjs-frame');

describe('template editor offline (e2e)', () => {
  let templateId: string;

  it('falls back to the offline designer, takes a dragged button block, saves, and reopens in the same designer', async () => {
    const started = Date.now();
    await page.goto(`${server.url}/components/templates/new`);
    await page.getByRole('button', { name: 'Start blank' }).click(); // past the gallery of starters
    await page.getByText('Using the built-in designer, which works offline.').waitFor({ timeout: 10_000 });
    // The fallback shows within the readiness window (40 × 200 ms) plus its own load.
    const block = page.locator('[data-testid="grapesjs-designer"] .gjs-block').filter({ hasText: 'Button' });
    await block.waitFor({ timeout: 15_000 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(offline.some((u) => u.startsWith('https://editor.unlayer.com/'))).toBe(true);
    expect(offline.filter((u) => !u.startsWith('https://editor.unlayer.com/'))).toEqual([]);

    // The default design: the unsubscribe link on white.
    await canvas().getByRole('link', { name: 'Unsubscribe' }).waitFor();
    await dragBlockIntoCanvas('Button');
    await canvas().locator('a.button', { hasText: 'Button' }).waitFor();

    await page.getByLabel('Name').fill('Designer welcome');
    await page.getByLabel('Subject').fill('Hello {{user.first_name}}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/components\/templates\/edit\/[0-9a-f-]{36}$/);
    await page.getByText('Successfully saved template').waitFor();
    templateId = page.url().split('/').pop()!;

    const [saved] = (await api<{ data: Json[] }>('GET', `/api/template/templates?ids=${templateId}`)).data;
    expect(saved.json.designer).toBe('grapesjs');
    expect(saved.json.design.pages).toHaveLength(1);
    expect(saved.html_body).toMatch(/^<!doctype html>/);
    expect(saved.html_body).toMatch(/<a[^>]*class="button"[^>]*>Button<\/a>/);
    expect(saved.html_body).toContain('href="{{unsubscribe_link}}"');
    expect(saved.html_body).toMatch(/background-color:\s*#ffffff/);
    expect(saved.plain_text_body).toMatch(/Hi \{\{user\.first_name\}\},/);

    // Reopened, it loads in GrapesJS at once (its json says so), never asking Unlayer again.
    const asked = offline.length;
    await page.reload();
    await canvas().locator('a.button', { hasText: 'Button' }).waitFor({ timeout: 15_000 });
    expect(offline.slice(asked)).toEqual([]);
    await expect(page.getByText('Using the built-in designer, which works offline.').count()).resolves.toBe(0);
  });

  it('previews with a sample contact and sender persona, and returns to edit mode with the design intact', async () => {
    await page.getByRole('button', { name: 'Render variables' }).click();
    const preview = page.frameLocator('iframe[title="Template preview"]');
    await preview.getByText('Hi Jane,').waitFor();
    await preview.getByText('Sam', { exact: true }).waitFor();
    await expect(preview.getByText('{{user.first_name}}').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Return to edit mode' }).click();
    await canvas().locator('a.button', { hasText: 'Button' }).waitFor();
  });

  it('sends a test email of the designed template to the simulator', async () => {
    const before = sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length;
    await page.getByRole('button', { name: 'Send test email' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send test email' });
    await dialog.getByRole('button', { name: 'simulator' }).click();
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText(`Successfully sent email to ${SIMULATOR_SUCCESS_ADDRESS}`).waitFor();
    await sink.waitFor(() => sink.messages.filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).length === before + 1, 30_000);
    const mail = (await sink.parsed()).filter((m) => m.envelopeTo.includes(SIMULATOR_SUCCESS_ADDRESS)).at(-1)!;
    expect(mail.subject).toMatch(/^Hello /);
    expect(String(mail.html)).toMatch(/<a[^>]*class="button"[^>]*>Button<\/a>/);
  });

  it('uploads an image through the upload URL and refuses a file that is not an image', async () => {
    await page.getByLabel('Upload image file').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PNG });
    await page.getByText('Successfully uploaded image pixel.png').waitFor();
    const url = await page.locator('code', { hasText: '/template-images/' }).first().textContent();
    expect(url).toMatch(/\/template-images\/[0-9a-f-]{36}\/pixel-\d{4}-\d\d-\d\d-[0-9a-f]{8}\.png$/);
    const image = await fetch(url!.replace(/^http:\/\/[^/]+/, server.url));
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);

    await page.getByLabel('Upload image file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
    await page.getByText("Couldn't upload image notes.txt: notes.txt is not a PNG, JPEG, GIF or WebP image").waitFor();
    // Bytes that claim to be a PNG but are not: the server refuses them with its reason.
    await page.getByLabel('Upload image file').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('GIF89a, or rather not') });
    await page.getByText("Couldn't upload image fake.png: Unsupported Media Type: The file is not a PNG image").waitFor();
  });

  it("falls back when Unlayer's host never answers, after the readiness window (40 tries at 200 ms)", async () => {
    const hanging = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const own = new URL(server.url).origin;
    // Unlayer's requests hang (a host that accepts but never answers); everything else off this machine is refused.
    await hanging.route(
      (url) => url.origin !== own,
      (route) => (route.request().url().startsWith('https://editor.unlayer.com/') ? undefined : route.abort('internetdisconnected')),
    );
    await hanging.addCookies(await context.cookies());
    const p = await hanging.newPage();
    const started = Date.now();
    await p.goto(`${server.url}/components/templates/new`);
    await p.getByRole('button', { name: 'Start blank' }).click(); // past the gallery of starters
    await p.getByText('Loading the designer…').waitFor();
    await p.getByText('The Unlayer designer did not answer within 8 s. Using the built-in designer, which works offline.').waitFor({ timeout: 15_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(8000);
    await p.locator('[data-testid="grapesjs-designer"] .gjs-block').filter({ hasText: 'Button' }).waitFor({ timeout: 15_000 });
    await hanging.close();
  });

  it("imports Postmark's welcome email as a transactional template with the suspicious-variable warning", async () => {
    await page.goto(`${server.url}/components/templates/new`);
    await page.getByRole('button', { name: 'Start blank' }).click(); // past the gallery of starters
    await page.getByLabel('Import HTML file').setInputFiles(POSTMARK_WELCOME);
    await page.getByText('Imported content.html').waitFor();
    const html = page.getByRole('textbox', { name: 'HTML' });
    expect(await html.inputValue()).toBe(await readFile(POSTMARK_WELCOME, 'utf8'));
    // {{name}} is one of the spec's suspicious formats ({name}); {{action_url}} and the other Postmark variables are not.
    const warning = page.getByText(/This template contains variable formats that will not be filled in: \{name\}\./);
    await warning.waitFor({ timeout: 5000 });

    await page.getByLabel('Name').fill('Postmark welcome');
    await page.getByLabel('Subject').fill('Welcome to {{product_name}}');
    // Marketing (the default) needs the unsubscribe link, which Postmark's transactional email lacks.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Marketing emails must include an unsubscribe link! Please see the instructions below the template editor').waitFor();
    await page.getByLabel('Type').selectOption('TEMPLATE_TRANSACTIONAL');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/components\/templates\/edit\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    const [saved] = (await api<{ data: Json[] }>('GET', `/api/template/templates?ids=${id}`)).data;
    expect(saved).toMatchObject({ type: 'TEMPLATE_TRANSACTIONAL', json: { designer: 'html' } });

    // Reopened as code; fixing the variable clears the warning at the next 2-second check.
    await page.getByRole('textbox', { name: 'HTML' }).waitFor();
    await warning.waitFor();
    const fixed = (await page.getByRole('textbox', { name: 'HTML' }).inputValue()).replace('{{name}}', '{{user.first_name}}');
    // The check runs every 2 s; a loaded machine (CI) takes longer to get there than a quiet one. The fix is typed
    // again if the box no longer holds it: in one CI run the warning stayed for 15 s after the fill, as if the
    // reopened record had been loaded into the form after the typing (not reproduced here).
    await expect
      .poll(
        async () => {
          const box = page.getByRole('textbox', { name: 'HTML' });
          if ((await box.inputValue()) !== fixed) await box.fill(fixed);
          return warning.count();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(0);
    // A space before {user is suspicious too.
    await page.getByRole('textbox', { name: 'HTML' }).fill(fixed.replace('{{user.first_name}}', '{user.first_name}'));
    await page.getByText(/will not be filled in: .*\{user/).waitFor({ timeout: 15_000 });
    expect(pageErrors).toEqual([]);
  });
  it('starts a new template from the gallery: thumbnails of the starters, and the Newsletter saved as a marketing template', async () => {
    await page.goto(`${server.url}/components/templates/new`);
    const gallery = page.getByRole('list', { name: 'Starter templates' });
    await gallery.waitFor();
    expect(await gallery.getByRole('listitem').count()).toBe(6); // blank and five starters
    for (const name of ['Welcome', 'Newsletter', 'Announcement', 'Receipt', 'Password reset']) {
      const thumb = page.getByTitle(`Thumbnail of the ${name} starter`);
      // A live thumbnail: the starter itself, with the sample contact's values, where nothing runs.
      await expect.poll(async () => (await thumb.getAttribute('srcdoc')) ?? '').toContain('<');
      expect(await thumb.getAttribute('sandbox')).toBe('allow-same-origin');
    }
    expect(await page.getByTitle('Thumbnail of the Welcome starter').getAttribute('srcdoc')).toContain('Jane');
    await page.getByRole('button', { name: 'Use Newsletter' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('Newsletter');
    expect(await page.getByLabel('Subject').inputValue()).toBe('What is new this month');
    expect(await page.locator('#template-type').inputValue()).toBe('TEMPLATE_MARKETING');
    const html = await page.getByRole('textbox', { name: 'HTML' }).inputValue();
    expect(html).toContain('{{unsubscribe_link}}');
    expect(html).toContain('licence: /starters/LICENSE-leemunroe.txt');
    // The starter's hidden preheader is a field the author sees and edits, and no sample address hides in the footer.
    const preheader = page.getByLabel('Inbox preview text');
    expect(await preheader.inputValue()).toBe('The highlights of this month, in a three-minute read.');
    expect(html).not.toMatch(/preheader text|1234 Street|Company Inc/);
    await preheader.fill('Three things {{user.first_name}} should know');
    const edited = await page.getByRole('textbox', { name: 'HTML' }).inputValue();
    expect(edited).toContain('>Three things {{user.first_name}} should know</span>');
    expect(edited).not.toContain('The highlights of this month');
    await page.getByRole('button', { name: 'Render variables' }).click();
    const inbox = page.getByRole('group', { name: 'Inbox preview' });
    expect(await inbox.getByTestId('inbox-preheader').textContent()).toBe(' — Three things Jane should know');
    expect(await inbox.textContent()).toContain('What is new this month');
    await page.getByRole('button', { name: 'Return to edit mode' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Successfully saved template').waitFor();
    await page.waitForURL(/\/components\/templates\/edit\/[0-9a-f-]{36}$/);
    const saved = (await api('GET', `/api/template/templates?ids=${page.url().split('/').pop()}`)).data[0];
    expect(saved).toMatchObject({ name: 'Newsletter', subject: 'What is new this month', type: 'TEMPLATE_MARKETING' });
    expect(saved.html_body).toBe(edited);
    expect(pageErrors).toEqual([]);
  });
  it('on a phone, opens a saved template as its rendered email, with the editor one tap away', async () => {
    const id = page.url().split('/').pop()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/components/templates/edit/${id}`);
      await page.getByText('Template editing is not supported on mobile devices').waitFor();
      await expect
        .poll(async () => (await page.getByTitle('Template preview').getAttribute('srcdoc')) ?? '')
        .toContain('licence: /starters/LICENSE-leemunroe.txt');
      expect(await page.getByRole('group', { name: 'Inbox preview' }).textContent()).toContain('What is new this month — Three things Jane should know');
      await page.getByRole('button', { name: 'Send test email' }).waitFor();
      await page.getByRole('button', { name: 'Edit anyway' }).click();
      expect(await page.getByLabel('Name').inputValue()).toBe('Newsletter');
    } finally {
      await page.setViewportSize({ width: 1400, height: 1000 });
    }
    expect(pageErrors).toEqual([]);
  });
});
