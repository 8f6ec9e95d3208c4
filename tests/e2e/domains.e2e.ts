/**
 * Domain Settings in Debian's chromium (/account/domains): the domain check's messages, adding a domain,
 * its DNS records shown to copy, the DNS check's verdict against a real DNS server on 127.0.0.1 that has none of the
 * records ('DNS settings not found'), the domain's warm-up, its bounce subdomain's MX and SPF records verified once
 * published, the duplicate-domain error, an SPF record merged into the one a domain publishes already, the DKIM key split
 * into 255-character strings, and a persona's domain written in the registered casing. The Success path and DKIM signing are covered by
 * tests/api/domains.api.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { e2eHooks, startE2E } from '../helpers/e2e.ts';
import type { ServerProcess } from '../helpers/processes.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dnsServer.ts';

let dns: TestDnsServer;
let server: ServerProcess;
let page: Page;
let pageErrors: string[];

e2eHooks();
beforeAll(async () => {
  // A DNS server that knows no records: every lookup is answered, with nothing.
  dns = await startDnsServer();
  ({ server, page, pageErrors } = await startE2E({
    tag: 'domains',
    sink: false,
    env: { DEMO_RESET_CRON: 'off', DOMAIN_CHECK_CRON: 'off', DNS_RESOLVERS: dns.address, INBOUND_MX_HOST: 'mx.feedback.test' },
    demo: 'domains@example.net',
  }));
});
afterAll(() => dns?.close());

describe('Domain Settings (e2e)', () => {
  it('checks the domain as typed, adds it, shows its records and the DNS verdict, and refuses it twice', async () => {
    await page.goto(`${server.url}/account/domains`);
    await page.getByRole('heading', { name: 'Domain Settings', level: 1 }).waitFor();
    await page.getByText('Verify your domain before sending more than 100 emails').waitFor();
    await page.getByText('No domains yet.').waitFor();

    const input = page.getByRole('textbox', { name: 'Domain', exact: true });
    await input.fill('localhost');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('Must contain dot').waitFor();
    await input.fill('bad domain.com');
    await page.getByText('Must be a domain name such as mail.example.com').waitFor();

    await input.fill('Mail.Demo-Test.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('Successfully added domain').waitFor();
    const card = page.getByTestId('domain-mail.demo-test.com');
    await card.waitFor();
    expect(await card.getByRole('textbox', { name: 'DKIM TXT name' }).inputValue()).toBe('mw1._domainkey.mail.demo-test.com');
    expect(await card.getByRole('textbox', { name: 'DKIM TXT value', exact: true }).inputValue()).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjAN/);
    expect(await card.getByRole('textbox', { name: 'DMARC TXT value' }).inputValue()).toBe('v=DMARC1; p=none; rua=mailto:dmarc@bounces.mail.demo-test.com');
    // The new domain's warm-up: it starts with its first email.
    expect(await card.getByTestId('warmup-mail.demo-test.com').innerText()).toBe(
      'Warm-up: starts with the first email from this domain; day 1 sends up to 50 blast and workflow emails.',
    );

    // The check queued on adding asks the DNS server, which has none of the records.
    for (let i = 0; i < 60 && !(await card.getByText('DKIM: DNS settings not found').isVisible()); i++) {
      await page.waitForTimeout(500);
      await card.getByRole('button', { name: 'Refresh' }).click();
    }
    await card.getByText('DKIM: DNS settings not found').waitFor();
    await card.getByText('SPF: not found', { exact: true }).waitFor();
    // When, in the browser's own words (no raw ISO string).
    expect(await card.getByText(/^Checked /).textContent()).toMatch(/^Checked [^-]*\d{4}[^-]*\d:\d\d/);

    await input.fill('mail.demo-test.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText('Couldn’t add domain: domain: mail.demo-test.com is already registered').waitFor();
    expect(await page.getByTestId(/^domain-/).count()).toBe(1);
  });

  it('a domain that already publishes SPF is shown one merged record to replace it with, and the DKIM key split for DNS consoles', async () => {
    dns.zone.set('shop.demo-test.com', ['v=spf1 include:_spf.google.com -all']);
    await page.goto(`${server.url}/account/domains`);
    await page.getByRole('textbox', { name: 'Domain', exact: true }).fill('shop.demo-test.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByTestId('domain-shop.demo-test.com');
    await card.waitFor();
    const merge = card.getByTestId('shop.demo-test.com-spf-merge');
    for (let i = 0; i < 60 && !(await merge.isVisible()); i++) {
      await page.waitForTimeout(500);
      await card.getByRole('button', { name: 'Refresh' }).click();
    }
    expect(await merge.textContent()).toContain('shop.demo-test.com already publishes an SPF record: v=spf1 include:_spf.google.com -all');
    expect(await merge.textContent()).toContain('Do not add a second one: replace it with the merged record above');
    expect(await card.getByRole('textbox', { name: 'SPF TXT value', exact: true }).inputValue()).toBe('v=spf1 include:_spf.google.com a mx -all');
    const split = await card.getByRole('textbox', { name: 'DKIM TXT value, split into 255-character strings' }).inputValue();
    const strings = [...split.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    expect(strings[0]).toHaveLength(255);
    expect(strings.join('')).toBe(await card.getByRole('textbox', { name: 'DKIM TXT value', exact: true }).inputValue());
    expect(pageErrors).toEqual([]);
  });

  it('a sender persona typed with the registered domain in other letter case is saved in the registered casing, with the notice', async () => {
    await page.goto(`${server.url}/people/sender-personas/new`);
    await page.getByLabel('Email').fill('Pat@MAIL.Demo-Test.com');
    await page.getByLabel('First name').fill('Pat');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/people\/sender-personas\/edit\/[0-9a-f-]{36}$/);
    await page
      .getByText(
        "You provided a domain of MAIL.Demo-Test.com but have registered mail.demo-test.com. We've matched up the upper and lowercase characters in your sender persona for you, to help avoid any issues with domain-ownership verification.",
      )
      .waitFor();
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe('Pat@mail.demo-test.com');
  });

  it('shows the bounce subdomain’s MX and SPF records, says bounces are not coming back yet, and verifies another subdomain once published', async () => {
    await page.goto(`${server.url}/account/domains`);
    const bounces = page.getByTestId('bounces-mail.demo-test.com');
    await bounces.waitFor();
    expect(await bounces.getByRole('textbox', { name: 'MX name' }).inputValue()).toBe('bounces.mail.demo-test.com');
    expect(await bounces.getByRole('textbox', { name: 'MX mail server' }).inputValue()).toBe('mx.feedback.test');
    expect(await bounces.getByRole('textbox', { name: 'MX priority' }).inputValue()).toBe('10');
    expect(await bounces.getByRole('textbox', { name: 'Bounce SPF TXT value' }).inputValue()).toBe('v=spf1 a mx ~all');
    await bounces.getByText('Bounces are not coming back yet.', { exact: false }).waitFor();
    await bounces.getByText('Bounce MX: not found').waitFor();

    // A subdomain of another domain is refused, named.
    const field = bounces.getByRole('textbox', { name: 'Bounce subdomain' });
    await field.fill('bounces.other.com');
    await bounces.getByRole('button', { name: 'Save' }).click();
    await page
      .getByText('Couldn’t save the bounce subdomain: bounce_domain: must be a subdomain of mail.demo-test.com, such as bounces.mail.demo-test.com')
      .waitFor();

    // Publish the records of another subdomain, choose it: the check saving queues verifies both.
    dns.mx.set('returns.mail.demo-test.com', ['mx.feedback.test']);
    dns.zone.set('returns.mail.demo-test.com', ['v=spf1 a mx ~all']);
    await field.fill('returns.mail.demo-test.com');
    await bounces.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Bounce subdomain saved; its records are being checked').waitFor();
    const card = page.getByTestId('domain-mail.demo-test.com');
    for (let i = 0; i < 60 && !(await card.getByText('Bounce MX: verified').isVisible()); i++) {
      await page.waitForTimeout(500);
      await card.getByRole('button', { name: 'Refresh' }).click();
    }
    await card.getByText('Bounce MX: verified').waitFor();
    await card.getByText('Bounce SPF: verified').waitFor();
    await card
      .getByText('Bounces and complaints are coming back: every email from mail.demo-test.com carries its own return path at returns.mail.demo-test.com')
      .waitFor();
    expect(await card.getByRole('textbox', { name: 'MX name' }).inputValue()).toBe('returns.mail.demo-test.com');
  });

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
