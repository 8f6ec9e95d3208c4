/** Send-time refusals: why a claimed email may not go, in words and metric class (core/sending/eligibility.ts). */
import { describe, expect, it } from 'vitest';
import { sendRefusal, type SendExclusion } from './eligibility.ts';
import { PermanentError } from './outcomes.ts';

const persona = { email: 'news@example.com', verified_at: new Date('2026-01-01T00:00:00Z') };
const found = { missing: false };
const exclusion = (e: Partial<SendExclusion>): SendExclusion => ({ id: '1', excluded: null, listed: null, left_topic: false, ...e });
const refusal = (e: Partial<SendExclusion>) => {
  const r = sendRefusal('ann@example.org', persona, found, exclusion(e));
  return r && { message: r.message, kind: r.kind };
};

describe('sendRefusal', () => {
  it('lets an email go when nothing excludes it', () => {
    expect(sendRefusal('ann@example.org', persona, found, exclusion({}))).toBeUndefined();
    expect(sendRefusal('ann@example.org', persona, found, undefined)).toBeUndefined();
  });

  it('refuses a missing or unverified sender persona, and a missing template, before looking at the recipient', () => {
    const r1 = sendRefusal('ann@example.org', undefined, found, exclusion({ excluded: 'bounced' }));
    expect(r1).toBeInstanceOf(PermanentError);
    expect([r1?.message, r1?.kind]).toEqual(['sender persona not found', 'sender']);
    const r2 = sendRefusal('ann@example.org', { ...persona, verified_at: null }, found, undefined);
    expect(r2?.message).toMatch(/^sender not verified: news@example.com has not confirmed/);
    expect(r2?.kind).toBe('sender');
    const r3 = sendRefusal('ann@example.org', persona, { missing: true }, undefined);
    expect([r3?.message, r3?.kind]).toEqual(['template not found', 'template']);
  });

  it('names the suppression list when the address is on it, and the contact when only the contact is marked', () => {
    expect(refusal({ excluded: 'bounced', listed: 'bounce' })).toEqual({
      message: 'suppressed: ann@example.org is on the suppression list (bounce)',
      kind: 'suppressed',
    });
    expect(refusal({ excluded: 'suppressed', listed: 'complaint' })).toEqual({
      message: 'suppressed: ann@example.org is on the suppression list (complaint)',
      kind: 'suppressed',
    });
    expect(refusal({ excluded: 'bounced' })).toEqual({ message: 'suppressed: ann@example.org is marked bounced on its contact', kind: 'suppressed' });
    // A complained contact whose address is listed only as unsubscribed: the complaint is the reason.
    expect(refusal({ excluded: 'suppressed', listed: 'unsubscribed' })).toEqual({
      message: 'suppressed: ann@example.org is marked complained on its contact',
      kind: 'suppressed',
    });
  });

  it('tells an unsubscribe from the list, from marketing, and from the topic apart; an unconfirmed sign-up and an invalid address', () => {
    expect(refusal({ excluded: 'unsubscribed', listed: 'unsubscribed' })).toEqual({
      message: 'suppressed: ann@example.org is on the suppression list (unsubscribed)',
      kind: 'suppressed',
    });
    expect(refusal({ excluded: 'unsubscribed' })).toEqual({ message: 'unsubscribed: ann@example.org unsubscribed from marketing email', kind: 'unsubscribed' });
    expect(refusal({ excluded: 'unsubscribed', left_topic: true })).toEqual({
      message: "unsubscribed: ann@example.org unsubscribed from this email's topic",
      kind: 'unsubscribed',
    });
    expect(refusal({ excluded: 'unconfirmed' })).toEqual({
      message: 'unconfirmed: ann@example.org has not confirmed the subscription yet (double opt-in)',
      kind: 'unsubscribed',
    });
    expect(refusal({ excluded: 'invalid' })).toEqual({ message: 'invalid: ann@example.org is not a valid email address', kind: 'other' });
  });
});
