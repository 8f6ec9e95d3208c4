/**
 * Dates as the console shows them: in the browser's language and time zone (Intl.DateTimeFormat), never a raw ISO
 * string. `locale` and `timeZone` are for tests; the console leaves them to the browser.
 */

/** formatDateTime renders an ISO instant as a short date and time with its zone, e.g. "Nov 29, 2026, 9:05 AM UTC" ('' for none). */
export function formatDateTime(iso: string | null | undefined, options: { locale?: string; timeZone?: string } = {}): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: options.timeZone })
    .format(d)
    .concat(zoneSuffix(d, options));
}

/** The short name of the zone the time is shown in (" UTC", " GMT+1"), so a time read aloud is never ambiguous. */
function zoneSuffix(d: Date, options: { locale?: string; timeZone?: string }): string {
  const zone = new Intl.DateTimeFormat(options.locale, { timeZoneName: 'short', timeZone: options.timeZone })
    .formatToParts(d)
    .find((p) => p.type === 'timeZoneName');
  return zone ? ` ${zone.value}` : '';
}
