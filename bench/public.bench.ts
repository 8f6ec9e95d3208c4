/**
 * `npm run bench` (third part): the public site's weight and speed in Debian's chromium: the
 * JavaScript and CSS transferred for / (forced gzip, and what chromium negotiates by default), and Lighthouse's
 * performance and accessibility scores for /, /pricing and /docs (mobile form factor, simulated throttling: Lighthouse's
 * defaults). Runs the built product (`npm run build` first) on a fresh PGlite data folder. Prints figures; asserts
 * nothing. BENCH_LIGHTHOUSE=off skips Lighthouse.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { launchChromium } from '../tests/helpers/browser.ts';
import { ROOT, startServer } from '../tests/helpers/processes.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** codeBytes loads `url` in a fresh page and returns the encoded bytes of every script and stylesheet response, by file. */
async function codeBytes(url: string, encoding?: string): Promise<Map<string, number>> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (encoding) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': encoding } });
    }
    const sizes = new Map<string, number>();
    const pending: Promise<void>[] = [];
    page.on('requestfinished', (request) => {
      if (request.resourceType() !== 'script' && request.resourceType() !== 'stylesheet') return;
      pending.push(
        request.sizes().then((s) => {
          sizes.set(new URL(request.url()).pathname, s.responseBodySize);
        }),
      );
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    await Promise.all(pending);
    return sizes;
  } finally {
    await browser.close();
  }
}

/** scores runs Lighthouse on `url` and answers its performance and accessibility scores (0-100), printing the metrics. */
async function scores(url: string): Promise<{ performance: number; accessibility: number }> {
  const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const result = await lighthouse(url, { port: chrome.port, onlyCategories: ['performance', 'accessibility'], output: 'json', logLevel: 'error' });
    const lhr = result!.lhr;
    const metric = (id: string) => lhr.audits[id]?.displayValue ?? '?';
    console.log(
      `    ${url.replace(/^http:\/\/[^/]+/, '') || '/'}: FCP ${metric('first-contentful-paint')}, LCP ${metric('largest-contentful-paint')}, TBT ${metric('total-blocking-time')}, CLS ${metric('cumulative-layout-shift')}`,
    );
    const failed = Object.values(lhr.audits).filter((a) => a.score === 0 && lhr.categories.accessibility.auditRefs.some((r) => r.id === a.id));
    for (const a of failed) console.log(`    accessibility: ${a.id} (${a.title})`);
    return {
      performance: Math.round((lhr.categories.performance.score ?? 0) * 100),
      accessibility: Math.round((lhr.categories.accessibility.score ?? 0) * 100),
    };
  } finally {
    chrome.kill();
  }
}

if (!existsSync(path.join(ROOT, 'dist/console/index.html'))) throw new Error('run `npm run build` first');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-bench-public-'));
const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'error', WORKERS: 'off' });
try {
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const gzip = await codeBytes(`${server.url}/`, 'gzip');
  const negotiated = await codeBytes(`${server.url}/`);
  const css = (m: Map<string, number>) => new Map([...m].filter(([file]) => file.endsWith('.css')));
  console.log(
    `public site: JavaScript and CSS transferred for / — ${kb(total(gzip))} gzip (target < 150 kB; CSS ${kb(total(css(gzip)))}), ${kb(total(negotiated))} as chromium negotiates (br); ${gzip.size} files:`,
  );
  for (const [file, bytes] of gzip) console.log(`    ${file}: ${kb(bytes)} gzip`);
  if (!/^(off|0|false)$/i.test(process.env.BENCH_LIGHTHOUSE ?? '')) {
    for (const p of ['/', '/pricing', '/docs']) {
      const score = await scores(`${server.url}${p}`);
      console.log(`public site: Lighthouse for ${p}: performance ${score.performance}, accessibility ${score.accessibility} (target ≥ 90 each)`);
    }
  }
} finally {
  await server.kill('SIGTERM');
}
