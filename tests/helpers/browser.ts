/**
 * launchChromium starts Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium) headless through playwright-core,
 * with every background network feature off so a test never reaches the internet; every context it makes records
 * Content-Security-Policy refusals (cspViolations). Throws when chromium is missing (scripts/ensure-test-tools.sh
 * installs it).
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  // Every context watches for Content-Security-Policy refusals (tests/e2e/setup.ts fails a test file that saw one).
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => watchCsp(await newContext(options));
  browser.newPage = async (options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    page.on('close', () => {
      context.close().catch(() => {
        /* the browser is closing too */
      });
    });
    return page;
  };
  return browser;
}

const violations: string[] = [];

/** cspViolations returns the Content-Security-Policy refusals the browser reported since the last call, and forgets them. */
export function cspViolations(): string[] {
  return violations.splice(0);
}

/**
 * watchCsp records every Content-Security-Policy refusal in `context`: console messages that report one (the only
 * trace of a refusal inside a sandboxed iframe, where no script runs), and `securitypolicyviolation` events of every
 * page and frame that can run scripts (an eval refused inside a library that catches the error logs nothing else).
 */
async function watchCsp(context: BrowserContext): Promise<BrowserContext> {
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(`${message.location().url}: ${message.text()}`);
  });
  await context.exposeBinding('__mwCspViolation', (_source, text: string) => {
    violations.push(text);
  });
  await context.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
    window.__mwCspViolation(e.documentURI + ': ' + e.effectiveDirective + ' refused ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber);
  });`);
  return context;
}

/** The session the console keeps in its `user_info` cookie (only the fields tests use are typed). */
export interface DemoSession {
  api_client_key: string;
  [key: string]: unknown;
}

/**
 * demoContext signs in to the shared demo account of the product at `serverUrl` as `email` (POST
 * /api/login/demo_login) and returns a browser context carrying the session cookie, with the session itself.
 * Throws when the sign-in is refused.
 */
export async function demoContext(
  browser: Browser,
  serverUrl: string,
  email: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; session: DemoSession }> {
  const res = await fetch(`${serverUrl}/api/login/demo_login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, agreed: true }),
  });
  if (!res.ok) throw new Error(`demo_login answered ${res.status}: ${await res.text()}`);
  const session = (await res.json()) as DemoSession;
  const context = await browser.newContext({ viewport });
  await context.addCookies([{ name: 'user_info', value: encodeURIComponent(JSON.stringify(session)), url: serverUrl, sameSite: 'Strict' }]);
  return { context, session };
}

/**
 * localeDateTime writes `iso` as the console shows dates (src/console/dates.ts formatDateTime), computed in the page
 * itself so the test follows the browser's language and zone: medium date, short (or with `seconds`, medium) time,
 * then the zone's short name.
 */
export function localeDateTime(page: Page, iso: string, seconds = false): Promise<string> {
  return page.evaluate(
    ([value, withSeconds]) => {
      const d = new Date(value);
      const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
      return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: withSeconds ? 'medium' : 'short' }).format(d) + (zone ? ` ${zone}` : '');
    },
    [iso, seconds] as const,
  );
}
