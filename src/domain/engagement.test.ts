/**
 * Machine opens and bot clicks (src/domain/engagement.ts) over a corpus of real user agents.
 * Sources of the strings:
 * - Apple Mail Privacy Protection's proxy sends "Mozilla/5.0" alone: Apple, "Use Mail Privacy Protection on iPhone"
 *   (support.apple.com/guide/iphone/iph6a6a8ba2f) and the ESP write-ups that logged it (Litmus, "Apple Mail Privacy
 *   Protection: what email marketers need to know", 2021; SendGrid docs "Apple Mail Privacy Protection"). Apple's
 *   egress ranges: https://mask-api.icloud.com/egress-ip-ranges.csv (first column a CIDR).
 * - Gmail's image proxy: Google Workspace Updates, "Images now showing" (2013): "Mozilla/5.0 (Windows NT 5.1;
 *   rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)".
 * - Yahoo's proxy: help.yahoo.com SLN28749 "YahooMailProxy".
 * - Mail clients: Apple Mail on macOS (WebKit, no "Version/" token), Outlook for Windows ("Microsoft Office/16.0 …
 *   Microsoft Outlook …"), Thunderbird (Gecko … Thunderbird/115), iOS Mail (Mobile/15E148 without Safari).
 * - Scanners: Barracuda Sentinel ("Barracuda Sentinel (EE)"), Mimecast URL Protect, Proofpoint URL Defense, python
 *   requests, curl, Go's http client and headless Chrome — as the vendors' and libraries' documentation gives them.
 */
import { describe, expect, it } from 'vitest';
import {
  APPLE_PREFETCH_WINDOW_MS,
  CLICK_ON_DELIVERY_MS,
  OPEN_ON_DELIVERY_MS,
  classifyClick,
  classifyOpen,
  inRanges,
  isScannerAgent,
  linkBurst,
  parseIpRanges,
} from './engagement.ts';

const APPLE_MPP = 'Mozilla/5.0';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const YAHOO_PROXY = 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html';
const PEOPLE = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)', // Apple Mail, macOS
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148', // iOS Mail
  'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17425; Pro)', // Outlook for Windows
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:115.0) Gecko/20100101 Thunderbird/115.9.0', // Thunderbird
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36', // webmail in Chrome
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', // Android
];
const SCANNERS = [
  'Barracuda Sentinel (EE)',
  'Mozilla/5.0 (compatible; Mimecast URL Protect)',
  'Proofpoint URL Defense',
  'python-requests/2.31.0',
  'curl/8.5.0',
  'Go-http-client/1.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
];
const LATER = 3_600_000; // an hour after delivery

describe('classifyOpen', () => {
  it('marks Apple Mail Privacy Protection: the generic agent on delivery, or from Apple’s ranges at any time', () => {
    expect(classifyOpen({ userAgent: APPLE_MPP, msSinceDelivery: 30_000, proxyOpenedBefore: false })).toEqual({ machine: true, machine_reason: 'apple_mpp' });
    const { ranges } = parseIpRanges('172.224.226.0/27,GB,GB-EN,London,\n2a02:26f7:b3c0:4000::/64,GB,GB-EN,London,\n');
    expect(classifyOpen({ userAgent: APPLE_MPP, ip: '172.224.226.9', msSinceDelivery: 5 * LATER, proxyOpenedBefore: false, appleRanges: ranges })).toEqual({
      machine: true,
      machine_reason: 'apple_mpp',
    });
    // Later and from elsewhere it is still no mail client a person uses.
    expect(
      classifyOpen({ userAgent: APPLE_MPP, ip: '203.0.113.7', msSinceDelivery: APPLE_PREFETCH_WINDOW_MS + 1, proxyOpenedBefore: false, appleRanges: ranges }),
    ).toEqual({ machine: true, machine_reason: 'generic_user_agent' });
  });

  it('counts every mail client of the corpus as a person when it opens a while after delivery', () => {
    for (const ua of PEOPLE)
      expect(classifyOpen({ userAgent: ua, msSinceDelivery: LATER, proxyOpenedBefore: false }), ua).toEqual({ machine: false, machine_reason: null });
  });

  it('marks an open within seconds of delivery as a prefetch, even from a mail client', () => {
    expect(classifyOpen({ userAgent: PEOPLE[0], msSinceDelivery: OPEN_ON_DELIVERY_MS - 1, proxyOpenedBefore: false }).machine_reason).toBe('on_delivery');
    expect(classifyOpen({ userAgent: PEOPLE[0], msSinceDelivery: null, proxyOpenedBefore: false }).machine).toBe(false);
  });

  it('counts an image proxy’s first fetch as the person’s open and its refetches as the cache', () => {
    for (const ua of [GMAIL_PROXY, YAHOO_PROXY]) {
      expect(classifyOpen({ userAgent: ua, msSinceDelivery: 1000, proxyOpenedBefore: false }), ua).toEqual({ machine: false, machine_reason: null });
      expect(classifyOpen({ userAgent: ua, msSinceDelivery: LATER, proxyOpenedBefore: true }), ua).toEqual({ machine: true, machine_reason: 'proxy_refetch' });
    }
  });

  it('marks scanners and a missing agent', () => {
    for (const ua of SCANNERS)
      expect(classifyOpen({ userAgent: ua, msSinceDelivery: LATER, proxyOpenedBefore: false }), ua).toEqual({ machine: true, machine_reason: 'scanner' });
    expect(classifyOpen({ userAgent: '  ', msSinceDelivery: LATER, proxyOpenedBefore: false }).machine_reason).toBe('no_user_agent');
  });
});

describe('classifyClick', () => {
  it('marks the honeypot, scanners, a missing agent and clicks within seconds of delivery', () => {
    expect(classifyClick({ userAgent: PEOPLE[0], msSinceDelivery: LATER, honeypot: true })).toEqual({ bot: true, bot_reason: 'honeypot' });
    for (const ua of [...SCANNERS, APPLE_MPP])
      expect(classifyClick({ userAgent: ua, msSinceDelivery: LATER, honeypot: false }), ua).toEqual({ bot: true, bot_reason: 'scanner' });
    expect(classifyClick({ userAgent: '', msSinceDelivery: LATER, honeypot: false }).bot_reason).toBe('no_user_agent');
    expect(classifyClick({ userAgent: PEOPLE[2], msSinceDelivery: CLICK_ON_DELIVERY_MS - 1, honeypot: false }).bot_reason).toBe('on_delivery');
  });

  it('counts a person’s click a while after delivery', () => {
    for (const ua of PEOPLE) expect(classifyClick({ userAgent: ua, msSinceDelivery: LATER, honeypot: false }), ua).toEqual({ bot: false, bot_reason: null });
  });
});

describe('linkBurst', () => {
  const click = (id: string, link: string | null, at: number, human = true) => ({ id, link, at, human });

  it('marks every click still counted as a person’s when two different links were clicked within a second', () => {
    const a = click('a', 'https://x.test/1', 10_000);
    const b = click('b', 'https://x.test/2', 10_400);
    const c = click('c', 'https://x.test/3', 10_900, false);
    expect(linkBurst(c, [a, b, c]).sort()).toEqual(['a', 'b']);
    expect(linkBurst(b, [a, b])).toEqual(['a', 'b']);
  });

  it('leaves a person’s clicks alone: the same link twice, or two links seconds apart', () => {
    expect(linkBurst(click('b', 'https://x.test/1', 10_300), [click('a', 'https://x.test/1', 10_000), click('b', 'https://x.test/1', 10_300)])).toEqual([]);
    expect(linkBurst(click('b', 'https://x.test/2', 14_000), [click('a', 'https://x.test/1', 10_000), click('b', 'https://x.test/2', 14_000)])).toEqual([]);
  });
});

describe('parseIpRanges / inRanges', () => {
  it('reads Apple’s CSV, skipping a header and comments, and matches v4, v6 and v4-mapped addresses', () => {
    const { ranges, skipped } = parseIpRanges('# Apple egress\nprefix,country\n172.224.226.0/27,GB,GB-EN,London,\n2a02:26f7:b3c0:4000::/64,GB,GB-EN,London,\n');
    expect([ranges.length, skipped]).toEqual([2, 1]);
    expect(inRanges('172.224.226.31', ranges)).toBe(true);
    expect(inRanges('172.224.226.32', ranges)).toBe(false);
    expect(inRanges('::ffff:172.224.226.1', ranges)).toBe(true);
    expect(inRanges('2a02:26f7:b3c0:4000::1', ranges)).toBe(true);
    expect(inRanges('not an ip', ranges)).toBe(false);
    expect(inRanges('172.224.226.1', [])).toBe(false);
  });

  it('knows the corpus: scanners are scanners, people and proxies are not', () => {
    for (const ua of SCANNERS) expect(isScannerAgent(ua), ua).toBe(true);
    for (const ua of [...PEOPLE, GMAIL_PROXY, YAHOO_PROXY, APPLE_MPP]) expect(isScannerAgent(ua), ua).toBe(false);
  });
});
