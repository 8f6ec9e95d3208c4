/**
 * DMARC results on Domain Settings in Debian's chromium: a domain whose bounce subdomain's MX verifies against a real
 * DNS server shows the empty state with the rua address to publish; then Google's zipped and Microsoft's gzipped
 * report (tests/fixtures/dmarc/) arrive over SMTP at dmarc@ there, into the built server's inbound receiver, and the
 * page shows the DMARC pass rate, the daily chart with its table, the failing sources first and the test relay's
 * address named as this service's relay — on a desktop screen and on a 390 px phone without sideways scrolling.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { api, e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dnsServer.ts';
import { daysAgo, sampleEmail, sampleReport, sendToReceiver } from '../helpers/dmarc.ts';

const MX_HOST = 'mx.feedback.test';
const DOMAIN = 'shop.example';
const RUA = `dmarc@bounces.${DOMAIN}`;

let dns: TestDnsServer;
let server: ServerProcess;
let page: Page;
let pageErrors: string[];
let inboundPort: number;
let relay: string;

/** freePort: a TCP port free on 127.0.0.1 now (the server's inbound receiver listens on it). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

e2eHooks();
beforeAll(async () => {
  dns = await startDnsServer();
  dns.mx.set(`bounces.${DOMAIN}`, [MX_HOST]);
  inboundPort = await freePort();
  let env: Record<string, string>;
  ({ server, page, pageErrors, env } = await startE2E({
    tag: 'dmarc',
    env: {
      DEMO_RESET_CRON: 'off',
      DOMAIN_CHECK_CRON: 'off',
      DNS_RESOLVERS: dns.address,
      INBOUND_MX_HOST: MX_HOST,
      INBOUND_SMTP_PORT: String(inboundPort),
      INBOUND_SMTP_HOST: '127.0.0.1',
    },
    demo: 'dmarc@example.net',
  }));
  relay = `smtp://127.0.0.1:${new URL(env.SMTP_URL).port}`;
});
afterAll(() => dns?.close());

type DomainRow = { id: string; domain: string; records: { bounce_mx: { status: string } } };

describe('DMARC reports on Domain Settings (e2e)', () => {
  it('shows the rua address to publish before any report', async () => {
    await api('POST', '/api/domains/domains', { domain: DOMAIN });
    // The check queued on adding finds the bounce subdomain's MX: the receiver then takes mail for it.
    const end = Date.now() + 60_000;
    for (;;) {
      const { data } = await api<{ data: DomainRow[] }>('GET', '/api/domains/dkim');
      if (data.find((d) => d.domain === DOMAIN)?.records.bounce_mx.status === 'Success') break;
      if (Date.now() > end) throw new Error('the bounce MX never verified');
      await new Promise((r) => setTimeout(r, 300));
    }
    await page.goto(`${server.url}/account/domains`);
    const section = page.getByTestId(`dmarc-${DOMAIN}`);
    await section.getByText(`No DMARC reports yet — add rua=mailto:${RUA} to your DMARC record`, { exact: false }).waitFor();
    expect(await page.getByRole('textbox', { name: 'DMARC TXT value' }).inputValue()).toBe(`v=DMARC1; p=none; rua=mailto:${RUA}`);
  });

  it('shows the pass rate, the daily chart and the failing sources first once reports arrived, naming the relay', async () => {
    expect(await sendToReceiver(inboundPort, RUA, sampleEmail('google', sampleReport('google', daysAgo(1)), RUA))).toMatch(/^250 /);
    expect(await sendToReceiver(inboundPort, RUA, sampleEmail('microsoft', sampleReport('microsoft', daysAgo(2)), RUA))).toMatch(/^250 /);

    await page.goto(`${server.url}/account/domains`);
    const section = page.getByTestId(`dmarc-${DOMAIN}`);
    // 85 of the samples' 93 messages passed DMARC.
    await section.getByTestId(`dmarc-pass-rate-${DOMAIN}`).getByText('91.4% passed DMARC').waitFor();
    await section.getByText('93 messages in 2 reports; DKIM 82.8%, SPF 78.5%; 8 quarantined').waitFor();
    await section.getByText('2 sources sent mail as shop.example that failed DMARC', { exact: false }).waitFor();
    const rows = section.getByTestId(`dmarc-sources-${DOMAIN}`).getByRole('row');
    expect(await rows.nth(1).innerText()).toMatch(/^203\.0\.113\.45\s+Not ours; signed by nobody\s+5\s+0\.0%$/);
    expect(await rows.nth(2).innerText()).toMatch(/^198\.51\.100\.7/);
    expect(await rows.nth(3).innerText()).toMatch(new RegExp(`^127\\.0\\.0\\.1\\s+This service’s relay ${relay.replace(/[.]/g, '\\.')}\\s+65\\s+100\\.0%$`));
    await section.getByText('Stay at p=quarantine: 91.4% of reported mail passed DMARC', { exact: false }).waitFor();

    // The chart's numbers as a table.
    await section.getByRole('button', { name: 'Show as table' }).click();
    const table = section.getByRole('table', { name: /DMARC results for shop\.example per day/ });
    expect(await table.getByRole('row').nth(1).innerText()).toMatch(new RegExp(`^${daysAgo(2)}\\s+36\\s+33\\s+25\\s+33\\s+3\\s+0$`));
    expect(await table.getByRole('row').nth(2).innerText()).toMatch(new RegExp(`^${daysAgo(1)}\\s+57\\s+52\\s+52\\s+40\\s+5\\s+0$`));
    expect(pageErrors).toEqual([]);
  });

  it('fits a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/account/domains`);
    const section = page.getByTestId(`dmarc-${DOMAIN}`);
    await section.getByText('91.4% passed DMARC').waitFor();
    await section.locator('svg').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await section.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  });
});
