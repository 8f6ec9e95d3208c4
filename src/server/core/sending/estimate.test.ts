/** The send-duration estimate under the governor's limits (core/sending/estimate.ts). */
import { describe, expect, it } from 'vitest';
import { estimateSendDuration } from './estimate.ts';

const NOON = Date.parse('2026-11-25T12:00:00Z');

describe('estimateSendDuration', () => {
  it('is null when no limit applies', () => {
    expect(estimateSendDuration({ emails: 1000, providers: [], now: NOON })).toEqual({ seconds: null, limitedBy: null });
  });
  it('takes the relay’s rate over all emails, or a provider’s over its own when that is slower', () => {
    expect(estimateSendDuration({ emails: 1000, relayRate: 14, providers: [], now: NOON })).toEqual({
      seconds: 72,
      limitedBy: "the relay's limit of 14 emails/s",
    });
    expect(estimateSendDuration({ emails: 1000, relayRate: 50, providers: [{ name: 'gmail', emails: 600, maxRate: 5 }], now: NOON })).toEqual({
      seconds: 120,
      limitedBy: "gmail's limit of 5 emails/s for 600 of them",
    });
  });
  it('spreads what is over today’s warm-up cap over the following UTC days', () => {
    const warmup = { domain: 'news.example.com', day: 1, capToday: 50, sentToday: 20, schedule: [50, 100, 500] };
    // 30 more today; 100 tomorrow; the last 70 the day after: from noon, 12 h to midnight + one more day.
    expect(estimateSendDuration({ emails: 200, providers: [], warmup, now: NOON })).toEqual({
      seconds: 12 * 3600 + 86_400,
      limitedBy: 'the warm-up of news.example.com: 30 more today, the rest over the next 2 UTC days',
    });
    // Within today's cap the warm-up sets nothing.
    expect(estimateSendDuration({ emails: 30, providers: [], warmup, now: NOON })).toEqual({ seconds: null, limitedBy: null });
    // After the schedule's last day there is no cap: everything over goes the day after the schedule ends.
    expect(
      estimateSendDuration({ emails: 10_000, relayRate: 10, providers: [], warmup: { ...warmup, day: 3, capToday: 500, sentToday: 0 }, now: NOON }),
    ).toEqual({ seconds: 12 * 3600 + 950, limitedBy: 'the warm-up of news.example.com: 500 more today, the rest over the next UTC day' });
  });
});
