/**
 * `npm run bench` (third part): the public site's weight and speed in Debian's chromium: the
 * JavaScript transferred for / (forced gzip, and what chromium negotiates by default), and Lighthouse's performance
 * score for / and /pricing (mobile form factor, simulated throttling: Lighthouse's defaults). Runs the built product
 * (`npm run build` first) on a fresh PGlite data folder. Prints figures; asserts nothing. BENCH_LIGHTHOUSE=off skips
 * Lighthouse.
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

/** scriptBytes loads `url` in a fresh page and returns the encoded bytes of every script response, by file. */
async function scriptBytes(url: string, encoding?: string): Promise<Map<string, number>> {
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
      if (request.resourceType() !== 'script') return;
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

async function performanceScore(url: string): Promise<number> {
  const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const result = await lighthouse(url, { port: chrome.port, onlyCategories: ['performance'], output: 'json', logLevel: 'error' });
    const lhr = result!.lhr;
    const metric = (id: string) => lhr.audits[id]?.displayValue ?? '?';
    console.log(
      `    ${url.replace(/^http:\/\/[^/]+/, '') || '/'}: FCP ${metric('first-contentful-paint')}, LCP ${metric('largest-contentful-paint')}, TBT ${metric('total-blocking-time')}, CLS ${metric('cumulative-layout-shift')}`,
    );
    return Math.round((lhr.categories.performance.score ?? 0) * 100);
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
  const gzip = await scriptBytes(`${server.url}/`, 'gzip');
  const negotiated = await scriptBytes(`${server.url}/`);
  console.log(
    `public site: JavaScript transferred for / — ${kb(total(gzip))} gzip (target < 150 kB), ${kb(total(negotiated))} as chromium negotiates (br); ${gzip.size} scripts:`,
  );
  for (const [file, bytes] of gzip) console.log(`    ${file}: ${kb(bytes)} gzip`);
  if (!/^(off|0|false)$/i.test(process.env.BENCH_LIGHTHOUSE ?? '')) {
    for (const p of ['/', '/pricing']) {
      const score = await performanceScore(`${server.url}${p}`);
      console.log(`public site: Lighthouse performance for ${p}: ${score} (target ≥ 90)`);
    }
  }
} finally {
  await server.kill('SIGTERM');
}
