/**
 * Reading contact files (issue 3 §1; spec part 2 §5 Contact, §7 Contacts file upload): which header columns a CSV or
 * XLSX file may have, and how one row becomes a contact or a list of row errors. Pure functions; the import job
 * (src/server/core/contacts/import.ts) streams the file and feeds them one row at a time.
 *
 * The contract (also shown on the upload screen and in openapi/user.yaml):
 * - Header names are case-insensitive: `email` (required), `first_name`, `last_name`, `timezone` (an IANA zone name),
 *   `date_of_birth` (YYYY-MM-DD, or a date cell in XLSX; stored at 11:59:59 UTC that day), `json` (a JSON object merged
 *   into the metadata) and `json.<key>` (one metadata key, read with parseMetadataValue). Any other column stops the
 *   file.
 * - An empty cell leaves the contact's existing value unchanged. The same email twice in a file: the last row wins.
 */
import { IANAZone } from 'luxon';
import { checkEmail } from './validation';

/** One column of a contact file: a contact field, the whole metadata object, or one metadata key. */
export type ContactColumn =
  { kind: 'field'; field: 'email' | 'first_name' | 'last_name' | 'timezone' | 'date_of_birth' } | { kind: 'json' } | { kind: 'json_key'; key: string };

/** The header of a contact file, read: each position's column and its name as written. */
export interface ContactHeader {
  columns: ContactColumn[];
  names: string[];
}

const FIELDS = new Set(['email', 'first_name', 'last_name', 'timezone', 'date_of_birth']);

/**
 * readContactHeader maps a header row to columns. Returns `{header}` or `{error}` — the whole file's error (no email
 * column, a column named twice, an unknown column; spec: "Any other column stops the file with an error naming it").
 */
export function readContactHeader(cells: string[]): { header: ContactHeader } | { error: string } {
  const columns: ContactColumn[] = [];
  const names: string[] = [];
  const seen = new Set<string>();
  for (const raw of cells) {
    const name = String(raw ?? '')
      .replace(/^\uFEFF/, '')
      .trim();
    const lower = name.toLowerCase();
    if (seen.has(lower) && lower) return { error: `the column "${name}" appears twice in the header` };
    seen.add(lower);
    if (FIELDS.has(lower)) columns.push({ kind: 'field', field: lower as 'email' });
    else if (lower === 'json') columns.push({ kind: 'json' });
    else if (lower.startsWith('json.') && name.length > 5) columns.push({ kind: 'json_key', key: name.slice(5) });
    else if (!lower) return { error: 'the header has an empty column name' };
    else return { error: `unknown column "${name}": the columns are email, first_name, last_name, timezone, date_of_birth, json and json.<key> for metadata` };
    names.push(name);
  }
  if (!seen.has('email')) return { error: 'the header has no email column' };
  return { header: { columns, names } };
}

/**
 * parseMetadataValue reads one metadata value as the contact form does (spec part 2 §5 Contact): JSON when it is
 * valid JSON, else the text as it is; the texts 'null' and 'undefined' become null.
 */
export function parseMetadataValue(text: string): unknown {
  const t = text.trim();
  if (t === 'null' || t === 'undefined') return null;
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

/** A contact read from one row: only the fields whose cells were not empty are set. */
export interface ContactRow {
  /** As written (trimmed); matched case-insensitively. */
  email: string;
  first_name?: string;
  last_name?: string;
  timezone?: string;
  /** ISO 8601 UTC, always 11:59:59 on the given day. */
  date_of_birth?: string;
  /** Metadata keys to merge into the contact's json. */
  json?: Record<string, unknown>;
}

/** One refused row: the line (CSV) or row (XLSX) number, 1-based with the header as 1; the column, or null for the row. */
export interface RowError {
  line: number;
  column: string | null;
  reason: string;
}

/** A cell as a reader hands it over: text, or for XLSX a number, boolean or Date. */
export type Cell = string | number | boolean | Date | null | undefined;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Zone names already checked (luxon builds an Intl.DateTimeFormat per check, far too slow per row of a large file). */
const zoneValidity = new Map<string, boolean>();

/** isTimeZone is true for an IANA time zone name this runtime knows (answers cached per name). */
export function isTimeZone(name: string): boolean {
  let valid = zoneValidity.get(name);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(name);
    if (zoneValidity.size < 10_000) zoneValidity.set(name, valid);
  }
  return valid;
}

/** dateOfBirth turns a cell into the stored ISO time (11:59:59 UTC that day), or undefined when it is not a date. */
export function dateOfBirth(cell: Cell): string | undefined {
  if (cell instanceof Date) {
    if (Number.isNaN(cell.getTime())) return undefined;
    return `${cell.toISOString().slice(0, 10)}T11:59:59.000Z`;
  }
  const m = DATE_ONLY.exec(String(cell ?? '').trim());
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 11, 59, 59));
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return undefined;
  return d.toISOString();
}

const text = (cell: Cell): string => (cell instanceof Date ? cell.toISOString() : cell === null || cell === undefined ? '' : String(cell)).trim();

/**
 * readContactRow validates one data row against the header. Returns `{contact}` or `{errors}` (every problem of the
 * row, each naming its column): a wrong number of cells, an email that fails the spec's email checks, an unknown time
 * zone, an unparsable date, a json cell that is not a JSON object, and text that was not valid UTF-8 (the reader
 * turned it into U+FFFD). `cellCount` is how many cells the row really had (a reader may pad or cut).
 */
export function readContactRow(header: ContactHeader, cells: Cell[], line: number, cellCount = cells.length): { contact: ContactRow } | { errors: RowError[] } {
  const errors: RowError[] = [];
  if (cellCount !== header.columns.length) {
    return { errors: [{ line, column: null, reason: `expected ${header.columns.length} columns, found ${cellCount}` }] };
  }
  const contact: ContactRow = { email: '' };
  header.columns.forEach((col, i) => {
    const cell = cells[i];
    const name = header.names[i];
    const value = text(cell);
    if (value.includes('\uFFFD')) {
      errors.push({ line, column: name, reason: 'not valid UTF-8 text' });
      return;
    }
    if (col.kind === 'json_key') {
      if (value === '') return;
      contact.json = { ...contact.json, [col.key]: typeof cell === 'string' ? parseMetadataValue(cell) : cell instanceof Date ? cell.toISOString() : cell };
      return;
    }
    if (col.kind === 'json') {
      if (value === '') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        errors.push({ line, column: name, reason: 'must be a JSON object, e.g. {"plan": "pro"}' });
      else contact.json = { ...(parsed as Record<string, unknown>), ...contact.json };
      return;
    }
    switch (col.field) {
      case 'email': {
        const problem = checkEmail(value);
        if (problem) errors.push({ line, column: name, reason: problem });
        contact.email = value;
        break;
      }
      case 'timezone':
        if (value === '') break;
        if (!isTimeZone(value)) errors.push({ line, column: name, reason: `unknown time zone "${value}": use an IANA name such as America/New_York` });
        else contact.timezone = value;
        break;
      case 'date_of_birth': {
        if (value === '') break;
        const iso = dateOfBirth(cell);
        if (!iso) errors.push({ line, column: name, reason: `"${value}" is not a date: use YYYY-MM-DD` });
        else contact.date_of_birth = iso;
        break;
      }
      default:
        if (value !== '') contact[col.field] = value;
    }
  });
  return errors.length ? { errors } : { contact };
}
