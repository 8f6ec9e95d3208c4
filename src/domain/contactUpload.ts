/**
 * The console's side of contact file uploads (spec part 2 §4 "File upload lifecycle", §5 Uploads, §7
 * Contacts "File upload", §8, §9 Upload): which files may be sent, the content type they are sent with, the key the
 * status call takes, how far processing has got, when polling stops, how often it polls, the spec's messages, and the
 * state of one file on the upload screen. Pure functions; the upload screen (src/console/pages/ContactUploadPage.tsx)
 * and its gateway calls (src/console/data/contactUpload.ts) do the I/O.
 *
 * The server applies the same extension and size rules (src/server/core/contacts/upload.ts, src/server/plugins/uploads.ts);
 * checking them here refuses a wrong file before anything is sent.
 */
import type { MergedRow } from './importAddresses';

/** The smallest contact file accepted, in bytes (spec part 2 §9: 1 byte). */
export const MIN_CONTACT_FILE_BYTES = 1;

/** The largest contact file accepted, in bytes (spec part 2 §9: 2 GB, counted as 2 GiB like the server). */
export const MAX_CONTACT_FILE_BYTES = 2 * 1024 ** 3;

/** The MIME type a .csv file is sent as when the browser reports none. */
export const CSV_CONTENT_TYPE = 'text/csv';

/** The MIME type of an .xlsx workbook, sent when the browser reports none. */
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The start of the message listing refused files (spec part 2 §5 Uploads). */
export const REQUIREMENTS_MESSAGE = "some files didn't meet the size or file-type requirements";

/** contactFileKind is 'csv' or 'xlsx' by the name's extension (case-insensitive, surrounding spaces ignored), else undefined. */
export function contactFileKind(name: string): 'csv' | 'xlsx' | undefined {
  const m = /\.(csv|xlsx)$/i.exec(name.trim());
  return m ? (m[1].toLowerCase() as 'csv' | 'xlsx') : undefined;
}

/** extensionMessage is the spec's refusal of a file that is not .csv or .xlsx ('xslx' is the spec's own spelling). */
export function extensionMessage(name: string): string {
  return `Incorrect or missing file extension: "${name}", please upload a csv or xslx file`;
}

/** formatBytes renders a size in bytes for people: "0 bytes", "512 bytes", "1.5 kB", "12.3 MB", "2 GB" (1 kB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}

/**
 * checkContactFile says why a file (its name and size in bytes) cannot be uploaded, or undefined when it can: the
 * spec's extension message for anything but .csv/.xlsx, else a size outside 1 byte..2 GB.
 */
export function checkContactFile(file: { name: string; size: number }): string | undefined {
  if (!contactFileKind(file.name)) return extensionMessage(file.name);
  if (file.size < MIN_CONTACT_FILE_BYTES) return `"${file.name}" is empty (0 bytes): a file must be 1 byte to 2 GB`;
  if (file.size > MAX_CONTACT_FILE_BYTES) return `"${file.name}" is ${formatBytes(file.size)}: a file must be 1 byte to 2 GB`;
  return undefined;
}

/** A file refused before upload, with the reason from checkContactFile. */
export interface RejectedFile<F> {
  file: F;
  reason: string;
}

/** sortContactFiles splits dropped or picked files into those to upload and those refused (with reasons), keeping their order. */
export function sortContactFiles<F extends { name: string; size: number }>(files: readonly F[]): { accepted: F[]; rejected: RejectedFile<F>[] } {
  const accepted: F[] = [];
  const rejected: RejectedFile<F>[] = [];
  for (const file of files) {
    const reason = checkContactFile(file);
    if (reason) rejected.push({ file, reason });
    else accepted.push(file);
  }
  return { accepted, rejected };
}

/**
 * rejectionMessage is the spec's message for refused files: "some files didn't meet the size or file-type
 * requirements: " followed by each file's reason, joined by "; ". Undefined when nothing was refused.
 */
export function rejectionMessage(rejected: ReadonlyArray<{ reason: string }>): string | undefined {
  return rejected.length ? `${REQUIREMENTS_MESSAGE}: ${rejected.map((r) => r.reason).join('; ')}` : undefined;
}

/**
 * uploadContentType is the MIME type to ask the upload URL for and to PUT with (the server signs it and checks the PUT
 * against it): the type the browser reports, or for an unreported one text/csv or the XLSX type by extension.
 */
export function uploadContentType(file: { name: string; type: string }): string {
  const reported = file.type.trim();
  if (reported) return reported;
  return contactFileKind(file.name) === 'xlsx' ? XLSX_CONTENT_TYPE : CSV_CONTENT_TYPE;
}

/** s3KeyOfUploadUrl reads the stored file's key from an upload URL's `s3_key` query parameter; undefined when absent or the URL is malformed. */
export function s3KeyOfUploadUrl(url: string): string | undefined {
  try {
    return new URL(url, 'http://localhost').searchParams.get('s3_key') || undefined;
  } catch {
    return undefined;
  }
}

/** statusKey is the key the status call takes: the stored key, with ".csv" appended for an .xlsx file (spec part 2 §7). */
export function statusKey(s3Key: string): string {
  return contactFileKind(s3Key) === 'xlsx' ? `${s3Key}.csv` : s3Key;
}

/** How far back the status call looks for the import, in ms (spec part 2 §7: 12 hours). */
export const STATUS_LOOKBACK_MS = 12 * 3600_000;

/** statusSince is the status call's `since`: the ISO 8601 UTC instant STATUS_LOOKBACK_MS (12 h) before `now`. */
export function statusSince(now: Date): string {
  return new Date(now.getTime() - STATUS_LOOKBACK_MS).toISOString();
}

/** The status call's answer (openapi/joblog.yaml BulkUploadStatus). */
export interface UploadStatus {
  errors: string[];
  num_in_progress_jobs: number;
  num_total_jobs: number;
  s3_key: string;
  processing_errors: ProcessingError[];
  /** Rows merged into an earlier row of the same address in another letter case (listed once the import has ended). */
  merged_rows: MergedRow[];
  rows_imported: number;
  rows_merged: number;
  rows_failed: number;
  segment_id: string | null;
}

/** One refused row: its line (CSV) or row (XLSX) number with the header as 1, the column at fault (null: the whole row), why. */
export interface ProcessingError {
  line: number;
  column: string | null;
  reason: string;
}

/**
 * processingProgress is the share of the import done, 0..1: (numTotal − numInProgress) / numTotal (spec part 2 §4);
 * 0 while the server reports no jobs yet.
 */
export function processingProgress(numTotal: number, numInProgress: number): number {
  if (!(numTotal > 0)) return 0;
  return Math.min(1, Math.max(0, (numTotal - numInProgress) / numTotal));
}

/**
 * isProcessingDone is the spec's rule for when polling stops (part 2 §4): no job in progress out of more than one, or
 * errors reported for the file.
 */
export function isProcessingDone(status: Pick<UploadStatus, 'errors' | 'num_in_progress_jobs' | 'num_total_jobs'>): boolean {
  return (status.num_in_progress_jobs === 0 && status.num_total_jobs > 1) || status.errors.length > 0;
}

const MiB = 1024 ** 2;

/** The base poll interval, in ms (spec part 2 §9: 3 s). */
export const POLL_BASE_MS = 3000;

/** The largest random addition to a poll interval, in ms (spec part 2 §9: 0 to 500 ms), so many tabs do not poll in step. */
export const POLL_JITTER_MS = 500;

/**
 * Poll intervals by file size, in order; the first whose `above` (bytes) the file exceeds applies (spec part 2 §9:
 * "4, 6, 10 or 15 s; the conditions are ordered so only the first matches"): above 1 GiB 15 s, above 100 MiB 10 s,
 * above 10 MiB 6 s, above 1 MiB 4 s; anything smaller polls every POLL_BASE_MS (3 s). The server counts progress in
 * 1 MiB steps, so a file of a few MiB has little to show between quicker polls, and a large one takes minutes.
 */
export const POLL_STEPS: ReadonlyArray<{ above: number; ms: number }> = [
  { above: 1024 * MiB, ms: 15_000 },
  { above: 100 * MiB, ms: 10_000 },
  { above: 10 * MiB, ms: 6_000 },
  { above: MiB, ms: 4_000 },
];

/**
 * pollIntervalMs is how long to wait before the next status call for a file of `sizeBytes` bytes, in ms: the size's
 * step from POLL_STEPS (else POLL_BASE_MS, 3 s) plus `random()` × POLL_JITTER_MS (0 to 500 ms). `random` returns a
 * number in [0, 1) and defaults to Math.random.
 */
export function pollIntervalMs(sizeBytes: number, random: () => number = Math.random): number {
  const step = POLL_STEPS.find((s) => sizeBytes > s.above);
  return (step?.ms ?? POLL_BASE_MS) + Math.floor(random() * POLL_JITTER_MS);
}

/** segmentNameForFile is the name the server gives a segment made from file `name`: the name without .csv or .xlsx. */
export function segmentNameForFile(name: string): string {
  return name.trim().replace(/\.(csv|xlsx)$/i, '');
}

/** uploadUrlMessage is the spec's message when no upload URL could be had (part 2 §7). */
export function uploadUrlMessage(name: string): string {
  return `couldn't get url to upload file ${name}`;
}

/** uploadFailedMessage is the spec's message for a PUT answered with another status than 200 (part 2 §7); status 0 is no answer. */
export function uploadFailedMessage(name: string, status: number, text: string): string {
  return `Upload of file ${name} failed with status ${status}: ${text}`;
}

/** statusFailedMessage is the spec's message when the status call fails (part 2 §7), `reason` being its error text. */
export function statusFailedMessage(reason: string): string {
  return `Unable to determine processing status due to '${reason}'`;
}

/** How many refused rows the upload screen lists per file; the rest are summed up as "and N more". */
export const MAX_SHOWN_PROCESSING_ERRORS = 100;

/**
 * summariseProcessingErrors picks the refused rows to list (the first `cap`, default 100, in file order) and counts
 * what is left: `more`, the recorded problems not listed, and `unrecordedRows`, refused rows (of `rowsFailed`, all of
 * them counted by the server) that have no recorded problem at all (the server keeps the first 1,000 problems).
 */
export function summariseProcessingErrors(
  errors: readonly ProcessingError[],
  rowsFailed: number,
  cap = MAX_SHOWN_PROCESSING_ERRORS,
): { shown: ProcessingError[]; more: number; unrecordedRows: number } {
  const lines = new Set(errors.map((e) => e.line));
  return { shown: errors.slice(0, cap), more: Math.max(0, errors.length - cap), unrecordedRows: Math.max(0, rowsFailed - lines.size) };
}

/**
 * importCounts says a file's rows in words: "199 rows imported, 1 merged (same address in another case), 0 failed";
 * the merged part only when some rows were merged.
 */
export function importCounts(item: Pick<UploadItem, 'rowsImported' | 'rowsMerged' | 'rowsFailed'>): string {
  const merged = item.rowsMerged > 0 ? `, ${item.rowsMerged} merged (same address in another case)` : '';
  return `${item.rowsImported} ${item.rowsImported === 1 ? 'row' : 'rows'} imported${merged}, ${item.rowsFailed} failed`;
}

/** describeProcessingError renders one refused row for people: "Line 3, column email: Invalid email", or "Line 7: …" for the whole row. */
export function describeProcessingError(e: ProcessingError): string {
  return e.column === null ? `Line ${e.line}: ${e.reason}` : `Line ${e.line}, column ${e.column}: ${e.reason}`;
}

/**
 * One file on the upload screen (spec part 2 §3 "Upload progress": filename, progress, totalBytes, errors,
 * processingErrors; "Processing progress": numTotal, numInProgress, s3Key). `phase` moves waiting → uploading →
 * processing → success, or to failed (an upload, URL or file error) or unknown (the status call failed; polling may
 * be resumed).
 */
export interface UploadItem {
  id: string;
  filename: string;
  /** Size of the file in bytes. */
  totalBytes: number;
  phase: 'waiting' | 'uploading' | 'processing' | 'success' | 'failed' | 'unknown';
  /** Upload progress, 0..1. */
  progress: number;
  /** The status key, once the file is stored. */
  s3Key?: string;
  numTotal: number;
  numInProgress: number;
  errors: string[];
  processingErrors: ProcessingError[];
  /** Rows merged into an earlier row of the same address in another letter case, each with its line and reason. */
  mergedRows: MergedRow[];
  rowsImported: number;
  rowsMerged: number;
  rowsFailed: number;
  /** The segment made from the file (segment uploads). */
  segmentId: string | null;
}

/** newUploadItem is a file waiting for its turn to upload. */
export function newUploadItem(id: string, file: { name: string; size: number }): UploadItem {
  return {
    id,
    filename: file.name,
    totalBytes: file.size,
    phase: 'waiting',
    progress: 0,
    numTotal: 0,
    numInProgress: 0,
    errors: [],
    processingErrors: [],
    mergedRows: [],
    rowsImported: 0,
    rowsMerged: 0,
    rowsFailed: 0,
    segmentId: null,
  };
}

/** withUploadProgress records `loaded` of `total` bytes sent as upload progress 0..1 (a retried PUT starts again at 0). */
export function withUploadProgress(item: UploadItem, loaded: number, total: number): UploadItem {
  const progress = total > 0 ? Math.min(1, Math.max(0, loaded / total)) : 0;
  return { ...item, phase: 'uploading', progress };
}

/** withUploaded marks the file as stored under status key `s3Key`: upload progress 1, processing starts. */
export function withUploaded(item: UploadItem, s3Key: string): UploadItem {
  return { ...item, phase: 'processing', progress: 1, s3Key };
}

/** withStatus applies one status answer: counts, refused and merged rows, and success or failure once processing is done. */
export function withStatus(item: UploadItem, status: UploadStatus): UploadItem {
  const next: UploadItem = {
    ...item,
    numTotal: status.num_total_jobs,
    numInProgress: status.num_in_progress_jobs,
    processingErrors: status.processing_errors,
    mergedRows: status.merged_rows,
    rowsImported: status.rows_imported,
    rowsMerged: status.rows_merged,
    rowsFailed: status.rows_failed,
    segmentId: status.segment_id ?? item.segmentId,
    errors: status.errors,
  };
  if (status.errors.length) return { ...next, phase: 'failed' };
  return { ...next, phase: isProcessingDone(status) ? 'success' : 'processing' };
}

/** withError records a failure (one or more messages) and marks the file failed, or `unknown` for a status-call failure. */
export function withError(item: UploadItem, messages: string[], phase: 'failed' | 'unknown' = 'failed'): UploadItem {
  return { ...item, phase, errors: [...item.errors, ...messages] };
}
