import { describe, expect, it } from 'vitest';
import { eventJson, fromSesNotification, isSimulatorAddress, simulatorFeedback, smtpBounce, suppresses, SIMULATOR_ADDRESSES } from './feedback.ts';

describe('mailbox simulator', () => {
  it('gives each simulator address its outcome and leaves success and real addresses alone', () => {
    expect(simulatorFeedback(SIMULATOR_ADDRESSES.success)).toBeUndefined();
    expect(simulatorFeedback('someone@example.com')).toBeUndefined();
    expect(isSimulatorAddress(SIMULATOR_ADDRESSES.success)).toBe(false);
    const bounce = simulatorFeedback('Bounce@Simulator.Mailwright.Test')!;
    expect(bounce).toMatchObject({ kind: 'bounce', bounceType: 'Permanent' });
    expect(suppresses(bounce)).toBe(true);
    const complaint = simulatorFeedback(SIMULATOR_ADDRESSES.complaint)!;
    expect(complaint.kind).toBe('complaint');
    expect(suppresses(complaint)).toBe(true);
    const ooto = simulatorFeedback(SIMULATOR_ADDRESSES.ooto)!;
    expect(ooto.bounceType).toBe('Transient');
    expect(suppresses(ooto)).toBe(false);
    expect(simulatorFeedback(SIMULATOR_ADDRESSES.suppressionlist)).toMatchObject({ bounceType: 'Permanent', bounceSubType: 'OnSuppressionList' });
    expect(simulatorFeedback('nobody@simulator.mailwright.test')).toMatchObject({ bounceType: 'Permanent' });
  });
});

describe('smtpBounce', () => {
  it('makes a bad address a permanent bounce and other 5xx transient ones, suppressing only mailbox errors at RCPT; ignores 4xx', () => {
    const rcpt = (responseCode: number, response: string) => ({ responseCode, response, command: 'RCPT TO' });
    expect(smtpBounce('a@x.com', rcpt(451, '451 4.3.0 try later'))).toBeUndefined();
    expect(smtpBounce('a@x.com', rcpt(550, '550 5.1.1 <a@x.com>: user unknown'))).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'NoEmail',
      suppress: true,
      diagnosticCode: 'smtp; 550 5.1.1 <a@x.com>: user unknown',
    });
    expect(smtpBounce('a@x.com', rcpt(550, '550 5.1.10 RESOLVER.ADR.RecipientNotFound; no MX'))).toMatchObject({ suppress: true });
    // Sender-side and policy refusals are bounces of the sender's side: they say nothing about the recipient's address.
    expect(smtpBounce('a@x.com', rcpt(550, '550 5.1.7 sender address has null MX'))).toMatchObject({
      bounceType: 'Transient',
      suppress: false,
      classification: { class: 'sender' },
    });
    expect(smtpBounce('a@x.com', rcpt(553, '553 5.1.8 sender domain does not exist'))).toMatchObject({ suppress: false });
    expect(smtpBounce('a@x.com', rcpt(554, '554 5.7.1 message content rejected'))).toMatchObject({ bounceSubType: 'ContentRejected', suppress: false });
    expect(smtpBounce('a@x.com', rcpt(554, '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org'))).toMatchObject({
      bounceType: 'Transient',
      suppress: false,
      classification: { class: 'sender', reason: 'blocked' },
    });
    expect(smtpBounce('a@x.com', rcpt(550, '550 relaying denied'))).toMatchObject({ suppress: false });
    // RFC 5321's text for 550, which Outlook.com and others give for a mailbox that does not exist (5.7.x policy
    // refusals name themselves and stay on the sender's side).
    expect(smtpBounce('a@x.com', rcpt(550, '550 Requested action not taken: mailbox unavailable'))).toMatchObject({ suppress: true });
    expect(smtpBounce('a@x.com', rcpt(550, '550 5.7.1 Requested action not taken: mailbox unavailable, policy'))).toMatchObject({ suppress: false });
    // Without enhanced codes, only wording about an unknown mailbox suppresses.
    expect(smtpBounce('a@x.com', rcpt(550, '550 No such user here'))).toMatchObject({ suppress: true });
    // A 5.1.1 refused at DATA (after the recipient was accepted) is not about the address.
    expect(smtpBounce('a@x.com', { responseCode: 550, response: '550 5.1.1 user unknown', command: 'DATA' })).toMatchObject({ suppress: false });
    expect(smtpBounce('a@x.com', rcpt(552, '552 5.2.2 mailbox full'))).toMatchObject({
      bounceType: 'Transient',
      bounceSubType: 'MailboxFull',
      suppress: false,
    });
    expect(smtpBounce('a@x.com', rcpt(552, '552 message too big'))).toMatchObject({ suppress: false });
  });
});

describe('SES notifications', () => {
  const mail = { messageId: 'ses-id', headers: [{ name: 'Message-ID', value: '<abc@example.com>' }] };
  it('reads a bounce per recipient with our Message-ID and the diagnostic code', () => {
    const items = fromSesNotification({
      notificationType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        timestamp: '2026-11-20T10:00:00.000Z',
        bouncedRecipients: [{ emailAddress: 'a@x.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }, { emailAddress: 'b@x.com' }],
      },
    });
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({
      kind: 'bounce',
      email: 'a@x.com',
      bounceType: 'Permanent',
      messageId: '<abc@example.com>',
      diagnosticCode: 'smtp; 550 5.1.1 user unknown',
    });
    expect(eventJson(items[0])).toMatchObject({
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'a@x.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] },
    });
  });
  it('reads complaints (also as eventType) and ignores deliveries; unknown bounce types are Undetermined', () => {
    expect(
      fromSesNotification({ eventType: 'Complaint', mail, complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: 'c@x.com' }] } }),
    ).toEqual([{ kind: 'complaint', email: 'c@x.com', feedbackType: 'abuse', messageId: '<abc@example.com>', timestamp: undefined }]);
    expect(fromSesNotification({ notificationType: 'Delivery', mail })).toEqual([]);
    expect(
      fromSesNotification({ notificationType: 'Bounce', bounce: { bounceType: 'Weird', bouncedRecipients: [{ emailAddress: 'd@x.com' }] } })[0].bounceType,
    ).toBe('Undetermined');
  });
});
