/**
 * Contact file import on a real database with the job queue running (spec part 2 §7 Contacts file
 * upload, part 1 §3 Bulk upload status): the upload URL, the PUT streamed to storage, the "parsed contact file" job
 * importing a CSV and an XLSX written by openpyxl, every bad row reported by line with its reason while the others are
 * imported, the last row of a repeated email winning, an address in another letter case merged into its first row
 * (reported as merged, never applied), empty cells keeping values, files that are not CSV/XLSX or have
 * an unknown column refused as a whole, a segment made from a file, and one tenant never seeing another's import;
 * exports of Mailchimp, Brevo and HubSpot (tests/fixtures/exports) imported with the column mapping the upload screen
 * suggests. On
 * both storages: a folder and S3 (s3rver; the import then reads the CSV as a stream and the XLSX through a temporary
 * copy).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { writeXlsx } from '../helpers/xlsx.ts';
import { STORAGE_KINDS, storageUnderTest, type StorageUnderTest } from '../helpers/s3Server.ts';
import { parse } from 'csv-parse/sync';
import { csvDelimiter, suggestMapping, type ColumnMapping } from '../../src/domain/contactImport.ts';

let h: Harness;
let t: Tenant;
let storage: StorageUnderTest;

type Status = {
  errors: string[];
  num_in_progress_jobs: number;
  num_total_jobs: number;
  s3_key: string;
  processing_errors: Array<{ line: number; column: string | null; reason: string }>;
  merged_rows: Array<{ line: number; column: string; reason: string; email: string; merged_into: string | null; first_line: number }>;
  rows_imported: number;
  rows_merged: number;
  rows_failed: number;
  segment_id: string | null;
};

async function upload(
  name: string,
  body: Buffer,
  opts: { type?: string; tenant?: Tenant; segment?: boolean; columns?: ColumnMapping } = {},
): Promise<{ s3Key: string; put: { status: number; body: unknown } }> {
  const who = opts.tenant ?? t;
  const type = opts.type ?? (name.endsWith('.xlsx') ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv');
  const res = await h.call('GET', opts.segment ? '/api/segmentwrapper/segments/upload_url' : '/api/user/users/upload_url', {
    key: who.apiKey,
    query: { filename: name, type, ...(opts.columns ? { columns: JSON.stringify(opts.columns) } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const url = new URL(res.body.data);
  const key = url.searchParams.get('s3_key')!;
  const put = await h.app.inject({ method: 'PUT', url: url.pathname + url.search, headers: { 'content-type': type }, payload: body });
  return { s3Key: name.endsWith('.xlsx') ? `${key}.csv` : key, put: { status: put.statusCode, body: put.json() } };
}

async function status(s3Key: string, who = t): Promise<Status> {
  const res = await h.call('GET', '/api/joblog/bulk_upload_status', {
    key: who.apiKey,
    query: { s3_key: s3Key, since: new Date(Date.now() - 12 * 3600_000).toISOString() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function finished(s3Key: string): Promise<Status> {
  for (let i = 0; i < 300; i++) {
    const s = await status(s3Key);
    if ((s.num_in_progress_jobs === 0 && s.num_total_jobs > 1) || s.errors.length) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`import of ${s3Key} did not finish`);
}

/** contactsWith lists the tenant's live contacts whose address is `email` in any letter case. */
async function contactsWith(email: string, who = t) {
  const res = await h.call('GET', '/api/user/users', { key: who.apiKey, query: { search_field: 'email', search_value: email } });
  return (res.body.data as Array<{ email: string; first_name: string | null; last_name: string | null }>).filter(
    (c) => c.email.toLowerCase() === email.toLowerCase(),
  );
}

async function contact(email: string, who = t) {
  const res = await h.call('GET', '/api/user/users', { key: who.apiKey, query: { search_field: 'email', search_value: email } });
  return (res.body.data as Array<{ email: string }>).find((c) => c.email.toLowerCase() === email.toLowerCase());
}

describe.each(STORAGE_KINDS)(`contact file import (${API_DB}, %s storage)`, (kind) => {
  beforeAll(async () => {
    storage = await storageUnderTest(kind);
    h = await startHarness({ workers: true, config: { storageUrl: storage.storageUrl } });
    t = await h.tenant();
  });
  afterAll(async () => {
    await h?.close();
    await storage?.close();
  });

  it("refuses an upload URL for a file that is not .csv or .xlsx, with the spec's message", async () => {
    const res = await h.call('GET', '/api/user/users/upload_url', { key: t.apiKey, query: { filename: 'contacts.txt', type: 'text/plain' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['filename: Incorrect or missing file extension: "contacts.txt", please upload a csv or xslx file']);
    expect((await h.call('GET', '/api/user/users/upload_url', { query: { filename: 'a.csv', type: 'text/csv' } })).status).toBe(401);
  });

  it('imports the good rows of a CSV and reports each bad one by line, column and reason', async () => {
    // An existing contact: the file updates it, and its empty cells keep what it had.
    const pre = await h.call('POST', '/api/user/users', {
      key: t.apiKey,
      body: { users: [{ email: 'keep@example.com', first_name: 'Kept', last_name: 'Name', timezone: 'Europe/Paris', json: { tier: 'gold' } }] },
    });
    expect(pre.status).toBe(200);
    const csv = Buffer.concat([
      Buffer.from(
        [
          '\uFEFFEmail,first_name,last_name,timezone,date_of_birth,json.plan,json.score',
          'ann@example.com,Ann,Lee,America/New_York,1990-02-28,pro,42',
          'no-at.example.com,Bad,Row,,,,',
          'two@@example.com,Bad,Row,,,,',
          'nodot@example,Bad,Row,,,,',
          'tz@example.com,Bad,Zone,Mars/Olympus,,,',
          'short@example.com,Too,Few',
          'date@example.com,Bad,Date,,1990-13-01,,',
          '"multi@example.com","Multi ""Quoted""","Line',
          'Name",,,,',
          'KEEP@example.com,,,,,basic,',
          'dup@example.com,First,Version,,,,1',
          'dup@example.com,Second,Version,,,,2',
        ].join('\n') + '\n',
      ),
      Buffer.from('utf8@example.com,Ren'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('e,,,,,\n'),
    ]);
    const { s3Key, put } = await upload('My contacts.csv', csv);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(s3Key).toMatch(new RegExp(`^${t.projectId}/My-contacts-\\d{4}-\\d\\d-\\d\\d-[0-9a-f]{8}\\.csv$`));
    expect(await storage.objects('contact-uploads', t.projectId)).toEqual([s3Key.slice(t.projectId.length + 1)]);
    const s = await finished(s3Key);
    expect(s.errors).toEqual([]);
    expect(s.num_total_jobs).toBe(2);
    expect(s.rows_imported).toBe(5);
    expect(s.rows_failed).toBe(7);
    expect(s.processing_errors).toEqual([
      { line: 3, column: 'Email', reason: 'Invalid email' },
      { line: 4, column: 'Email', reason: 'Please don’t use confusing email addresses (e.g. with two @s)' },
      { line: 5, column: 'Email', reason: 'Must contain dot' },
      { line: 6, column: 'timezone', reason: 'unknown time zone "Mars/Olympus": use an IANA name such as America/New_York' },
      { line: 7, column: null, reason: 'expected 7 columns, found 3' },
      { line: 8, column: 'date_of_birth', reason: '"1990-13-01" is not a date: use YYYY-MM-DD' },
      { line: 14, column: 'first_name', reason: 'not valid UTF-8 text' },
    ]);
    expect(await contact('ann@example.com')).toMatchObject({
      first_name: 'Ann',
      last_name: 'Lee',
      timezone: 'America/New_York',
      date_of_birth: '1990-02-28T11:59:59.000Z',
      json: { plan: 'pro', score: 42 },
    });
    expect(await contact('multi@example.com')).toMatchObject({ first_name: 'Multi "Quoted"', last_name: 'Line\nName' });
    expect(await contact('keep@example.com')).toMatchObject({
      first_name: 'Kept',
      last_name: 'Name',
      timezone: 'Europe/Paris',
      json: { tier: 'gold', plan: 'basic' },
    });
    expect(await contact('dup@example.com')).toMatchObject({ first_name: 'Second', last_name: 'Version', json: { score: 2 } });
    expect(await contact('tz@example.com')).toBeUndefined();
    // The job log lists the import.
    const log = await h.call('GET', '/api/joblog/joblog', { key: t.apiKey });
    expect(log.body.data.find((j: { job_name: string; start_details: { s3_key: string } }) => j.start_details.s3_key === s3Key)).toMatchObject({
      job_name: 'JOB_PARSE_CONTACT_FILE',
      success: true,
    });
  });

  it('keeps the first row of an address written in two letter cases and reports the later one as merged', async () => {
    const csv = ['email,first_name,last_name', 'YUKI.OBRIEN3@EXAMPLE.COM,Yuki,OBrien'];
    for (let i = 0; i < 197; i++) csv.push(`person${i}@merge.example.com,P${i},Row`);
    csv.push('yuki.obrien3@example.com,Mallory,Other', 'not-an-address,Bad,Row');
    const { s3Key } = await upload('yuki.csv', Buffer.from(csv.join('\n') + '\n'));
    const s = await finished(s3Key);
    expect(s).toMatchObject({ errors: [], rows_imported: 198, rows_merged: 1, rows_failed: 1 });
    expect(s.rows_imported + s.rows_merged + s.rows_failed).toBe(200);
    expect(s.merged_rows).toEqual([
      {
        line: 200,
        column: 'email',
        reason: "merged into YUKI.OBRIEN3@EXAMPLE.COM (line 2): the same address in another letter case, so this row's values were not applied",
        email: 'yuki.obrien3@example.com',
        merged_into: 'YUKI.OBRIEN3@EXAMPLE.COM',
        first_line: 2,
      },
    ]);
    expect(s.processing_errors).toEqual([{ line: 201, column: 'email', reason: 'Invalid email' }]);
    const yuki = await contactsWith('yuki.obrien3@example.com');
    expect(yuki).toHaveLength(1);
    expect(yuki[0]).toMatchObject({ email: 'YUKI.OBRIEN3@EXAMPLE.COM', first_name: 'Yuki', last_name: 'OBrien' });
    // The job log's entry carries the same counts and rows.
    const log = await h.call('GET', '/api/joblog/joblog', { key: t.apiKey, query: { limit: 1000 } });
    const entry = log.body.data.find((j: { start_details: { s3_key: string } }) => j.start_details.s3_key === s3Key);
    expect(entry.end_details).toMatchObject({ rows_imported: 198, rows_merged: 1, rows_failed: 1, merged_rows: s.merged_rows });
  });

  it("merges across batches, keeps an existing contact's address as stored, applies a repeat written the same way", async () => {
    const pre = await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: 'Kiko.Stored@Example.com', first_name: 'Kiko' }] } });
    expect(pre.status).toBe(200);
    const csv = [
      'Email,first_name,last_name,timezone',
      'Far.Apart@Example.com,Far,First,', // line 2
      'kiko.stored@example.com,Kiko2,,', // 3: updates the existing contact, whose address stays as stored
      'REFUSED.FIRST@example.com,Refused,,Mars/Olympus', // 4: refused, so not the first row of its address
      'refused.first@example.com,Accepted,,', // 5: the first accepted row of it
      'KIKO.STORED@EXAMPLE.COM,Nope,Nope,', // 6: merged into the existing contact
      'kiko.stored@example.com,,Again,', // 7: written as line 3: applied
      'Refused.First@example.com,Nope,,', // 8: merged
    ];
    // Enough rows between for the far repeat to come in a later batch of its lane (5,000 rows a batch).
    for (let i = 0; i < 12_000; i++) csv.push(`bulk${i}@merge-batches.example.com,B${i},,`);
    csv.push('far.apart@example.com,Near,Last,', 'Far.Apart@Example.com,,Kept,');
    const { s3Key } = await upload('batches.csv', Buffer.from(csv.join('\n') + '\n'));
    const s = await finished(s3Key);
    const rows = csv.length - 1;
    expect(s).toMatchObject({ errors: [], rows_merged: 3, rows_failed: 1 });
    expect(s.rows_imported + s.rows_merged + s.rows_failed).toBe(rows);
    expect(s.merged_rows.map(({ line, column, email, merged_into, first_line }) => ({ line, column, email, merged_into, first_line }))).toEqual([
      { line: 6, column: 'Email', email: 'KIKO.STORED@EXAMPLE.COM', merged_into: 'Kiko.Stored@Example.com', first_line: 3 },
      { line: 8, column: 'Email', email: 'Refused.First@example.com', merged_into: 'refused.first@example.com', first_line: 5 },
      { line: rows, column: 'Email', email: 'far.apart@example.com', merged_into: 'Far.Apart@Example.com', first_line: 2 },
    ]);
    expect(await contactsWith('kiko.stored@example.com')).toEqual([
      expect.objectContaining({ email: 'Kiko.Stored@Example.com', first_name: 'Kiko2', last_name: 'Again' }),
    ]);
    expect(await contactsWith('refused.first@example.com')).toEqual([
      expect.objectContaining({ email: 'refused.first@example.com', first_name: 'Accepted', last_name: null }),
    ]);
    // The far repeat in another case is not applied; the last row, written as the first, is.
    expect(await contactsWith('far.apart@example.com')).toEqual([
      expect.objectContaining({ email: 'Far.Apart@Example.com', first_name: 'Far', last_name: 'Kept' }),
    ]);
  });

  it('imports an XLSX written by openpyxl, with date cells and numbers, reporting bad rows by row number', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mw-xlsx-'));
    const file = path.join(dir, 'people.xlsx');
    writeXlsx(file, [
      ['email', 'first_name', 'date_of_birth', 'json.score'],
      ['xl1@example.com', 'Xena', { date: '1985-07-04' }, 7],
      ['xl-bad', 'Nope', null, null],
      ['xl2@example.com', 'Yuri', '2001-01-31', 3.5],
    ]);
    const { s3Key, put } = await upload('people.xlsx', await readFile(file));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(s3Key).toMatch(/people-\d{4}-\d\d-\d\d-[0-9a-f]{8}\.xlsx\.csv$/);
    const s = await finished(s3Key);
    expect(s).toMatchObject({ errors: [], rows_imported: 2, rows_failed: 1, processing_errors: [{ line: 3, column: 'email', reason: 'Invalid email' }] });
    expect(await contact('xl1@example.com')).toMatchObject({ first_name: 'Xena', date_of_birth: '1985-07-04T11:59:59.000Z', json: { score: 7 } });
    expect(await contact('xl2@example.com')).toMatchObject({ first_name: 'Yuri', date_of_birth: '2001-01-31T11:59:59.000Z', json: { score: 3.5 } });
  });

  it('refuses as a whole a .csv that is really a workbook or binary, a file with an unknown column, and an empty file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mw-xlsx-'));
    writeXlsx(path.join(dir, 'w.xlsx'), [['email'], ['a@b.co']]);
    const zipped = await upload('renamed.csv', await readFile(path.join(dir, 'w.xlsx')));
    expect((await finished(zipped.s3Key)).errors).toEqual(['renamed.csv is not a CSV file: it is a zip archive (an Excel workbook must be named .xlsx)']);
    const notXlsx = await upload('fake.xlsx', Buffer.from('email\na@b.co\n'));
    expect((await finished(notXlsx.s3Key)).errors[0]).toMatch(/^fake\.xlsx is not a readable XLSX file: /);
    const unknown = await upload('cols.csv', Buffer.from('email,phone\na@b.co,123\n'));
    expect((await finished(unknown.s3Key)).errors).toEqual([
      'cols.csv: unknown column "phone": the columns are email, first_name, last_name, timezone, date_of_birth, json and json.<key> for metadata (or map the column when uploading)',
    ]);
    expect(await contact('a@b.co')).toBeUndefined();
    const empty = await upload('empty.csv', Buffer.alloc(0));
    expect(empty.put).toEqual({ status: 400, body: { errors: ['The file is empty'] } });
  });

  // Other services' exports, imported with the mapping the upload screen suggests for their header.
  const exports = [
    {
      file: 'mailchimp-audience.csv',
      mapped: { 'Email Address': 'email', 'First Name': 'first_name', 'Last Name': 'last_name', TIMEZONE: 'timezone', 'Phone Number': 'json.phone_number' },
      contact: { email: 'grace@mc.example.com', first_name: 'Grace', last_name: 'Hopper', timezone: 'America/New_York' },
      json: { notes: 'Met at the conference', gmtoff: -5, birthday: null },
    },
    {
      file: 'brevo-contacts.csv',
      mapped: { EMAIL: 'email', FIRSTNAME: 'first_name', LASTNAME: 'last_name', SMS: 'json.sms', 'CONTACT ID': 'json.contact_id' },
      contact: { email: 'ines@brevo.example.com', first_name: 'Inès', last_name: 'Dupont' },
      json: { sms: 33612345678, contact_id: 17 },
    },
    {
      file: 'hubspot-contacts.csv',
      mapped: { Email: 'email', 'First Name': 'first_name', 'Last Name': 'last_name', 'Lead Status': 'json.lead_status' },
      contact: { email: 'linus@hs.example.com', first_name: 'Linus', last_name: 'Torvalds' },
      json: { lead_status: 'NEW', phone_number: '+1 503 555 0100', record_id: 51 },
    },
  ];
  it.each(exports)('imports a $file export with the suggested column mapping', async ({ file, mapped, contact: expected, json }) => {
    const body = await readFile(path.join(import.meta.dirname, '../fixtures/exports', file));
    const text = body.toString('utf8');
    const [header] = parse(text, { delimiter: csvDelimiter(text.split(/\r?\n/, 1)[0]), to_line: 1 }) as string[][];
    const mapping = suggestMapping(header);
    expect(mapping).toMatchObject(mapped);
    // Without the mapping, the file's own columns stop it; with it, every row is imported.
    const plain = await upload(file, body);
    expect((await finished(plain.s3Key)).errors[0]).toMatch(/unknown column/);
    const { s3Key } = await upload(file, body, { columns: { ...mapping, [header[header.length - 1]]: 'skip' } });
    const s = await finished(s3Key);
    expect(s).toMatchObject({ errors: [], rows_imported: 2, rows_failed: 0, processing_errors: [] });
    const got = (await contact(expected.email)) as unknown as Record<string, unknown> & { json: Record<string, unknown> };
    expect(got).toMatchObject(expected);
    const { birthday, ...present } = json as Record<string, unknown>;
    expect(got.json).toMatchObject(present);
    if (birthday === null) expect(got.json).not.toHaveProperty('birthday'); // an empty cell leaves nothing
    // The skipped last column is not in the metadata.
    expect(Object.keys(got.json)).not.toContain(mapping[header[header.length - 1]].slice(5));
  });

  it('refuses a column mapping that is not one, naming columns, and a mapped file without an email column', async () => {
    for (const columns of ['{nope', '{"a": "phone"}', '{"a": "email", "b": "email"}', '[]']) {
      const res = await h.call('GET', '/api/user/users/upload_url', { key: t.apiKey, query: { filename: 'm.csv', type: 'text/csv', columns } });
      expect(res.status, columns).toBe(400);
      expect(res.body.errors[0], columns).toMatch(/^columns: /);
    }
    const { s3Key } = await upload('noemail.csv', Buffer.from('E-mail,Name\na@noemail.example.com,A\n'), { columns: { 'E-mail': 'skip', Name: 'first_name' } });
    expect((await finished(s3Key)).errors).toEqual(['noemail.csv: the header has no email column']);
    expect(await contact('a@noemail.example.com')).toBeUndefined();
  });

  it('makes a segment named after the file whose members are the imported contacts', async () => {
    const { s3Key, put } = await upload('Spring leads.csv', Buffer.from('email,first_name\nlead1@example.com,L1\nlead2@example.com,L2\nbad,x\n'), {
      segment: true,
    });
    expect(put.status).toBe(200);
    const s = await finished(s3Key);
    expect(s).toMatchObject({ rows_imported: 2, rows_failed: 1 });
    expect(s.segment_id).toMatch(/^[0-9a-f-]{36}$/);
    const seg = await h.call('GET', '/api/segment/segments', { key: t.apiKey, query: { ids: s.segment_id! } });
    expect(seg.body.data[0]).toMatchObject({ name: 'Spring leads', num_users: 2 });
    const members = await h.call('GET', '/api/user/users', { key: t.apiKey, query: { in_segment_ids: s.segment_id! } });
    expect(members.body.data.map((c: { email: string }) => c.email).sort()).toEqual(['lead1@example.com', 'lead2@example.com']);
  });

  it('a segment upload refused as a whole leaves no segment listed', async () => {
    const before = (await h.call('GET', '/api/segment/segments/count', { key: t.apiKey })).body.num_segments;
    const { s3Key } = await upload('Broken leads.csv', Buffer.from('email,phone\na@example.com,1\n'), { segment: true });
    const s = await finished(s3Key);
    expect(s.errors).toHaveLength(1);
    expect(s.segment_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await h.call('GET', '/api/segment/segments', { key: t.apiKey, query: { ids: s.segment_id! } })).body.data).toEqual([]);
    expect((await h.call('GET', '/api/segment/segments/count', { key: t.apiKey })).body.num_segments).toBe(before);
  });

  it('imports a file once per upload URL: a second PUT answers 410, adds no contacts and starts no import', async () => {
    const res = await h.call('GET', '/api/user/users/upload_url', { key: t.apiKey, query: { filename: 'once.csv', type: 'text/csv' } });
    const url = new URL(res.body.data);
    const put = (body: string) => h.app.inject({ method: 'PUT', url: url.pathname + url.search, headers: { 'content-type': 'text/csv' }, payload: body });
    const empty = await put('');
    expect(empty.statusCode).toBe(400); // refused: the URL stays unused
    const first = await put('email\nonce-a@import.example.com\n');
    expect(first.statusCode).toBe(200);
    const second = await put('email\nonce-b@import.example.com\n');
    expect(second.statusCode).toBe(410);
    expect(second.json()).toEqual({ errors: ['This upload link has already been used: start a new upload'] });
    const s = await finished(first.json().data.s3_key);
    expect(s.rows_imported).toBe(1);
    expect(await contact('once-a@import.example.com')).toBeDefined();
    expect(await contact('once-b@import.example.com')).toBeUndefined();
    const imports = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey, query: { limit: 1000 } })).body.data.filter(
      (j: { start_details?: { file_name?: string } }) => j.start_details?.file_name === 'once.csv',
    );
    expect(imports).toHaveLength(1);
  });

  it("never shows one tenant's import to another, and answers zeros before an import exists", async () => {
    const { s3Key } = await upload('mine.csv', Buffer.from('email\nmine@example.com\n'));
    await finished(s3Key);
    const other = await h.tenant();
    expect(await status(s3Key, other)).toEqual({
      errors: [],
      num_in_progress_jobs: 0,
      num_total_jobs: 0,
      s3_key: s3Key,
      processing_errors: [],
      merged_rows: [],
      rows_imported: 0,
      rows_erased: 0,
      rows_merged: 0,
      rows_failed: 0,
      segment_id: null,
    });
    expect(await contact('mine@example.com', other)).toBeUndefined();
  });
});
