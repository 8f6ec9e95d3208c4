/**
 * Send-time maths (spec part 2 §3 Email blast, §5 Email blast; DESIGN.md §6). Expected instants are checked against
 * the runtime's own time-zone database through Intl.DateTimeFormat, not only against hand-written values.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  blastDueInstant,
  CONTACT_LOCAL_TIMEZONE,
  defaultBlastSchedule,
  nextSendSlot,
  sendNowMoment,
  EARLIEST_TIMEZONE,
  FALLBACK_TIMEZONE,
  formatSendAt,
  isContactLocalTimezone,
  isValidTimezone,
  parseWallClock,
  recipientSendInstant,
  recipientZone,
  timeOfDayOptions,
  timezoneOptions,
  wallClockToInstant,
} from './sendTime.ts';

/** wallClockIn renders an instant as `YYYY-MM-DDTHH:mm` on the wall clock of `zone`, using Intl only. */
function wallClockIn(instant: Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** offsetIn is the zone's UTC offset at an instant as Intl names it, e.g. 'GMT-04:00' (zero as 'GMT+00:00'). */
function offsetIn(instant: Date, zone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(instant)
    .find((p) => p.type === 'timeZoneName')!.value;
  return name === 'GMT' ? 'GMT+00:00' : name;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('isContactLocalTimezone', () => {
  it.each([
    ['Contact’s local timezone'],
    ["Contact's local timezone"],
    ['contacts local timezone'],
    ['CONTACTS LOCAL TIMEZONE'],
    ['contact’S Local TimeZone'],
    ["  Contact's local timezone  "],
  ])('accepts %j', (v) => {
    expect(isContactLocalTimezone(v)).toBe(true);
  });

  it.each([['UTC'], ['America/New_York'], [''], [null], [undefined], ['Contact local timezone'], ['contacts local time zone']])('rejects %j', (v) => {
    expect(isContactLocalTimezone(v)).toBe(false);
  });

  it('the constant label is itself accepted', () => {
    expect(CONTACT_LOCAL_TIMEZONE).toBe('Contact’s local timezone');
    expect(isContactLocalTimezone(CONTACT_LOCAL_TIMEZONE)).toBe(true);
  });
});

describe('isValidTimezone', () => {
  it('knows IANA zones and UTC, not made-up names or empty values', () => {
    expect(isValidTimezone('UTC')).toBe(true);
    expect(isValidTimezone('America/New_York')).toBe(true);
    expect(isValidTimezone('Mars/Olympus')).toBe(false);
    expect(isValidTimezone('')).toBe(false);
    expect(isValidTimezone(null)).toBe(false);
    expect(isValidTimezone(CONTACT_LOCAL_TIMEZONE)).toBe(false);
  });
});

describe('parseWallClock', () => {
  it('returns the parts of a valid wall-clock time, seconds optional', () => {
    expect(parseWallClock('2026-11-22T12:30')).toEqual({ year: 2026, month: 11, day: 22, hour: 12, minute: 30, second: 0 });
    expect(parseWallClock('2028-02-29T23:59:58')).toEqual({ year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 58 });
  });

  it.each([
    ['2026-02-30T12:00'],
    ['2027-02-29T12:00'],
    ['2026-04-31T08:00'],
    ['2026-13-01T00:00'],
    ['2026-11-22T24:00'],
    ['2026-11-22T12:60'],
    ['2026-11-22 12:30'],
    ['2026-11-22'],
    ['2026-11-22T12:30Z'],
    ['2026-11-22T12:30+01:00'],
    ['26-11-22T12:30'],
    ['soon'],
    [''],
  ])('rejects %j', (v) => {
    expect(parseWallClock(v)).toBeUndefined();
  });
});

describe('wallClockToInstant', () => {
  it('America/New_York on the day DST starts: 09:00 is EDT (UTC-4)', () => {
    const at = wallClockToInstant('2027-03-14T09:00', 'America/New_York');
    expect(at.toISOString()).toBe('2027-03-14T13:00:00.000Z');
    expect(wallClockIn(at, 'America/New_York')).toBe('2027-03-14T09:00');
    expect(offsetIn(at, 'America/New_York')).toBe('GMT-04:00');
  });

  it('America/New_York the day before: 09:00 is EST (UTC-5)', () => {
    const at = wallClockToInstant('2027-03-13T09:00', 'America/New_York');
    expect(at.toISOString()).toBe('2027-03-13T14:00:00.000Z');
    expect(wallClockIn(at, 'America/New_York')).toBe('2027-03-13T09:00');
    expect(offsetIn(at, 'America/New_York')).toBe('GMT-05:00');
  });

  it('a time skipped by the spring-forward (02:30 on 2027-03-14 in New York) moves forward by the gap to 03:30 EDT', () => {
    // 02:00-02:59 does not exist that day; Intl confirms the gap: 06:59Z is 01:59 EST and 07:00Z is 03:00 EDT.
    expect(wallClockIn(new Date('2027-03-14T06:59:00Z'), 'America/New_York')).toBe('2027-03-14T01:59');
    expect(wallClockIn(new Date('2027-03-14T07:00:00Z'), 'America/New_York')).toBe('2027-03-14T03:00');
    const at = wallClockToInstant('2027-03-14T02:30', 'America/New_York');
    expect(at.toISOString()).toBe('2027-03-14T07:30:00.000Z');
    expect(wallClockIn(at, 'America/New_York')).toBe('2027-03-14T03:30');
  });

  it('a time repeated by the fall-back takes its first occurrence, whatever today is', () => {
    // 01:30 happens twice: 05:30Z (EDT) and 06:30Z (EST).
    expect(wallClockIn(new Date('2027-11-07T05:30:00Z'), 'America/New_York')).toBe('2027-11-07T01:30');
    expect(wallClockIn(new Date('2027-11-07T06:30:00Z'), 'America/New_York')).toBe('2027-11-07T01:30');
    const at = wallClockToInstant('2027-11-07T01:30', 'America/New_York');
    expect(at.toISOString()).toBe('2027-11-07T05:30:00.000Z');
    // London 01:30 on 2027-10-31 happens at 00:30Z (BST) and 01:30Z (GMT); Lord Howe 01:45 on 2027-04-04 at 14:45Z (+11) and 15:15Z (+10:30).
    expect(wallClockToInstant('2027-10-31T01:30', 'Europe/London').toISOString()).toBe('2027-10-31T00:30:00.000Z');
    expect(wallClockToInstant('2027-04-04T01:45', 'Australia/Lord_Howe').toISOString()).toBe('2027-04-03T14:45:00.000Z');
  });

  it('the hours either side of the New York fall-back are unambiguous', () => {
    expect(wallClockToInstant('2027-11-07T00:30', 'America/New_York').toISOString()).toBe('2027-11-07T04:30:00.000Z');
    expect(wallClockToInstant('2027-11-07T02:30', 'America/New_York').toISOString()).toBe('2027-11-07T07:30:00.000Z');
  });

  it('Europe/London is UTC+1 in summer and UTC in winter', () => {
    const summer = wallClockToInstant('2027-07-01T12:00', 'Europe/London');
    const winter = wallClockToInstant('2027-01-15T12:00', 'Europe/London');
    expect(summer.toISOString()).toBe('2027-07-01T11:00:00.000Z');
    expect(winter.toISOString()).toBe('2027-01-15T12:00:00.000Z');
    expect(offsetIn(summer, 'Europe/London')).toBe('GMT+01:00');
    expect(offsetIn(winter, 'Europe/London')).toBe('GMT+00:00');
    expect(wallClockIn(summer, 'Europe/London')).toBe('2027-07-01T12:00');
  });

  it('Australia/Lord_Howe: +11 in (southern) summer, +10:30 in winter — a 30-minute DST', () => {
    const summer = wallClockToInstant('2027-01-15T12:00', 'Australia/Lord_Howe');
    const winter = wallClockToInstant('2027-07-15T12:00', 'Australia/Lord_Howe');
    expect(summer.toISOString()).toBe('2027-01-15T01:00:00.000Z');
    expect(winter.toISOString()).toBe('2027-07-15T01:30:00.000Z');
    expect(offsetIn(summer, 'Australia/Lord_Howe')).toBe('GMT+11:00');
    expect(offsetIn(winter, 'Australia/Lord_Howe')).toBe('GMT+10:30');
    expect(wallClockIn(winter, 'Australia/Lord_Howe')).toBe('2027-07-15T12:00');
  });

  it('Australia/Lord_Howe spring-forward (02:00→02:30 on 2027-10-03): 02:15 moves forward by the 30-minute gap', () => {
    expect(wallClockIn(new Date('2027-10-02T15:29:00Z'), 'Australia/Lord_Howe')).toBe('2027-10-03T01:59');
    expect(wallClockIn(new Date('2027-10-02T15:30:00Z'), 'Australia/Lord_Howe')).toBe('2027-10-03T02:30');
    const at = wallClockToInstant('2027-10-03T02:15', 'Australia/Lord_Howe');
    expect(at.toISOString()).toBe('2027-10-02T15:45:00.000Z');
    expect(wallClockIn(at, 'Australia/Lord_Howe')).toBe('2027-10-03T02:45');
  });

  it('round-trips every quarter hour of a day in several zones (checked with Intl)', () => {
    for (const zone of ['Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      for (const { value } of timeOfDayOptions(15)) {
        const wall = `2027-06-10T${value}`;
        expect(wallClockIn(wallClockToInstant(wall, zone), zone), `${zone} ${wall}`).toBe(wall);
      }
    }
  });

  it('throws RangeError for a malformed or impossible wall-clock time', () => {
    expect(() => wallClockToInstant('2027-03-14 09:00', 'UTC')).toThrow(RangeError);
    expect(() => wallClockToInstant('2026-02-30T09:00', 'UTC')).toThrow(RangeError);
    expect(() => wallClockToInstant('', 'UTC')).toThrow(RangeError);
  });

  it('throws RangeError for an unknown zone, including the contact-local label', () => {
    expect(() => wallClockToInstant('2027-03-14T09:00', 'Mars/Olympus')).toThrow(RangeError);
    expect(() => wallClockToInstant('2027-03-14T09:00', '')).toThrow(RangeError);
    expect(() => wallClockToInstant('2027-03-14T09:00', CONTACT_LOCAL_TIMEZONE)).toThrow(RangeError);
  });
});

describe('recipientZone / recipientSendInstant', () => {
  it('falls back to UTC for a contact with no zone or an unknown one', () => {
    expect(FALLBACK_TIMEZONE).toBe('UTC');
    expect(recipientZone(null)).toBe('UTC');
    expect(recipientZone(undefined)).toBe('UTC');
    expect(recipientZone('')).toBe('UTC');
    expect(recipientZone('Mars/Olympus')).toBe('UTC');
    expect(recipientZone('Asia/Tokyo')).toBe('Asia/Tokyo');
  });

  it('a contact-local blast uses each contact’s zone; a fixed-zone blast ignores it', () => {
    const local = { send_at: '2027-03-14T09:00', timezone: CONTACT_LOCAL_TIMEZONE, send_in_users_timezone: true };
    expect(recipientSendInstant(local, 'Asia/Tokyo')).toEqual({ zone: 'Asia/Tokyo', instant: new Date('2027-03-14T00:00:00Z') });
    expect(recipientSendInstant(local, 'America/New_York')).toEqual({ zone: 'America/New_York', instant: new Date('2027-03-14T13:00:00Z') });
    expect(recipientSendInstant(local, null)).toEqual({ zone: 'UTC', instant: new Date('2027-03-14T09:00:00Z') });
    const fixed = { send_at: '2027-03-14T09:00', timezone: 'Europe/London', send_in_users_timezone: false };
    expect(recipientSendInstant(fixed, 'Asia/Tokyo')).toEqual({ zone: 'Europe/London', instant: new Date('2027-03-14T09:00:00Z') });
  });
});

describe('blastDueInstant', () => {
  it('a contact-local blast is due at its wall-clock time in Pacific/Kiritimati (UTC+14)', () => {
    expect(EARLIEST_TIMEZONE).toBe('Pacific/Kiritimati');
    expect(offsetIn(new Date('2027-01-01T00:00:00Z'), 'Pacific/Kiritimati')).toBe('GMT+14:00');
    const due = blastDueInstant({ send_at: '2027-01-01T09:00', timezone: CONTACT_LOCAL_TIMEZONE, send_in_users_timezone: true });
    expect(due.toISOString()).toBe('2026-12-31T19:00:00.000Z');
    expect(wallClockIn(due, 'Pacific/Kiritimati')).toBe('2027-01-01T09:00');
    // No contact's 09:00 comes before it.
    for (const zone of ['Pacific/Auckland', 'Asia/Tokyo', 'UTC', 'America/New_York', 'Pacific/Pago_Pago']) {
      expect(wallClockToInstant('2027-01-01T09:00', zone).getTime()).toBeGreaterThanOrEqual(due.getTime());
    }
  });

  it('a fixed-zone blast is due at that zone’s instant', () => {
    expect(blastDueInstant({ send_at: '2027-03-14T09:00', timezone: 'America/New_York', send_in_users_timezone: false }).toISOString()).toBe(
      '2027-03-14T13:00:00.000Z',
    );
  });
});

describe('timeOfDayOptions', () => {
  it('lists 96 quarter hours with am/pm labels', () => {
    const opts = timeOfDayOptions();
    expect(opts).toHaveLength(96);
    expect(opts[0]).toEqual({ value: '00:00', label: '12:00 am' });
    expect(opts[1]).toEqual({ value: '00:15', label: '12:15 am' });
    expect(opts).toContainEqual({ value: '12:30', label: '12:30 pm' });
    expect(opts).toContainEqual({ value: '11:45', label: '11:45 am' });
    expect(opts).toContainEqual({ value: '13:00', label: '1:00 pm' });
    expect(opts.at(-1)).toEqual({ value: '23:45', label: '11:45 pm' });
    expect(new Set(opts.map((o) => o.value)).size).toBe(96);
  });

  it('honours another step', () => {
    const hourly = timeOfDayOptions(60);
    expect(hourly).toHaveLength(24);
    expect(hourly[12]).toEqual({ value: '12:00', label: '12:00 pm' });
  });
});

describe('timezoneOptions', () => {
  it('starts with the contact-local label, then UTC, then the IANA zones sorted, each once', () => {
    const opts = timezoneOptions();
    expect(opts[0]).toBe('Contact’s local timezone');
    expect(opts[1]).toBe('UTC');
    expect(opts.filter((z) => z === 'America/New_York')).toHaveLength(1);
    expect(opts.filter((z) => z === 'UTC')).toHaveLength(1);
    const rest = opts.slice(2);
    expect(rest.length).toBeGreaterThan(300);
    expect(rest).toEqual([...rest].sort());
    expect(new Set(opts).size).toBe(opts.length);
    for (const z of rest) expect(isValidTimezone(z), z).toBe(true);
  });
});

describe('nextSendSlot and defaultBlastSchedule', () => {
  it('is the first quarter hour at least a minute ahead, in UTC, across midnight', () => {
    expect(nextSendSlot(new Date('2026-11-22T14:52:00Z'))).toEqual({ date: '2026-11-22', time: '15:00' });
    expect(nextSendSlot(new Date('2026-11-22T14:59:30Z'))).toEqual({ date: '2026-11-22', time: '15:15' });
    expect(nextSendSlot(new Date('2026-11-22T14:44:00Z'))).toEqual({ date: '2026-11-22', time: '14:45' });
    expect(nextSendSlot(new Date('2026-11-22T14:44:01Z'))).toEqual({ date: '2026-11-22', time: '15:00' });
    expect(nextSendSlot(new Date('2026-11-22T14:43:59Z'))).toEqual({ date: '2026-11-22', time: '14:45' });
    expect(nextSendSlot(new Date('2026-11-22T23:50:00Z'))).toEqual({ date: '2026-11-23', time: '00:00' });
    expect(defaultBlastSchedule(new Date('2026-11-22T23:59:00Z'))).toEqual({ date: '2026-11-23', time: '00:00', timezone: 'UTC' });
  });

  it('defaults to the current time', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-02-28T22:00:00Z'));
    expect(defaultBlastSchedule()).toEqual({ date: '2030-02-28', time: '22:15', timezone: 'UTC' });
    vi.useRealTimers();
  });
});

describe('formatSendAt', () => {
  it('a fixed-zone blast shows the local date-time (am/pm) and the zone', () => {
    expect(formatSendAt({ send_at: '2026-11-22T12:30', timezone: 'America/New_York', send_in_users_timezone: false })).toBe(
      '2026-11-22 12:30 pm America/New_York',
    );
    expect(formatSendAt({ send_at: '2027-01-05T09:05', timezone: 'UTC', send_in_users_timezone: false })).toBe('2027-01-05 9:05 am UTC');
    // A wall-clock time skipped by DST in the viewer's own zone is still shown as saved.
    expect(formatSendAt({ send_at: '2027-03-14T02:30', timezone: 'America/New_York', send_in_users_timezone: false })).toBe(
      '2027-03-14 2:30 am America/New_York',
    );
  });

  it('a contact-local blast shows the contact-local TZ label instead of a zone', () => {
    expect(formatSendAt({ send_at: '2026-11-22T00:05', timezone: CONTACT_LOCAL_TIMEZONE, send_in_users_timezone: true })).toMatch(
      /^2026-11-22 12:05 am Contact['’]s local TZ$/,
    );
  });

  it('shows an unparseable send_at as it is', () => {
    expect(formatSendAt({ send_at: 'garbage', timezone: 'UTC', send_in_users_timezone: false })).toBe('garbage UTC');
  });
});

describe('sendNowMoment', () => {
  it('is the current minute in UTC', () => {
    expect(sendNowMoment(new Date('2026-11-22T23:59:59.900Z'))).toEqual({ date: '2026-11-22', time: '23:59' });
    expect(sendNowMoment(new Date('2026-11-23T00:00:00Z'))).toEqual({ date: '2026-11-23', time: '00:00' });
  });
});
