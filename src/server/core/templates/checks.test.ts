import { describe, expect, it } from 'vitest';
import {
  byWorstFirst,
  GMAIL_CLIP_BYTES,
  htmlFacts,
  imageFindings,
  linkFinding,
  linksToCheck,
  preheaderFindings,
  sizeFinding,
  spamOf,
  subjectFindings,
  textPartFinding,
  unsubscribeFinding,
} from './checks.ts';
import { parseSpamdReport } from './spamd.ts';
import { parseSpamdUrl } from '../../config.ts';

describe('htmlFacts and the unsubscribe rule', () => {
  it('counts {{unsubscribe_link}} in an href or visible text, not in a comment, the head, a style or a script', () => {
    const shown = (html: string) => htmlFacts(html).unsubscribeShown;
    expect(shown('<a href="{{unsubscribe_link}}">Unsubscribe</a>')).toBe(true);
    expect(shown('<a href="{{ unsubscribe_link }}">Unsubscribe</a>')).toBe(true);
    expect(shown('<p>Leave: {{unsubscribe_link}}</p>')).toBe(true);
    expect(shown('<p>Hi</p><!-- <a href="{{unsubscribe_link}}">u</a> -->')).toBe(false);
    expect(shown('<!--[if mso]><a href="{{unsubscribe_link}}">u</a><![endif]--><p>Hi</p>')).toBe(false);
    expect(shown('<html><head><title>{{unsubscribe_link}}</title></head><body>Hi</body></html>')).toBe(false);
    expect(shown('<style>/* {{unsubscribe_link}} */</style><p>Hi</p>')).toBe(false);
    expect(shown('<script>"{{unsubscribe_link}}"</script><p>Hi</p>')).toBe(false);
    expect(shown('<p>{unsubscribe_link}</p>')).toBe(false);
  });

  it('a marketing template without it is an error naming html_body; a transactional one is fine', () => {
    const facts = htmlFacts('<p>Hi</p>');
    expect(unsubscribeFinding(facts, 'TEMPLATE_MARKETING')).toMatchObject({ code: 'unsubscribe_missing', severity: 'error', field: 'html_body' });
    expect(unsubscribeFinding(facts, 'TEMPLATE_TRANSACTIONAL')).toBeUndefined();
    expect(unsubscribeFinding(htmlFacts('<a href="{{unsubscribe_link}}">u</a>'), 'TEMPLATE_MARKETING')).toBeUndefined();
  });

  it('collects hrefs (entities decoded) and images without an alt attribute', () => {
    const facts = htmlFacts(
      '<a href=" https://a.example/x?a=1&amp;b=2 ">x</a><area href="https://b.example/"><img src="https://c.example/1.png"><img src="https://c.example/2.png" alt=""><img src="https://c.example/3.png" alt="Logo">',
    );
    expect(facts.links).toEqual(['https://a.example/x?a=1&b=2', 'https://b.example/']);
    expect(facts.imagesWithoutAlt).toEqual(['https://c.example/1.png']);
    expect(imageFindings(facts)).toEqual([expect.objectContaining({ code: 'image_alt', severity: 'warning', url: 'https://c.example/1.png' })]);
  });

  it('reports at most 10 images one by one, then the rest in one finding', () => {
    const facts = htmlFacts('<img src="x.png">'.repeat(13));
    const found = imageFindings(facts);
    expect(found).toHaveLength(11);
    expect(found[10].message).toBe('3 more images have no alt text.');
  });
});

describe('linksToCheck', () => {
  it('keeps distinct http(s) links; skips unsubscribe, own, mailto and anchors; reports links with variables', () => {
    const got = linksToCheck(
      [
        'https://shop.example/sale',
        'https://shop.example/sale',
        'HTTP://Shop.example/Caps',
        '{{unsubscribe_link}}',
        'https://lists.example/unsubscribe?id=1',
        'https://other.example/opt-out',
        'https://mail.example.com/u/token',
        'https://mail.example.com/t/c/token',
        'https://mail.example.com/v/token',
        'https://mail.example.com/s/c/token',
        'https://mail.example.com/about',
        'mailto:help@example.com',
        '#top',
        'https://shop.example/p/{{user.json.sku}}',
      ],
      'https://mail.example.com/',
    );
    expect(got.urls).toEqual(['https://shop.example/sale', 'HTTP://Shop.example/Caps', 'https://mail.example.com/about']);
    expect(got.findings).toEqual([expect.objectContaining({ code: 'link_variable', severity: 'info', url: 'https://shop.example/p/{{user.json.sku}}' })]);
  });

  it('checks at most 100 links and says how many were left', () => {
    const got = linksToCheck(
      Array.from({ length: 103 }, (_, i) => `https://x.example/${i}`),
      'https://mail.example.com',
    );
    expect(got.urls).toHaveLength(100);
    expect(got.findings[0]).toMatchObject({ code: 'link_unchecked', severity: 'info', message: '3 links were not checked: at most 100 are checked.' });
  });
});

describe('findings', () => {
  it('size: a warning over 102,000 bytes, info at or under', () => {
    expect(sizeFinding(GMAIL_CLIP_BYTES + 1)).toMatchObject({ code: 'size', severity: 'warning' });
    expect(sizeFinding(GMAIL_CLIP_BYTES + 1).message).toContain('102.0 KB');
    expect(sizeFinding(GMAIL_CLIP_BYTES)).toMatchObject({ code: 'size', severity: 'info' });
  });

  it('subject: empty and over 78 characters are warnings; emoji count as one character', () => {
    expect(subjectFindings('  ')).toEqual([expect.objectContaining({ code: 'subject_empty', severity: 'warning', field: 'subject' })]);
    expect(subjectFindings('x'.repeat(79))).toEqual([expect.objectContaining({ code: 'subject_long' })]);
    expect(subjectFindings('😀'.repeat(78))).toEqual([]);
  });

  it('preheader: missing and over 140 characters are warnings', () => {
    expect(preheaderFindings('<p>Hi</p>')).toEqual([expect.objectContaining({ code: 'preheader_empty', severity: 'warning' })]);
    expect(preheaderFindings(`<body><div class="preheader">${'p'.repeat(141)}</div></body>`)).toEqual([expect.objectContaining({ code: 'preheader_long' })]);
    expect(preheaderFindings('<body><div class="preheader">Our spring picks</div></body>')).toEqual([]);
  });

  it('text part: none when written, info when made from the HTML, a warning when the HTML has no text', () => {
    expect(textPartFinding({ html_body: '<p>Hi</p>', plain_text_body: 'Hi' })).toBeUndefined();
    expect(textPartFinding({ html_body: '<p>Hi</p>', plain_text_body: null })).toMatchObject({ code: 'text_part', severity: 'info' });
    expect(textPartFinding({ html_body: '<img src="a.png" alt="">' })).toMatchObject({ code: 'text_part', severity: 'warning' });
  });

  it('link outcomes: ok is nothing; dead, slow, redirects and private are warnings; unchecked is info', () => {
    const url = 'https://x.example/';
    expect(linkFinding({ url, kind: 'ok', status: 200 })).toBeUndefined();
    expect(linkFinding({ url, kind: 'dead', status: 404, detail: 'it answers 404' })).toMatchObject({ code: 'link_dead', severity: 'warning', url });
    expect(linkFinding({ url, kind: 'slow', detail: 'no answer within 5 s' })).toMatchObject({ code: 'link_slow', severity: 'warning' });
    expect(linkFinding({ url, kind: 'redirects', detail: 'it redirects more than 5 times' })).toMatchObject({ code: 'link_redirects', severity: 'warning' });
    expect(linkFinding({ url, kind: 'private', detail: '10.0.0.1 is a private address' })!.message).toContain('not checked: private address');
    expect(linkFinding({ url, kind: 'unchecked', detail: 'the check ran out of time' })).toMatchObject({ code: 'link_unchecked', severity: 'info' });
  });

  it('orders error, warning, info', () => {
    const f = (severity: 'error' | 'warning' | 'info', code: string) => ({ code, severity, message: code });
    expect(byWorstFirst([f('info', 'a'), f('warning', 'b'), f('error', 'c'), f('info', 'd')]).map((x) => x.code)).toEqual(['c', 'b', 'a', 'd']);
  });
});

describe('spamd answers', () => {
  const answer = [
    'SPAMD/1.1 0 EX_OK',
    'Content-length: 600',
    'Spam: True ; 6.1 / 5.0',
    '',
    'Spam detection software, running on the system "vm",',
    'has identified this incoming email as possible spam.',
    '',
    'Content analysis details:   (6.1 points, 5.0 required)',
    '',
    ' pts rule name              description',
    '---- ---------------------- --------------------------------------------------',
    ' 2.7 MISSING_DATE           Missing Date: header',
    '-0.0 NO_RECEIVED            Informational: message has no Received headers',
    ' 0.6 MISSING_MID            Missing Message-Id: header',
    ' 1.8 DRUGS_ERECTILE         Refers to an erectile drug',
    ' 1.0 HTML_IMAGE_ONLY_04     HTML: images with 0-400 bytes of words, and a',
    '                            very long description',
    '-1.9 BAYES_00               BODY: Bayes spam probability is 0 to 1%',
    ' 0.9 T_LOTS_OF_MONEY        Huge... sums of money',
    '',
  ].join('\r\n');

  it('parseSpamdReport reads the score, threshold and rules (continuation lines joined)', () => {
    const r = parseSpamdReport(answer);
    expect(r.score).toBe(6.1);
    expect(r.threshold).toBe(5);
    expect(r.rules).toHaveLength(7);
    expect(r.rules[4]).toEqual({ name: 'HTML_IMAGE_ONLY_04', score: 1, description: 'HTML: images with 0-400 bytes of words, and a very long description' });
    expect(r.rules[5]).toEqual({ name: 'BAYES_00', score: -1.9, description: 'BODY: Bayes spam probability is 0 to 1%' });
  });

  it('spamOf keeps the 5 largest, largest first; a warning at or over the threshold', () => {
    const { spam, finding } = spamOf(parseSpamdReport(answer));
    expect(spam.rules.map((r) => r.name)).toEqual(['MISSING_DATE', 'DRUGS_ERECTILE', 'HTML_IMAGE_ONLY_04', 'T_LOTS_OF_MONEY', 'MISSING_MID']);
    expect(finding).toMatchObject({ code: 'spam_score', severity: 'warning' });
    expect(spamOf({ score: 1.2, threshold: 5, rules: [] }).finding.severity).toBe('info');
  });

  it('refuses an error status or an answer without a Spam header', () => {
    expect(() => parseSpamdReport('SPAMD/1.0 76 Bad header line: (Content-Length)\r\n\r\n')).toThrow(/76/);
    expect(() => parseSpamdReport('SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\n\r\n')).toThrow(/Spam: header/);
    expect(() => parseSpamdReport('HTTP/1.1 200 OK\r\n\r\n')).toThrow(/spamd answered/);
  });
});

describe('SPAMD_URL', () => {
  it('is spamd://host:port, port 783 when left out; any other form is refused', () => {
    expect(parseSpamdUrl('spamd://127.0.0.1:7830')).toEqual({ host: '127.0.0.1', port: 7830 });
    expect(parseSpamdUrl('spamd://spam.internal')).toEqual({ host: 'spam.internal', port: 783 });
    expect(parseSpamdUrl('spamd://[::1]:783')).toEqual({ host: '::1', port: 783 });
    expect(() => parseSpamdUrl('tcp://127.0.0.1:783')).toThrow(/spamd:\/\/host:port/);
    expect(() => parseSpamdUrl('127.0.0.1:783')).toThrow(/spamd:\/\/host:port/);
  });
});
