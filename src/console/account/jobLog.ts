/**
 * Pure helpers of the Notifications screen and the job-log poll (spec part 1 §2 Notifications screen, §3
 * Notification / job log entry, §4, §9): job labels, the shown name, status and the errors gathered from end_details.
 */
import type { components } from '../../../generated/types/joblog.gen';
import { normaliseErrorText } from '../../domain/errors';
import { truncateText } from './eventDetails';
import { describeProcessingError } from '../../domain/contactUpload';
import { JOB_WEBHOOK_SECRET_REVEALED } from '../../domain/webhooks';

export type JobLogEntry = components['schemas']['JobLogEntry'];

/** Spec part 1 §9: the Notifications screen loads 1,000 entries and cuts names at 60 characters. */
export const NOTIFICATIONS_LIMIT = 1000;
export const NOTIFICATION_NAME_MAX = 60;
/** Spec part 1 §4, §7, §9: while logged in the latest 100 entries are read every 15 s and once at start. */
export const JOB_POLL_LIMIT = 100;
export const JOB_POLL_MS = 15_000;

/**
 * Job names (openapi/joblog.yaml, src/workers) → what the Notifications screen and the job toasts call them. The spec
 * (part 1 §2) lists "parsed contact file", "processed partial email blast" and the like, which read
 * as plumbing to a new customer, so each says in plain words what happened.
 */
const JOB_LABELS: Record<string, string> = {
  JOB_PARSE_CONTACT_FILE: 'Contact file import',
  JOB_CREATE_WORKFLOW: 'Workflow saved',
  JOB_DELETE_WORKFLOW: 'Workflow archived',
  JOB_PROCESS_EMAIL_BLAST: 'Email blast queued for sending',
  JOB_DISTRIBUTE_EMAIL_BLAST: 'Email blast sent',
  JOB_CREATE_SEGMENT_FROM_FILTERS: 'Segment created from filters',
  JOB_PAUSE_SENDING: 'Marketing sending paused',
  JOB_BLOCK_ALERT: 'Receivers are blocking mail from a sending domain',
  JOB_ACCOUNT_ACTIVATED: 'Account activated',
  JOB_ACCOUNT_SANDBOXED: 'Account returned to the sandbox',
  [JOB_WEBHOOK_SECRET_REVEALED]: 'Webhook signing secret revealed',
};

/**
 * jobLabel is the label of a job name. A name about a contact file (e.g. JOB_PROCESS_CONTACT_FILE) reads "Contact file
 * import"; any other unknown name is said in words ("JOB_REBUILD_INDEX" → "Rebuild index"), never as the raw name.
 */
export function jobLabel(jobName: string): string {
  const known = JOB_LABELS[jobName];
  if (known) return known;
  if (/CONTACT_?FILE|USER_?FILE|BULK_?UPLOAD/i.test(jobName)) return JOB_LABELS.JOB_PARSE_CONTACT_FILE;
  const words = jobName
    .replace(/^JOB_/i, '')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : jobName;
}

function detail(obj: unknown, key: string): unknown {
  return obj && typeof obj === 'object' && !Array.isArray(obj) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * jobName is the entry's file or item name: start_details.filename, .file_name (a contact import), .name or
 * .workflow_payload.name, or an operator's notice (.notice: "Your account is active: …"); '' if none.
 */
export function jobName(entry: Pick<JobLogEntry, 'start_details'>): string {
  const d = entry.start_details;
  for (const value of [detail(d, 'filename'), detail(d, 'file_name'), detail(d, 'name'), detail(detail(d, 'workflow_payload'), 'name'), detail(d, 'notice')]) {
    if (typeof value === 'string' && value.trim()) return value;
  }
  return '';
}

/** shortJobName is jobName cut at 60 characters with an ellipsis (spec part 1 §9). */
export function shortJobName(entry: Pick<JobLogEntry, 'start_details'>): string {
  return truncateText(jobName(entry), NOTIFICATION_NAME_MAX);
}

export type JobStatus = 'in progress' | 'succeeded' | 'failed';

/** jobStatus: in progress without an end time, succeeded when it ended with success, failed otherwise (spec §3). */
export function jobStatus(entry: Pick<JobLogEntry, 'ended_at' | 'success'>): JobStatus {
  if (!entry.ended_at) return 'in progress';
  return entry.success ? 'succeeded' : 'failed';
}

/**
 * textOf says one error value in words: a refused row ({line, column, reason}) as the upload screen does, another
 * object as its values ("key: value"), never as JSON (whose escaped quotes became backslashes once quotes were
 * stripped).
 */
function textOf(value: object): string {
  const v = value as Record<string, unknown>;
  if (typeof v.line === 'number' && typeof v.reason === 'string')
    return describeProcessingError({ line: v.line, column: typeof v.column === 'string' ? v.column : null, reason: v.reason });
  return Object.entries(v)
    .map(([key, item]) => `${key}: ${item !== null && typeof item === 'object' ? textOf(item) : String(item)}`)
    .join(', ');
}

function messagesOf(value: unknown): string[] {
  if (value === null || value === undefined || value === '' || value === false) return [];
  if (Array.isArray(value)) return value.flatMap(messagesOf);
  const textValue = typeof value === 'object' ? textOf(value) : String(value);
  const normalised = normaliseErrorText(textValue);
  return normalised ? [normalised] : [];
}

/**
 * jobErrors gathers the values of every end_details field whose name contains 'error' (any case, at any depth), as
 * normalised one-line texts without duplicates (spec part 1 §2 Notifications screen, §8).
 */
export function jobErrors(endDetails: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key.toLowerCase().includes('error')) found.push(...messagesOf(v));
      else walk(v);
    }
  };
  walk(endDetails);
  return [...new Set(found)];
}

/** jobToast is the poll's notice for a job that has just ended, e.g. 'distributed partial email blast: succeeded'. */
export function jobToast(entry: JobLogEntry): string {
  // An operator's notice (core/operator: activation) is said as it is.
  const notice = detail(entry.start_details, 'notice');
  if (typeof notice === 'string' && notice) return notice;
  const name = shortJobName(entry);
  return `${jobLabel(entry.job_name)}${name ? ` (${name})` : ''}: ${jobStatus(entry)}`;
}
