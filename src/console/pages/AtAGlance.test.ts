/** The at-a-glance figures read from reports: this month's sends from the daily series. */
import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { sendsThisMonth } from './AtAGlance.tsx';
import { initialsOf } from '../layout/UserMenu.tsx';

describe('sendsThisMonth', () => {
  it('sums the days from the first of the current UTC month only', () => {
    const now = DateTime.fromISO('2026-11-03T10:00:00Z', { zone: 'utc' });
    const rows = [
      { emitted_at_trunc: '2026-10-31T00:00:00.000Z', sends: 7 },
      { emitted_at_trunc: '2026-11-01T00:00:00.000Z', sends: 2 },
      { emitted_at_trunc: '2026-11-03T00:00:00.000Z', sends: 3 },
    ];
    expect(sendsThisMonth(rows, now)).toBe(5);
    expect(sendsThisMonth([], now)).toBe(0);
  });
});

describe('initialsOf', () => {
  it('takes the first letters of the names, else of the address', () => {
    expect(initialsOf({ email: 'bree@example.com', first_name: 'Bree', last_name: 'Bright' })).toBe('BB');
    expect(initialsOf({ email: 'bree@example.com', first_name: ' ', last_name: null })).toBe('B');
  });
});
