/**
 * Send-time maths for email blasts (spec part 2 §3 Email blast, §5; DESIGN.md §6). All instants are UTC `Date`s;
 * wall-clock times are `YYYY-MM-DDTHH:mm[:ss]` strings without an offset, read in an IANA zone through Luxon, so
 * DST changes are handled by the zone database (a wall-clock time skipped by a spring-forward moves forward by the
 * gap; an ambiguous fall-back time takes its first occurrence, i.e. the offset before the change), whatever today's date.
 */
import { DateTime, IANAZone } from 'luxon';

/** The label of the "each contact's own zone" option, first in the timezone list. */
export const CONTACT_LOCAL_TIMEZONE = 'Contact’s local timezone';

/** The zone used for a contact with no time zone, or an unknown one, in a contact-local blast. */
export const FALLBACK_TIMEZONE = 'UTC';

/** The zone furthest ahead of UTC (UTC+14): a contact-local blast is due no earlier than its wall-clock time there. */
export const EARLIEST_TIMEZONE = 'Pacific/Kiritimati';

/**
 * isContactLocalTimezone is true for "Contact’s local timezone" and its variants (straight apostrophe, or none:
 * "contacts local timezone"), case-insensitive.
 */
export function isContactLocalTimezone(value: string | null | undefined): boolean {
  if (!value) return false;
  const v = value.trim().toLowerCase().replace(/[’']/g, '');
  return v === 'contacts local timezone';
}

const zoneValidity = new Map<string, boolean>();

/** isValidTimezone is true for an IANA zone name Luxon knows (UTC included). Answers are cached per name. */
export function isValidTimezone(zone: string | null | undefined): boolean {
  if (!zone) return false;
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(zone);
    if (zoneValidity.size < 10_000) zoneValidity.set(zone, valid);
  }
  return valid;
}

const WALL_CLOCK_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** parseWallClock checks a `YYYY-MM-DDTHH:mm[:ss]` string; returns its parts, or undefined when malformed or impossible. */
export function parseWallClock(wallClock: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } | undefined {
  const m = WALL_CLOCK_RE.exec(wallClock);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((s) => (s === undefined ? 0 : Number(s)));
  const probe = DateTime.fromObject({ year, month, day, hour, minute, second }, { zone: 'UTC' });
  if (!probe.isValid || probe.day !== day || probe.month !== month) return undefined;
  return { year, month, day, hour, minute, second };
}

/**
 * wallClockToInstant returns the UTC instant at which `wallClock` happens in `zone`.
 * Throws RangeError for a malformed wall-clock string or an unknown zone.
 */
export function wallClockToInstant(wallClock: string, zone: string): Date {
  const parts = parseWallClock(wallClock);
  if (!parts) throw new RangeError(`invalid wall-clock time: ${wallClock}`);
  if (!isValidTimezone(zone)) throw new RangeError(`unknown time zone: ${zone}`);
  // The wall-clock time read as if it were UTC; the answer is that minus the zone's offset at the answer. Try the
  // offsets in force a day before and a day after: the ones that map back are the real instants (two in a fall-back
  // hour: take the earlier; none in a spring-forward gap: read it with the offset before the gap, which moves it
  // forward by the gap). Luxon's own guess depends on today's offset, so it is not used.
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const tz = IANAZone.create(zone);
  const DAY = 86_400_000;
  const before = tz.offset(asUtc - DAY);
  const after = tz.offset(asUtc + DAY);
  const candidates = [...new Set([before, after])]
    .map((offset) => asUtc - offset * 60_000)
    .filter((instant) => instant + tz.offset(instant) * 60_000 === asUtc)
    .sort((a, b) => a - b);
  return new Date(candidates.length ? candidates[0] : asUtc - before * 60_000);
}

/** recipientZone is the zone a contact-local blast uses for a contact: its own when valid, else FALLBACK_TIMEZONE. */
export function recipientZone(contactZone: string | null | undefined): string {
  return isValidTimezone(contactZone) ? (contactZone as string) : FALLBACK_TIMEZONE;
}

/**
 * recipientSendInstant is when one recipient of a blast gets its email: the blast's wall-clock time in the blast's
 * zone, or, for a contact-local blast, in the contact's own zone (see recipientZone).
 */
export function recipientSendInstant(
  blast: { send_at: string; timezone: string; send_in_users_timezone: boolean },
  contactZone: string | null | undefined,
): { zone: string; instant: Date } {
  const zone = blast.send_in_users_timezone ? recipientZone(contactZone) : blast.timezone;
  return { zone, instant: wallClockToInstant(blast.send_at, zone) };
}

/**
 * blastDueInstant is when a blast must be expanded into recipient rows: its instant for a fixed zone, or for a
 * contact-local blast the earliest zone's (UTC+14) instant, so no contact's wall-clock moment is missed.
 */
export function blastDueInstant(blast: { send_at: string; timezone: string; send_in_users_timezone: boolean }): Date {
  return wallClockToInstant(blast.send_at, blast.send_in_users_timezone ? EARLIEST_TIMEZONE : blast.timezone);
}

/**
 * timeOfDayOptions lists the times of day every `stepMinutes` (15 by default) as `{value: 'HH:mm', label: 'h:mm am'}`,
 * for the blast form's time select (spec part 2 §5: every 15 minutes, am/pm).
 */
export function timeOfDayOptions(stepMinutes = 15): Array<{ value: string; label: string }> {
  const out: Array<{ value: string; label: string }> = [];
  for (let m = 0; m < 24 * 60; m += stepMinutes) {
    const h = Math.floor(m / 60);
    const min = m % 60;
    const value = `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
    const h12 = h % 12 === 0 ? 12 : h % 12;
    out.push({ value, label: `${h12}:${String(min).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}` });
  }
  return out;
}

/**
 * timezoneOptions is the long timezone list with "Contact’s local timezone" first, then UTC, then every IANA zone
 * the runtime knows (Intl.supportedValuesOf), sorted.
 */
export function timezoneOptions(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : [];
  return [CONTACT_LOCAL_TIMEZONE, 'UTC', ...zones.filter((z) => z !== 'UTC').sort()];
}

/** The step of the console's send-time menus, in minutes (spec part 2 §9: "Time options every 15 minutes"). */
export const SEND_SLOT_MINUTES = 15;

/**
 * nextSendSlot is the first quarter hour (UTC) at least a minute after `now`: 14:52 → 15:00, 14:59:30 → 15:15,
 * 23:50 → 00:00 the next day. Returns the UTC date (YYYY-MM-DD) and time (HH:mm). The spec's fixed
 * defaults (12:00 in the wizard, 12:30 on the blast form) were already past for half of every day, and a launch then
 * sent at once.
 */
export function nextSendSlot(now: Date = new Date()): { date: string; time: string } {
  const earliest = DateTime.fromJSDate(now, { zone: 'UTC' }).plus({ minutes: 1 });
  const slot = earliest
    .startOf('hour')
    .plus({ minutes: Math.ceil((earliest.minute + earliest.second / 60 + earliest.millisecond / 60000) / SEND_SLOT_MINUTES) * SEND_SLOT_MINUTES });
  return { date: slot.toISODate() as string, time: slot.toFormat('HH:mm') };
}

/**
 * sendNowMoment is "Send now" as a blast's wall-clock send moment: the current minute in UTC (`now` floored to the
 * minute), so the blast is due at once when it is saved. Returns the UTC date (YYYY-MM-DD) and time (HH:mm).
 */
export function sendNowMoment(now: Date = new Date()): { date: string; time: string } {
  const t = DateTime.fromJSDate(now, { zone: 'UTC' });
  return { date: t.toISODate() as string, time: t.toFormat('HH:mm') };
}

/** defaultBlastSchedule is the new-blast default: the next quarter hour (nextSendSlot), in UTC (spec part 2 §4 said 12:30). */
export function defaultBlastSchedule(now: Date = new Date()): { date: string; time: string; timezone: string } {
  return { ...nextSendSlot(now), timezone: 'UTC' };
}

/** formatSendAt renders a blast's Send At cell (spec part 2 §2): the local date-time and zone, or "Contact's local TZ". */
export function formatSendAt(blast: { send_at: string; timezone: string; send_in_users_timezone: boolean }): string {
  const parts = parseWallClock(blast.send_at);
  const local = parts ? DateTime.fromObject(parts, { zone: 'UTC' }).toFormat('yyyy-LL-dd h:mm a').replace('AM', 'am').replace('PM', 'pm') : blast.send_at;
  return `${local} ${blast.send_in_users_timezone ? "Contact's local TZ" : blast.timezone}`;
}
