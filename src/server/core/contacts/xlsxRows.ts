/**
 * A streaming reader of the first worksheet of an XLSX workbook (ECMA-376 SpreadsheetML), for the contact import
 * ("XLSX through a streaming reader"). It reads only what an import needs: cell values of one sheet.
 *
 * Why not exceljs's WorkbookReader (used before): it costs 1.55–2.1 s per 100,000 rows with nothing else to do, more
 * than PostgreSQL's whole COPY of the same rows, which made the issue's target (≥ 0.6 of COPY) unreachable; this
 * reader takes about half that (docs/architecture.md §7). The parts it stands on are libraries: yauzl for the zip
 * container (random access, so the shared strings are read before the sheet whatever the entries' order: openpyxl
 * writes the sheet first), saxes for XML (a strict streaming SAX parser, jsdom's) and numfmt for date formats and serial dates.
 * What is ours is the SpreadsheetML mapping: shared and inline strings, cell references and gaps, types, date styles.
 * tests/api/xlsxRows.api.test.ts checks it against exceljs on workbooks written by openpyxl.
 *
 * Memory: the shared-string table (every distinct text cell of the workbook) and one chunk of sheet XML; the sheet
 * itself is inflated and parsed as it streams.
 */
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import { dateFromSerial, isDateFormat } from 'numfmt';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { Cell } from '../../../domain/contactImport.ts';

/** One worksheet row: its 1-based row number in the sheet and its cells from column A (gaps are undefined). */
export interface XlsxRow {
  line: number;
  cells: Cell[];
}

/** Largest shared-string part read (uncompressed XML bytes; 1 GiB): its strings are held in memory. */
export const MAX_SHARED_STRINGS_BYTES = 2 ** 30;

/** XlsxError: the file is not a readable workbook (not a zip, no worksheet, broken XML). The message says why. */
export class XlsxError extends Error {}

/** Built-in number formats that show dates or times (ECMA-376 part 1 §18.8.30, plus the East Asian date ids). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

/** localName drops a namespace prefix (`x:c` → `c`): some writers prefix the SpreadsheetML namespace. */
const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

/** columnIndex turns the letters of a cell reference into a 0-based column (`B7` → 1, `AA1` → 26); -1 when none. */
export function columnIndex(ref: string): number {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 97 || c > 122) break;
    col = col * 26 + (c - 96);
  }
  return i === 0 ? -1 : col - 1;
}

/** serialDate turns a spreadsheet serial date (days, 1900 or 1904 system) into a UTC Date, to the second. */
export function serialDate(serial: number, date1904: boolean): Date {
  const [y, m, d, h, mi, s] = dateFromSerial(date1904 ? serial + 1462 : serial);
  return new Date(Date.UTC(y, m - 1, d, h, mi, s));
}

/** openZip opens a zip file for random access; a file that is not a zip is an XlsxError. */
async function openZip(file: string): Promise<ZipFile> {
  return await new Promise<ZipFile>((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) reject(new XlsxError(`it is not a zip archive (${err?.message ?? 'unreadable'})`));
      else resolve(zip);
    });
  });
}

/** listEntries reads the zip's central directory: entry name → entry. */
async function listEntries(zip: ZipFile): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: Entry) => {
      entries.set(e.fileName.replace(/^\/+/, ''), e);
      zip.readEntry();
    });
    zip.once('end', resolve);
    zip.once('error', (err) => reject(new XlsxError(`its zip directory is broken (${(err as Error).message})`)));
    zip.readEntry();
  });
  return entries;
}

/** entryStream opens an entry's inflated contents as UTF-8 text. */
async function entryStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  const stream = await new Promise<Readable>((resolve, reject) => {
    zip.openReadStream(entry, (err, s) => (err || !s ? reject(new XlsxError(`${entry.fileName} cannot be read (${err?.message})`)) : resolve(s)));
  });
  stream.setEncoding('utf8');
  return stream;
}

interface SaxHandlers {
  onopentag?(name: string, attrs: Record<string, string>): void;
  onclosetag?(name: string): void;
  ontext?(text: string): void;
}

/**
 * parseXml streams an entry through saxes (strict XML, entities decoded; names given without prefix). `afterChunk`
 * runs after each chunk's events (an import awaits its row writes there, so reading waits for writing).
 */
async function parseXml(zip: ZipFile, entry: Entry, handlers: SaxHandlers, afterChunk?: (chars: number) => Promise<void>): Promise<void> {
  const parser = new SaxesParser();
  const { onopentag, onclosetag, ontext } = handlers;
  if (onopentag) parser.on('opentag', (tag) => onopentag(localName(tag.name), tag.attributes as Record<string, string>));
  if (onclosetag) parser.on('closetag', (tag) => onclosetag(localName(tag.name)));
  if (ontext) {
    parser.on('text', ontext);
    parser.on('cdata', ontext);
  }
  const stream = await entryStream(zip, entry);
  const chunks = (stream as AsyncIterable<string>)[Symbol.asyncIterator]();
  let chars = 0;
  try {
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await chunks.next();
      } catch (err) {
        // Corrupt compressed data, a CRC or size mismatch.
        throw new XlsxError(`${entry.fileName} cannot be read (${(err as Error).message})`);
      }
      if (next.done) break;
      try {
        parser.write(next.value);
      } catch (err) {
        throw new XlsxError(`${entry.fileName} is not well-formed XML (${(err as Error).message})`);
      }
      chars += next.value.length;
      // The consumer's own errors pass through as they are.
      if (afterChunk) await afterChunk(chars);
    }
    try {
      parser.close();
    } catch (err) {
      throw new XlsxError(`${entry.fileName} is not well-formed XML (${(err as Error).message})`);
    }
  } finally {
    stream.destroy();
  }
  if (afterChunk) await afterChunk(chars);
}

/** relationships reads a .rels part: relationship id → { target path inside the zip, type }. */
async function relationships(
  zip: ZipFile,
  entries: Map<string, Entry>,
  relsPath: string,
  baseDir: string,
): Promise<Map<string, { target: string; type: string }>> {
  const rels = new Map<string, { target: string; type: string }>();
  const entry = entries.get(relsPath);
  if (!entry) return rels;
  await parseXml(zip, entry, {
    onopentag(name, a) {
      if (name !== 'Relationship' || !a.Id || !a.Target || a.TargetMode === 'External') return;
      const target = a.Target.startsWith('/') ? a.Target.slice(1) : normalize(`${baseDir}${a.Target}`);
      rels.set(a.Id, { target, type: a.Type ?? '' });
    },
  });
  return rels;
}

/** normalize resolves `.` and `..` segments of a zip path. */
function normalize(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '..') out.pop();
    else if (part && part !== '.') out.push(part);
  }
  return out.join('/');
}

/** The parts of a workbook the sheet's cells need. */
interface Workbook {
  sheet: Entry;
  sharedStrings?: Entry;
  styles?: Entry;
  date1904: boolean;
}

/** locateParts finds the first worksheet (in the workbook's tab order), the shared strings, the styles and the date system. */
async function locateParts(zip: ZipFile, entries: Map<string, Entry>): Promise<Workbook> {
  const root = await relationships(zip, entries, '_rels/.rels', '');
  const bookPath = [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  const book = entries.get(bookPath);
  if (!book) throw new XlsxError('it has no workbook part');
  const dir = bookPath.includes('/') ? bookPath.slice(0, bookPath.lastIndexOf('/') + 1) : '';
  const rels = await relationships(zip, entries, `${dir}_rels/${bookPath.slice(dir.length)}.rels`, dir);
  let date1904 = false;
  let firstSheetRel: string | undefined;
  await parseXml(zip, book, {
    onopentag(name, a) {
      if (name === 'workbookPr') date1904 = a.date1904 === '1' || a.date1904 === 'true';
      else if (name === 'sheet' && firstSheetRel === undefined) firstSheetRel = a['r:id'] ?? Object.entries(a).find(([k]) => k.endsWith(':id'))?.[1] ?? '';
    },
  });
  const byType = (suffix: string) => [...rels.values()].find((r) => r.type.endsWith(suffix))?.target;
  const sheetPath = (firstSheetRel && rels.get(firstSheetRel)?.target) || byType('/worksheet');
  const sheet = sheetPath ? entries.get(sheetPath) : undefined;
  if (!sheet) throw new XlsxError('it has no worksheet');
  return {
    sheet,
    sharedStrings: entries.get(byType('/sharedStrings') ?? `${dir}sharedStrings.xml`),
    styles: entries.get(byType('/styles') ?? `${dir}styles.xml`),
    date1904,
  };
}

/**
 * readSharedStrings reads the shared-string table: the text of each `<si>` (its `<t>`, or its rich-text runs joined;
 * phonetic `<rPh>` runs left out).
 */
async function readSharedStrings(zip: ZipFile, entry: Entry): Promise<string[]> {
  const strings: string[] = [];
  let current = '';
  let inT = false;
  let phonetic = 0;
  await parseXml(zip, entry, {
    onopentag(name) {
      if (name === 'si') current = '';
      else if (name === 't') inT = phonetic === 0;
      else if (name === 'rPh') phonetic++;
    },
    ontext(text) {
      if (inT) current += text;
    },
    onclosetag(name) {
      if (name === 't') inT = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') strings.push(current);
    },
  });
  return strings;
}

/** readDateStyles reads styles.xml: for each cell format (`cellXfs` index), whether its number format shows a date. */
async function readDateStyles(zip: ZipFile, entry: Entry): Promise<boolean[]> {
  const custom = new Map<number, string>();
  const xfFormats: number[] = [];
  let inCellXfs = false;
  await parseXml(zip, entry, {
    onopentag(name, a) {
      if (name === 'numFmt') custom.set(Number(a.numFmtId), a.formatCode ?? '');
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) xfFormats.push(Number(a.numFmtId ?? 0));
    },
    onclosetag(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return xfFormats.map((id) => {
    const code = custom.get(id);
    if (code !== undefined) {
      try {
        return isDateFormat(code);
      } catch {
        return false;
      }
    }
    return BUILTIN_DATE_FORMATS.has(id);
  });
}

/**
 * readXlsxRows streams the first worksheet (tab order) of the XLSX file at `file` and calls `onRows` with the rows of
 * each parsed chunk, in order, awaiting it before reading on (so a slow consumer holds the reader back). Rows with no
 * cells are skipped; a row's trailing empty cells are not stored in XLSX, so `cells` ends at its last stored cell.
 * Cell values: shared and inline strings and formula string results as text, numbers as numbers, numbers in a date
 * format as UTC Dates (1900 or 1904 system), booleans, ISO `t="d"` cells as Dates, error cells as their text (`#N/A`).
 * `onProgress(bytes)` is told, after each chunk, about how many bytes of the file have been read (the sheet's
 * compressed size scaled by how much of it has been parsed: an estimate for progress, reaching the file's size).
 * Throws XlsxError when the file is not a readable workbook, or when its shared-string part is larger than
 * `opts.maxSharedStringsBytes` (default MAX_SHARED_STRINGS_BYTES); errors thrown by `onRows` pass through.
 */
export async function readXlsxRows(
  file: string,
  onRows: (rows: XlsxRow[]) => Promise<void>,
  onProgress?: (bytes: number) => void,
  opts: { maxSharedStringsBytes?: number } = {},
): Promise<void> {
  const zip = await openZip(file);
  try {
    const entries = await listEntries(zip);
    const book = await locateParts(zip, entries);
    // The shared strings are held in memory: a part larger than the limit (a zip bomb, or a workbook far beyond a
    // contact list) is refused before it is read, rather than running the process out of memory.
    const limit = opts.maxSharedStringsBytes ?? MAX_SHARED_STRINGS_BYTES;
    if (book.sharedStrings && book.sharedStrings.uncompressedSize > limit) {
      throw new XlsxError(
        `its shared strings are too large to read (${Math.ceil(book.sharedStrings.uncompressedSize / 2 ** 20)} MiB of XML; at most ${Math.floor(limit / 2 ** 20)} MiB)`,
      );
    }
    const shared = book.sharedStrings ? await readSharedStrings(zip, book.sharedStrings) : [];
    const dateStyles = book.styles ? await readDateStyles(zip, book.styles) : [];
    const date1904 = book.date1904;

    let pending: XlsxRow[] = [];
    let line = 0;
    let cells: Cell[] = [];
    let col = -1;
    let type = '';
    let style = 0;
    let value = '';
    let inline = '';
    /** What text is being collected: 0 none, 1 `<v>`, 2 an inline string's `<t>`. */
    let collecting = 0;
    let phonetic = 0;
    let inRow = false;
    const finishCell = () => {
      let cell: Cell;
      switch (type) {
        case 's': {
          const s = shared[Number(value)];
          cell = value === '' ? undefined : s;
          break;
        }
        case 'inlineStr':
          cell = inline;
          break;
        case 'str':
          cell = value;
          break;
        case 'e':
          cell = value;
          break;
        case 'b':
          cell = value === '' ? undefined : value === '1' || value === 'true';
          break;
        case 'd':
          cell = value === '' ? undefined : new Date(value.length === 10 ? `${value}T00:00:00Z` : /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
          break;
        default: {
          if (value === '') {
            cell = undefined;
            break;
          }
          const n = Number(value);
          cell = Number.isNaN(n) ? value : dateStyles[style] ? serialDate(n, date1904) : n;
        }
      }
      if (cell !== undefined) cells[col] = cell;
    };
    await parseXml(
      zip,
      book.sheet,
      {
        onopentag(name, a) {
          switch (name) {
            case 'row':
              inRow = true;
              line = a.r ? Number(a.r) : line + 1;
              cells = [];
              col = -1;
              break;
            case 'c': {
              const ref = a.r ? columnIndex(a.r) : -1;
              col = ref >= 0 ? ref : col + 1;
              type = a.t ?? 'n';
              style = a.s ? Number(a.s) : 0;
              value = '';
              inline = '';
              break;
            }
            case 'v':
              collecting = 1;
              break;
            case 't':
              if (type === 'inlineStr' && phonetic === 0) collecting = 2;
              break;
            case 'rPh':
              phonetic++;
              break;
          }
        },
        ontext(text) {
          if (collecting === 1) value += text;
          else if (collecting === 2) inline += text;
        },
        onclosetag(name) {
          switch (name) {
            case 'v':
            case 't':
              collecting = 0;
              break;
            case 'rPh':
              phonetic--;
              break;
            case 'c':
              if (inRow) finishCell();
              break;
            case 'row':
              inRow = false;
              if (cells.length) {
                for (let i = 0; i < cells.length; i++) if (!(i in cells)) cells[i] = undefined;
                pending.push({ line, cells });
              }
              break;
          }
        },
      },
      async (chars) => {
        const before = zip.fileSize - book.sheet.compressedSize;
        onProgress?.(Math.round(before + book.sheet.compressedSize * Math.min(1, chars / Math.max(1, book.sheet.uncompressedSize))));
        if (!pending.length) return;
        const rows = pending;
        pending = [];
        await onRows(rows);
      },
    );
  } finally {
    zip.close();
  }
}
