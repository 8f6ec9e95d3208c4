/**
 * Reading the blast form's Send time input (spec part 2 §5 Email blast: options every 15 minutes in am/pm format);
 * a typed time such as "3:07 pm", "3pm", "15:07" or "1507" is accepted too.
 */
import { timeOfDayOptions } from '../../../domain/sendTime';

/** TIME_OPTIONS are the Send time choices, every 15 minutes. */
export const TIME_OPTIONS = timeOfDayOptions();

/** parseTimeOfDay returns 'HH:mm' for an am/pm or 24-hour time, or undefined when the text is not a time. */
export function parseTimeOfDay(text: string): string | undefined {
  const t = text.trim().toLowerCase().replace(/\./g, '');
  const m = /^(\d{1,2})(?::?(\d{2}))?\s*(am|pm|a|p)?$/.exec(t);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const meridiem = m[3]?.[0];
  if (minute > 59) return undefined;
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    if (meridiem === 'a' && hour === 12) hour = 0;
    else if (meridiem === 'p' && hour !== 12) hour += 12;
  } else if (hour > 23) return undefined;
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

/** timeLabel renders 'HH:mm' as the option label, e.g. '12:30 pm'. */
export function timeLabel(value: string): string {
  const [h, m] = value.split(':').map(Number);
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${h12}:${String(m).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}`;
}
