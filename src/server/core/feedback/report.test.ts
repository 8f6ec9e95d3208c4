/**
 * parseFeedbackReport and the one classification (domain/bounces.ts) over 152 real returned emails
 * (tests/fixtures/bounces/): hard vs not hard agrees with the sisimai decoder's expectation for
 * at least 95 % of the 165 recipients (printed per family), every ARF report and SES complaint is read as a complaint
 * of its recipient, no auto-reply is counted as a bounce, and malformed input gives an empty report, never a throw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../../../tests/helpers/fixtures.ts';
import { parseFeedbackReport, type FeedbackReport } from './report.ts';

interface Expected {
  file: string;
  family: string;
  recipient: string;
  status: string;
  reason: string;
  hardbounce: boolean;
  feedbacktype: string;
}

const dir = path.dirname(fixturePath('bounces/expected.json'));
const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected[];
const reports = new Map<string, FeedbackReport>();

async function report(file: string): Promise<FeedbackReport> {
  if (!reports.has(file)) reports.set(file, await parseFeedbackReport(readFileSync(path.join(dir, file))));
  return reports.get(file)!;
}

const find = (r: FeedbackReport, email: string) => r.recipients.find((x) => x.email.toLowerCase() === email.toLowerCase());

describe('returned emails from 68 MTAs and providers', () => {
  it('agrees with sisimai on hard vs not hard for at least 95 % of recipients', async () => {
    const families = new Map<string, { n: number; agree: number }>();
    const differ: string[] = [];
    for (const e of expected) {
      const mine = find(await report(e.file), e.recipient);
      const hard = mine?.verdict.class === 'hard';
      const f = families.get(e.family) ?? { n: 0, agree: 0 };
      f.n++;
      if (hard === e.hardbounce) f.agree++;
      else
        differ.push(
          `${e.file} ${e.recipient}: sisimai ${e.reason} (${e.hardbounce ? 'hard' : 'not hard'}), here ${mine ? `${mine.verdict.class} ${mine.verdict.reason}` : 'not found'}`,
        );
      families.set(e.family, f);
    }
    const agree = [...families.values()].reduce((a, f) => a + f.agree, 0);
    const lines = [...families.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, f]) => `  ${name.padEnd(24)} ${f.agree}/${f.n}`);
    console.log(
      `hard vs not hard, agreement per family:\n${lines.join('\n')}\n  all: ${agree}/${expected.length} (${((agree / expected.length) * 100).toFixed(1)} %)\ndiffering:\n  ${differ.join('\n  ')}`,
    );
    expect(agree / expected.length).toBeGreaterThanOrEqual(0.95);
  });

  it('reads every ARF report (and SES complaint) as a complaint of its recipient, with its feedback type', async () => {
    const complaints = expected.filter((e) => e.reason === 'feedback');
    expect(complaints.length).toBe(4);
    for (const e of complaints) {
      const r = await report(e.file);
      expect(r.kind === 'arf' || r.kind === 'ses', e.file).toBe(true);
      expect(r.feedbackType, e.file).toBe(e.feedbacktype);
      expect(find(r, e.recipient)?.verdict.class, e.file).toBe('complaint');
    }
  });

  it('counts no auto-reply as a bounce', async () => {
    const replies = expected.filter((e) => e.reason === 'vacation');
    expect(replies.length).toBe(2);
    for (const e of replies) {
      const r = await report(e.file);
      expect(r.kind, e.file).toBe('auto_reply');
      expect(
        r.recipients.every((x) => x.verdict.class === 'auto_reply'),
        e.file,
      ).toBe(true);
    }
    // And no file that is not an auto-reply is read as one.
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.eml') && !f.startsWith('rfc3834'))) {
      expect((await report(file)).kind, file).not.toBe('auto_reply');
    }
  });

  it('finds the original message’s Message-ID in the returned headers', async () => {
    expect((await report('rhost-aol-03.eml')).original.messageId).toBe('B4275A84-198A-4453-A5F3-0DB49E352EAD@aol.example.jp');
    expect((await report('arf-20.eml')).original.messageId).toBe('000000000eee@example.net');
  });

  it('reads a DSN whose recipient blocks have no blank line between them as two recipients', async () => {
    const r = await report('rhost-aol-03.eml');
    expect(r.recipients.map((x) => [x.email, x.verdict.class, x.status])).toEqual([
      ['sabineko@example.jp', 'soft', '5.2.2'],
      ['mikeneko@example.jp', 'hard', '5.1.1'],
    ]);
  });
});

describe('malformed input', () => {
  it('gives an empty report, never a throw', async () => {
    for (const raw of [
      '',
      'garbage',
      '\u0000\u0001\u0002',
      'Content-Type: multipart/report; boundary=x\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nFinal-Recipient\r\n--x--',
    ]) {
      const r = await parseFeedbackReport(raw);
      expect(r.recipients).toEqual([]);
    }
  });

  it('reads a hostile report only so far: thousands of addresses and a long line of dashes give at most 20 recipients', async () => {
    const addresses = Array.from({ length: 8000 }, (_, i) => `user${i}@example.net`).join('\r\n');
    const raw = `From: x@example.org\r\nSubject: failure notice\r\n\r\n${'-'.repeat(200_000)}\r\n${addresses}\r\n`;
    const r = await parseFeedbackReport(raw);
    expect(r.recipients.length).toBeLessThanOrEqual(20);
  });

  it('never names our own return path or the report’s sender as a failed recipient', async () => {
    const raw = [
      'From: Mail Delivery System <mailer-daemon@mx.example.org>',
      'To: b-abc@bounces.example.com',
      'Subject: failure notice',
      '',
      'Hi. This is the qmail-send program at mx.example.org.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      '',
      '<gone@example.net>:',
      'Remote host said: 550 5.1.1 no such user',
      '',
      'Write to postmaster@mx.example.org or b-abc@bounces.example.com for help.',
    ].join('\r\n');
    const r = await parseFeedbackReport(raw, ['b-abc@bounces.example.com']);
    expect(r.recipients.map((x) => [x.email, x.verdict.class, x.status, x.replyCode])).toEqual([['gone@example.net', 'hard', '5.1.1', 550]]);
  });
});
