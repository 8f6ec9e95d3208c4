/**
 * Sending domains: registering a domain, its DNS records checked against a real
 * DNS server on 127.0.0.1 (dns2), and mail from a persona on a verified domain DKIM-signed so that an independent
 * verifier (mailauth) passes it against that same DNS server; with the records gone the domain turns Failed and mail
 * goes out unsigned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { simpleParser } from 'mailparser';
import { generateKeyPairSync } from 'node:crypto';
import { checkDomains } from '../../src/server/core/domains/index.ts';
import { decodeLocation } from '../../src/domain/location.ts';
import { openStorage } from '../../src/server/storage/storage.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dnsServer.ts';
import { EVENT } from '../../src/domain/events.ts';

let dns: TestDnsServer;
let h: Harness;
let t: Tenant;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness({ workers: true, config: { dnsResolvers: [dns.address], domainCheckCron: undefined } });
  t = await h.tenant({ activated: true });
});
afterAll(async () => {
  await h?.close();
  await dns?.close();
});

/** The harness's DNS check, as the worker runs it. */
const check = () => checkDomains(h.runtime.database.query.bind(h.runtime.database), h.config);

async function dkimSettings(key = t.apiKey) {
  const res = await h.call('GET', '/api/domains/dkim', { key });
  expect(res.status).toBe(200);
  return res.body.data as Array<{
    id: string;
    domain: string;
    DkimVerificationStatus: string;
    checked_at: string | null;
    records: Record<'dkim' | 'spf' | 'dmarc', { name: string; value: string; status: string }>;
  }>;
}

async function sendFrom(persona: string, to: string, type = 'TEMPLATE_TRANSACTIONAL'): Promise<Buffer> {
  const before = h.sink.messages.length;
  const html = '<p>Hello {{user.email}}</p><p><a href="{{unsubscribe_link}}">Unsubscribe</a></p>';
  const template = (
    await h.call('POST', '/api/template/templates', { key: t.apiKey, body: { templates: [{ name: `T ${to}`, subject: 'Signed?', type, html_body: html }] } })
  ).body.data[0];
  const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
    key: t.apiKey,
    body: {
      mailer_payload: {
        template_id: template.id,
        from: { email: persona },
        to: [{ email: to }],
      },
    },
  });
  expect(res.status).toBe(200);
  await h.sink.waitFor(() => h.sink.messages.slice(before).some((m) => m.envelopeTo.includes(to)));
  return h.sink.messages.slice(before).find((m) => m.envelopeTo.includes(to))!.raw;
}

/** mailauth's DKIM verdict for a raw message, looking keys up on the test DNS server; `headers` adds each signature's h= list. */
async function verify(raw: Buffer, headers = false) {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, rr: string) => (rr === 'TXT' ? resolver.resolveTxt(name) : (resolver.resolve(name, rr) as Promise<string[]>)),
  });
  return result.results.map((r: { signingDomain?: string; status: { result: string }; signingHeaders?: { keys: string } }) => ({
    domain: r.signingDomain ?? null,
    result: r.status.result,
    ...(headers ? { signed: (r.signingHeaders?.keys ?? '').toLowerCase().split(': ').join(':').split(':') } : {}),
  }));
}

describe(`sending domains (${API_DB})`, () => {
  it('refuses a missing, dotless, malformed or repeated domain, naming the field', async () => {
    for (const [domain, error] of [
      ['', 'domain: Required field'],
      ['localhost', 'domain: Must contain dot'],
      ['bad domain.com', 'domain: Must be a domain name such as mail.example.com'],
    ]) {
      const res = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([error]);
    }
    const other = await h.call('GET', '/api/domains/dkim', { key: t.apiKey, query: { company_name: 'Someone Else' } });
    expect(other.status).toBe(403);
  });

  it('a domain turns Success when its records are published, signs mail that mailauth verifies, and turns Failed without them', async () => {
    const added = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'News.Example.com' } });
    expect(added.status).toBe(200);
    const domain = added.body.data;
    expect(domain.domain).toBe('news.example.com');
    expect(domain.DkimVerificationStatus).toBe('Pending');
    expect(domain.records.dkim).toMatchObject({ type: 'TXT', name: 'mw1._domainkey.news.example.com', status: 'Pending' });
    expect(domain.records.dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]+$/); // a 2048-bit RSA key (SPKI)
    expect(domain.records.spf).toMatchObject({ name: 'news.example.com', value: 'v=spf1 a mx ~all' });
    expect(domain.records.dmarc).toMatchObject({ name: '_dmarc.news.example.com', value: 'v=DMARC1; p=none; rua=mailto:dmarc@bounces.news.example.com' });
    const again = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'news.example.com.' } });
    expect(again.body.errors).toEqual(['domain: news.example.com is already registered']);
    expect(await dkimSettings((await h.tenant()).apiKey)).toEqual([]); // another tenant sees none of it

    // The check queued on adding finds nothing published yet.
    for (let i = 0; i < 100 && !(await dkimSettings())[0].checked_at; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await dkimSettings())[0]).toMatchObject({ DkimVerificationStatus: 'Failed', records: { spf: { status: 'Failed' }, dmarc: { status: 'Failed' } } });

    // Unverified: mail from the domain goes out unsigned.
    // Typed in another letter case, the persona's domain is saved as registered (spec part 2 §5 Sender persona).
    const persona = await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: t.apiKey,
      body: { sender_personas: [{ email: 'hello@NEWS.Example.COM', first_name: 'Hal' }] },
    });
    expect(persona.body.data[0].email).toBe('hello@news.example.com');
    expect(await h.confirmPersonas()).toBe(1);
    expect(await verify(await sendFrom('hello@news.example.com', 'before@example.org'))).toEqual([{ domain: null, result: 'none' }]);

    for (const r of Object.values(domain.records) as Array<{ name: string; value: string }>) dns.zone.set(r.name, [...(dns.zone.get(r.name) ?? []), r.value]);
    dns.zone.set('news.example.com', ['google-site-verification=abc', ...dns.zone.get('news.example.com')!]);
    expect((await check()).errors).toEqual([]);
    const verified = (await dkimSettings())[0];
    expect(verified.DkimVerificationStatus).toBe('Success');
    expect([verified.records.dkim.status, verified.records.spf.status, verified.records.dmarc.status]).toEqual(['Success', 'Success', 'Success']);

    const signed = await sendFrom('hello@news.example.com', 'after@example.org');
    expect(signed.toString('utf8')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=news\.example\.com;/m);
    expect(await verify(signed)).toEqual([{ domain: 'news.example.com', result: 'pass' }]);

    // The stored copy is the signed message, byte for byte. The send is recorded just after the relay's 250 (the
    // recorder's window plus one statement), so the sink can have the message before the event exists.
    let success: { json: { location: string } } | undefined;
    for (let i = 0; i < 100 && !success; i++) {
      const events = await h.call('GET', '/api/event/all_events', {
        key: t.apiKey,
        query: { include_system_events: true, search_field: 'email', search_value: 'after@example.org', limit: 5 },
      });
      success = events.body.data.find((e: { name: string }) => e.name === EVENT.sendSuccess);
      if (!success) await new Promise((r) => setTimeout(r, 50));
    }
    const location = success!.json.location;
    const { bucket, key } = decodeLocation(location)!;
    expect(Buffer.compare((await openStorage(h.config.storageUrl).get(bucket, key))!, signed)).toBe(0);

    // Marketing mail: List-Unsubscribe and List-Unsubscribe-Post are both signed (RFC 8058 §4), and mailauth passes it.
    const marketing = await sendFrom('hello@news.example.com', 'marketing@example.org', 'TEMPLATE_MARKETING');
    expect(marketing.toString('utf8')).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const [verdict] = await verify(marketing, true);
    expect(verdict).toMatchObject({ domain: 'news.example.com', result: 'pass' });
    expect(verdict.signed).toEqual(expect.arrayContaining(['from', 'subject', 'list-unsubscribe', 'list-unsubscribe-post']));
    // Saved through the API without a text part, the template still goes out multipart/alternative with one.
    const parsed = await simpleParser(marketing);
    expect(marketing.toString('utf8')).toMatch(/^Content-Type: multipart\/alternative;/m);
    expect(parsed.text).toContain('Hello marketing@example.org');
    expect(parsed.text).toMatch(/Unsubscribe \[http:\/\/localhost:8080\/u\//);

    dns.zone.clear();
    await check();
    expect((await dkimSettings())[0].DkimVerificationStatus).toBe('Failed');
    expect(await verify(await sendFrom('hello@news.example.com', 'later@example.org'))).toEqual([{ domain: null, result: 'none' }]);
  });

  it("merges our SPF terms into the domain's existing SPF record, and gives the DKIM value as 255-character strings", async () => {
    dns.zone.set('shop.example.com', ['v=spf1 include:_spf.google.com -all', 'google-site-verification=xyz']);
    const added = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'shop.example.com' } });
    expect(added.status).toBe(200);
    expect(added.body.data.records.spf).toMatchObject({ value: 'v=spf1 a mx ~all', found: null }); // not checked yet
    expect((await check()).errors).toEqual([]);
    const shop = (await dkimSettings()).find((d) => d.domain === 'shop.example.com')! as unknown as {
      records: { spf: { value: string; found: string[]; status: string; strings: string }; dkim: { value: string; strings: string } };
    };
    // One record: the domain's own terms and policy (-all), with ours added; never a second SPF record.
    expect(shop.records.spf).toMatchObject({
      found: ['v=spf1 include:_spf.google.com -all'],
      value: 'v=spf1 include:_spf.google.com a mx -all',
      status: 'Success',
    });
    const strings = [...shop.records.dkim.strings.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    expect(strings.length).toBe(2);
    expect(strings[0]).toHaveLength(255);
    expect(strings.join('')).toBe(shop.records.dkim.value);

    // Published as given, the merged record is found again and stays the value: nothing more to change.
    dns.zone.set('shop.example.com', [shop.records.spf.value]);
    await check();
    const after = (await dkimSettings()).find((d) => d.domain === 'shop.example.com')! as unknown as { records: { spf: { value: string; found: string[] } } };
    expect(after.records.spf).toMatchObject({ found: ['v=spf1 include:_spf.google.com a mx -all'], value: 'v=spf1 include:_spf.google.com a mx -all' });
  });
});

describe(`the service's own mail (${API_DB})`, () => {
  it("signs persona verification email with SYSTEM_FROM's key when one is configured, and mailauth passes it", async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    dns.zone.set('sys1._domainkey.mail.mailwright.example', [`v=DKIM1; k=rsa; p=${publicKey.toString('base64')}`]);
    const hs = await startHarness({
      config: { systemFrom: 'no-reply@mail.mailwright.example', systemDkim: { domainName: 'mail.mailwright.example', keySelector: 'sys1', privateKey } },
    });
    try {
      const u = await hs.tenant();
      const saved = await hs.call('POST', '/api/senderpersonawrapper/sender_personas', {
        key: u.apiKey,
        body: { sender_personas: [{ email: 'news@customer.example', first_name: 'News' }] },
      });
      expect(saved.status).toBe(200);
      await hs.sink.waitFor(() => hs.sink.messages.some((m) => m.envelopeTo.includes('news@customer.example')));
      const raw = hs.sink.messages.find((m) => m.envelopeTo.includes('news@customer.example'))!.raw;
      expect(raw.toString('utf8')).toMatch(/^From: Sender verification <no-reply@mail\.mailwright\.example>\r$/m);
      expect(await verify(raw)).toEqual([{ domain: 'mail.mailwright.example', result: 'pass' }]);
    } finally {
      await hs.close();
    }
  });
});
