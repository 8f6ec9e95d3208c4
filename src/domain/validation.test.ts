/** Field checks and their messages (spec part 1 §5, part 2 §5 Shared, Email, Template, Email blast). */
import { describe, expect, it } from 'vitest';
import {
  checkDomain,
  checkEmail,
  checkPassword,
  classifySearch,
  checkRequired,
  checkWebsite,
  checkTemplateContent,
  isBlank,
  MESSAGES,
  splitList,
  suspiciousVariables,
  UNSUBSCRIBE_VARIABLE,
  UUID_RE,
  UUID_V4_RE,
} from './validation.ts';

describe('MESSAGES', () => {
  it('carry the spec’s wording exactly', () => {
    expect(MESSAGES.required).toBe('Required field');
    expect(MESSAGES.invalidEmail).toBe('Invalid email');
    expect(MESSAGES.twoAts).toBe('Please don’t use confusing email addresses (e.g. with two @s)');
    expect(MESSAGES.mustContainDot).toBe('Must contain dot');
    expect(MESSAGES.templateContent).toBe('You must add email contents');
    expect(MESSAGES.marketingUnsubscribe).toBe('Marketing emails must include an unsubscribe link! Please see the instructions below the template editor');
    expect(MESSAGES.blastAudience).toBe('You must choose at least one segment or contact to send the email to');
    expect(MESSAGES.blastMissingId).toBe('Couldn’t archive email blast, missing email blast id');
  });
});

describe('isBlank / checkRequired', () => {
  it.each([[null], [undefined], [''], ['   '], ['\t\n']])('%j is blank and required', (v) => {
    expect(isBlank(v)).toBe(true);
    expect(checkRequired(v)).toBe('Required field');
  });

  it.each([['x'], [' x '], [0], [false], [[]]])('%j is not blank', (v) => {
    expect(isBlank(v)).toBe(false);
    expect(checkRequired(v)).toBeUndefined();
  });
});

describe('checkEmail', () => {
  it.each([[''], [null], [undefined], ['  ']])('%j → Required field', (v) => {
    expect(checkEmail(v)).toBe('Required field');
  });

  it('no @ → Invalid email', () => {
    expect(checkEmail('nope')).toBe('Invalid email');
    expect(checkEmail('nope.example.com')).toBe('Invalid email');
  });

  it('more than one @ → the two-@ message', () => {
    expect(checkEmail('a@@b.c')).toBe('Please don’t use confusing email addresses (e.g. with two @s)');
    expect(checkEmail('a@b@c.d')).toBe('Please don’t use confusing email addresses (e.g. with two @s)');
  });

  it('no dot after the @ → Must contain dot', () => {
    expect(checkEmail('a@b')).toBe('Must contain dot');
    // The dot is looked for in the domain, so a dot in the local part does not count.
    expect(checkEmail('first.last@localhost')).toBe('Must contain dot');
  });

  it('applies the rules in the spec’s order (two @s is reported before a missing dot)', () => {
    expect(checkEmail('a@@b')).toBe('Please don’t use confusing email addresses (e.g. with two @s)');
  });

  it('refuses what RFC 5321 does not carry: more than 254 characters, or more than 64 before the @', () => {
    const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.example.com`;
    expect(checkEmail(`${'a'.repeat(64)}@${domain}`.slice(0, 254))).toBeUndefined();
    expect(checkEmail(`${'a'.repeat(64)}@${domain}x`.padEnd(255, 'x'))).toBe(
      'Must be at most 254 characters (the longest address mail can be sent to, RFC 5321)',
    );
    expect(checkEmail(`${'a'.repeat(400)}@example.com`)).toBe('Must be at most 254 characters (the longest address mail can be sent to, RFC 5321)');
    expect(checkEmail(`${'a'.repeat(64)}@example.com`)).toBeUndefined();
    expect(checkEmail(`${'a'.repeat(65)}@example.com`)).toBe('The part before the @ must be at most 64 characters (RFC 5321)');
  });

  it('rejects an empty local part or domain and embedded spaces as Invalid email', () => {
    expect(checkEmail('@b.co')).toBe('Invalid email');
    expect(checkEmail('a@')).toBe('Invalid email');
    expect(checkEmail('a b@c.co')).toBe('Invalid email');
    expect(checkEmail('a@b.')).toBe('Invalid email');
    expect(checkEmail('a@.b')).toBe('Invalid email');
  });

  it('accepts ordinary addresses, trimming surrounding spaces', () => {
    expect(checkEmail('ann@example.com')).toBeUndefined();
    expect(checkEmail('  Ann.Lee+tag@Sub.Example.co.uk  ')).toBeUndefined();
  });
});

describe('checkDomain', () => {
  it('empty → Required field, no dot → Must contain dot, else valid', () => {
    expect(checkDomain('')).toBe('Required field');
    expect(checkDomain(null)).toBe('Required field');
    expect(checkDomain('  ')).toBe('Required field');
    expect(checkDomain('example')).toBe('Must contain dot');
    expect(checkDomain('example.com')).toBeUndefined();
    expect(checkDomain('mail.example.co.uk')).toBeUndefined();
  });
});

describe('checkTemplateContent', () => {
  const withLink = (n: number) => {
    const base = `<a href="${UNSUBSCRIBE_VARIABLE}">u</a>`;
    return base + 'x'.repeat(n - base.length);
  };

  it('empty html → You must add email contents, whatever the type', () => {
    for (const type of ['TEMPLATE_MARKETING', 'TEMPLATE_TRANSACTIONAL']) {
      expect(checkTemplateContent('', type)).toBe('You must add email contents');
      expect(checkTemplateContent('   ', type)).toBe('You must add email contents');
      expect(checkTemplateContent(null, type)).toBe('You must add email contents');
      expect(checkTemplateContent(undefined, type)).toBe('You must add email contents');
    }
  });

  it('html of length exactly 4999 (the designer’s empty document) → content message, even with the unsubscribe link', () => {
    expect(withLink(4999)).toHaveLength(4999);
    expect(checkTemplateContent('x'.repeat(4999), 'TEMPLATE_TRANSACTIONAL')).toBe('You must add email contents');
    expect(checkTemplateContent(withLink(4999), 'TEMPLATE_MARKETING')).toBe('You must add email contents');
  });

  it('lengths next to 4999 are content', () => {
    expect(checkTemplateContent('x'.repeat(4998), 'TEMPLATE_TRANSACTIONAL')).toBeUndefined();
    expect(checkTemplateContent('x'.repeat(5000), 'TEMPLATE_TRANSACTIONAL')).toBeUndefined();
    expect(checkTemplateContent(withLink(4998), 'TEMPLATE_MARKETING')).toBeUndefined();
    expect(checkTemplateContent(withLink(5000), 'TEMPLATE_MARKETING')).toBeUndefined();
  });

  it('a marketing template without {{unsubscribe_link}} → the unsubscribe message', () => {
    expect(checkTemplateContent('<p>Hello</p>', 'TEMPLATE_MARKETING')).toBe(
      'Marketing emails must include an unsubscribe link! Please see the instructions below the template editor',
    );
    // Near misses are not the variable.
    expect(checkTemplateContent('<p>{unsubscribe_link}</p>', 'TEMPLATE_MARKETING')).toBe(MESSAGES.marketingUnsubscribe);
    expect(checkTemplateContent('<p>{{unsubscribe}}</p>', 'TEMPLATE_MARKETING')).toBe(MESSAGES.marketingUnsubscribe);
    expect(checkTemplateContent('<p>unsubscribe_link</p>', 'TEMPLATE_MARKETING')).toBe(MESSAGES.marketingUnsubscribe);
  });

  it('accepts the variable with or without inner spaces', () => {
    expect(checkTemplateContent('<a href="{{unsubscribe_link}}">u</a>', 'TEMPLATE_MARKETING')).toBeUndefined();
    expect(checkTemplateContent('<a href="{{ unsubscribe_link }}">u</a>', 'TEMPLATE_MARKETING')).toBeUndefined();
  });

  it('a transactional template needs no unsubscribe link', () => {
    expect(checkTemplateContent('<p>Your receipt</p>', 'TEMPLATE_TRANSACTIONAL')).toBeUndefined();
  });
});

describe('suspiciousVariables', () => {
  it.each([
    ['<p>Hi ${user.first_name}</p>', '${'],
    ['<p>Hi {user.first_name}</p>', ' {user'],
    ['<p>Hi {$first_name}</p>', '{$'],
    ['<p>Hi {name}</p>', '{name}'],
    ['<p>Hi {first_name}</p>', '{first_name}'],
    ['<p>Hi {firstname}</p>', '{firstname}'],
  ])('%s is flagged as %s', (html, label) => {
    expect(suspiciousVariables(html)).toEqual([label]);
  });

  it('lists every distinct format found, once each', () => {
    const found = suspiciousVariables('${a} ${b} {name} {name} {firstname}');
    expect(found).toHaveLength(3);
    expect(new Set(found)).toEqual(new Set(['${', '{name}', '{firstname}']));
  });

  it('clean html with the product’s own variables → []', () => {
    const html =
      '<p>Hello {{user.first_name}} {{user.json.plan}} from {{sender_persona.first_name}}</p><a href="{{unsubscribe_link}}">Unsubscribe</a><style>p{color:red}</style>';
    expect(suspiciousVariables(html)).toEqual([]);
    expect(suspiciousVariables('')).toEqual([]);
    expect(suspiciousVariables('<p>Hi {{ user.first_name }}</p>')).toEqual([]);
  });
});

describe('splitList', () => {
  it('splits on commas, trims, drops empties and duplicates, keeping first-seen order', () => {
    expect(splitList(' b, a ,,b , c,')).toEqual(['b', 'a', 'c']);
    expect(splitList('one')).toEqual(['one']);
  });

  it('is [] for empty, null and undefined', () => {
    expect(splitList('')).toEqual([]);
    expect(splitList(null)).toEqual([]);
    expect(splitList(undefined)).toEqual([]);
    expect(splitList(' , ,')).toEqual([]);
  });
});

describe('UUID_RE / UUID_V4_RE', () => {
  const v1 = 'c232ab00-9414-11ec-b3c8-9e6bdeced846';

  it('accepts generated v4 UUIDs in any case', () => {
    const id = crypto.randomUUID();
    expect(UUID_V4_RE.test(id)).toBe(true);
    expect(UUID_V4_RE.test(id.toUpperCase())).toBe(true);
  });

  it('rejects a v1 UUID, a v4 with the wrong variant and malformed strings as v4', () => {
    expect(UUID_V4_RE.test(v1)).toBe(false);
    expect(UUID_V4_RE.test('5f4b1f7e-1c1a-4c1e-ca51-0c2d3e4f5a6b')).toBe(false);
    expect(UUID_V4_RE.test('5f4b1f7e1c1a4c1e9a510c2d3e4f5a6b')).toBe(false);
    expect(UUID_V4_RE.test(` ${crypto.randomUUID()}`)).toBe(false);
  });

  it('UUID_RE accepts any version but not malformed strings', () => {
    expect(UUID_RE.test(v1)).toBe(true);
    expect(UUID_RE.test(crypto.randomUUID())).toBe(true);
    expect(UUID_RE.test('5f4b1f7e-1c1a-4c1e-9a51-0c2d3e4f5a6')).toBe(false);
    expect(UUID_RE.test('zf4b1f7e-1c1a-4c1e-9a51-0c2d3e4f5a6b')).toBe(false);
  });
});

describe('checkPassword', () => {
  it('refuses empty, short and single-class passwords', () => {
    expect(checkPassword('')).toBe(MESSAGES.required);
    expect(checkPassword(undefined)).toBe(MESSAGES.required);
    expect(checkPassword('abc123')).toBe('must be at least 8 characters');
    expect(checkPassword('abcdefghij')).toBe('must contain a letter and a digit');
    expect(checkPassword('1234567890')).toBe('must contain a letter and a digit');
  });
  it('accepts eight or more characters with a letter and a digit, in any script', () => {
    expect(checkPassword('abcdefg1')).toBeUndefined();
    expect(checkPassword('пароль-2026')).toBeUndefined();
  });
});

describe('checkWebsite', () => {
  it('accepts nothing (optional) and http(s) URLs with a dotted host', () => {
    expect(checkWebsite('')).toBeUndefined();
    expect(checkWebsite(null)).toBeUndefined();
    expect(checkWebsite('https://example.com')).toBeUndefined();
    expect(checkWebsite('http://shop.example.co.uk/path?q=1')).toBeUndefined();
  });
  it('names what is wrong with a malformed website', () => {
    expect(checkWebsite('example.com')).toBe('must be a web address such as https://example.com');
    expect(checkWebsite('ftp://example.com')).toBe('must start with http:// or https://');
    expect(checkWebsite('https://localhost')).toBe(MESSAGES.mustContainDot);
    expect(checkWebsite('javascript:alert(1)')).toBe('must start with http:// or https://');
  });
});

describe('classifySearch', () => {
  it('reads a UUID as an id lookup', () => {
    expect(classifySearch(' 0B6C4BDE-5D5E-4B9A-9A53-2F3F3F0C1A11 ')).toEqual({ kind: 'id', id: '0b6c4bde-5d5e-4b9a-9a53-2f3f3f0c1a11' });
  });
  it('reads date-like text longer than 6 characters as a UTC day', () => {
    expect(classifySearch('2026-03-01')).toEqual({ kind: 'date', day: '2026-03-01' });
    expect(classifySearch('2026-03-01T23:30:00-02:00')).toEqual({ kind: 'date', day: '2026-03-02' });
    expect(classifySearch('03/01/2026')).toEqual({ kind: 'date', day: '2026-03-01' });
    expect(classifySearch('March 1, 2026')).toEqual({ kind: 'date', day: '2026-03-01' });
  });
  it('keeps everything else a text search on email or name', () => {
    for (const text of ['1/2/26', 'bob 2026', '12345678', 'ann@2026-03-01.com', '2026-02-30', 'ann', 'v2.0.1 beta']) {
      expect(classifySearch(text)).toEqual({ kind: 'text', text });
    }
  });
});
