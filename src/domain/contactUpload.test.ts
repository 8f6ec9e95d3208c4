import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  checkContactFile,
  contactFileKind,
  describeProcessingError,
  extensionMessage,
  formatBytes,
  importCounts,
  isProcessingDone,
  MAX_CONTACT_FILE_BYTES,
  newUploadItem,
  pollIntervalMs,
  processingProgress,
  rejectionMessage,
  s3KeyOfUploadUrl,
  segmentNameForFile,
  sortContactFiles,
  statusFailedMessage,
  statusKey,
  statusSince,
  summariseProcessingErrors,
  uploadContentType,
  uploadFailedMessage,
  uploadUrlMessage,
  withError,
  withStatus,
  withUploaded,
  withUploadProgress,
  XLSX_CONTENT_TYPE,
  type UploadStatus,
} from './contactUpload';
import { readContactHeader, readContactRow } from './contactImport';

const MiB = 1024 ** 2;

describe('file acceptance', () => {
  it('takes .csv and .xlsx in any letter case', () => {
    expect(contactFileKind('a.csv')).toBe('csv');
    expect(contactFileKind('A.XLSX ')).toBe('xlsx');
    expect(contactFileKind('a.xls')).toBeUndefined();
    expect(contactFileKind('csv')).toBeUndefined();
  });

  it("refuses other extensions with the spec's message", () => {
    expect(checkContactFile({ name: 'notes.txt', size: 10 })).toBe('Incorrect or missing file extension: "notes.txt", please upload a csv or xslx file');
    expect(checkContactFile({ name: 'contacts', size: 10 })).toBe(extensionMessage('contacts'));
  });

  it('takes 1 byte up to 2 GB and refuses an empty or larger file', () => {
    expect(checkContactFile({ name: 'a.csv', size: 1 })).toBeUndefined();
    expect(checkContactFile({ name: 'a.csv', size: MAX_CONTACT_FILE_BYTES })).toBeUndefined();
    expect(checkContactFile({ name: 'a.csv', size: 0 })).toBe('"a.csv" is empty (0 bytes): a file must be 1 byte to 2 GB');
    expect(checkContactFile({ name: 'a.xlsx', size: MAX_CONTACT_FILE_BYTES + 1 })).toBe('"a.xlsx" is 2 GB: a file must be 1 byte to 2 GB');
  });

  it("sorts files in order and lists the refused ones after the spec's words", () => {
    const files = [
      { name: 'a.csv', size: 5 },
      { name: 'b.txt', size: 5 },
      { name: 'c.xlsx', size: 9 },
      { name: 'd.csv', size: 0 },
    ];
    const { accepted, rejected } = sortContactFiles(files);
    expect(accepted.map((f) => f.name)).toEqual(['a.csv', 'c.xlsx']);
    expect(rejected.map((r) => r.file.name)).toEqual(['b.txt', 'd.csv']);
    expect(rejectionMessage(rejected)).toBe(
      'some files didn\'t meet the size or file-type requirements: Incorrect or missing file extension: "b.txt", please upload a csv or xslx file; "d.csv" is empty (0 bytes): a file must be 1 byte to 2 GB',
    );
    expect(rejectionMessage([])).toBeUndefined();
  });

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(12.34 * MiB)).toBe('12.3 MB');
    expect(formatBytes(MAX_CONTACT_FILE_BYTES)).toBe('2 GB');
  });
});

describe('content type and keys', () => {
  it("sends the browser's type, or one by extension when the browser reports none", () => {
    expect(uploadContentType({ name: 'a.csv', type: 'application/vnd.ms-excel' })).toBe('application/vnd.ms-excel');
    expect(uploadContentType({ name: 'a.csv', type: '' })).toBe('text/csv');
    expect(uploadContentType({ name: 'a.XLSX', type: '' })).toBe(XLSX_CONTENT_TYPE);
  });

  it('reads the stored key from the upload URL and appends .csv for an .xlsx key', () => {
    const url = 'http://127.0.0.1:8080/uploads/tok.sig?s3_key=p1%2Fpeople-2026-01-02-ab12cd34.xlsx';
    expect(s3KeyOfUploadUrl(url)).toBe('p1/people-2026-01-02-ab12cd34.xlsx');
    expect(s3KeyOfUploadUrl('/uploads/tok')).toBeUndefined();
    expect(statusKey('p1/people-2026-01-02-ab12cd34.xlsx')).toBe('p1/people-2026-01-02-ab12cd34.xlsx.csv');
    expect(statusKey('p1/people-2026-01-02-ab12cd34.csv')).toBe('p1/people-2026-01-02-ab12cd34.csv');
  });

  it('names a segment made from a file after the file, without its extension', () => {
    expect(segmentNameForFile('Spring leads.CSV')).toBe('Spring leads');
    expect(segmentNameForFile('q3.xlsx')).toBe('q3');
  });

  it('asks for imports of the last 12 hours', () => {
    expect(statusSince(new Date('2026-03-01T06:00:00Z'))).toBe('2026-02-28T18:00:00.000Z');
  });
});

describe('processing progress and polling', () => {
  it('is (total − in progress) / total, 0 before the server counts jobs', () => {
    expect(processingProgress(0, 0)).toBe(0);
    expect(processingProgress(4, 3)).toBe(0.25);
    expect(processingProgress(4, 0)).toBe(1);
    expect(processingProgress(2, 5)).toBe(0);
  });

  it('stops when nothing is in progress out of more than one job, or on errors', () => {
    expect(isProcessingDone({ errors: [], num_in_progress_jobs: 0, num_total_jobs: 0 })).toBe(false);
    expect(isProcessingDone({ errors: [], num_in_progress_jobs: 0, num_total_jobs: 1 })).toBe(false);
    expect(isProcessingDone({ errors: [], num_in_progress_jobs: 1, num_total_jobs: 2 })).toBe(false);
    expect(isProcessingDone({ errors: [], num_in_progress_jobs: 0, num_total_jobs: 2 })).toBe(true);
    expect(isProcessingDone({ errors: ['bad header'], num_in_progress_jobs: 0, num_total_jobs: 0 })).toBe(true);
  });

  it('polls every 3 s, or 4, 6, 10 or 15 s by size (first matching step), plus 0 to 500 ms', () => {
    const none = () => 0;
    expect(pollIntervalMs(1, none)).toBe(3000);
    expect(pollIntervalMs(MiB, none)).toBe(3000);
    expect(pollIntervalMs(MiB + 1, none)).toBe(4000);
    expect(pollIntervalMs(10 * MiB + 1, none)).toBe(6000);
    expect(pollIntervalMs(100 * MiB + 1, none)).toBe(10_000);
    expect(pollIntervalMs(1024 * MiB + 1, none)).toBe(15_000);
    expect(pollIntervalMs(MAX_CONTACT_FILE_BYTES, none)).toBe(15_000);
    expect(pollIntervalMs(1, () => 0.999)).toBe(3499);
    for (let i = 0; i < 50; i++) {
      const ms = pollIntervalMs(5 * MiB);
      expect(ms).toBeGreaterThanOrEqual(4000);
      expect(ms).toBeLessThan(4500);
    }
  });
});

describe('messages', () => {
  it("are the spec's", () => {
    expect(uploadUrlMessage('a.csv')).toBe("couldn't get url to upload file a.csv");
    expect(uploadFailedMessage('a.csv', 413, 'The file is larger than 2 GB')).toBe('Upload of file a.csv failed with status 413: The file is larger than 2 GB');
    expect(statusFailedMessage('Unknown networking error')).toBe("Unable to determine processing status due to 'Unknown networking error'");
  });

  it('describe refused rows by line, column and reason, listing at most the cap', () => {
    expect(describeProcessingError({ line: 3, column: 'email', reason: 'Invalid email' })).toBe('Line 3, column email: Invalid email');
    expect(describeProcessingError({ line: 7, column: null, reason: 'expected 7 columns, found 3' })).toBe('Line 7: expected 7 columns, found 3');
    const errors = Array.from({ length: 250 }, (_, i) => ({ line: i + 2, column: 'email', reason: 'Invalid email' }));
    const s = summariseProcessingErrors(errors, 1200);
    expect(s.shown).toHaveLength(100);
    expect(s.shown[0].line).toBe(2);
    expect(s.more).toBe(150);
    expect(s.unrecordedRows).toBe(950);
    expect(summariseProcessingErrors(errors.slice(0, 3), 3)).toEqual({ shown: errors.slice(0, 3), more: 0, unrecordedRows: 0 });
  });
});

describe("one file's lifecycle", () => {
  const status = (over: Partial<UploadStatus>): UploadStatus => ({
    errors: [],
    num_in_progress_jobs: 0,
    num_total_jobs: 0,
    s3_key: 'k.csv',
    processing_errors: [],
    merged_rows: [],
    rows_imported: 0,
    rows_merged: 0,
    rows_failed: 0,
    segment_id: null,
    ...over,
  });

  it('goes waiting → uploading 0..1 → processing → success', () => {
    let item = newUploadItem('1', { name: 'a.csv', size: 100 });
    expect(item).toMatchObject({ phase: 'waiting', progress: 0, totalBytes: 100, filename: 'a.csv' });
    item = withUploadProgress(item, 50, 100);
    expect(item).toMatchObject({ phase: 'uploading', progress: 0.5 });
    item = withUploaded(item, 'k.csv');
    expect(item).toMatchObject({ phase: 'processing', progress: 1, s3Key: 'k.csv' });
    item = withStatus(
      item,
      status({ num_total_jobs: 2, num_in_progress_jobs: 1, rows_imported: 4, processing_errors: [{ line: 2, column: 'email', reason: 'Invalid email' }] }),
    );
    expect(item).toMatchObject({ phase: 'processing', numTotal: 2, numInProgress: 1, rowsImported: 4, processingErrors: [{ line: 2 }] });
    item = withStatus(item, status({ num_total_jobs: 2, rows_imported: 9, rows_failed: 1, segment_id: 's1' }));
    expect(item).toMatchObject({ phase: 'success', rowsImported: 9, rowsFailed: 1, segmentId: 's1', errors: [] });
  });

  it('records merged rows and says the counts in words', () => {
    const merged = {
      line: 200,
      column: 'email',
      reason: "merged into YUKI.OBRIEN3@EXAMPLE.COM (line 2): the same address in another letter case, so this row's values were not applied",
      email: 'yuki.obrien3@example.com',
      merged_into: 'YUKI.OBRIEN3@EXAMPLE.COM',
      first_line: 2,
    };
    const item = withStatus(
      withUploaded(newUploadItem('1', { name: 'a.csv', size: 100 }), 'k.csv'),
      status({ num_total_jobs: 2, rows_imported: 198, rows_merged: 1, rows_failed: 1, merged_rows: [merged] }),
    );
    expect(item).toMatchObject({ phase: 'success', rowsImported: 198, rowsMerged: 1, rowsFailed: 1, mergedRows: [merged] });
    expect(importCounts(item)).toBe('198 rows imported, 1 merged (same address in another case), 1 failed');
    expect(describeProcessingError(merged)).toBe(
      "Line 200, column email: merged into YUKI.OBRIEN3@EXAMPLE.COM (line 2): the same address in another letter case, so this row's values were not applied",
    );
    expect(importCounts({ rowsImported: 1, rowsMerged: 0, rowsFailed: 0 })).toBe('1 row imported, 0 failed');
    expect(importCounts({ rowsImported: 2, rowsMerged: 0, rowsFailed: 5 })).toBe('2 rows imported, 5 failed');
  });

  it("fails on the file's errors, and records other failures", () => {
    const item = withUploaded(newUploadItem('1', { name: 'a.csv', size: 100 }), 'k.csv');
    expect(withStatus(item, status({ errors: ['a.csv: the header has no email column'] }))).toMatchObject({
      phase: 'failed',
      errors: ['a.csv: the header has no email column'],
    });
    expect(withError(item, ['x'])).toMatchObject({ phase: 'failed', errors: ['x'] });
    expect(withError(item, ['y'], 'unknown')).toMatchObject({ phase: 'unknown', errors: ['y'] });
  });
});

describe('the sample file offered on the upload screen', () => {
  it('has only columns and values the import accepts', () => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../../public/samples/contacts-sample.csv'), 'utf8');
    const [head, ...rows] = parse(text) as string[][];
    const header = readContactHeader(head);
    if ('error' in header) throw new Error(header.error);
    expect(rows.length).toBeGreaterThan(2);
    rows.forEach((row, i) => expect(readContactRow(header.header, row, i + 2)).toHaveProperty('contact'));
  });
});
