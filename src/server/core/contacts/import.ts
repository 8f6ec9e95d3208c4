/**
 * The contact file import job (job-log "parsed contact file", JOB_PARSE_CONTACT_FILE): streams the
 * stored CSV (csv-parse) or XLSX (src/server/core/contacts/xlsxRows.ts, a streaming reader of the first sheet) file, never holding it whole in memory, checks
 * every row (src/domain/contactImport.ts), and upserts the good ones by email in batches of BATCH_ROWS with one
 * `INSERT … SELECT FROM json_to_recordset(…) ON CONFLICT` statement each, on IMPORT_WRITERS (config importWriters) connections at once (for a segment upload, the batch's contacts join the
 * segment in the same statement). Refused rows are recorded with line, column and reason; the first
 * MAX_RECORDED_ERRORS are kept. Progress (bytes read, counts) is written to the job-log entry after every batch.
 *
 * Within one file an address is the same whatever its letter case (src/domain/importAddresses.ts): its first accepted
 * row is applied as written, a later row writing it the same way is applied over it (rows are deduplicated inside a
 * batch; a later batch updates what an earlier one wrote), and a later row writing it in another case is merged, not
 * applied, and reported (rows_merged; merged_rows, with the address it went into, once the import has ended). A contact
 * that existed before keeps its address as stored. An empty cell leaves the contact's value unchanged; metadata keys
 * merge into its json. rows_imported + rows_merged + rows_failed is the number of data rows read.
 * A whole-file problem (not really CSV/XLSX, a bad header) ends the import with `errors` and imports nothing more.
 */
import { Transform, type Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { readXlsxRows, XlsxError } from './xlsxRows.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { anyUpsertTriggered } from '../workflows/index.ts';
import { IMPORT_END, IMPORT_JOB, IMPORT_PROGRESS, MERGED_INTO, RECORD_IMPORT_CONSENT, SHOW_UPLOADED_SEGMENT } from './queries.ts';
import { upsertContactsSql } from './upsert.ts';
import { erasureKey, withAddressHashes } from '../privacy/key.ts';
import { fileKind, SEGMENT_UPLOADS_BUCKET } from './upload.ts';
import { withLocalFile } from '../../storage/storage.ts';
import {
  PREVIEW_BYTES,
  csvDelimiter,
  readContactHeader,
  readContactRow,
  type Cell,
  type ColumnMapping,
  type ContactHeader,
  type ContactRow,
  type RowError,
} from '../../../domain/contactImport.ts';
import { addressKey, FirstRows, mergedReason, type MergedRow } from '../../../domain/importAddresses.ts';

/** Rows per upsert statement. */
export const BATCH_ROWS = 5000;
/** laneOf spreads emails over `lanes` lanes (FNV-1a of the email's addressKey). */
function laneOf(email: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) h = Math.imul(h ^ email.charCodeAt(i), 16777619);
  return (h >>> 0) % lanes;
}

/** How many refused rows, and how many merged rows, are kept for the status call (all are counted). */
export const MAX_RECORDED_ERRORS = 1000;

/** A whole-file problem: the import stops and reports it in `errors`. */
class FileError extends Error {}

interface Details {
  bucket: string;
  stored_key: string;
  file_name: string;
  segment_id: string | null;
  bytes: number;
  /** The upload's column mapping, if it had one. */
  columns?: ColumnMapping;
  /** The runner's statement that the file's people gave consent again (RECORD_IMPORT_CONSENT), if given. */
  consent?: { text: string; by: string };
}

/** importContactFile runs the import recorded by job-log entry `jobLogId` (a no-op when it has already ended). */
export async function importContactFile(ctx: AppContext, jobLogId: string): Promise<void> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const [entry] = await query<{ project_id: string; start_details: Details; ended: boolean }>(IMPORT_JOB, [jobLogId]);
  if (!entry || entry.ended) return;
  const d = entry.start_details;
  const mapping = d.columns ?? {};
  const state = {
    bytesRead: 0,
    imported: 0,
    merged: 0,
    failed: 0,
    erased: 0,
    errors: [] as RowError[],
    mergedRows: [] as Omit<MergedRow, 'reason' | 'merged_into'>[],
  };
  // The first accepted row of each address, to tell a repeat written the same way from one in another case.
  const firstRows = new FirstRows();
  // Imported contacts enter the project's "contact created or updated" workflows, in the batch's statement.
  const entering = await anyUpsertTriggered(query, entry.project_id);
  const key = erasureKey(ctx.config);
  const refuse = (errs: RowError[]) => {
    state.failed++;
    for (const e of errs) if (state.errors.length < MAX_RECORDED_ERRORS) state.errors.push(e);
  };
  // Rows go to importWriters lanes by their email, each with its own batch and its own write in flight, so PostgreSQL can
  // upsert on several connections while the next rows are read. A lane writes its batches in file order (each waits
  // for the one before), and an email always goes to the same lane, so a later row of an email still wins. Lanes never
  // touch the same emails, so their statements never wait on each other's unique-index entries.
  const lanes = Array.from({ length: ctx.config.importWriters }, () => ({ batch: new Map<string, ContactRow>(), writing: Promise.resolve() as Promise<void> }));
  const flush = async (lane: (typeof lanes)[number]) => {
    await lane.writing;
    if (!lane.batch.size) return;
    const rows = [...lane.batch.values()];
    lane.batch = new Map();
    const progress = JSON.stringify({
      bytes_read: state.bytesRead,
      rows_imported: state.imported - state.erased,
      rows_erased: state.erased,
      rows_merged: state.merged,
      rows_failed: state.failed,
      processing_errors: state.errors.slice(0, 100),
    });
    lane.writing = (async () => {
      const segment = d.bucket === SEGMENT_UPLOADS_BUCKET ? d.segment_id : null;
      const hashed = withAddressHashes(key, rows);
      const consent = d.consent;
      state.erased += consent
        ? // Consent given again: the batch's contacts and their consent records are written together.
          await ctx.database.transaction(async (tx) => {
            const erased = await upsertBatch(tx, entry.project_id, hashed, segment, entering);
            await tx(RECORD_IMPORT_CONSENT, [entry.project_id, rows.map((r) => r.email.toLowerCase()), consent.text, d.file_name, consent.by]);
            return erased;
          })
        : await upsertBatch(query, entry.project_id, hashed, segment, entering);
      await query(IMPORT_PROGRESS, [jobLogId, progress]);
    })();
    // A failed write must not go unhandled while the next batch is read; it is thrown by the next flush.
    lane.writing.catch(() => undefined);
  };
  const drain = async () => {
    for (const lane of lanes) await flush(lane);
    for (const lane of lanes) await lane.writing;
  };
  const onRow = async (header: ContactHeader, cells: Cell[], line: number, cellCount?: number) => {
    const r = readContactRow(header, cells, line, cellCount);
    if ('errors' in r) return refuse(r.errors);
    const email = addressKey(r.contact.email);
    const seen = firstRows.see(r.contact.email, line, email);
    if (seen.kind === 'merged') {
      // The same address as an earlier row, in another case: not applied over that row's contact (its case, its values).
      state.merged++;
      if (state.mergedRows.length < MAX_RECORDED_ERRORS)
        state.mergedRows.push({ line, column: emailColumn(header), email: r.contact.email, first_line: seen.firstLine });
      return;
    }
    state.imported++;
    const lane = lanes[laneOf(email, lanes.length)];
    // A repeat written the same way wins: it replaces the earlier row's values in this batch.
    const earlier = lane.batch.get(email);
    lane.batch.delete(email);
    lane.batch.set(
      email,
      earlier ? { ...earlier, ...r.contact, json: earlier.json || r.contact.json ? { ...earlier.json, ...r.contact.json } : undefined } : r.contact,
    );
    if (lane.batch.size >= BATCH_ROWS) await flush(lane);
  };

  const fileErrors: string[] = [];
  try {
    if (fileKind(d.stored_key) === 'xlsx') {
      // A workbook is read with random access (its shared strings may come after the sheet): from its local file.
      await withLocalFile(ctx.storage, d.bucket, d.stored_key, (file) =>
        readXlsx(file, d.file_name, mapping, onRow, (bytes) => {
          state.bytesRead = bytes;
        }),
      );
    } else {
      const counter = new Transform({
        transform(chunk: Buffer, _e, done) {
          state.bytesRead += chunk.length;
          done(null, chunk);
        },
      });
      await readCsv(ctx.storage.getStream(d.bucket, d.stored_key).pipe(counter), d.file_name, mapping, onRow);
    }
    await drain();
  } catch (err) {
    if (!(err instanceof FileError)) console.error(`contact import ${jobLogId}:`, err);
    fileErrors.push(err instanceof FileError ? err.message : `the import failed: ${(err as Error).message}`);
    // Rows already read are kept: they are valid contacts.
    await drain().catch(() => undefined);
  }
  const mergedRows = await mergedInto(query, entry.project_id, state.mergedRows);
  // The segment of a segment upload is shown once the file has been read, unless it was refused as a whole.
  if (d.segment_id && (fileErrors.length === 0 || state.imported > 0)) await query(SHOW_UPLOADED_SEGMENT, [d.segment_id]);
  await query(IMPORT_END, [
    jobLogId,
    fileErrors.length === 0,
    JSON.stringify({ bytes_read: d.bytes }),
    JSON.stringify({
      rows_imported: state.imported - state.erased,
      rows_erased: state.erased,
      rows_merged: state.merged,
      rows_failed: state.failed,
      processing_errors: state.errors,
      merged_rows: mergedRows,
      errors: fileErrors,
      segment_id: d.segment_id,
    }),
  ]);
}

type OnRow = (header: ContactHeader, cells: Cell[], line: number, cellCount?: number) => Promise<void>;

/** emailColumn is the name of the header's email column, as written in the file. */
function emailColumn(header: ContactHeader): string {
  return header.names[header.columns.findIndex((c) => c.kind === 'field' && c.field === 'email')] ?? 'email';
}

/**
 * mergedInto completes the merged rows, once every row is written: the address of the live contact each went into,
 * as stored (a new contact's as its first row wrote it; one that existed before, as it was), and the reason in words.
 * Should the look-up fail, the rows are still reported, without the address.
 */
async function mergedInto(query: QueryFn, projectId: string, rows: Omit<MergedRow, 'reason' | 'merged_into'>[]): Promise<MergedRow[]> {
  const found = new Map<number, string>();
  if (rows.length) {
    const stored = await query<{ ord: number; email: string }>(MERGED_INTO, [projectId, rows.map((r) => r.email)]).catch((err: Error) => {
      console.error('contact import: the addresses merged into could not be read:', err);
      return [];
    });
    for (const s of stored) found.set(Number(s.ord), s.email);
  }
  return rows.map((r, i) => {
    const into = found.get(i + 1) ?? null;
    return { line: r.line, column: r.column, reason: mergedReason(r.first_line, into), email: r.email, merged_into: into, first_line: r.first_line };
  });
}

/**
 * readCsv reads a CSV stream row by row, its columns mapped by `mapping`; a header problem or binary content is a
 * FileError. The delimiter (comma, semicolon or tab) is the one the first line uses (csvDelimiter).
 */
async function readCsv(source: Readable, name: string, mapping: ColumnMapping, onRow: OnRow): Promise<void> {
  let header: ContactHeader | undefined;
  let checked = false;
  // The delimiter is known once the first chunk is seen; a stream that fails before that rejects it instead.
  let sniffed!: (delimiter: string) => void;
  let failed!: (err: Error) => void;
  const delimiter = new Promise<string>((resolve, reject) => ((sniffed = resolve), (failed = reject)));
  // The first line decides the delimiter, so the beginning is held until it is whole (or 64 KB long): a stream's first
  // chunk may end inside it.
  let head: Buffer[] = [];
  let headBytes = 0;
  const decide = (push: (b: Buffer) => void): FileError | undefined => {
    checked = true;
    const start = Buffer.concat(head);
    head = [];
    const sample = start.subarray(0, 4096);
    if (sample.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])))
      return new FileError(`${name} is not a CSV file: it is a zip archive (an Excel workbook must be named .xlsx)`);
    if (sample.includes(0)) return new FileError(`${name} is not a CSV file: it holds binary data`);
    sniffed(csvDelimiter(start.toString('utf8').split(/\r?\n/, 1)[0]));
    push(start);
    return undefined;
  };
  const sniff = new Transform({
    transform(chunk: Buffer, _e, done) {
      if (checked) return done(null, chunk);
      head.push(chunk);
      headBytes += chunk.length;
      if (!chunk.includes(0x0a) && headBytes < PREVIEW_BYTES) return done();
      const problem = decide((b) => this.push(b));
      if (problem) {
        failed(problem);
        return done(problem);
      }
      done();
    },
    flush(done) {
      if (!checked) {
        const problem = decide((b) => this.push(b));
        if (problem) {
          failed(problem);
          return done(problem);
        }
      }
      sniffed(',');
      done();
    },
  });
  const early = (err: Error) => failed(err);
  sniff.once('error', early);
  source.once('error', (err) => sniff.destroy(err));
  source.pipe(sniff);
  let parser;
  try {
    parser = sniff.pipe(parse({ bom: true, delimiter: await delimiter, relax_column_count: true, relax_quotes: false, skip_empty_lines: true, info: true }));
  } catch (err) {
    source.destroy();
    throw err;
  }
  sniff.off('error', early);
  sniff.on('error', (err) => parser.destroy(err));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      // A record spanning several lines (a quoted newline) is reported at its first line.
      const line = info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
      if (!header) {
        const h = readContactHeader(record, mapping);
        if ('error' in h) throw new FileError(`${name}: ${h.error}`);
        header = h.header;
        continue;
      }
      await onRow(header, record, line);
    }
  } catch (err) {
    if (err instanceof FileError) throw err;
    const e = err as Error & { code?: string; lines?: number };
    if (e.code?.startsWith('CSV_')) throw new FileError(`${name} is not a readable CSV file at line ${e.lines ?? '?'}: ${e.message}`);
    throw err;
  }
  if (!header) throw new FileError(`${name} is empty: the first line must be the header`);
}

/**
 * readXlsx reads the first worksheet of a stored XLSX file row by row (src/server/core/contacts/xlsxRows.ts); a file that is not a
 * workbook is a FileError. `onBytes` gets the reader's progress in bytes of the file.
 */
async function readXlsx(file: string, name: string, mapping: ColumnMapping, onRow: OnRow, onBytes: (bytes: number) => void): Promise<void> {
  let header: ContactHeader | undefined;
  let width = 0;
  try {
    await readXlsxRows(
      file,
      async (rows) => {
        for (const { line, cells } of rows) {
          while (cells.length && (cells[cells.length - 1] === undefined || cells[cells.length - 1] === '')) cells.pop();
          if (!header) {
            const h = readContactHeader(
              cells.map((c) => String(c ?? '')),
              mapping,
            );
            if ('error' in h) throw new FileError(`${name}: ${h.error}`);
            header = h.header;
            width = header.columns.length;
            continue;
          }
          if (!cells.length) continue;
          // Trailing empty cells are not stored in XLSX: pad to the header; more cells than the header is an error.
          const count = cells.length > width ? cells.length : width;
          while (cells.length < width) cells.push(undefined);
          await onRow(header, cells, line, count);
        }
      },
      onBytes,
    );
  } catch (err) {
    if (err instanceof XlsxError) throw new FileError(`${name} is not a readable XLSX file: ${err.message}`);
    throw err;
  }
  if (!header) throw new FileError(`${name} is empty: the first row must be the header`);
}

/**
 * upsertBatch creates or updates the batch's contacts by email (case-insensitive, among the project's live contacts)
 * with the one contact upsert (./upsert.ts: a value given replaces the stored one, an empty cell keeps it, metadata
 * merges) and, in the same statement, adds them to the segment of a segment upload and, when `enterWorkflows`,
 * starts a run of each enabled user_upserted workflow of the project for each of them. A row whose address was
 * erased (its `address_hash` has a tombstone) is skipped; returns how many were.
 */
async function upsertBatch(query: QueryFn, projectId: string, rows: ContactRow[], segmentId: string | null, enterWorkflows = false): Promise<number> {
  // The batch goes over as one JSON document (one native JSON.stringify, one json parse on the server): far cheaper
  // than seven text arrays that node-postgres escapes element by element and the server parses as array literals.
  const params: unknown[] = [projectId, JSON.stringify(rows)];
  if (segmentId) params.push(segmentId);
  const [{ erased }] = await query<{ erased: number }>(upsertContactsSql({ byTarget: false, segment: !!segmentId, enterWorkflows }), params);
  return Number(erased);
}
