/** Sending domains: the host-name check, the records to publish, and matching DNS answers. */
import { describe, expect, it } from 'vitest';
import {
  casingNotice,
  dkimStatus,
  dmarcStatus,
  domainRecords,
  normalizeDomain,
  parseTags,
  registeredCasing,
  sendingDomainError,
  spfStatus,
  mergeSpf,
  txtStrings,
} from './sendingDomain';

describe('sendingDomainError', () => {
  it('uses the spec’s domain check first', () => {
    expect(sendingDomainError('')).toBe('Required field');
    expect(sendingDomainError('localhost')).toBe('Must contain dot');
  });
  it('accepts host names in any case, with a trailing root dot', () => {
    for (const d of ['example.com', 'Mail.Example.COM', 'a-b.c0.example.co.uk', 'example.com.']) expect(sendingDomainError(d)).toBeUndefined();
  });
  it('refuses what is not a host name', () => {
    for (const d of [
      'exa mple.com',
      '-a.example.com',
      'a-.example.com',
      'a..b.com',
      'http://example.com',
      '10.0.0.1',
      'x@example.com',
      `${'a'.repeat(64)}.com`,
    ]) {
      expect(sendingDomainError(d), d).toBe('Must be a domain name such as mail.example.com');
    }
  });
  it('normalizes to lower case without the root dot', () => {
    expect(normalizeDomain(' Mail.Example.COM. ')).toBe('mail.example.com');
  });
});

describe('domainRecords', () => {
  it('gives the DKIM, SPF and DMARC TXT records', () => {
    expect(domainRecords('example.com', 'mw1', 'MIIBkey', 'v=spf1 a mx ~all')).toEqual({
      dkim: { type: 'TXT', name: 'mw1._domainkey.example.com', value: 'v=DKIM1; k=rsa; p=MIIBkey' },
      spf: { type: 'TXT', name: 'example.com', value: 'v=spf1 a mx ~all' },
      dmarc: { type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none; rua=mailto:dmarc@bounces.example.com' },
    });
  });
});

describe('matching DNS answers', () => {
  it('reads tag lists with any spacing and case of tag names', () => {
    expect([...parseTags(' V=DKIM1 ;k = rsa; p=AB CD ')]).toEqual([
      ['v', 'DKIM1'],
      ['k', 'rsa'],
      ['p', 'ABCD'],
    ]);
  });
  it('DKIM: Success only for our public key', () => {
    expect(dkimStatus(['v=DKIM1; k=rsa; p=KEY'], 'KEY')).toBe('Success');
    expect(dkimStatus(['k=rsa; p=KEY'], 'KEY')).toBe('Success');
    expect(dkimStatus(['v=DKIM1; k=rsa; p=OTHER'], 'KEY')).toBe('Failed');
    expect(dkimStatus(['v=DKIM2; p=KEY'], 'KEY')).toBe('Failed');
    expect(dkimStatus([], 'KEY')).toBe('Failed');
  });
  it('SPF: exactly one v=spf1 record', () => {
    expect(spfStatus(['google-site-verification=x', 'v=spf1 a mx ~all'])).toBe('Success');
    expect(spfStatus(['v=spf1 a ~all', 'v=spf1 mx ~all'])).toBe('Failed');
    expect(spfStatus(['v=spf10'])).toBe('Failed');
    expect(spfStatus([])).toBe('Failed');
  });
  it('DMARC: exactly one DMARC1 record with a policy', () => {
    expect(dmarcStatus(['v=DMARC1; p=none; rua=mailto:d@example.com'])).toBe('Success');
    expect(dmarcStatus(['v=DMARC1; p=reject'])).toBe('Success');
    expect(dmarcStatus(['v=DMARC1; rua=mailto:d@example.com'])).toBe('Failed');
    expect(dmarcStatus(['v=DMARC1; p=none', 'v=DMARC1; p=reject'])).toBe('Failed');
    expect(dmarcStatus([])).toBe('Failed');
  });
});

describe('registeredCasing', () => {
  it('rewrites a domain that differs from a registered one only in case, and says so', () => {
    expect(registeredCasing('Ann@News.Example.com', ['other.com', 'news.example.com'])).toEqual({
      email: 'Ann@news.example.com',
      provided: 'News.Example.com',
      registered: 'news.example.com',
    });
    expect(casingNotice('News.Example.com', 'news.example.com')).toBe(
      "You provided a domain of News.Example.com but have registered news.example.com. We've matched up the upper and lowercase characters in your sender persona for you, to help avoid any issues with domain-ownership verification.",
    );
  });
  it('leaves an exact match, another domain, or no domain alone', () => {
    expect(registeredCasing('ann@news.example.com', ['news.example.com'])).toEqual({ email: 'ann@news.example.com' });
    expect(registeredCasing('ann@Other.com', ['news.example.com'])).toEqual({ email: 'ann@Other.com' });
    expect(registeredCasing('ann', ['news.example.com'])).toEqual({ email: 'ann' });
  });
});

describe('mergeSpf', () => {
  const ours = 'v=spf1 a mx ~all';
  it('publishes ours when the domain has no SPF record', () => {
    expect(mergeSpf([], ours)).toBe(ours);
    expect(mergeSpf(['google-site-verification=x'], ours)).toBe(ours);
  });
  it("adds our terms to the domain's record, before its own all, keeping its policy", () => {
    expect(mergeSpf(['v=spf1 include:_spf.google.com -all'], ours)).toBe('v=spf1 include:_spf.google.com a mx -all');
    expect(mergeSpf(['v=spf1 MX include:mailgun.org ~all'], ours)).toBe('v=spf1 MX include:mailgun.org a ~all');
  });
  it('leaves a record that has our terms already as it is', () => {
    expect(mergeSpf(['v=spf1 a mx ~all'], ours)).toBe('v=spf1 a mx ~all');
  });
  it('merges two records (which make SPF fail) into one', () => {
    expect(mergeSpf(['v=spf1 include:a.example ~all', 'v=spf1 ip4:192.0.2.1 -all'], ours)).toBe('v=spf1 include:a.example ip4:192.0.2.1 a mx ~all');
  });
  it('turns a redirect into an include, so the hosts it authorised stay authorised beside ours', () => {
    expect(mergeSpf(['v=spf1 redirect=_spf.example.net'], ours)).toBe('v=spf1 include:_spf.example.net a mx ~all');
  });
});

describe('txtStrings', () => {
  it('splits a long value into quoted strings of at most 255 characters that join back to it', () => {
    const value = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
    const out = txtStrings(value);
    const strings = [...out.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    expect(strings.map((s) => s.length)).toEqual([255, value.length - 255]);
    expect(strings.join('')).toBe(value);
    expect(txtStrings('v=spf1 a mx ~all')).toBe('"v=spf1 a mx ~all"');
  });
});
