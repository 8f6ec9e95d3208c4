import { describe, expect, it } from 'vitest';
import { providerVerdict, readProviderEvents } from './providerFeedback.ts';

describe('provider feedback events', () => {
  it('reads each provider’s bounce with the Message-ID it passes back, without angle brackets', () => {
    expect(
      readProviderEvents('sendgrid', [
        { email: 'a@x.example', event: 'bounce', type: 'bounce', status: '5.1.1', reason: '550 5.1.1 unknown', 'smtp-id': '<m1@mw>' },
      ]),
    ).toEqual([
      {
        type: 'bounce',
        email: 'a@x.example',
        messageId: 'm1@mw',
        providerClass: 'hard',
        status: '5.1.1',
        diagnostic: '550 5.1.1 unknown',
        providerEvent: 'bounce',
      },
    ]);
    const [mailgun] = readProviderEvents('mailgun', {
      'event-data': {
        event: 'failed',
        severity: 'temporary',
        recipient: 'b@x.example',
        message: { headers: { 'message-id': 'm2@mw' } },
        'delivery-status': { code: 452, message: 'mailbox full' },
      },
    });
    expect(mailgun).toMatchObject({ type: 'bounce', email: 'b@x.example', messageId: 'm2@mw', providerClass: 'soft', replyCode: 452 });
    expect(readProviderEvents('brevo', { event: 'spam', email: 'c@x.example', 'message-id': '<m3@mw>' })).toMatchObject([
      { type: 'complaint', messageId: 'm3@mw' },
    ]);
    expect(readProviderEvents('resend', { type: 'email.complained', data: { to: ['d@x.example', 'e@x.example'] } }).map((e) => e.email)).toEqual([
      'd@x.example',
      'e@x.example',
    ]);
    expect(readProviderEvents('postmark', { RecordType: 'SpamComplaint', Type: 'SpamComplaint', Email: 'f@x.example' })).toMatchObject([{ type: 'complaint' }]);
  });

  it('reads what is not a bounce or complaint as other, and a payload of the wrong shape as nothing', () => {
    expect(
      readProviderEvents('mailgun', { 'event-data': { event: 'failed', reason: 'suppress-bounce', severity: 'permanent', recipient: 'a@x.example' } })[0].type,
    ).toBe('other');
    expect(readProviderEvents('postmark', { RecordType: 'Bounce', Type: 'AutoResponder', Email: 'a@x.example' })[0].type).toBe('other');
    expect(readProviderEvents('sendgrid', [{ email: 'a@x.example', event: 'delivered' }])[0].type).toBe('other');
    expect(readProviderEvents('sendgrid', { not: 'an array' })).toEqual([]);
    expect(readProviderEvents('brevo', 'text')).toEqual([]);
    expect(readProviderEvents('resend', null)).toEqual([]);
  });

  it('lets the receiver’s words decide over the provider’s label, and the label only when the words say nothing', () => {
    const base = { type: 'bounce' as const, email: 'a@x.example', providerEvent: 'x' };
    expect(providerVerdict({ ...base, providerClass: 'hard', diagnostic: '554 5.7.1 Client host blocked using zen.spamhaus.org' }).class).toBe('sender');
    expect(providerVerdict({ ...base, providerClass: 'soft', status: '5.1.1', diagnostic: '550 5.1.1 user unknown' }).class).toBe('hard');
    expect(providerVerdict({ ...base, providerClass: 'hard', diagnostic: 'Unknown' }).class).toBe('hard');
    expect(providerVerdict({ ...base, providerClass: 'soft' }).class).toBe('soft');
    expect(providerVerdict({ ...base }).class).toBe('undetermined');
    expect(providerVerdict({ ...base, type: 'complaint' }).class).toBe('complaint');
  });
});
