/**
 * Dates as the console shows them: in the browser's language and time zone (Intl.DateTimeFormat), never a raw ISO
 * string. `locale` and `timeZone` are for tests; the console leaves them to the browser.
 */

/** Where and how precisely a date is shown: the locale and zone (the browser's when omitted), and seconds or not. */
export interface DateOptions {
  locale?: string;
  timeZone?: string;
  /** Show seconds (an event's details); minutes otherwise. */
  seconds?: boolean;
}

/**
 * formatDateTime renders an ISO instant (or anything Date parses) as a date and time with its zone, e.g.
 * "Nov 29, 2026, 9:05 AM UTC" ('' for none; the value as given when it is not a date).
 */
export function formatDateTime(iso: unknown, options: DateOptions = {}): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const d = new Date(String(iso));
  if (Number.isNaN(d.getTime())) return String(iso);
  return new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: options.seconds ? 'medium' : 'short', timeZone: options.timeZone })
    .format(d)
    .concat(zoneSuffix(d, options));
}

/** formatDate renders an ISO instant's day in the browser's zone, e.g. "Nov 29, 2026" ('' for none). */
export function formatDate(iso: unknown, options: DateOptions = {}): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const d = new Date(String(iso));
  if (Number.isNaN(d.getTime())) return String(iso);
  return new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeZone: options.timeZone }).format(d);
}

/** The short name of the zone the time is shown in (" UTC", " GMT+1"), so a time read aloud is never ambiguous. */
function zoneSuffix(d: Date, options: DateOptions): string {
  const zone = new Intl.DateTimeFormat(options.locale, { timeZoneName: 'short', timeZone: options.timeZone })
    .formatToParts(d)
    .find((p) => p.type === 'timeZoneName');
  return zone ? ` ${zone.value}` : '';
}
