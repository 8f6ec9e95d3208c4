/**
 * Contact file uploads on the server (spec part 2 §7 Contacts file upload, part 1 §3 Bulk upload
 * status): the pre-signed upload URL, what happens when the PUT has stored the file (a job-log entry
 * "parsed contact file" and a queued import job; for a segment upload, the new segment), and the status the console
 * polls. The import itself is src/server/core/contacts/import.ts.
 *
 * Progress is counted in jobs, as the spec's status shape has it: one per started MiB of the file plus one that
 * finishes it. The import records how many bytes it has read; num_in_progress_jobs is the MiBs not yet read plus the
 * finishing job, and 0 once the import has ended.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { uploadLink, type UploadTarget } from '../../mail/links.ts';
import { projectSecrets } from '../accounts/index.ts';
import { FieldErrors } from '../../errors.ts';
import { storedUploadName, UPLOAD_URL_TTL_MS } from '../../../domain/uploads.ts';
import { contactFileKind as fileKind, extensionMessage, statusKey } from '../../../domain/contactUpload.ts';
import { checkMapping, type ColumnMapping } from '../../../domain/contactImport.ts';
import type { MergedRow } from '../../../domain/importAddresses.ts';

/** Buckets of uploaded contact files: plain imports, and imports whose contacts become a new segment. */
export const CONTACT_UPLOADS_BUCKET = 'contact-uploads';
export const SEGMENT_UPLOADS_BUCKET = 'segment-uploads';

/** The job-log name of an import (openapi/joblog.yaml). */
export const JOB_PARSE_CONTACT_FILE = 'JOB_PARSE_CONTACT_FILE';

/** One "job" of progress accounting, in bytes. */
export const PROGRESS_CHUNK_BYTES = 1024 ** 2;

/** The file rules shared with the console (src/domain/contactUpload.ts): extension, message, status key, size. */
export { contactFileKind as fileKind, extensionMessage, MAX_CONTACT_FILE_BYTES, statusKey } from '../../../domain/contactUpload.ts';

/**
 * contactUploadUrl answers GET {user}/users/upload_url and GET {segmentwrapper}/segments/upload_url: a pre-signed
 * PUT URL valid 15 minutes, with the stored key in its `s3_key` query parameter. `columns`, when given, is the file's
 * column mapping as JSON (header name → email, first_name, last_name, timezone, date_of_birth, json,
 * json.<key> or skip); it travels signed in the URL and the import reads the file with it. Throws BadRequest naming
 * `filename` when the name is not .csv or .xlsx, `columns` when the mapping is not one (checkMapping).
 */
export async function contactUploadUrl(
  ctx: AppContext,
  projectId: string,
  filename: string,
  type: string,
  mode: 'contacts' | 'segment',
  now = new Date(),
  columns?: string,
  consent?: { text?: string; by?: string },
): Promise<string> {
  const errors = new FieldErrors();
  const consentText = consent?.text?.trim();
  const consentBy = consent?.by?.trim();
  if (consentText && !consentBy) errors.add('consent_by', 'say who ran the import that records consent (a name or an email address)');
  if (consentBy && !consentText) errors.add('consent', 'say how these people gave consent again, e.g. "Signed up at our stand, March 2027"');
  errors.add('filename', fileKind(filename) ? undefined : extensionMessage(filename));
  let mapping: ColumnMapping | undefined;
  if (columns !== undefined && columns !== '') {
    try {
      mapping = JSON.parse(columns) as ColumnMapping;
      errors.add('columns', checkMapping(mapping));
    } catch {
      errors.add('columns', 'is not JSON: send an object of column name → target, e.g. {"Email Address": "email"}');
    }
  }
  errors.throwIfAny();
  const secret = await projectSecrets(ctx.database.query.bind(ctx.database) as QueryFn)(projectId);
  if (!secret) throw new Error(`unknown project ${projectId}`);
  const key = `${projectId}/${storedUploadName(filename, now, randomBytes(4).toString('hex'))}`;
  const url = uploadLink(ctx.config.publicUrl, secret, {
    projectId,
    bucket: mode === 'segment' ? SEGMENT_UPLOADS_BUCKET : CONTACT_UPLOADS_BUCKET,
    key,
    type: type.trim().toLowerCase(),
    expiresAt: now.getTime() + UPLOAD_URL_TTL_MS,
    name: filename.trim().slice(0, 255),
    ...(mapping ? { columns: JSON.stringify(mapping) } : {}),
    ...(consentText && consentBy ? { consent: { text: consentText, by: consentBy } } : {}),
  });
  return `${url}?s3_key=${encodeURIComponent(key)}`;
}

/** originalName recovers the name a file was uploaded as from its stored key (drops the folder, date and suffix). */
export function originalName(key: string): string {
  return (key.split('/').pop() ?? key).replace(/-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}(\.[a-z0-9]+)?$/, '$1');
}

/**
 * startContactImport runs after the PUT has stored the file (`bytes` long): for a segment upload it creates the
 * segment (named after the file, without its extension; invisible until the import shows it), then records the job-log entry and queues the import, in
 * that order, so the status call finds the entry as soon as the PUT answers. Returns the job-log id.
 */
export async function startContactImport(ctx: AppContext, target: UploadTarget, bytes: number): Promise<string> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const name = target.name ?? originalName(target.key);
  let segmentId: string | null = null;
  if (target.bucket === SEGMENT_UPLOADS_BUCKET) {
    // Invisible until the import has read the file: a file refused as a whole leaves no empty segment behind.
    const [segment] = await query<{ id: string }>('INSERT INTO segments (project_id, name, invisible) VALUES ($1, $2, true) RETURNING id', [
      target.projectId,
      name.replace(/\.(csv|xlsx)$/i, ''),
    ]);
    segmentId = segment.id;
  }
  const details = {
    s3_key: statusKey(target.key),
    stored_key: target.key,
    bucket: target.bucket,
    file_name: name,
    bytes,
    bytes_read: 0,
    segment_id: segmentId,
    ...(target.columns ? { columns: JSON.parse(target.columns) as ColumnMapping } : {}),
    ...(target.consent ? { consent: target.consent } : {}),
  };
  const [entry] = await query<{ id: string }>('INSERT INTO job_log (project_id, job_name, start_details) VALUES ($1, $2, $3::jsonb) RETURNING id', [
    target.projectId,
    JOB_PARSE_CONTACT_FILE,
    JSON.stringify(details),
  ]);
  await ctx.queue.enqueue('contact-import', { jobLogId: entry.id });
  return entry.id;
}

/** The status of one import (openapi/joblog.yaml BulkUploadStatus). */
export interface BulkUploadStatus {
  errors: string[];
  num_in_progress_jobs: number;
  num_total_jobs: number;
  s3_key: string;
  processing_errors: Array<{ line: number; column: string | null; reason: string }>;
  /** Rows merged into an earlier row of the same address in another letter case; listed once the import has ended. */
  merged_rows: MergedRow[];
  rows_imported: number;
  /** Rows skipped because their address was erased at the person's request (core/privacy). */
  rows_erased: number;
  rows_merged: number;
  rows_failed: number;
  segment_id: string | null;
}

/**
 * bulkUploadStatus answers GET {joblog}/bulk_upload_status: the newest import of `s3Key` in the project started at or
 * after `since` (UTC), or all zeros and no errors when there is none yet (the upload has not finished).
 */
export async function bulkUploadStatus(query: QueryFn, projectId: string, s3Key: string, since?: Date): Promise<BulkUploadStatus> {
  const [row] = await query<{ ended: boolean; start_details: Record<string, unknown>; end_details: Record<string, unknown> | null }>(
    `SELECT ended_at IS NOT NULL AS ended, start_details, end_details FROM job_log
      WHERE project_id = $1 AND job_name = $2 AND start_details->>'s3_key' = $3 AND ($4::timestamptz IS NULL OR started_at >= $4)
      ORDER BY started_at DESC LIMIT 1`,
    [projectId, JOB_PARSE_CONTACT_FILE, s3Key, since?.toISOString() ?? null],
  );
  if (!row)
    return {
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
    };
  const start = row.start_details;
  const end = row.end_details ?? {};
  const bytes = Number(start.bytes ?? 0);
  const total = Math.max(1, Math.ceil(bytes / PROGRESS_CHUNK_BYTES)) + 1;
  const read = Math.min(bytes, Number(start.bytes_read ?? 0));
  const inProgress = row.ended ? 0 : Math.ceil((bytes - read) / PROGRESS_CHUNK_BYTES) + 1;
  return {
    errors: (end.errors as string[] | undefined) ?? [],
    num_in_progress_jobs: inProgress,
    num_total_jobs: total,
    s3_key: s3Key,
    processing_errors: ((row.ended ? end.processing_errors : start.processing_errors) as BulkUploadStatus['processing_errors'] | undefined) ?? [],
    merged_rows: (row.ended ? (end.merged_rows as MergedRow[] | undefined) : undefined) ?? [],
    rows_imported: Number((row.ended ? end.rows_imported : start.rows_imported) ?? 0),
    rows_erased: Number((row.ended ? end.rows_erased : start.rows_erased) ?? 0),
    rows_merged: Number((row.ended ? end.rows_merged : start.rows_merged) ?? 0),
    rows_failed: Number((row.ended ? end.rows_failed : start.rows_failed) ?? 0),
    segment_id: (start.segment_id as string | null) ?? null,
  };
}
