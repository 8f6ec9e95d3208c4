/**
 * The gateway calls of a contact file upload (spec part 2 §7 Contacts "File upload"): the upload URL
 * (GET {user}/users/upload_url, or GET {segmentwrapper}/segments/upload_url for a segment made from the file), the PUT
 * of the file's bytes to it with XMLHttpRequest so its upload progress can be shown (fetch has no upload progress),
 * and the import's status (GET {joblog}/bulk_upload_status). Messages are the spec's, from src/domain/contactUpload.ts.
 */
import type { components } from '../../../generated/types/joblog.gen';
import { callOperation } from './gateway';
import { withRetry } from '../retry';
import { normaliseErrorText } from '../../domain/errors';
import {
  s3KeyOfUploadUrl,
  statusFailedMessage,
  statusKey,
  statusSince,
  uploadContentType,
  uploadFailedMessage,
  uploadUrlMessage,
} from '../../domain/contactUpload';

/** The status call's answer, as generated from openapi/joblog.yaml. */
export type BulkUploadStatus = components['schemas']['BulkUploadStatus'];

/** Where the file's contacts go: contacts only, or contacts that also become a new segment named after the file. */
export type UploadMode = 'contacts' | 'segment';

/** A failure whose `messages` are what the user is shown (the spec's message first, then the reason when there is one). */
export class ContactUploadError extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join(': '));
  }
}

/** The PUT's retries (spec part 2 §7: 2/250 ms), for network failures and 5xx answers only. */
const PUT_RETRY = { retries: 2, delayMs: 250 };

/**
 * getUploadUrl asks for a pre-signed upload URL for `file` and resolves it. Rejects with ContactUploadError
 * ["couldn't get url to upload file {name}", reason].
 */
export async function getUploadUrl(mode: UploadMode, file: File, columns?: Record<string, string>): Promise<string> {
  const query = { filename: file.name, type: uploadContentType(file), ...(columns ? { columns: JSON.stringify(columns) } : {}) };
  try {
    const { data } = await callOperation(mode === 'segment' ? 'getSegmentUploadUrl' : 'getContactUploadUrl', { query });
    if (typeof data !== 'string' || !data) throw new Error('the answer had no URL');
    return data;
  } catch (err) {
    throw new ContactUploadError([uploadUrlMessage(file.name), (err as Error).message].filter(Boolean));
  }
}

/** An answer of one PUT attempt: status 0 when there was none (a network failure). */
interface PutAnswer {
  status: number;
  statusText: string;
  body: string;
}

function putOnce(url: string, file: File, type: string, onProgress: (loaded: number, total: number) => void): Promise<PutAnswer> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', type);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, body: xhr.responseText });
    xhr.onerror = () => resolve({ status: 0, statusText: 'Unknown networking error', body: '' });
    xhr.onabort = () => resolve({ status: 0, statusText: 'the upload was cancelled', body: '' });
    xhr.send(file);
  });
}

/**
 * putFile PUTs `file` to the upload URL with the content type it was signed for, reporting bytes sent through
 * `onProgress(loaded, total)`; a network failure or 5xx is retried 2 times 250 ms apart (a retry starts again at 0).
 * Resolves the status key (the URL's s3_key, ".csv" appended for .xlsx) on 200; rejects with ContactUploadError
 * ['Upload of file {name} failed with status {status}: {text}'] otherwise, the text being the server's reason.
 */
export async function putFile(url: string, file: File, onProgress: (loaded: number, total: number) => void): Promise<string> {
  const type = uploadContentType(file);
  const answer = await withRetry(async () => {
    const a = await putOnce(url, file, type, onProgress);
    if (a.status === 0 || a.status >= 500) throw Object.assign(new Error(a.statusText), { answer: a, status: a.status || undefined });
    return a;
  }, PUT_RETRY).catch((err: Error & { answer?: PutAnswer }) => err.answer ?? { status: 0, statusText: err.message, body: '' });
  // Not a gateway operation: the pre-signed PUT target has no schema in openapi/ (getContactUploadUrl's description gives
  // its answer, {data: {s3_key}} or {errors}), so this one answer shape is stated here and read defensively.
  let body: { data?: { s3_key?: string }; errors?: unknown } = {};
  try {
    body = answer.body ? JSON.parse(answer.body) : {};
  } catch {
    /* not JSON: the status text is shown */
  }
  if (answer.status !== 200) {
    const reason = Array.isArray(body.errors) && body.errors.length ? normaliseErrorText(body.errors) : answer.statusText || 'no answer';
    throw new ContactUploadError([uploadFailedMessage(file.name, answer.status, reason)]);
  }
  const fromUrl = s3KeyOfUploadUrl(url);
  const key = fromUrl ? statusKey(fromUrl) : body.data?.s3_key;
  if (!key) throw new ContactUploadError([uploadFailedMessage(file.name, answer.status, 'the answer named no stored file')]);
  return key;
}

/**
 * getUploadStatus reads the import status of the file stored under status key `s3Key`, looking back 12 hours from
 * `now`. Rejects with ContactUploadError ["Unable to determine processing status due to '…'"].
 */
export async function getUploadStatus(s3Key: string, now = new Date()): Promise<BulkUploadStatus> {
  try {
    return await callOperation('getBulkUploadStatus', { query: { s3_key: s3Key, since: statusSince(now) } });
  } catch (err) {
    throw new ContactUploadError([statusFailedMessage((err as Error).message)]);
  }
}
