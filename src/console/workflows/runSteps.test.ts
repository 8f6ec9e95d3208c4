/** A run's steps as the Runs panels show them: a delay is waiting until its instant, then waited. */
import { describe, expect, it } from 'vitest';
import { describeStep } from './runSteps.ts';
import { formatDateTime } from '../dates.ts';

const step = (outcome: string | null, status: 'done' | 'pending' | 'cancelled' = 'done') => ({
  node_id: 'd',
  node_type: 'delay',
  status,
  due_at: '2026-11-29T08:00:00.000Z',
  executed_at: '2026-11-29T08:00:00.100Z',
  outcome,
});
const iso = (s: string) => `at ${s}`;

describe('describeStep', () => {
  it('shows a delay whose instant is ahead as waiting, and as waited once it has passed', () => {
    const until = '2026-12-01T08:00:00.000Z';
    expect(describeStep(step(`waits until ${until}`), Date.parse('2026-11-29T08:00:01Z'), iso)).toEqual({
      status: 'waiting',
      outcome: `waiting until at ${until}`,
    });
    expect(describeStep(step(`waits until ${until}`), Date.parse('2026-12-01T08:00:01Z'), iso)).toEqual({
      status: 'done',
      outcome: `waited until at ${until}`,
    });
  });

  it('leaves every other step as recorded', () => {
    expect(describeStep(step('queued email 12'), 0, iso)).toEqual({ status: 'done', outcome: 'queued email 12' });
    expect(describeStep(step(null, 'pending'), 0, iso)).toEqual({ status: 'pending', outcome: '' });
    expect(describeStep(step('waits until 2026-12-01T08:00:00.000Z', 'cancelled'), 0, iso)).toEqual({
      status: 'cancelled',
      outcome: 'waits until 2026-12-01T08:00:00.000Z',
    });
  });
});

describe('formatDateTime', () => {
  it('writes an instant in the given language and zone, with the zone named', () => {
    expect(formatDateTime('2026-11-29T08:05:00Z', { locale: 'en-US', timeZone: 'UTC' })).toBe('Nov 29, 2026, 8:05 AM UTC');
    expect(formatDateTime('2026-11-29T08:05:00Z', { locale: 'de-DE', timeZone: 'Europe/Berlin' })).toBe('29.11.2026, 09:05 MEZ');
    expect(formatDateTime(null)).toBe('');
  });
});
