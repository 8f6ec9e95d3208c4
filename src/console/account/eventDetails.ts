/**
 * Pure helpers of the Events screen (spec part 1 §2 Events screen, §3 Event, §9): name truncation, the email-viewer
 * location of an event, the parsed details grid and the raw JSON view with sensitive keys hidden.
 */
import type { components } from '../../../generated/types/event.gen';
import { encodeLocation } from '../../domain/location';
import { formatDateTime } from '../dates';

export type EventRecord = components['schemas']['Event'];

/** Spec part 1 §9: events list page size, default sort and search debounce; §2: names cut at 45 characters. */
export const EVENTS_PAGE_SIZE = 10;
export const EVENT_NAME_MAX = 45;
export const DEFAULT_EVENT_SORT = { field: 'emitted_at', order: 'DESC' } as const;

/** Columns the event gateway can sort by (openapi/event.yaml EventSortColumns). */
export const SORTABLE_EVENT_COLUMNS = ['emitted_at', 'id', 'user_id', 'email', 'name'] as const;

/** truncateText cuts `text` to `max` characters followed by an ellipsis. */
export function truncateText(text: unknown, max: number): string {
  const s = text === null || text === undefined ? '' : String(text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** formatWhen renders an ISO instant with seconds in the user's locale and zone ('' for a missing value; an invalid one as given). */
export function formatWhen(value: unknown): string {
  return formatDateTime(value, { seconds: true });
}

/** formatInUtc renders an ISO instant with seconds in UTC, for a tooltip beside the local text (the reports' zone). */
export function formatInUtc(value: unknown): string {
  return formatDateTime(value, { seconds: true, timeZone: 'UTC' });
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * emailLocation is the /email/{location} segment of an event's stored copy: json.location, else the base64 of
 * json.bucket/json.key (spec part 1 §2, §7); undefined when the event has no stored email.
 */
export function emailLocation(event: Pick<EventRecord, 'json'>): string | undefined {
  const json = record(event.json) ?? {};
  if (typeof json.location === 'string' && json.location) return json.location;
  if (typeof json.bucket === 'string' && json.bucket && typeof json.key === 'string' && json.key) {
    return encodeLocation(json.bucket, json.key);
  }
  return undefined;
}

/** The rows of the parsed details grid, in the spec's order (part 1 §2 Events screen). */
export const PARSED_FIELDS = ['event_name', 'bounce_type', 'click_link', 'email', 'error', 'save_copy_error', 'bounce_code', 'occurred'] as const;
export type ParsedField = (typeof PARSED_FIELDS)[number];

/** parsedEvent reads the details grid's values from an event and its json (spec part 1 §3 Event). */
export function parsedEvent(event: EventRecord): Array<{ field: ParsedField; value: string }> {
  const json = record(event.json) ?? {};
  const bounce = record(json.bounce);
  const recipients = Array.isArray(bounce?.bouncedRecipients) ? bounce.bouncedRecipients : [];
  const values: Record<ParsedField, string> = {
    event_name: text(event.name),
    bounce_type: text(bounce?.bounceType),
    click_link: text(record(json.click)?.link ?? json.link),
    email: text(event.email),
    error: text(json.error_string),
    save_copy_error: text(json.bucketing_error_string),
    bounce_code: text(record(recipients[0])?.diagnosticCode),
    occurred: formatWhen(event.emitted_at),
  };
  return PARSED_FIELDS.map((field) => ({ field, value: values[field] }));
}

/**
 * Keys the raw view hides wherever they occur (spec part 1 §2: company name, project name, bucket, key, password),
 * compared case-insensitively and ignoring `_`, `-` and spaces, so company_name, companyName and "Company Name" all
 * match. `location` is hidden too: it is only the base64 of bucket/key, so showing it would reveal both.
 */
const SENSITIVE_KEYS = new Set(['company', 'companyname', 'project', 'projectname', 'bucket', 'key', 'password', 'location']);

/** isSensitiveKey is true for a key the raw JSON view must not show (any key ending in "password" included). */
export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[\s_-]/g, '');
  return SENSITIVE_KEYS.has(k) || k.endsWith('password');
}

/** redactSensitive returns a deep copy of `value` without sensitive keys at any depth (arrays included). */
export function redactSensitive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSensitive);
  const obj = record(value);
  if (!obj) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!isSensitiveKey(k)) out[k] = redactSensitive(v);
  return out;
}

/** rawEventJson is the raw view's text: the whole event, sensitive keys removed, pretty-printed. */
export function rawEventJson(event: EventRecord): string {
  return JSON.stringify(redactSensitive(event), null, 2);
}
