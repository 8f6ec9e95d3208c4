/**
 * The one classification of delivery failures: hard, soft, sender-side, delivered; the receiver's
 * words before the codes, a specific status code before vague words, temporary failures never hard.
 */
import { describe, expect, it } from 'vitest';
import { classifyBounce, complaintClass, findCommand, findReplyCode, findStatus } from './bounces.ts';

const cls = (diagnostic: string, extra: Parameters<typeof classifyBounce>[0] = {}) => classifyBounce({ diagnostic, ...extra }).class;

describe('classifyBounce', () => {
  it('makes a bad address hard: no such user, no such domain, moved', () => {
    expect(cls('550 5.1.1 <a@example.com>: Recipient address rejected: User unknown in virtual mailbox table')).toBe('hard');
    expect(cls('550 No such user here')).toBe('hard');
    expect(cls("554 delivery error: dd This user doesn't have a yahoo.com account")).toBe('hard');
    expect(cls('Host or domain name not found. Name service error for name=example.invalid type=A: Host not found')).toBe('hard');
    expect(cls('550 5.1.6 recipient has moved')).toBe('hard');
    expect(classifyBounce({ status: '5.1.1' }).class).toBe('hard');
    // Microsoft 365's and Domino's wordings for a recipient that does not exist.
    expect(cls('550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [BN8NAM12FT041.eop-nam12.prod.protection.outlook.com]')).toBe('hard');
    expect(cls('550 Recipient not listed in public Name & Address Book')).toBe('hard');
  });

  it('makes passing troubles soft: mailbox full, too large, expired, greylisted, any 4.x.x', () => {
    expect(cls('552 5.2.2 Mailbox full')).toBe('soft');
    expect(cls('452 4.2.2 The email account that you tried to reach is over quota')).toBe('soft');
    expect(cls('552 5.3.4 Message size exceeds fixed limit')).toBe('soft');
    expect(cls('450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/')).toBe('soft');
    expect(classifyBounce({ status: '4.4.7', action: 'delayed', diagnostic: 'delivery time expired' }).class).toBe('soft');
    // A temporary failure never condemns the address, whatever its words say.
    expect(cls('450 4.1.1 <a@example.com>: Recipient address rejected: User unknown in local recipient table')).toBe('soft');
  });

  it('puts refusals of the sender on the sender’s side, never the recipient’s, even beside "user unknown" codes', () => {
    expect(cls('554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org')).toBe('sender');
    expect(cls('550 5.1.1 blocked using Spamhaus; see https://www.spamhaus.org/query/ip/192.0.2.1')).toBe('sender');
    expect(cls('550-5.7.26 This mail is unauthenticated, which poses a security risk to the sender and Gmail users')).toBe('sender');
    expect(cls('550 5.7.1 Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam')).toBe('sender');
    expect(cls('421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints')).toBe('sender');
    expect(cls('554 5.7.1 <a@example.com>: Relay access denied')).toBe('sender');
    expect(classifyBounce({ status: '5.7.1' }).class).toBe('sender');
  });

  it('does not condemn an address the receiver named unknown only after the message (DATA) with no specific code', () => {
    expect(cls('550 Unknown user a@example.com (in reply to end of DATA command)', { command: 'DATA' })).toBe('soft');
    // With 5.1.1 the receiver said exactly that the mailbox does not exist.
    expect(cls('550 5.1.1 <a@example.com>... User unknown', { command: 'DATA' })).toBe('hard');
  });

  it('prefers a specific status code to vague words, and the receiver’s code to the DSN Status field', () => {
    expect(classifyBounce({ status: '5.6.0', diagnostic: '550 5.6.0 <a@example.com>: Recipient address rejected' }).class).toBe('sender');
    expect(classifyBounce({ status: '5.1.1', diagnostic: '552 5.2.2 Over quota' })).toMatchObject({ class: 'soft', status: '5.2.2' });
    expect(classifyBounce({ status: '5.1.1', diagnostic: '550 5.1.1 inactive email address' }).class).toBe('hard');
  });

  it('reads success notifications as delivered, and says undetermined when nothing can be read', () => {
    expect(classifyBounce({ action: 'delivered', status: '2.0.0' }).class).toBe('delivered');
    expect(classifyBounce({ diagnostic: '542 a@example.com Rejected' }).class).toBe('undetermined');
    expect(classifyBounce({}).class).toBe('undetermined');
  });
});

describe('reading codes and commands out of words', () => {
  it('finds enhanced status codes and reply codes, not sizes or addresses', () => {
    expect(findStatus('host said: 550 5.1.1 <a@b.c>... User unknown')).toBe('5.1.1');
    expect(findStatus('version 4.8.3.54 ok')).toBeUndefined();
    expect(findReplyCode('host mx[192.0.2.1] said: 553 5.1.8 Domain of sender')).toBe(553);
    expect(findReplyCode('Size (in bytes): 222 Number of lines: 2')).toBeUndefined();
    expect(findReplyCode('smtp; 550 unknown user')).toBe(550);
  });

  it('names the refused command', () => {
    expect(findCommand('SMTP error from remote mail server after end of data:')).toBe('DATA');
    expect(findCommand('(in reply to RCPT TO command)')).toBe('RCPT');
    expect(findCommand('nothing here')).toBeUndefined();
  });
});

describe('complaintClass', () => {
  it('suppresses for the recipient’s complaints, not for reports on the sender’s authentication', () => {
    expect(complaintClass('abuse').suppresses).toBe(true);
    expect(complaintClass('opt-out').suppresses).toBe(true);
    expect(complaintClass(undefined).suppresses).toBe(true);
    expect(complaintClass('auth-failure').suppresses).toBe(false);
    expect(complaintClass('not-spam').suppresses).toBe(false);
  });
});
