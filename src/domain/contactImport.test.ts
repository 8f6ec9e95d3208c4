import { describe, expect, it } from 'vitest';
import {
  checkMapping,
  compactMapping,
  csvDelimiter,
  dateOfBirth,
  parseMetadataValue,
  previewCsv,
  readContactHeader,
  readContactRow,
  suggestMapping,
  type ColumnMapping,
  type ContactHeader,
} from './contactImport';

const header = (cells: string[]): ContactHeader => {
  const r = readContactHeader(cells);
  if ('error' in r) throw new Error(r.error);
  return r.header;
};

describe('readContactHeader', () => {
  it('reads the columns case-insensitively, with a BOM and json.<key> columns keeping the key as written', () => {
    const h = header(['\uFEFFEmail', 'First_Name', 'TIMEZONE', 'json.Plan']);
    expect(h.columns).toEqual([
      { kind: 'field', field: 'email' },
      { kind: 'field', field: 'first_name' },
      { kind: 'field', field: 'timezone' },
      { kind: 'json_key', key: 'Plan' },
    ]);
  });
  it('stops the file on an unknown column, a duplicate, an empty name or no email column', () => {
    expect(readContactHeader(['email', 'phone'])).toEqual({ error: expect.stringMatching(/^unknown column "phone"/) });
    expect(readContactHeader(['email', 'Email'])).toEqual({ error: 'the column "Email" appears twice in the header' });
    expect(readContactHeader(['email', ''])).toEqual({ error: 'the header has an empty column name' });
    expect(readContactHeader(['first_name'])).toEqual({ error: 'the header has no email column' });
  });
});

describe('readContactRow', () => {
  const h = header(['email', 'first_name', 'last_name', 'timezone', 'date_of_birth', 'json', 'json.score']);
  it('reads a full row; dates are stored at 11:59:59 UTC; metadata keys are parsed as JSON when they can be', () => {
    expect(readContactRow(h, ['Ann@Example.com', 'Ann', '', 'Europe/Paris', '1990-02-28', '{"plan":"pro"}', '42'], 2)).toEqual({
      contact: {
        email: 'Ann@Example.com',
        first_name: 'Ann',
        timezone: 'Europe/Paris',
        date_of_birth: '1990-02-28T11:59:59.000Z',
        json: { plan: 'pro', score: 42 },
      },
    });
  });
  it('leaves empty cells out, so an update keeps the existing values', () => {
    expect(readContactRow(h, ['a@b.co', '', '', '', '', '', ''], 3)).toEqual({ contact: { email: 'a@b.co' } });
  });
  it('reports every problem of a row with its line and column', () => {
    expect(readContactRow(h, ['a@@b.co', 'x', 'y', 'Mars/Olympus', '1990-02-30', '[1]', '1'], 7)).toEqual({
      errors: [
        { line: 7, column: 'email', reason: 'Please don’t use confusing email addresses (e.g. with two @s)' },
        { line: 7, column: 'timezone', reason: 'unknown time zone "Mars/Olympus": use an IANA name such as America/New_York' },
        { line: 7, column: 'date_of_birth', reason: '"1990-02-30" is not a date: use YYYY-MM-DD' },
        { line: 7, column: 'json', reason: 'must be a JSON object, e.g. {"plan": "pro"}' },
      ],
    });
    expect(readContactRow(h, ['nobody', '', '', '', '', '', ''], 4)).toEqual({ errors: [{ line: 4, column: 'email', reason: 'Invalid email' }] });
    expect(readContactRow(h, ['a@nodot', '', '', '', '', '', ''], 5)).toEqual({ errors: [{ line: 5, column: 'email', reason: 'Must contain dot' }] });
    expect(readContactRow(h, ['', '', '', '', '', '', ''], 6)).toEqual({ errors: [{ line: 6, column: 'email', reason: 'Required field' }] });
  });
  it('refuses a row with the wrong number of columns and one with text that was not UTF-8', () => {
    expect(readContactRow(h, ['a@b.co', 'x'], 9)).toEqual({ errors: [{ line: 9, column: null, reason: 'expected 7 columns, found 2' }] });
    expect(readContactRow(h, ['a@b.co', 'Ren\uFFFDe', '', '', '', '', ''], 10)).toEqual({
      errors: [{ line: 10, column: 'first_name', reason: 'not valid UTF-8 text' }],
    });
  });
  it('takes XLSX cells as they come: numbers, booleans and date cells', () => {
    expect(readContactRow(h, ['a@b.co', 'A', 'B', '', new Date(Date.UTC(1985, 6, 4)), '', 7], 2)).toEqual({
      contact: { email: 'a@b.co', first_name: 'A', last_name: 'B', date_of_birth: '1985-07-04T11:59:59.000Z', json: { score: 7 } },
    });
  });
});

describe('parseMetadataValue and dateOfBirth', () => {
  it('reads JSON when it can, text otherwise, and null/undefined as null', () => {
    expect(parseMetadataValue('{"a":1}')).toEqual({ a: 1 });
    expect(parseMetadataValue('true')).toBe(true);
    expect(parseMetadataValue('pro plan')).toBe('pro plan');
    expect(parseMetadataValue(' undefined ')).toBeNull();
    expect(parseMetadataValue('null')).toBeNull();
  });
  it('accepts only real calendar dates', () => {
    expect(dateOfBirth('2024-02-29')).toBe('2024-02-29T11:59:59.000Z');
    expect(dateOfBirth('2023-02-29')).toBeUndefined();
    expect(dateOfBirth('29/02/2024')).toBeUndefined();
  });
});

describe('suggestMapping', () => {
  it('matches the common exports’ names for the fields and keeps every other column as metadata', () => {
    expect(suggestMapping(['Email Address', 'First Name', 'Last Name', 'Phone Number', 'TIMEZONE', 'Birthday'])).toEqual({
      'Email Address': 'email',
      'First Name': 'first_name',
      'Last Name': 'last_name',
      'Phone Number': 'json.phone_number',
      TIMEZONE: 'timezone',
      Birthday: 'json.birthday',
    });
    expect(suggestMapping(['EMAIL', 'FIRSTNAME', 'LASTNAME', 'SMS'])).toEqual({
      EMAIL: 'email',
      FIRSTNAME: 'first_name',
      LASTNAME: 'last_name',
      SMS: 'json.sms',
    });
    expect(suggestMapping(['E-mail', 'FNAME', 'json.plan'])).toEqual({ 'E-mail': 'email', FNAME: 'first_name', 'json.plan': 'json.plan' });
  });
  it('gives a field to its first column only and never one key to two columns', () => {
    expect(suggestMapping(['Email', 'E-mail', 'Plan', 'plan!'])).toEqual({
      Email: 'email',
      'E-mail': 'json.e_mail',
      Plan: 'json.plan',
      'plan!': 'json.plan_2',
    });
  });
});

describe('readContactHeader with a column mapping', () => {
  it('sends mapped columns where the mapping says, reads the rest by name, and skips what is skipped', () => {
    const r = readContactHeader(['Mail', 'Vorname', 'Notiz', 'last_name'], { Mail: 'email', Vorname: 'first_name', Notiz: 'skip' });
    expect(r).toEqual({
      header: {
        columns: [{ kind: 'field', field: 'email' }, { kind: 'field', field: 'first_name' }, { kind: 'skip' }, { kind: 'field', field: 'last_name' }],
        names: ['Mail', 'Vorname', 'Notiz', 'last_name'],
      },
    });
    const { header } = r as { header: ContactHeader };
    expect(readContactRow(header, ['a@b.co', 'Anna', '\uFFFD broken', 'Bauer'], 2)).toEqual({
      contact: { email: 'a@b.co', first_name: 'Anna', last_name: 'Bauer' },
    });
  });
  it('refuses two columns for one field and a file whose email column is skipped', () => {
    expect(readContactHeader(['email', 'Email Address'])).toEqual({ error: 'the columns "email" and "Email Address" both go to email' });
    expect(readContactHeader(['email', 'x'], { email: 'skip', x: 'first_name' })).toEqual({ error: 'the header has no email column' });
  });
});

describe('checkMapping', () => {
  it('accepts fields, json, json.<key> and skip, and names what is wrong otherwise', () => {
    expect(checkMapping({ A: 'email', B: 'json.plan', C: 'skip', D: 'skip', E: 'json' })).toBeUndefined();
    expect(checkMapping([])).toBe('must be an object of column name → target');
    expect(checkMapping({ A: 'phone' })).toMatch(/^"phone" \(for the column "A"\) is not a target/);
    expect(checkMapping({ A: 'email', B: 'email' })).toBe('"email" is chosen for two columns');
  });
});

describe('csvDelimiter', () => {
  it('reads the delimiter the header line uses, outside quotes', () => {
    expect(csvDelimiter('EMAIL;FIRSTNAME;LASTNAME')).toBe(';');
    expect(csvDelimiter('"Last; First",email')).toBe(',');
    expect(csvDelimiter('email\tfirst_name')).toBe('\t');
    expect(csvDelimiter('email')).toBe(',');
  });
});

describe('previewCsv', () => {
  it('reads the header and the first rows with the file’s delimiter, dropping a cut last line', () => {
    expect(previewCsv('EMAIL;FIRSTNAME\na@b.co;Ann\nb@b.co;Bo', true)).toEqual({
      preview: {
        header: ['EMAIL', 'FIRSTNAME'],
        rows: [
          ['a@b.co', 'Ann'],
          ['b@b.co', 'Bo'],
        ],
      },
    });
    expect(previewCsv('\uFEFFemail,name\na@b.co,"Ann, Jr."\nb@b.c', false)).toEqual({ preview: { header: ['email', 'name'], rows: [['a@b.co', 'Ann, Jr.']] } });
    const many = ['email', ...Array.from({ length: 9 }, (_, i) => `p${i}@b.co`)].join('\n');
    expect((previewCsv(many, true) as { preview: { rows: string[][] } }).preview.rows).toHaveLength(5);
  });
  it('says why it cannot preview', () => {
    expect(previewCsv('', true)).toEqual({ error: 'the file is empty' });
    expect(previewCsv('x'.repeat(100), false)).toEqual({ error: 'the first line is longer than 64 KB' });
    expect(previewCsv('email\n"a@b.co\n', true)).toMatchObject({ error: expect.stringMatching(/^the first lines are not readable CSV: /) });
  });
});

describe('the mapping the upload screen sends (compactMapping) and the other-columns rule', () => {
  const header = ['Email Address', 'First Name', 'Phone Number', 'Plan', 'plan!', '', 'TAGS'];
  it('sends only what differs from reading by name, with the other columns kept as metadata', () => {
    const chosen: ColumnMapping = { ...suggestMapping(header), TAGS: 'skip' };
    expect(chosen['']).toBe('skip');
    expect(compactMapping(header, chosen)).toEqual({ '*': 'metadata', 'plan!': 'json.plan_2', '': 'skip', TAGS: 'skip' });
    // The server reads the file with it as the screen showed it.
    const r = readContactHeader(header, compactMapping(header, chosen)) as { header: ContactHeader };
    expect(r.header.columns).toEqual([
      { kind: 'field', field: 'email' },
      { kind: 'field', field: 'first_name' },
      { kind: 'json_key', key: 'phone_number' },
      { kind: 'json_key', key: 'plan' },
      { kind: 'json_key', key: 'plan_2' },
      { kind: 'skip' },
      { kind: 'skip' },
    ]);
  });
  it('a wide export travels as a few entries; "*": skip leaves unknown columns out', () => {
    const wide = ['Email', ...Array.from({ length: 150 }, (_, i) => `Question ${i + 1}: ${'how did you hear about us? '.repeat(5)}`)];
    const sent = compactMapping(wide, suggestMapping(wide));
    expect(sent).toEqual({ '*': 'metadata' });
    expect(checkMapping(sent)).toBeUndefined();
    const r = readContactHeader(['email', 'x', 'y'], { '*': 'skip' }) as { header: ContactHeader };
    expect(r.header.columns.slice(1)).toEqual([{ kind: 'skip' }, { kind: 'skip' }]);
    expect(checkMapping({ '*': 'email' })).toBe('"email" (for the other columns, "*") is not one of metadata or skip');
  });
  it('takes "__proto__" and "constructor" as column names like any other', () => {
    const m = suggestMapping(['email', '__proto__', 'constructor']);
    expect(Object.keys(m)).toEqual(['email', '__proto__', 'constructor']);
    expect(m.constructor).toBe('json.constructor');
  });
});
