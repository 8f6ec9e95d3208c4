/**
 * Field checks and their messages, shared by the console (form errors) and the server (400 bodies).
 * Implements spec part 1 §5 and part 2 §5 (Shared, Email, Template, Email blast).
 */

/** The messages of spec part 1 §5 / part 2 §5, exactly as written there. */
export const MESSAGES = {
  required: 'Required field',
  invalidEmail: 'Invalid email',
  twoAts: 'Please don’t use confusing email addresses (e.g. with two @s)',
  mustContainDot: 'Must contain dot',
  emailTooLong: 'Must be at most 254 characters (the longest address mail can be sent to, RFC 5321)',
  localPartTooLong: 'The part before the @ must be at most 64 characters (RFC 5321)',
  blastAudience: 'You must choose at least one segment or contact to send the email to',
  templateContent: 'You must add email contents',
  marketingUnsubscribe: 'Marketing emails must include an unsubscribe link! Please see the instructions below the template editor',
  blastMissingId: 'Couldn’t archive email blast, missing email blast id',
} as const;

/** isBlank is true for null, undefined, and strings that are empty after trimming. */
export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** checkRequired returns 'Required field' for a null or empty value, else undefined. */
export function checkRequired(value: unknown): string | undefined {
  return isBlank(value) ? MESSAGES.required : undefined;
}

/** The longest address mail can be sent to (RFC 5321 §4.5.3.1.3: a 256-octet path less its angle brackets), and its local part's (§4.5.3.1.1). */
export const EMAIL_MAX_LENGTH = 254;
export const EMAIL_LOCAL_PART_MAX_LENGTH = 64;

/**
 * checkEmail applies the email rules in their spec order: empty, no @, more than one @, no dot
 * (the dot is looked for after the @); then the lengths RFC 5321 allows (EMAIL_MAX_LENGTH in all,
 * EMAIL_LOCAL_PART_MAX_LENGTH before the @). Returns the message, or undefined when valid.
 */
export function checkEmail(value: unknown): string | undefined {
  if (isBlank(value)) return MESSAGES.required;
  const email = String(value).trim();
  const ats = email.split('@').length - 1;
  if (ats === 0) return MESSAGES.invalidEmail;
  if (ats > 1) return MESSAGES.twoAts;
  const [local, domain] = email.split('@');
  if (!local || !domain || /\s/.test(email)) return MESSAGES.invalidEmail;
  if (!domain.includes('.')) return MESSAGES.mustContainDot;
  if (domain.startsWith('.') || domain.endsWith('.')) return MESSAGES.invalidEmail;
  if (email.length > EMAIL_MAX_LENGTH) return MESSAGES.emailTooLong;
  if (local.length > EMAIL_LOCAL_PART_MAX_LENGTH) return MESSAGES.localPartTooLong;
  return undefined;
}

/** The shortest password accepted for an admin (sign-up, add-admin). */
export const PASSWORD_MIN_LENGTH = 8;

/**
 * checkPassword refuses an empty or weak admin password: fewer than PASSWORD_MIN_LENGTH characters, or without both a
 * letter and a digit. Returns the message, or undefined when acceptable. (The spec shows no client-side rule, part 1
 * §5; this is the server's.)
 */
export function checkPassword(value: unknown): string | undefined {
  if (isBlank(value)) return MESSAGES.required;
  const password = String(value);
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (!/\p{L}/u.test(password) || !/\p{N}/u.test(password)) return 'must contain a letter and a digit';
  return undefined;
}

/**
 * checkWebsite accepts an empty value (the website is optional) or an http(s) URL whose host contains a dot, such as
 * https://example.com. Returns the message, or undefined when acceptable.
 */
export function checkWebsite(value: unknown): string | undefined {
  if (isBlank(value)) return undefined;
  let url: URL;
  try {
    url = new URL(String(value).trim());
  } catch {
    return 'must be a web address such as https://example.com';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (!url.hostname.includes('.') || url.hostname.startsWith('.') || url.hostname.endsWith('.')) return MESSAGES.mustContainDot;
  return undefined;
}

/** checkDomain: 'Required field' when empty, 'Must contain dot' without a dot. */
export function checkDomain(value: unknown): string | undefined {
  if (isBlank(value)) return MESSAGES.required;
  return String(value).includes('.') ? undefined : MESSAGES.mustContainDot;
}

/** The variable every marketing template must contain (spec part 2 §5 Template). */
export const UNSUBSCRIBE_VARIABLE = '{{unsubscribe_link}}';

/**
 * checkTemplateContent returns the content error of a template's html (spec part 2 §5): empty html, or html whose
 * length is exactly 4999 (the designer's empty document), is 'You must add email contents'; a marketing template
 * without {{unsubscribe_link}} gets the unsubscribe message.
 */
export function checkTemplateContent(html: string | null | undefined, type: string): string | undefined {
  if (isBlank(html) || (html as string).length === 4999) return MESSAGES.templateContent;
  if (type === 'TEMPLATE_MARKETING' && !/\{\{\s*unsubscribe_link\s*\}\}/.test(html as string)) {
    return MESSAGES.marketingUnsubscribe;
  }
  return undefined;
}

/**
 * suspiciousVariables lists the variable formats in html that this product does not render (spec part 2 §5:
 * `${`, a space then a single-brace `{user`, `{$`, `{name}`, `{first_name}`, `{firstname}`), for the editor's warning.
 */
export function suspiciousVariables(html: string): string[] {
  const found = new Set<string>();
  const patterns: Array<[RegExp, string]> = [
    [/\$\{/, '${'],
    [/\s\{user/, ' {user'],
    [/\{\$/, '{$'],
    [/\{\{?\s*name\s*\}\}?/, '{name}'],
    [/\{\{?\s*first_name\s*\}\}?/, '{first_name}'],
    [/\{\{?\s*firstname\s*\}\}?/, '{firstname}'],
  ];
  for (const [re, label] of patterns) if (re.test(html)) found.add(label);
  return [...found];
}

/** A UUID of any version (8-4-4-4-12 hex). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A version-4 UUID, as blast ids must be (spec part 2 §5 Email blast). */
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** splitList splits a comma-separated query value into trimmed, non-empty, de-duplicated items. */
export function splitList(value: string | undefined | null): string[] {
  if (!value) return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** What a contact search text means (spec part 2 §5 Search). */
export type ContactSearch = { kind: 'id'; id: string } | { kind: 'date'; day: string } | { kind: 'text'; text: string };

/**
 * classifySearch reads the smart contact search: text matching a UUID looks up by id (or the metadata user_id); a
 * date-like string longer than 6 characters (e.g. '2026-03-01', '03/01/2026', 'March 1, 2026') filters by that UTC
 * day; anything else matches email or name. Date-like means: an ISO date or date-time, or another spelling with at
 * least two numbers that parses as a date (years 1900-2200); never a plain number or anything with an @. Returns the trimmed, typed reading.
 */
export function classifySearch(raw: string): ContactSearch {
  const text = raw.trim();
  if (UUID_RE.test(text)) return { kind: 'id', id: text.toLowerCase() };
  if (text.length > 6 && /\d/.test(text) && !/^\d+$/.test(text) && !text.includes('@')) {
    const day = searchDay(text);
    if (day) return { kind: 'date', day };
  }
  return { kind: 'text', text };
}

function searchDay(text: string): string | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (iso) {
    if (text.length > 10) {
      const t = Date.parse(text.replace(' ', 'T'));
      return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
    }
    const t = Date.parse(`${iso[1]}-${iso[2]}-${iso[3]}T00:00:00Z`);
    return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text ? undefined : text;
  }
  // Other spellings (03/01/2026, 1 March 2026, March 1, 2026): the calendar date as written, read in UTC; at least a
  // day and a year must be written as numbers (so 'bob 2026' stays a name search).
  if ((text.match(/\d+/g)?.length ?? 0) < 2) return undefined;
  const t = Date.parse(`${text} UTC`);
  if (Number.isNaN(t)) return undefined;
  const d = new Date(t);
  return d.getUTCFullYear() >= 1900 && d.getUTCFullYear() <= 2200 ? d.toISOString().slice(0, 10) : undefined;
}
