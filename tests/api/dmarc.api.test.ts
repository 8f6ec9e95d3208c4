/**
 * DMARC aggregate reports (RFC 7489 §7.2) end to end: a sending domain's bounce subdomain verified against a real DNS
 * server, then Google's zipped report and Microsoft's gzipped one sent over SMTP to dmarc@ there, into the inbound
 * receiver, and read back through GET /domains/{id}/dmarc with exact figures from the samples (tests/fixtures/dmarc/):
 * per day, overall, per source with failing sources first and the test relay's address (127.0.0.1) named as this
 * install's relay. A report sent twice counts once; billion laughs, external entities, a zip bomb, malformed XML and a
 * report about a domain the project does not own are refused with nothing stored; another project's domain is a 404.
 * Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDomains } from '../../src/server/core/domains/index.ts';
import { loadConfig } from '../../src/server/config.ts';
import { parseRelayUrl } from '../../src/server/core/sending/relays.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dnsServer.ts';
import { daysAgo, reportEmail, sampleEmail, sampleReport, sendToReceiver } from '../helpers/dmarc.ts';
import { zip } from '../helpers/zip.ts';

let dns: TestDnsServer;
let h: Harness;
let t: Tenant;
let other: Tenant;
let domainId: string;
let otherDomainId: string;
const MX_HOST = 'mx.feedback.test';
const RUA = 'dmarc@bounces.shop.example';

beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness({
    config: { dnsResolvers: [dns.address], domainCheckCron: undefined, inbound: { ...loadConfig({}).inbound, port: 0, host: '127.0.0.1', mxHost: MX_HOST } },
  });
  t = await h.tenant({ activated: true });
  other = await h.tenant({ activated: true });
  const added = await h.op('addDomain', { key: t.apiKey, body: { domain: 'shop.example' } });
  expect(added.status).toBe(200);
  domainId = added.body.data.id;
  otherDomainId = (await h.op('addDomain', { key: other.apiKey, body: { domain: 'other.example' } })).body.data.id;
  for (const name of ['bounces.shop.example', 'bounces.other.example']) dns.mx.set(name, [MX_HOST]);
  await checkDomains(h.runtime.database.query.bind(h.runtime.database), h.config);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await dns?.close();
});

const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.runtime.database.query<T>(text, params);
const send = (to: string, raw: string) => sendToReceiver(h.runtime.inbound!.port, to, raw);
const stored = async () => {
  const [r] = await q<{ reports: number; records: number }>(
    'SELECT (SELECT count(*)::int FROM dmarc_reports) AS reports, (SELECT count(*)::int FROM dmarc_records) AS records',
  );
  return r;
};
const summary = (key = t.apiKey, id = domainId, days = 30) => h.op('getDmarcReport', { key, path: { id }, query: { days } });

/** The samples' days: Google's report covers yesterday, Microsoft's the day before. */
const GOOGLE_DAY = daysAgo(1);
const MICROSOFT_DAY = daysAgo(2);

describe(`DMARC aggregate reports through the inbound receiver (${API_DB})`, () => {
  it('suggests a DMARC record that sends reports to dmarc@ at the bounce subdomain', async () => {
    const list = await h.op('getDkimSettings', { key: t.apiKey });
    const domain = list.body.data.find((d) => d.id === domainId)!;
    expect(domain.records.bounce_mx.status).toBe('Success');
    expect(domain.records.dmarc).toMatchObject({ name: '_dmarc.shop.example', value: `v=DMARC1; p=none; rua=mailto:${RUA}` });
    const empty = await summary();
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({
      domain: 'shop.example',
      rua: `mailto:${RUA}`,
      reports: 0,
      totals: { messages: 0, dkim_pass: 0, spf_pass: 0, dmarc_pass: 0, quarantined: 0, rejected: 0 },
      dmarc_pass_rate: null,
      daily: [],
      sources: [],
      policy: { published: null, next: null },
    });
    expect(empty.body.data.policy.advice).toContain(`p=none and rua=mailto:${RUA}`);
  });

  it("stores Google's zipped and Microsoft's gzipped report, and sums them per day, overall and per source", async () => {
    expect(await send(RUA, sampleEmail('google', sampleReport('google', GOOGLE_DAY), RUA))).toMatch(/^250 /);
    expect(await send(RUA.toUpperCase(), sampleEmail('microsoft', sampleReport('microsoft', MICROSOFT_DAY), RUA))).toMatch(/^250 /);
    expect(await stored()).toEqual({ reports: 2, records: 6 });

    const { status, body } = await summary();
    expect(status).toBe(200);
    const d = body.data;
    expect(d.reports).toBe(2);
    // Google: 40 + 12 + 5 messages; Microsoft: 25 + 3 + 8 (tests/fixtures/dmarc/).
    expect(d.totals).toEqual({ messages: 93, dkim_pass: 77, spf_pass: 73, dmarc_pass: 85, quarantined: 8, rejected: 0 });
    expect(d.dmarc_pass_rate).toBeCloseTo(85 / 93, 10);
    expect(d.dkim_pass_rate).toBeCloseTo(77 / 93, 10);
    expect(d.spf_pass_rate).toBeCloseTo(73 / 93, 10);
    expect(d.daily).toEqual([
      { day: MICROSOFT_DAY, messages: 36, dkim_pass: 25, spf_pass: 33, dmarc_pass: 33, quarantined: 3, rejected: 0 },
      { day: GOOGLE_DAY, messages: 57, dkim_pass: 52, spf_pass: 40, dmarc_pass: 52, quarantined: 5, rejected: 0 },
    ]);
    const relay = parseRelayUrl(h.config.smtpUrl!).name;
    expect(relay).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    // Failing sources first (most failing messages first), then the rest by messages; 127.0.0.1 is the test's relay.
    expect(d.sources).toEqual([
      { source_ip: '203.0.113.45', messages: 5, dmarc_pass: 0, pass_rate: 0, relay: null, dkim_domain: null, spf_domain: 'shop.example' },
      { source_ip: '198.51.100.7', messages: 3, dmarc_pass: 0, pass_rate: 0, relay: null, dkim_domain: null, spf_domain: 'shop.example' },
      { source_ip: '127.0.0.1', messages: 65, dmarc_pass: 65, pass_rate: 1, relay, dkim_domain: 'shop.example', spf_domain: 'bounces.shop.example' },
      { source_ip: '209.85.220.41', messages: 12, dmarc_pass: 12, pass_rate: 1, relay: null, dkim_domain: 'shop.example', spf_domain: 'lists.partner.example' },
      {
        source_ip: '2a01:111:f403:2612::701',
        messages: 8,
        dmarc_pass: 8,
        pass_rate: 1,
        relay: null,
        dkim_domain: 'shopexample.onmicrosoft.com',
        spf_domain: 'shop.example',
      },
    ]);
    expect(d.policy).toMatchObject({ published: 'quarantine', next: null });
    expect(d.policy.advice).toMatch(/^Stay at p=quarantine: 91\.4% of reported mail passed DMARC/);
    // A one-day window holds only today's reports: none.
    expect((await summary(t.apiKey, domainId, 1)).body.data.totals.messages).toBe(0);
  });

  it('counts a report sent again once', async () => {
    expect(await send(RUA, sampleEmail('google', sampleReport('google', GOOGLE_DAY), RUA))).toMatch(/^250 /);
    expect(await stored()).toEqual({ reports: 2, records: 6 });
    expect((await summary()).body.data.totals.messages).toBe(93);
  });

  it('refuses billion laughs, external entities, a zip bomb, malformed XML and a report about a domain the project does not own, storing nothing', async () => {
    const base = sampleReport('google', GOOGLE_DAY, { reportId: 'hostile-1' });
    const xmlEmail = (xml: string, name = 'google.com!shop.example!1!2.xml') =>
      reportEmail({
        from: 'noreply-dmarc-support@google.com',
        to: RUA,
        subject: 'Report domain: shop.example',
        filename: name,
        contentType: 'text/xml',
        content: Buffer.from(xml),
      });
    const laughs = base.xml
      .replace(
        '<?xml version="1.0" encoding="UTF-8" ?>',
        '<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
      )
      .replace('<org_name>google.com</org_name>', '<org_name>&c;</org_name>');
    const xxe = base.xml
      .replace('<?xml version="1.0" encoding="UTF-8" ?>', '<?xml version="1.0"?><!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>')
      .replace('<org_name>google.com</org_name>', '<org_name>&xxe;</org_name>');
    // 21 MiB of zeros deflate to about 21 kB: past the 20 MiB limit once inflated.
    const bombZip = zip([{ name: 'google.com!shop.example!1!2.xml', data: Buffer.alloc(21 * 1024 * 1024, 0x20) }]);
    expect(bombZip.length).toBeLessThan(40_000);
    const bomb = reportEmail({
      from: 'noreply-dmarc-support@google.com',
      to: RUA,
      subject: 'Report domain: shop.example',
      filename: 'google.com!shop.example!1!2.zip',
      contentType: 'application/zip',
      content: bombZip,
    });
    // The same bomb with headers that declare 1,000 bytes: stopped on the bytes inflated, not on what it says.
    const lyingZip = zip([{ name: 'google.com!shop.example!1!2.xml', data: Buffer.alloc(21 * 1024 * 1024, 0x20), declaredSize: 1000 }]);
    const lyingBomb = reportEmail({
      from: 'noreply-dmarc-support@google.com',
      to: RUA,
      subject: 'Report domain: shop.example',
      filename: 'google.com!shop.example!1!2.zip',
      contentType: 'application/zip',
      content: lyingZip,
    });
    const malformed = xmlEmail(base.xml.replace('</feedback>', ''));
    const missing = xmlEmail(base.xml.replace(/<report_id>[^<]*<\/report_id>/, ''));
    // other.example is a sending domain, but of another project; unknown.example is nobody's.
    const foreign = sampleEmail('google', sampleReport('google', GOOGLE_DAY, { domain: 'other.example', reportId: 'foreign-1' }), RUA);
    const unknown = sampleEmail('microsoft', sampleReport('microsoft', GOOGLE_DAY, { domain: 'unknown.example', reportId: 'foreign-2' }), RUA);
    const noAttachment =
      'From: noreply-dmarc-support@google.com\r\nTo: dmarc@bounces.shop.example\r\nSubject: Report domain: shop.example\r\n\r\nNothing attached.\r\n';
    for (const raw of [xmlEmail(laughs), xmlEmail(xxe), bomb, lyingBomb, malformed, missing, foreign, unknown, noAttachment]) {
      // Refused as garbage is: accepted (so the reporter stops retrying), logged, and nothing stored.
      expect(await send(RUA, raw)).toMatch(/^250 /);
    }
    expect(await stored()).toEqual({ reports: 2, records: 6 });
    expect((await summary(other.apiKey, otherDomainId)).body.data.reports).toBe(0);
    // The same report sent to the address of the project that owns other.example is taken.
    expect(await send('dmarc@bounces.other.example', foreign)).toMatch(/^250 /);
    expect((await summary(other.apiKey, otherDomainId)).body.data.totals.messages).toBe(57);
    expect((await summary()).body.data.totals.messages).toBe(93);
  });

  it('refuses dmarc@ at a domain that is no verified bounce subdomain at RCPT', async () => {
    await expect(send('dmarc@bounces.unknown.example', 'Subject: x\r\n\r\nx\r\n')).rejects.toThrow(/550/);
  });

  it("answers another project's domain, an unknown one, and a missing key as the spec says", async () => {
    expect((await summary(other.apiKey, domainId)).status).toBe(404);
    expect((await summary(t.apiKey, otherDomainId)).status).toBe(404);
    expect((await summary(t.apiKey, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await h.op('getDmarcReport', { path: { id: domainId } })).status).toBe(401);
    expect((await summary(t.apiKey, domainId, 0)).status).toBe(400);
    expect((await summary(t.apiKey, domainId, 367)).status).toBe(400);
  });
});
