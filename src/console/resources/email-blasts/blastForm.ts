/**
 * The New Email Blast form's values and rules (openapi/scheduler.yaml, EmailBlastForm; spec part 2 §5 Email blast):
 * its first values, the schedule's checks, the audience rule, and saveEmailBlast's body made from it. Pure; the
 * form's custom parts are blastFormFields.tsx.
 */
import type { CustomValidator } from '@rjsf/utils';
import { defaultBlastSchedule, isContactLocalTimezone, sendNowMoment } from '../../../domain/sendTime';
import { MESSAGES, checkRequired } from '../../../domain/validation';
import { uuidv4 } from '../../uuid';
import { parseTimeOfDay, timeLabel } from './timeInput';

/** The schedule part of the form: Send now, or a wall-clock date and time (as typed) in a zone. */
export interface BlastSchedule {
  send_now?: boolean;
  date?: string;
  time?: string;
  timezone?: string;
}

/** The form's values (EmailBlastForm). */
export interface BlastForm {
  name?: string;
  template_id?: string;
  sender_persona_id?: string;
  topic_id?: string;
  schedule?: BlastSchedule;
  to_segment_ids?: string[];
  to_user_ids?: string[];
}

/** newBlastForm is a new form's values: the next quarter hour in UTC (defaultBlastSchedule), as a time label. */
export function newBlastForm(now: Date = new Date()): BlastForm {
  const d = defaultBlastSchedule(now);
  return { schedule: { send_now: false, date: d.date, time: timeLabel(d.time), timezone: d.timezone } };
}

/** scheduleErrors are the schedule's messages by part (none when sending now). */
export function scheduleErrors(s: BlastSchedule = {}): Partial<Record<'date' | 'time' | 'timezone', string>> {
  if (s.send_now) return {};
  const time = checkRequired(s.time) ?? (parseTimeOfDay(s.time ?? '') ? undefined : 'Invalid time, e.g. 3:15 pm or 15:15');
  return Object.fromEntries(Object.entries({ date: checkRequired(s.date), time, timezone: checkRequired(s.timezone) }).filter(([, m]) => m)) as Partial<
    Record<'date' | 'time' | 'timezone', string>
  >;
}

type Errors = Record<string, { addError: (m: string) => void } & Record<string, { addError: (m: string) => void }>>;

/** validateBlastForm adds the schedule's messages and the audience rule (a segment or a contact) to rjsf's errors. */
export const validateBlastForm: CustomValidator = (data, errors) => {
  const form = (data ?? {}) as BlastForm;
  const e = errors as unknown as Errors;
  for (const [part, message] of Object.entries(scheduleErrors(form.schedule))) e.schedule?.[part]?.addError(message!);
  if (!form.to_segment_ids?.length && !form.to_user_ids?.length) e.to_user_ids?.addError(MESSAGES.blastAudience);
  return errors;
};

/**
 * blastRecordOf makes saveEmailBlast's body from a checked form: a client-generated v4 id, send_at in the chosen zone
 * (or the current UTC minute for Send now) and send_in_users_timezone for the contact's local zone.
 */
export function blastRecordOf(form: BlastForm, now: Date = new Date()): Record<string, unknown> {
  const s = form.schedule ?? {};
  const at = s.send_now ? sendNowMoment(now) : { date: s.date, time: parseTimeOfDay(s.time ?? '') };
  return {
    id: uuidv4(),
    name: (form.name ?? '').trim(),
    template_id: form.template_id,
    sender_persona_id: form.sender_persona_id,
    to_segment_ids: form.to_segment_ids ?? [],
    to_user_ids: form.to_user_ids ?? [],
    send_at: `${at.date}T${at.time}`,
    timezone: s.send_now ? 'UTC' : s.timezone,
    send_in_users_timezone: !s.send_now && isContactLocalTimezone(s.timezone),
    ...(form.topic_id ? { topic_id: form.topic_id } : {}),
  };
}
