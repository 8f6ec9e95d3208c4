/**
 * The XLSX row reader (src/server/core/contacts/xlsxRows.ts) against exceljs, a second reader, on workbooks written by openpyxl
 * (Debian's python3-openpyxl, 3.0, which writes inline strings) and by exceljs's writer (shared strings): inline and
 * shared strings, numbers, booleans, dates in
 * built-in and custom formats, the 1904 date system, gaps, formulas, rich text, XML escapes; then what exceljs does
 * not do (the first sheet in tab order, not in zip order) and the refusals (not a zip, no sheet, broken XML).
 */
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { columnIndex, readXlsxRows, serialDate, XlsxError, type XlsxRow } from '../../src/server/core/contacts/xlsxRows.ts';
import type { Cell } from '../../src/domain/contactImport.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mw-xlsxrows-'));
});

/** python runs an openpyxl script with the output file as sys.argv[1]; resolves the file. */
function python(name: string, script: string): string {
  const file = path.join(dir, name);
  execFileSync('/usr/bin/python3', ['-c', `import sys, datetime\nfrom openpyxl import Workbook\n${script}`, file]);
  return file;
}

async function ours(file: string): Promise<XlsxRow[]> {
  const rows: XlsxRow[] = [];
  await readXlsxRows(file, async (chunk) => {
    rows.push(...chunk);
  });
  return rows;
}

/** exceljsCell turns an exceljs value into a plain cell (as the importer did with exceljs). */
function exceljsCell(v: ExcelJS.CellValue): Cell {
  if (v === null || v === undefined) return undefined;
  if (v instanceof Date || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'object') {
    if ('richText' in v) return v.richText.map((t) => t.text).join('');
    if ('text' in v && typeof v.text === 'string') return v.text;
    if ('result' in v || 'formula' in v || 'sharedFormula' in v) return exceljsCell((v as { result?: ExcelJS.CellValue }).result);
    if ('error' in v) return String(v.error);
  }
  return String(v);
}

/** theirs reads the first worksheet in zip order with exceljs's streaming reader. */
async function theirs(file: string): Promise<XlsxRow[]> {
  const rows: XlsxRow[] = [];
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(createReadStream(file), {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  for await (const sheet of reader) {
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      const cells = Array.from((row.values as ExcelJS.CellValue[]).slice(1), exceljsCell);
      if (cells.length) rows.push({ line: row.number, cells });
    }
    break;
  }
  return rows;
}

const SAMPLE = `
wb = Workbook()
ws = wb.active
ws.title = 'Contacts'
ws.append(['email', 'first_name', 'n', 'flag', 'born', 'note'])
ws.append(['a@example.com', 'Ann & <Bo>', 7, True, datetime.datetime(1985, 7, 4), '  spaced  '])
ws.append(['b@example.com', None, 3.25, False, datetime.datetime(2001, 1, 31, 13, 45, 10), 'line one\\nline two'])
ws.append([])
ws.append(['c@example.com', 'Zoë 😀', -0.5, None, None, None])
ws['H5'] = 'far'
ws['A6'] = 'd@example.com'
ws['B6'] = 40000
ws['B6'].number_format = 'dd/mm/yyyy'
ws['C6'] = 40000
ws['C6'].number_format = '0.00'
ws['D6'] = '=1+2'
ws['E6'] = 'a@example.com'
`;

describe('readXlsxRows', () => {
  it('reads what exceljs reads from an openpyxl workbook (inline strings, numbers, booleans, dates, gaps, escapes)', async () => {
    const file = python('sample.xlsx', `${SAMPLE}\nwb.save(sys.argv[1])`);
    const rows = await ours(file);
    expect(rows).toEqual(await theirs(file));
    // And what that is, independently of exceljs.
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 5, 6]);
    expect(rows[1].cells).toEqual(['a@example.com', 'Ann & <Bo>', 7, true, new Date('1985-07-04T00:00:00Z'), '  spaced  ']);
    expect(rows[2].cells).toEqual(['b@example.com', undefined, 3.25, false, new Date('2001-01-31T13:45:10Z'), 'line one\nline two']);
    expect(rows[3].cells).toEqual(['c@example.com', 'Zoë 😀', -0.5, undefined, undefined, undefined, undefined, 'far']);
    // A number in a custom date format is a date (serial 40000 = 2009-07-06); in a number format it stays a number.
    // A formula that no spreadsheet program has calculated has no value.
    expect(rows[4].cells).toEqual(['d@example.com', new Date('2009-07-06T00:00:00Z'), 40000, undefined, 'a@example.com']);
  });

  it('reads inline strings (openpyxl write-only mode) and the 1904 date system as exceljs does', async () => {
    const file = python(
      'inline.xlsx',
      `
from openpyxl.utils.datetime import CALENDAR_MAC_1904
wb = Workbook(write_only=True)
ws = wb.create_sheet('Contacts')
ws.append(['email', 'name', 'score'])
for i in range(2000):
    ws.append([f'u{i}@example.com', f'Name {i} & <x>', i * 1.5])
ws.append(['amp@example.com', 'R&amp;D'])
wb.save(sys.argv[1])
wb2 = Workbook()
wb2.epoch = CALENDAR_MAC_1904
wb2.active.append(['born', datetime.datetime(2020, 2, 29)])
wb2.save(sys.argv[1] + '.1904.xlsx')`,
    );
    const rows = await ours(file);
    expect(rows).toHaveLength(2002);
    expect(rows[2000]).toEqual({ line: 2001, cells: ['u1999@example.com', 'Name 1999 & <x>', 2998.5] });
    // Text that looks like an entity is text: exceljs decodes it a second time ('R&D'); it is read as written.
    expect(rows[2001]).toEqual({ line: 2002, cells: ['amp@example.com', 'R&amp;D'] });
    expect(rows.slice(0, 2001)).toEqual((await theirs(file)).slice(0, 2001));
    const mac = await ours(`${file}.1904.xlsx`);
    expect(mac).toEqual([{ line: 1, cells: ['born', new Date('2020-02-29T00:00:00Z')] }]);
    expect(mac).toEqual(await theirs(`${file}.1904.xlsx`));
  });

  it('reads shared strings (a workbook written by exceljs) as exceljs does, rich-text runs joined, phonetic runs left out', async () => {
    const plain = path.join(dir, 'shared.plain.xlsx');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Contacts');
    sheet.addRow(['email', 'name', 'n', 'born']);
    sheet.addRow(['s1@example.com', { richText: [{ font: { bold: true }, text: 'Bold' }, { text: ' Name' }] }, 12, new Date('1990-05-06T00:00:00Z')]);
    sheet.addRow(['s2@example.com', 'Ann & <Bo>', 0.25, 'PHONETIC']);
    sheet.addRow(['s1@example.com', 'repeat', null, 'x']);
    await book.xlsx.writeFile(plain);
    const file = python(
      'shared.xlsx',
      `
import zipfile
src = zipfile.ZipFile(sys.argv[1].replace('shared.xlsx', 'shared.plain.xlsx'))
out = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
for item in src.infolist():
    data = src.read(item.filename)
    if item.filename == 'xl/sharedStrings.xml':
        assert b'<t>PHONETIC</t>' in data
        data = data.replace(b'<t>PHONETIC</t>', b'<t>Kanji</t><rPh sb="0" eb="1"><t>kana</t></rPh>')
    out.writestr(item, data)
out.close()`,
    );
    const rows = await ours(plain);
    expect(rows).toEqual(await theirs(plain));
    expect(rows.map((r) => r.cells)).toEqual([
      ['email', 'name', 'n', 'born'],
      ['s1@example.com', 'Bold Name', 12, new Date('1990-05-06T00:00:00Z')],
      ['s2@example.com', 'Ann & <Bo>', 0.25, 'PHONETIC'],
      ['s1@example.com', 'repeat', undefined, 'x'],
    ]);
    expect((await ours(file))[2].cells[3]).toBe('Kanji');
    // A shared-string part over the limit is refused before it is read (it would be held in memory).
    await expect(readXlsxRows(plain, async () => undefined, undefined, { maxSharedStringsBytes: 100 })).rejects.toThrow(
      /^its shared strings are too large to read \(1 MiB of XML; at most 0 MiB\)$/,
    );
  });

  it('reads the first sheet in tab order, whatever the order of the parts in the zip', async () => {
    const file = python(
      'order.xlsx',
      `
wb = Workbook()
wb.active.title = 'Second'
wb.active.append(['not this one'])
first = wb.create_sheet('First', 0)
first.append(['email'])
first.append(['first@example.com'])
wb.save(sys.argv[1])`,
    );
    expect(await ours(file)).toEqual([
      { line: 1, cells: ['email'] },
      { line: 2, cells: ['first@example.com'] },
    ]);
  });

  it('refuses a file that is not a zip, a zip with no workbook, and a sheet that is not well-formed XML', async () => {
    const notZip = path.join(dir, 'not.xlsx');
    await writeFile(notZip, 'email\na@b.co\n');
    await expect(ours(notZip)).rejects.toThrow(XlsxError);
    await expect(ours(notZip)).rejects.toThrow(/^it is not a zip archive/);

    const noBook = python(
      'nobook.xlsx',
      `
import zipfile
z = zipfile.ZipFile(sys.argv[1], 'w')
z.writestr('hello.txt', 'hi')
z.close()`,
    );
    await expect(ours(noBook)).rejects.toThrow('it has no workbook part');

    const broken = python(
      'broken.xlsx',
      `
import zipfile
wb = Workbook()
wb.active.append(['email'])
wb.save(sys.argv[1] + '.ok')
src = zipfile.ZipFile(sys.argv[1] + '.ok')
out = zipfile.ZipFile(sys.argv[1], 'w')
for item in src.infolist():
    data = src.read(item.filename)
    if item.filename == 'xl/worksheets/sheet1.xml':
        data = data.replace(b'</sheetData>', b'<row r="2"><c r="A2"><v>1</c></row></sheetData>')
    out.writestr(item, data)
out.close()`,
    );
    await expect(ours(broken)).rejects.toThrow(/^xl\/worksheets\/sheet1\.xml is not well-formed XML/);

    // Garbage in the middle of the sheet's compressed data (the sheet is most of the file).
    const corrupt = python(
      'corrupt.xlsx',
      `
wb = Workbook(write_only=True)
ws = wb.create_sheet('s')
for i in range(20000):
    ws.append([f'u{i}@example.com', i])
wb.save(sys.argv[1])
data = bytearray(open(sys.argv[1], 'rb').read())
middle = len(data) // 2
data[middle:middle + 256] = bytes(range(256))
open(sys.argv[1], 'wb').write(bytes(data))`,
    );
    await expect(ours(corrupt)).rejects.toThrow(/^xl\/worksheets\/sheet1\.xml (cannot be read|is not well-formed XML)/);
  });

  it('passes on an error thrown by the consumer and stops reading', async () => {
    const file = python(
      'stop.xlsx',
      `
wb = Workbook(write_only=True)
ws = wb.create_sheet('s')
for i in range(50000):
    ws.append([f'u{i}@example.com'])
wb.save(sys.argv[1])`,
    );
    let calls = 0;
    const stop = new Error('enough');
    await expect(
      readXlsxRows(file, async () => {
        calls++;
        throw stop;
      }),
    ).rejects.toBe(stop);
    expect(calls).toBe(1);
  });
});

describe('cell references and serial dates', () => {
  it('turns column letters into 0-based indexes', () => {
    expect([columnIndex('A1'), columnIndex('Z9'), columnIndex('AA10'), columnIndex('az3'), columnIndex('XFD1048576'), columnIndex('12')]).toEqual([
      0, 25, 26, 51, 16383, -1,
    ]);
  });

  it('converts serial dates in both systems, with the 1900 leap-year bug, to the second', () => {
    expect(serialDate(1, false)).toEqual(new Date('1900-01-01T00:00:00Z'));
    expect(serialDate(61, false)).toEqual(new Date('1900-03-01T00:00:00Z'));
    expect(serialDate(45000.75, false)).toEqual(new Date('2023-03-15T18:00:00Z'));
    expect(serialDate(0, true)).toEqual(new Date('1904-01-01T00:00:00Z'));
  });
});
