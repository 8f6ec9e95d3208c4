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
