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
  it('makes 5xx a permanent bounce, suppressing only for mailbox errors; ignores 4xx', () => {
    expect(smtpBounce('a@x.com', 451, '451 4.3.0 try later')).toBeUndefined();
    expect(smtpBounce('a@x.com', 550, '550 5.1.1 <a@x.com>: user unknown')).toMatchObject({ bounceType: 'Permanent', suppress: true, diagnosticCode: 'smtp; 550 5.1.1 <a@x.com>: user unknown' });
    expect(smtpBounce('a@x.com', 554, '554 5.7.1 message content rejected')).toMatchObject({ bounceType: 'Permanent', suppress: false });
    expect(smtpBounce('a@x.com', 550, '550 mailbox unavailable')).toMatchObject({ suppress: true });
    expect(smtpBounce('a@x.com', 552, '552 message too big')).toMatchObject({ suppress: false });
  });
});

describe('SES notifications', () => {
  const mail = { messageId: 'ses-id', headers: [{ name: 'Message-ID', value: '<abc@example.com>' }] };
  it('reads a bounce per recipient with our Message-ID and the diagnostic code', () => {
    const items = fromSesNotification({
      notificationType: 'Bounce', mail,
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', timestamp: '2026-11-20T10:00:00.000Z', bouncedRecipients: [{ emailAddress: 'a@x.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }, { emailAddress: 'b@x.com' }] },
    });
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ kind: 'bounce', email: 'a@x.com', bounceType: 'Permanent', messageId: '<abc@example.com>', diagnosticCode: 'smtp; 550 5.1.1 user unknown' });
    expect(eventJson(items[0])).toMatchObject({ bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'a@x.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] } });
  });
  it('reads complaints (also as eventType) and ignores deliveries; unknown bounce types are Undetermined', () => {
    expect(fromSesNotification({ eventType: 'Complaint', mail, complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: 'c@x.com' }] } }))
      .toEqual([{ kind: 'complaint', email: 'c@x.com', feedbackType: 'abuse', messageId: '<abc@example.com>', timestamp: undefined }]);
    expect(fromSesNotification({ notificationType: 'Delivery', mail })).toEqual([]);
    expect(fromSesNotification({ notificationType: 'Bounce', bounce: { bounceType: 'Weird', bouncedRecipients: [{ emailAddress: 'd@x.com' }] } })[0].bounceType).toBe('Undetermined');
  });
});
