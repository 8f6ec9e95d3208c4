/**
 * Reading contact files (spec part 2 §5 Contact, §7 Contacts file upload): which header columns a CSV or
 * XLSX file may have, and how one row becomes a contact or a list of row errors. Pure functions; the import job
 * (src/server/core/contacts/import.ts) streams the file and feeds them one row at a time.
 *
 * The contract (also shown on the upload screen and in openapi/user.yaml):
 * - Header names are case-insensitive: `email` (required), `first_name`, `last_name`, `timezone` (an IANA zone name),
 *   `date_of_birth` (YYYY-MM-DD, or a date cell in XLSX; stored at 11:59:59 UTC that day), `json` (a JSON object merged
 *   into the metadata) and `json.<key>` (one metadata key, read with parseMetadataValue). The common exports' names for the
 *   fields are read as the fields ("Email Address", "E-mail", FIRSTNAME, "Last Name"…). Any other column stops the
 *   file, unless the upload's column mapping sends it somewhere: a field, json, json.<key> or skip.
 * - A CSV file's delimiter is a comma, a semicolon or a tab, whichever its header line uses (csvDelimiter).
 * - An empty cell leaves the contact's existing value unchanged. The same email twice in a file, written the same way:
 *   the last row wins; written in another letter case, the later row is merged into the first (./importAddresses.ts).
 */
import { IANAZone } from 'luxon';
import { parse as parseCsv } from 'csv-parse/browser/esm/sync';
import { checkEmail } from './validation';

/** One column of a contact file: a contact field, the whole metadata object, one metadata key, or a column left out. */
export type ContactColumn =
  | { kind: 'field'; field: 'email' | 'first_name' | 'last_name' | 'timezone' | 'date_of_birth' }
  | { kind: 'json' }
  | { kind: 'json_key'; key: string }
  | { kind: 'skip' };

/**
 * Where a column of a file goes (the upload's column mapping): a contact field, `json` (a JSON object
 * merged into the metadata), `json.<key>` (one metadata key) or `skip` (not imported).
 */
export type ImportTarget = 'email' | 'first_name' | 'last_name' | 'timezone' | 'date_of_birth' | 'json' | 'skip' | `json.${string}`;

/**
 * A column mapping: header name as written in the file (trimmed) → target. Columns it leaves out are read by name;
 * one that is still unknown goes where the entry `*` says — `metadata` (a metadata key named after the column,
 * metadataKey) or `skip` — and without `*` stops the file.
 */
export type ColumnMapping = Record<string, ImportTarget | 'metadata'>;

/** The key of a mapping's rule for columns it does not name and that are not known by name. */
export const OTHER_COLUMNS = '*';

/**
 * The most columns a mapping may name, the longest name or key, and the longest mapping as JSON: the mapping travels
 * in the signed upload URL, whose path may be 8 KB (app.ts maxParamLength) after base64.
 */
export const MAX_MAPPED_COLUMNS = 100;
export const MAX_MAPPED_NAME = 100;
export const MAX_MAPPING_JSON = 4000;

const own = (mapping: ColumnMapping, name: string) => Object.prototype.hasOwnProperty.call(mapping, name);

/**
 * Other names of the contact fields in the exports of common ESPs and CRMs (Mailchimp "Email Address", "First Name";
 * Brevo EMAIL, FIRSTNAME, LASTNAME; HubSpot "Email", "First Name", "Last Name"; "E-mail", "FNAME"), compared with
 * letter case, spaces and punctuation removed. A Mailchimp "Birthday" is MM/DD without a year, so it is not mapped to
 * date_of_birth.
 */
const ALIASES: Record<string, ContactColumn & { kind: 'field' }> = Object.fromEntries(
  (
    [
      ['email', ['email', 'emailaddress', 'mail', 'emailid', 'contactemail', 'primaryemail']],
      ['first_name', ['firstname', 'fname', 'givenname', 'first', 'forename']],
      ['last_name', ['lastname', 'lname', 'surname', 'familyname', 'last']],
      ['timezone', ['timezone', 'tz', 'ianatimezone']],
      ['date_of_birth', ['dateofbirth', 'birthdate', 'dob']],
    ] as const
  ).flatMap(([field, names]) => names.map((n) => [n, { kind: 'field' as const, field }])),
);

/** squash lowers a header name and drops everything but letters and digits ("E-mail Address" → "emailaddress"). */
const squash = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** metadataKey turns a header name into a metadata key: lower case, words joined by "_" ("Phone Number" → "phone_number"). */
export function metadataKey(name: string): string {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_MAPPED_NAME - 10);
  return key || 'column';
}

/** columnOfTarget turns a mapping target into a column; undefined when the target is not one. */
function columnOfTarget(target: string): ContactColumn | undefined {
  if (FIELDS.has(target)) return { kind: 'field', field: target as 'email' };
  if (target === 'json') return { kind: 'json' };
  if (target === 'skip') return { kind: 'skip' };
  if (target.startsWith('json.') && target.length > 5) return { kind: 'json_key', key: target.slice(5) };
  return undefined;
}

/** columnByName reads a header name as the file contract has it, then by the common exports' names; undefined if unknown. */
function columnByName(name: string): ContactColumn | undefined {
  const lower = name.toLowerCase();
  if (FIELDS.has(lower)) return { kind: 'field', field: lower as 'email' };
  if (lower === 'json') return { kind: 'json' };
  if (lower.startsWith('json.') && name.length > 5) return { kind: 'json_key', key: name.slice(5) };
  const key = squash(name);
  return Object.prototype.hasOwnProperty.call(ALIASES, key) ? ALIASES[key] : undefined;
}

/** targetOf is where a column goes, as a mapping would say it ("email", "json", "json.plan", "skip"). */
function targetOf(col: ContactColumn): ImportTarget {
  return col.kind === 'field' ? col.field : col.kind === 'json' ? 'json' : col.kind === 'json_key' ? `json.${col.key}` : 'skip';
}

/**
 * suggestMapping proposes a target for each header name (the upload screen's first guess): a contact
 * field by its name or a common export's name for it (the first column only, for each field), else a metadata key
 * named after the column, so nothing in the file is lost unless the user chooses to skip it.
 */
export function suggestMapping(names: string[]): ColumnMapping {
  // A Map, then Object.fromEntries: a column named "__proto__" or "constructor" is an own key like any other.
  const out = new Map<string, ImportTarget>();
  const taken = new Set<string>();
  for (const raw of names) {
    const name = String(raw ?? '')
      .replace(/^\uFEFF/, '')
      .trim();
    if (out.has(name)) continue;
    // An unnamed column (a trailing delimiter in the header) holds nothing to keep.
    if (!name) {
      out.set(name, 'skip');
      continue;
    }
    const col = columnByName(name);
    const target = col && targetOf(col);
    if (target && !taken.has(target)) {
      taken.add(target);
      out.set(name, target);
    } else {
      let key = `json.${metadataKey(name)}` as ImportTarget;
      for (let n = 2; taken.has(key); n++) key = `json.${metadataKey(name)}_${n}`;
      taken.add(key);
      out.set(name, key);
    }
  }
  return Object.fromEntries(out);
}

/**
 * compactMapping is what the upload screen sends for a file whose header is `names` and whose columns the user mapped
 * as `mapping` (all of them): `*` → metadata, and only the columns whose target differs from where the server would
 * put them without an entry (by name, else a metadata key named after them). So a wide export (150 columns, long
 * question texts as headers) travels as a few entries.
 */
export function compactMapping(names: string[], mapping: ColumnMapping): ColumnMapping {
  const out: Array<[string, ColumnMapping[string]]> = [[OTHER_COLUMNS, 'metadata']];
  for (const raw of names) {
    const name = String(raw ?? '')
      .replace(/^\uFEFF/, '')
      .trim();
    if (!own(mapping, name)) continue;
    const col = columnByName(name);
    const byDefault = !name ? undefined : col ? targetOf(col) : `json.${metadataKey(name)}`;
    if (mapping[name] !== byDefault) out.push([name, mapping[name]]);
  }
  return Object.fromEntries(out);
}

/**
 * checkMapping returns the first problem of a mapping sent by a client, or undefined: too many columns, a name or
 * key too long, a target that is not one, or a field or key chosen for two columns.
 */
export function checkMapping(mapping: unknown): string | undefined {
  if (!mapping || typeof mapping !== 'object' || Array.isArray(mapping)) return 'must be an object of column name → target';
  const entries = Object.entries(mapping as Record<string, unknown>);
  if (entries.length > MAX_MAPPED_COLUMNS) return `at most ${MAX_MAPPED_COLUMNS} columns`;
  if (JSON.stringify(mapping).length > MAX_MAPPING_JSON) return `at most ${MAX_MAPPING_JSON} characters as JSON`;
  const used = new Set<string>();
  for (const [name, target] of entries) {
    if (name === OTHER_COLUMNS) {
      if (target !== 'metadata' && target !== 'skip') return `"${String(target)}" (for the other columns, "*") is not one of metadata or skip`;
      continue;
    }
    if (name.length > MAX_MAPPED_NAME) return `the column name "${name.slice(0, 20)}…" is longer than ${MAX_MAPPED_NAME} characters`;
    if (typeof target !== 'string' || !columnOfTarget(target) || target.length > MAX_MAPPED_NAME)
      return `"${String(target)}" (for the column "${name}") is not a target: use email, first_name, last_name, timezone, date_of_birth, json, json.<key> or skip`;
    if (target !== 'skip' && used.has(target)) return `"${target}" is chosen for two columns`;
    used.add(target);
  }
  return undefined;
}

/** The header of a contact file, read: each position's column and its name as written. */
export interface ContactHeader {
  columns: ContactColumn[];
  names: string[];
}

const FIELDS = new Set(['email', 'first_name', 'last_name', 'timezone', 'date_of_birth']);

/**
 * readContactHeader maps a header row to columns. Each column goes where `mapping` sends it; a column
 * the mapping does not name is read by its name: a contact field, json, json.<key>, or a common export's name for a
 * field ("Email Address", "FIRSTNAME"…). Returns `{header}` or `{error}` — the whole file's error (no email column, a
 * column named twice, two columns for one field, an unknown column; spec: "Any other column stops the file with an
 * error naming it").
 */
export function readContactHeader(cells: string[], mapping: ColumnMapping = {}): { header: ContactHeader } | { error: string } {
  const columns: ContactColumn[] = [];
  const names: string[] = [];
  const seen = new Set<string>();
  const targets = new Map<string, string>();
  for (const raw of cells) {
    const name = String(raw ?? '')
      .replace(/^\uFEFF/, '')
      .trim();
    const lower = name.toLowerCase();
    if (seen.has(lower) && lower) return { error: `the column "${name}" appears twice in the header` };
    seen.add(lower);
    const mapped = own(mapping, name) ? columnOfTarget(mapping[name]) : undefined;
    const other = own(mapping, OTHER_COLUMNS) && name ? mapping[OTHER_COLUMNS] : undefined;
    const col: ContactColumn | undefined =
      mapped ?? columnByName(name) ?? (other === 'metadata' ? { kind: 'json_key', key: metadataKey(name) } : other === 'skip' ? { kind: 'skip' } : undefined);
    if (!col && !lower) return { error: 'the header has an empty column name' };
    if (!col)
      return {
        error: `unknown column "${name}": the columns are email, first_name, last_name, timezone, date_of_birth, json and json.<key> for metadata (or map the column when uploading)`,
      };
    const target = col.kind === 'skip' ? '' : targetOf(col);
    if (target && targets.has(target)) return { error: `the columns "${targets.get(target)}" and "${name}" both go to ${target}` };
    if (target) targets.set(target, name);
    columns.push(col);
    names.push(name);
  }
  if (!targets.has('email')) return { error: 'the header has no email column' };
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
    if (col.kind === 'skip') return;
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

/**
 * csvDelimiter guesses a CSV file's delimiter from its first line: the one of `,` `;` and tab that occurs most often
 * outside double quotes (a comma when none does). Brevo and European spreadsheet exports use semicolons.
 */
export function csvDelimiter(firstLine: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch in counts) counts[ch as ','] += 1;
  }
  return counts[';'] > counts[','] && counts[';'] >= counts['\t'] ? ';' : counts['\t'] > counts[','] ? '\t' : ',';
}

/** The first rows of a contact file as the upload screen shows them before the import: its header and a few rows. */
export interface FilePreview {
  header: string[];
  rows: string[][];
}

/** How many bytes of a CSV file the upload screen reads for its preview, and how many data rows it shows. */
export const PREVIEW_BYTES = 64 * 1024;
export const PREVIEW_ROWS = 5;

/**
 * previewCsv reads the header and the first PREVIEW_ROWS rows of a CSV file's beginning (`text`, the first
 * PREVIEW_BYTES; `whole` when that is the whole file, else the last, maybe cut, line is dropped), with the delimiter
 * the import will use. Returns `{preview}` or `{error}` in words (the import would refuse the file too).
 */
export function previewCsv(text: string, whole: boolean): { preview: FilePreview } | { error: string } {
  const body = whole ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (!body.trim()) return { error: whole ? 'the file is empty' : 'the first line is longer than 64 KB' };
  try {
    const records = parseCsv(body, {
      bom: true,
      delimiter: csvDelimiter(body.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]),
      relax_column_count: true,
      skip_empty_lines: true,
      to_line: PREVIEW_ROWS + 1 + 20,
    }) as string[][];
    const [header = [], ...rows] = records;
    return { preview: { header: header.map((h) => h.trim()), rows: rows.slice(0, PREVIEW_ROWS) } };
  } catch (err) {
    return { error: `the first lines are not readable CSV: ${(err as Error).message}` };
  }
}
