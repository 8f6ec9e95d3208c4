/**
 * `npm run screens`: the README tour's screenshots, taken from the built product in Debian's
 * chromium at 1440×900 and 390×844 and written to docs/screens/{name}-{1440|390}.png. Starts its own server (an
 * empty data directory, an SMTP sink that accepts everything), signs up a new account for the first-week screens
 * (sign-up errors, the pricing, home and docs pages, an API reference page) and uses the demo account for the rest
 * (the Insights dashboard, the template gallery, the column-mapping step of an import, the workflow editor marking a
 * node that fails). Needs `npm run build` first; throws when a screen does not show.
 *
 * It also writes the public site's product pictures (public/screens/{name}-{1200|640}.webp, 16:10, WebP encoded by
 * chromium's canvas): an activated sample account ("Sample Outfitters", made with `npm run admin -- create-account`)
 * sends two real blasts through the sink, and its readers open and click them as people do, and a few as machines do,
 * so the Insights dashboard shows real figures; then the send wizard's review, the template editor and a workflow.
 * The pictures are copied into dist/console/screens too, so the home page's screenshots in the same run show them.
 * Commit what it writes.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { demoContext, launchChromium } from '../tests/helpers/browser.ts';
import { fixturePath } from '../tests/helpers/fixtures.ts';
import { apiCaller, ROOT, runTs, startServer } from '../tests/helpers/processes.ts';
import { MAIL_CLIENT_UA, readerDelay } from '../tests/helpers/reader.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';
import { wallClockUtc } from '../tests/helpers/time.ts';
import { displayToTree, type Display } from '../src/domain/workflowGraph.ts';

const OUT = path.join(ROOT, 'docs/screens');
/** The public site's product pictures, and the built site's copy of them. */
const SITE_OUT = path.join(ROOT, 'public/screens');
const SITE_BUILT = path.join(ROOT, 'dist/console/screens');
const SIZES = [
  { width: 1440, height: 900, tag: '1440' },
  { width: 390, height: 844, tag: '390' },
] as const;

/** One screen of the tour: how to reach it on a fresh page. */
interface Screen {
  name: string;
  account: 'new' | 'demo';
  show: (page: Page, url: string) => Promise<void>;
}

const SCREENS: Screen[] = [
  {
    name: 'signup-errors',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/signup`);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.getByTestId('signup-error').waitFor();
    },
  },
  {
    name: 'insights-new-account',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/insights`);
      await page.getByTestId('sandbox-activation').waitFor();
      await page.getByRole('region', { name: 'Recent emails' }).waitFor();
    },
  },
  {
    name: 'template-gallery',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/components/templates/new`);
      await page.getByTitle('Thumbnail of the Password reset starter').waitFor();
      await page.waitForTimeout(800);
    },
  },
  {
    name: 'import-column-mapping',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/people/users/new/bulk`);
      await page.locator('input[type=file]').setInputFiles(fixturePath('exports/mailchimp-audience.csv'));
      await page.getByRole('table', { name: 'First rows of mailchimp-audience.csv' }).waitFor();
    },
  },
  {
    name: 'workflow-save-problem',
    account: 'demo',
    show: async (page, url) => {
      await page.goto(`${url}/components/workflows/new`);
      await page.getByLabel('Name').fill('Welcome series');
      const toolbar = page.getByRole('navigation', { name: 'Node toolbar' });
      await toolbar.getByRole('button', { name: 'Event trigger' }).click();
      await page.getByRole('dialog').getByLabel('Event name').fill('signed_up');
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await toolbar.getByRole('button', { name: 'Delay', exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await page.locator('[data-testid="workflow-canvas"] g.joint-element[data-node-type="delay"] [joint-selector="settings"]').click();
      await toolbar.getByRole('button', { name: 'Unsubscribe' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('alert', { name: 'Save problems' }).waitFor();
    },
  },
  {
    name: 'pricing',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/pricing`);
      await page.getByRole('table', { name: 'Rates compared' }).waitFor();
    },
  },
  {
    name: 'docs',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/docs`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    },
  },
  {
    name: 'docs-api-reference',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/docs/api/user`);
      await page.locator('.opblock').first().waitFor();
    },
  },
  {
    name: 'home',
    account: 'new',
    show: async (page, url) => {
      await page.goto(`${url}/`);
      await page.getByRole('link', { name: 'Start free' }).first().waitFor();
      await page.locator('.mw-hero img').evaluate((img: HTMLImageElement) => img.decode());
    },
  },
];

/** The sample account whose screens become the site's product pictures. */
const SHOWCASE = { company: 'Sample Outfitters', project: 'Main project', email: 'owner@outfitters.example', password: 'outfitters-password-1' };
const PERSONA = 'news@outfitters.example';

/** One product picture of the public site: how to show it, signed in as the sample account at 1280×800. */
interface SitePicture {
  name: string;
  show: (page: Page, url: string, ids: ShowcaseIds) => Promise<void>;
}

interface ShowcaseIds {
  newsletter: string;
  workflow: string;
}

const SITE_PICTURES: SitePicture[] = [
  {
    name: 'insights',
    show: async (page, url) => {
      await page.goto(`${url}/insights`);
      await page.getByRole('region', { name: 'Recent emails' }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(2000); // the charts' entry animation
    },
  },
  {
    name: 'wizard-review',
    show: async (page, url) => {
      await page.goto(`${url}/email-send-wizard`);
      const next = async (title: string) => {
        const button = page.getByRole('button', { name: 'Continue', exact: true });
        for (let i = 0; i < 60 && !(await button.isEnabled()); i++) await page.waitForTimeout(250);
        await button.click();
        await page.getByRole('heading', { level: 2, name: title }).waitFor();
      };
      await page.getByRole('heading', { level: 2, name: 'Campaign type' }).waitFor();
      await page.getByRole('radio', { name: /^One-time blast/ }).check();
      await next('Campaign name');
      await page.getByLabel('Campaign name').fill('Autumn field notes');
      await next('Sender persona');
      await page.getByLabel('Sender persona', { exact: true }).fill('news');
      await page
        .getByRole('option', { name: new RegExp(PERSONA) })
        .first()
        .click();
      await next('Template');
      await page.getByLabel('Template', { exact: true }).fill('field');
      await page
        .getByRole('option', { name: /Field notes/ })
        .first()
        .click();
      await next('Recipients');
      await page.getByRole('radio', { name: 'Segments', exact: true }).check();
      await next('Segments');
      const search = page.getByLabel('Search segments by name');
      await search.fill('Newsletter');
      await page.getByRole('checkbox', { name: 'Choose Newsletter readers', exact: true }).check();
      await search.fill('');
      await next('When to send');
      await page.getByRole('button', { name: 'Send now' }).click();
      await next('Review and launch');
      await page.getByRole('table', { name: 'Audience and cost' }).waitFor();
      const preview = page.getByTestId('email-preview');
      await preview.locator('iframe').first().waitFor();
      await page.waitForTimeout(1500);
      await page.getByRole('table', { name: 'Audience and cost' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.evaluate(() => window.scrollBy(0, -96));
    },
  },
  {
    name: 'template-editor',
    show: async (page, url, ids) => {
      await page.goto(`${url}/components/templates/edit/${ids.newsletter}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.locator('iframe').first().waitFor();
      await page.waitForTimeout(2000);
      // The HTML and its live preview fill the picture: the form's fields above them scroll away.
      await page.getByRole('tab', { name: 'HTML' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.evaluate(() => window.scrollBy(0, -24));
    },
  },
  {
    name: 'workflow-editor',
    show: async (page, url, ids) => {
      await page.goto(`${url}/components/workflows/edit/${ids.workflow}`);
      await page.locator('[data-testid="workflow-canvas"] g.joint-element').first().waitFor();
      await page.waitForTimeout(1000);
    },
  },
];

/** FIRST_NAMES of the sample account's contacts (made up; addresses on example domains, which nobody receives). */
const FIRST_NAMES = [
  'Ada',
  'Ben',
  'Chloe',
  'Dev',
  'Elena',
  'Farid',
  'Grace',
  'Hugo',
  'Iris',
  'Jonas',
  'Keiko',
  'Liam',
  'Maya',
  'Noah',
  'Olga',
  'Priya',
  'Quinn',
  'Rosa',
  'Sam',
  'Tariq',
  'Uma',
  'Victor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zoe',
  'Amir',
  'Bea',
  'Carlos',
  'Dina',
  'Emil',
  'Fatima',
  'Gus',
  'Hana',
  'Ivan',
  'Jade',
  'Kofi',
  'Lena',
  'Marco',
  'Nia',
  'Omar',
  'Paula',
  'Rafael',
  'Sofia',
  'Theo',
  'Ula',
  'Vera',
  'Will',
];
const DOMAINS = ['example.com', 'example.org', 'example.net'];

/**
 * seedShowcase fills the sample account through its API as a customer would: a verified sender persona, two templates
 * from the starters, 48 contacts in a segment, two blasts sent through the sink (two addresses refused as unknown, so
 * Issues has bounces), then opens and clicks as readers make them — a mail client, after delivery — on about half the
 * emails, and a privacy proxy's prefetch on some, which the dashboard leaves out. Answers the ids the pictures open.
 */
async function seedShowcase(url: string, sink: SmtpSink): Promise<ShowcaseIds> {
  const login = await fetch(`${url}/api/login/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: SHOWCASE.email, password: SHOWCASE.password }),
  });
  if (!login.ok) throw new Error(`the sample account's sign-in answered ${login.status}`);
  const session = (await login.json()) as { api_client_key: string };
  const key = session.api_client_key;
  const api = apiCaller(
    () => url,
    () => key,
  );

  await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: PERSONA, first_name: 'Robin', last_name: 'Hale' }] });
  const end = Date.now() + 30_000;
  let links: string[];
  while (!(links = await sink.personaVerificationLinks()).length) {
    if (Date.now() > end) throw new Error('no persona verification email arrived');
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const link of links) await fetch(link, { method: 'POST' });
  const persona = (await api('GET', '/api/senderpersonawrapper/sender_personas')).data.find((p: { email: string }) => p.email === PERSONA);

  const starter = async (file: string) => readFile(path.join(ROOT, 'public/starters', file), 'utf8');
  const templates = (
    await api('POST', '/api/template/templates', {
      templates: [
        {
          name: 'Field notes (newsletter)',
          subject: '{{user.first_name}}, your spring field notes',
          type: 'TEMPLATE_MARKETING',
          html_body: await starter('newsletter.html'),
        },
        { name: 'Trail pack launch', subject: 'New: the trail pack is here', type: 'TEMPLATE_MARKETING', html_body: await starter('announcement.html') },
        { name: 'Welcome', subject: 'Welcome to Sample Outfitters, {{user.first_name}}', type: 'TEMPLATE_MARKETING', html_body: await starter('welcome.html') },
      ],
    })
  ).data as Array<{ id: string }>;
  const [newsletter, launch, welcome] = templates.map((t) => t.id);

  const emails = FIRST_NAMES.map((n, i) => `${n.toLowerCase()}.${['reed', 'stone', 'vale', 'marsh'][i % 4]}@${DOMAINS[i % 3]}`);
  const contacts = (
    await api('POST', '/api/user/users', {
      users: emails.map((email, i) => ({
        email,
        first_name: FIRST_NAMES[i],
        timezone: ['Europe/London', 'America/New_York', 'Asia/Tokyo', 'Europe/Berlin'][i % 4],
      })),
    })
  ).data as Array<{ id: string }>;
  const ids = contacts.map((c) => c.id);
  await api('POST', '/api/segment/segments', { segments: [{ name: 'Newsletter readers', user_ids: ids }] });
  for (const unknown of emails.slice(-2)) sink.refuse.set(unknown, { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' });

  const blast = async (name: string, template: string, to: string[]) => {
    const id = crypto.randomUUID();
    await api('POST', '/api/scheduler/scheduler', {
      id,
      name,
      template_id: template,
      sender_persona_id: persona.id,
      to_user_ids: to,
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    });
    return id;
  };
  const blasts = [await blast('Spring field notes', newsletter, ids), await blast('Trail pack launch', launch, ids.slice(0, 30))];
  await api('POST', '/api/campaign/campaigns', { campaign: { name: 'Spring launch', type: 'scheduled_email_group', scheduled_email_blast_group_ids: blasts } });
  const expected = ids.length - 2 + 30;
  await sink.waitFor(() => sink.messages.filter((m) => m.envelopeFrom !== '' && !m.envelopeTo.includes(PERSONA)).length >= expected, 120_000);

  // Readers: about half open (some twice), a fifth click; a privacy proxy prefetches a few more (left out of the figures).
  const parsed = (await sink.parsed()).filter((m) => String(m.html ?? '').includes('/t/o/'));
  await readerDelay(Math.max(...sink.messages.map((m) => m.receivedAt)), 'click');
  let n = 0;
  for (const mail of parsed) {
    n++;
    const html = String(mail.html);
    const pixel = /<img src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)?.[1];
    const tracked = /<a href="([^"]+\/t\/c\/[^"]+)"/.exec(html)?.[1];
    if (!pixel) continue;
    const reader = { headers: { 'user-agent': MAIL_CLIENT_UA } };
    if (n % 2 === 0 || n % 7 === 0) await fetch(pixel, reader);
    if (n % 6 === 0) await fetch(pixel, reader);
    if (tracked && (n % 5 === 0 || n % 7 === 0)) await fetch(tracked, { ...reader, redirect: 'manual' });
    if (n % 3 === 0) await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0' } });
  }

  // A welcome journey: an event trigger, the welcome email, two days' wait, then the newsletter.
  const display: Display = {
    nodes: [
      { id: 'trigger', type: 'event', position: { x: 30, y: 50 }, properties: { eventName: 'signed_up' } },
      { id: 'welcome', type: 'sender', position: { x: 270, y: 50 }, properties: { templateId: welcome, senderPersonaId: persona.id } },
      { id: 'wait', type: 'delay', position: { x: 270, y: 190 }, properties: { delayMS: 2 * 24 * 3600 * 1000 } },
      { id: 'notes', type: 'sender', position: { x: 510, y: 190 }, properties: { templateId: newsletter, senderPersonaId: persona.id } },
    ],
    links: [
      { id: 'l1', from: { nodeId: 'trigger', portId: 'output' }, to: { nodeId: 'welcome', portId: 'input' } },
      { id: 'l2', from: { nodeId: 'welcome', portId: 'output' }, to: { nodeId: 'wait', portId: 'input' } },
      { id: 'l3', from: { nodeId: 'wait', portId: 'output' }, to: { nodeId: 'notes', portId: 'input' } },
    ],
  };
  const workflow = crypto.randomUUID();
  const saved = await api('POST', '/api/workflowwrapper/workflows', { id: workflow, name: 'Welcome journey', display, tree: displayToTree(display).tree });
  const until = Date.now() + 60_000;
  for (;;) {
    const [entry] = (await api('GET', `/api/joblog/joblog?ids=${saved.data.job_log_entry_id}`)).data;
    if (entry?.ended_at) break;
    if (Date.now() > until) throw new Error('the sample workflow was not saved in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  // Let the report aggregates fold the readers' events in.
  await new Promise((r) => setTimeout(r, 3000));
  return { newsletter, workflow };
}

/** webp re-encodes a PNG screenshot `width` px wide as WebP (chromium's canvas, high-quality smoothing). */
async function webp(browser: Browser, png: Buffer, width: number, quality = 0.82): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    const data = await page.evaluate(
      async ({ src, width, quality }) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const height = Math.round((img.naturalHeight * width) / img.naturalWidth);
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = height;
        const ctx = canvas.getContext('2d')!;
        ctx.imageSmoothingEnabled = true;
        ctx.imageSmoothingQuality = 'high';
        ctx.drawImage(img, 0, 0, width, height);
        return canvas.toDataURL('image/webp', quality);
      },
      { src: `data:image/png;base64,${png.toString('base64')}`, width, quality },
    );
    if (!data.startsWith('data:image/webp;base64,')) throw new Error('this chromium does not encode WebP');
    return Buffer.from(data.slice('data:image/webp;base64,'.length), 'base64');
  } finally {
    await page.close();
  }
}

/** sitePictures takes the site's product pictures as the sample account and writes them at 1200 and 640 px. */
async function sitePictures(browser: Browser, context: BrowserContext, url: string, ids: ShowcaseIds): Promise<void> {
  await mkdir(SITE_OUT, { recursive: true });
  const built = existsSync(path.dirname(SITE_BUILT));
  if (built) await mkdir(SITE_BUILT, { recursive: true });
  for (const picture of SITE_PICTURES) {
    const page = await context.newPage();
    await picture.show(page, url, ids);
    const png = await page.screenshot({ type: 'png' });
    await page.close();
    for (const width of [1200, 640]) {
      const file = `${picture.name}-${width}.webp`;
      const bytes = await webp(browser, png, width);
      await writeFile(path.join(SITE_OUT, file), bytes);
      if (built) await writeFile(path.join(SITE_BUILT, file), bytes);
      console.log(`wrote public/screens/${file} (${(bytes.length / 1000).toFixed(1)} kB)`);
    }
  }
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const env = {
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'mw-screens-')),
    SMTP_URL: smtpUrl,
    LOG_LEVEL: 'error',
    DEMO_RESET_CRON: 'off',
    SEND_POLL_MS: '200',
    REPORT_CACHE_MS: '0',
  };
  const server = await startServer(env);
  // Made on the running server's database (the command hands itself to the server that holds DATA_DIR).
  const { company, project, email, password } = SHOWCASE;
  await runTs(
    'src/server/admin.ts',
    ['create-account', '--company', company, '--project', project, '--email', email, '--password', password, '--activated'],
    env,
  );
  const browser = await launchChromium();
  try {
    const showcase = await seedShowcase(server.url, sink);
    const site = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const cookie = await (
      await fetch(`${server.url}/api/login/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
    ).text();
    await site.addCookies([{ name: 'user_info', value: encodeURIComponent(cookie), url: server.url, sameSite: 'Strict' }]);
    await sitePictures(browser, site, server.url, showcase);
    await site.close();
    for (const size of SIZES) {
      const viewport = { width: size.width, height: size.height };
      const demo = (await demoContext(browser, server.url, 'screens@example.net', viewport)).context;
      const fresh = await browser.newContext({ viewport });
      // The server was started before the pictures were written, and serves only the files it found then.
      await fresh.route(`${server.url}/screens/*`, (route) =>
        route.fulfill({ path: path.join(SITE_OUT, path.basename(new URL(route.request().url()).pathname)) }),
      );
      for (const screen of SCREENS) {
        const page = await (screen.account === 'demo' ? demo : fresh).newPage();
        await screen.show(page, server.url);
        await page.evaluate(() => window.scrollTo(0, 0));
        const file = path.join(OUT, `${screen.name}-${size.tag}.png`);
        await page.screenshot({ path: file });
        console.log(`wrote ${path.relative(ROOT, file)}`);
        await page.close();
      }
      await demo.close();
      await fresh.close();
    }
  } finally {
    await browser.close();
    await server.kill('SIGTERM');
    await sink.stop();
  }
}

await main();
