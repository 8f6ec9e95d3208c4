import { describe, expect, it } from 'vitest';
import { blastRecordOf, newBlastForm, scheduleErrors } from './blastForm';
import { MESSAGES } from '../../../domain/validation';
import { validateBlastForm } from './blastForm';

const NOW = new Date('2026-11-29T10:07:30Z');

/** errorTree is the shape rjsf's customValidate gets: addError on each field, nested for the schedule. */
function errorTree() {
  const bag = (): { messages: string[]; addError: (m: string) => void } => {
    const b = { messages: [] as string[], addError: (m: string) => b.messages.push(m) };
    return b;
  };
  return { schedule: { date: bag(), time: bag(), timezone: bag() }, to_user_ids: bag() };
}

describe('the New Email Blast form', () => {
  it('starts at the next quarter hour in UTC, as a time label', () => {
    expect(newBlastForm(NOW)).toEqual({ schedule: { send_now: false, date: '2026-11-29', time: '10:15 am', timezone: 'UTC' } });
  });

  it('names a missing date, an unreadable time and a missing zone, and nothing when sending now', () => {
    expect(scheduleErrors({ date: '', time: 'teatime', timezone: '' })).toEqual({
      date: 'Required field',
      time: 'Invalid time, e.g. 3:15 pm or 15:15',
      timezone: 'Required field',
    });
    expect(scheduleErrors({ date: '2026-12-01', time: '3pm', timezone: 'Europe/Paris' })).toEqual({});
    expect(scheduleErrors({ send_now: true })).toEqual({});
  });

  it('asks for a segment or a contact', () => {
    const errors = errorTree();
    validateBlastForm({ schedule: { send_now: true } }, errors as never);
    expect(errors.to_user_ids.messages).toEqual([MESSAGES.blastAudience]);
    const fine = errorTree();
    validateBlastForm({ schedule: { send_now: true }, to_segment_ids: ['s1'] }, fine as never);
    expect(fine.to_user_ids.messages).toEqual([]);
  });

  it('makes the body: a v4 id, send_at in the chosen zone or the contact’s own, or the current UTC minute', () => {
    const base = { name: ' Launch ', template_id: 't', sender_persona_id: 'p', to_segment_ids: ['s'] };
    const later = blastRecordOf({ ...base, schedule: { date: '2026-12-01', time: '3:15 pm', timezone: 'Europe/Paris' } }, NOW);
    expect(later).toMatchObject({ name: 'Launch', send_at: '2026-12-01T15:15', timezone: 'Europe/Paris', send_in_users_timezone: false, to_user_ids: [] });
    expect(String(later.id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(later).not.toHaveProperty('topic_id');
    const local = blastRecordOf({ ...base, topic_id: 'tp', schedule: { date: '2026-12-01', time: '09:00', timezone: 'Contact’s local timezone' } }, NOW);
    expect(local).toMatchObject({ send_in_users_timezone: true, topic_id: 'tp' });
    expect(blastRecordOf({ ...base, schedule: { send_now: true, date: '2026-12-01' } }, NOW)).toMatchObject({ send_at: '2026-11-29T10:07', timezone: 'UTC' });
  });
});
