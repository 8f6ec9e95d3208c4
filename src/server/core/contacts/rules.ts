/**
 * What a contact's fields must be, wherever a contact comes from (the hosted subscribe form had rules of
 * its own and took an address the contacts API refuses): the API's upsert (`POST {user}/users`) and the subscribe
 * forms check their input here, with the same messages. Pure functions; the spec's email rules are
 * src/domain/validation.ts checkEmail (spec part 1 §5, plus the lengths RFC 5321 allows).
 */
import { DateTime } from 'luxon';
import { checkEmail } from '../../../domain/validation.ts';
import { isValidTimezone } from '../../../domain/sendTime.ts';

/** The longest first or last name (characters), as openapi/user.yaml ContactInput says. */
export const CONTACT_NAME_MAX_LENGTH = 200;

/** A contact's fields as a request gives them (undefined: not given). */
export interface ContactFields {
  email?: unknown;
  first_name?: unknown;
  last_name?: unknown;
  timezone?: unknown;
  date_of_birth?: unknown;
}

/**
 * dateOfBirth parses 'YYYY-MM-DD' or an ISO date-time into that calendar date at 11:59:59 UTC (spec part 2 §3);
 * returns undefined when unparseable, null for null/empty.
 */
export function dateOfBirth(value: string | null | undefined): Date | null | undefined {
  if (value === null || value === undefined || value.trim() === '') return null;
  const d = DateTime.fromISO(value.trim(), { zone: 'UTC' });
  if (!d.isValid) return undefined;
  return d.set({ hour: 11, minute: 59, second: 59, millisecond: 0 }).toJSDate();
}

/**
 * checkContactFields checks one contact's fields: the email (required; checkEmail), first and last names (text of at
 * most CONTACT_NAME_MAX_LENGTH characters, never cut silently), the time zone (an IANA name) and the date of birth
 * (a date). Returns each problem as {field, message} (field: email, first_name, last_name, timezone, date_of_birth);
 * empty when the fields are acceptable.
 */
export function checkContactFields(u: ContactFields): Array<{ field: keyof ContactFields; message: string }> {
  const problems: Array<{ field: keyof ContactFields; message: string }> = [];
  const emailProblem = typeof u.email === 'string' || u.email == null ? checkEmail(u.email) : 'must be a string';
  if (emailProblem) problems.push({ field: 'email', message: emailProblem });
  for (const field of ['first_name', 'last_name'] as const) {
    const v = u[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') problems.push({ field, message: 'must be text' });
    else if (v.length > CONTACT_NAME_MAX_LENGTH)
      problems.push({ field, message: `must be at most ${CONTACT_NAME_MAX_LENGTH} characters (it has ${v.length})` });
  }
  if (u.timezone !== undefined && u.timezone !== null && u.timezone !== '') {
    if (typeof u.timezone !== 'string' || !isValidTimezone(u.timezone))
      problems.push({ field: 'timezone', message: `unknown time zone ${String(u.timezone)}` });
  }
  if (u.date_of_birth !== undefined && (typeof u.date_of_birth !== 'string' ? u.date_of_birth !== null : dateOfBirth(u.date_of_birth) === undefined)) {
    problems.push({ field: 'date_of_birth', message: 'must be a date (YYYY-MM-DD)' });
  }
  return problems;
}
