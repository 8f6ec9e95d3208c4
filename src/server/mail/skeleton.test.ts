import { describe, expect, it } from 'vitest';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { readFixture } from '../../../tests/helpers/fixtures.ts';
import { composerOptions, MessageSkeleton, type SkeletonShape, type SkeletonValues } from './skeleton.ts';

/** full builds the same message with MailComposer from scratch (the reference). */
async function full(shape: SkeletonShape, v: SkeletonValues): Promise<Buffer> {
  return new MailComposer(composerOptions(shape, v)).compile().build();
}

const html = readFixture('email-templates/leemunroe/email-inlined.html');

const subjects = [
  'Hello',
  '',
  'Ünïcödé subject with ümlauts',
  'Émoji 🎉 launch day',
  'A very long plain ASCII subject line that goes well past seventy-six characters and must fold somewhere',
  'Long unicode: ' + 'ß'.repeat(60),
  'Subject with "quotes" and =?utf-8?q?fake?= words',
  'tab\tand  spaces',
];
const recipients = ['ann@example.com', 'Very.Long.Local.Part.That.Is.Quite.Long.Indeed+tag@sub.domain.example.org', 'user@bücher.example', 'x@y.co'];
// Bodies MailComposer writes in base64 (the fixture, non-ASCII, a line over 76 characters) and ones it does not.
const bodies = [html, 'Ünïcödé body ' + '🎉'.repeat(100) + '\r\n.\r\n', 'a'.repeat(80), html.replace('</body>', 'é</body>'), 'x', ''];

describe('MessageSkeleton', () => {
  it("fills every recipient's message byte for byte as MailComposer builds it", async () => {
    let compared = 0;
    let skipped = 0;
    for (const hasText of [false, true]) {
      for (const listUnsubscribe of [false, true]) {
        for (const from of [{ email: 'news@shop.example.com', name: 'Shop News' }, { email: 'plain@example.com' }, { email: 'ü@example.com', name: 'Ünï' }]) {
          const shape: SkeletonShape = { from, hasText, listUnsubscribe, baseBoundary: 'abcdef0123456789' };
          const skeleton = await MessageSkeleton.build(shape);
          for (let i = 0; i < subjects.length; i++) {
            const v: SkeletonValues = {
              to: recipients[i % recipients.length],
              subject: subjects[i],
              messageId: `<id-${i}@mail.example.com>`,
              date: new Date(Date.UTC(2027, 2, 14, 9, 0, i)),
              html: bodies[i % bodies.length],
              text: hasText ? bodies[(i + 1) % bodies.length] : undefined,
              listUnsubscribe: listUnsubscribe ? `https://mw.example.com/u/${'t'.repeat(i * 20)}` : undefined,
            };
            const expected = await full(shape, v);
            if (!MessageSkeleton.fits(v, hasText)) {
              // A 7bit or empty body: the caller builds these in full; the skeleton must say so, not guess.
              const base64Parts = expected.toString('latin1').split('Content-Transfer-Encoding: base64').length - 1;
              expect(base64Parts).toBeLessThan(hasText ? 2 : 1);
              skipped++;
              continue;
            }
            expect(skeleton.fill(v).toString('latin1')).toBe(expected.toString('latin1'));
            compared++;
          }
        }
      }
    }
    expect(compared + skipped).toBe(2 * 2 * 3 * subjects.length);
    expect(compared).toBeGreaterThanOrEqual(48);
  });
});

describe('MessageSkeleton of a submitted message', () => {
  const lists = [
    { to: [{ address: 'ann@example.com' }], cc: [], replyTo: [] },
    {
      to: [
        { address: 'ann@example.com', name: 'Ann Ünïcödé' },
        { address: 'bob@example.com', name: 'Bob "the builder", Jr.' },
      ],
      cc: [{ address: 'carol@example.org' }],
      replyTo: [{ address: 'support@shop.example.com', name: 'Support' }],
    },
    { to: [], cc: [{ address: 'x@y.co' }], replyTo: [] },
    {
      to: Array.from({ length: 12 }, (_, i) => ({ address: `person.number.${i}@a-rather-long-domain.example.org`, name: `Person ${i}` })),
      cc: [],
      replyTo: [],
    },
  ];
  const headerSets: Array<Array<[string, string]>> = [
    [],
    [['X-Order', '1234']],
    [
      ['In-Reply-To', '<abc@example.com>'],
      ['References', '<abc@example.com> <def@example.com>'],
      ['X-Note', 'Ünïcödé note that is long enough to be folded over more than one line of the header section, surely'],
    ],
  ];
  // 7bit bodies (plain ASCII, short lines, LF or CRLF line ends) and base64 ones.
  const texts = ['Hello Ann,\n\nYour order has shipped.\n', 'Line one\r\nLine two\r\n', 'ß and é', 'a'.repeat(76), 'a'.repeat(77)];
  const htmls = ['<p>Hello <b>Ann</b></p>', '<p>Grüße</p>', html];

  it('fills each shape byte for byte as MailComposer builds it, bodies 7bit or base64', async () => {
    let compared = 0;
    const seen = new Set<string>();
    for (let i = 0; i < lists.length * headerSets.length * texts.length; i++) {
      const l = lists[i % lists.length];
      const headers = headerSets[Math.floor(i / lists.length) % headerSets.length];
      const hasText = i % 7 !== 3;
      const v: SkeletonValues = {
        to: 'envelope@example.com',
        subject: subjects[i % subjects.length],
        messageId: `<sub-${i}@mail.example.com>`,
        date: new Date(Date.UTC(2027, 2, 14, 9, 0, i % 60)),
        html: htmls[i % htmls.length],
        text: hasText ? texts[i % texts.length] : undefined,
        lists: l,
        headers,
      };
      const encodings = MessageSkeleton.encodings(v, hasText)!;
      const shape: SkeletonShape = {
        from: { email: 'orders@shop.example.com', name: 'Shop Örders' },
        hasText,
        listUnsubscribe: i % 2 === 0,
        baseBoundary: 'fedcba9876543210',
        htmlEncoding: encodings.html,
        textEncoding: encodings.text,
        lists: { to: l.to.length > 0, cc: l.cc.length > 0, replyTo: l.replyTo.length > 0 },
        headerNames: headers.map(([name]) => name),
      };
      if (shape.listUnsubscribe) v.listUnsubscribe = `https://mw.example.com/u/${i}`;
      seen.add(`${encodings.html}/${encodings.text}`);
      const skeleton = await MessageSkeleton.build(shape);
      const expected = await full(shape, v);
      expect(skeleton.fill(v).toString('latin1')).toBe(expected.toString('latin1'));
      compared++;
    }
    expect(compared).toBe(60);
    expect([...seen].sort()).toEqual(['7bit/7bit', '7bit/base64', '7bit/undefined', 'base64/7bit', 'base64/base64', 'base64/undefined']);
  });

  it('says an empty body has no encoding, so the message is built in full', () => {
    expect(MessageSkeleton.encodings({ html: '', text: 'x' }, true)).toBeUndefined();
    expect(MessageSkeleton.encodings({ html: '<p>x</p>', text: '' }, true)).toBeUndefined();
    expect(MessageSkeleton.encodings({ html: '<p>x</p>' }, false)).toEqual({ html: '7bit' });
  });
});
