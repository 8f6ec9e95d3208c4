/** Warm-up schedule and UTC-day arithmetic of the daily caps (core/sending/dailyCaps.ts). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_WARMUP_SCHEDULE, msUntilNextUtcDay, parseWarmupSchedule, utcDay, warmupCap, warmupDay } from './dailyCaps.ts';

describe('parseWarmupSchedule', () => {
  it('gives the default ramp when unset, null for off, and the list as given', () => {
    expect(parseWarmupSchedule(undefined)).toEqual(DEFAULT_WARMUP_SCHEDULE);
    expect(parseWarmupSchedule(' ')).toEqual(DEFAULT_WARMUP_SCHEDULE);
    expect(parseWarmupSchedule('off')).toBeNull();
    expect(parseWarmupSchedule('OFF')).toBeNull();
    expect(parseWarmupSchedule('20, 40,80')).toEqual([20, 40, 80]);
  });
  it('refuses what is not whole numbers > 0, naming the setting and the day', () => {
    expect(() => parseWarmupSchedule('50,100,lots')).toThrow(/^WARMUP_SCHEDULE must be "off" or emails per day .* day 3 is "lots"$/);
    expect(() => parseWarmupSchedule('50,,100')).toThrow(/day 2 is ""/);
    expect(() => parseWarmupSchedule('50,-1')).toThrow(/day 2 is "-1"/);
    expect(() => parseWarmupSchedule('2.5')).toThrow(/day 1 is "2.5"/);
  });
});

describe('warm-up days', () => {
  it('counts UTC days from day 1, across months and years', () => {
    expect(warmupDay('2026-11-25', '2026-11-25')).toBe(1);
    expect(warmupDay('2026-11-25', '2026-11-26')).toBe(2);
    expect(warmupDay('2026-12-28', '2027-01-06')).toBe(10);
    expect(warmupDay('2028-02-28', '2028-03-01')).toBe(3); // a leap day between
  });
  it('caps day N with the schedule’s N-th value, and nothing after the schedule or when off', () => {
    expect(warmupCap([50, 100], 1)).toBe(50);
    expect(warmupCap([50, 100], 2)).toBe(100);
    expect(warmupCap([50, 100], 3)).toBeUndefined();
    expect(warmupCap(null, 1)).toBeUndefined();
  });
  it('takes the UTC day of an instant and the time until the next UTC midnight', () => {
    const t = Date.parse('2026-11-25T23:59:50Z');
    expect(utcDay(t)).toBe('2026-11-25');
    expect(msUntilNextUtcDay(t)).toBe(10_000);
    expect(msUntilNextUtcDay(Date.parse('2026-11-26T00:00:00Z'))).toBe(86_400_000);
  });
});
