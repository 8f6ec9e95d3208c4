/**
 * Pure helpers of the Notifications screen and the job-log poll (spec part 1 §2 Notifications screen, §3
 * Notification / job log entry, §4, §9): job labels, the shown name, status and the errors gathered from end_details.
 */
import type { components } from '../../../generated/types/joblog.gen';
import { normaliseErrorText } from '../../domain/errors';
import { truncateText } from './eventDetails';

export type JobLogEntry = components['schemas']['JobLogEntry'];

/** Spec part 1 §9: the Notifications screen loads 1,000 entries and cuts names at 60 characters. */
export const NOTIFICATIONS_LIMIT = 1000;
export const NOTIFICATION_NAME_MAX = 60;
/** Spec part 1 §4, §7, §9: while logged in the latest 100 entries are read every 15 s and once at start. */
export const JOB_POLL_LIMIT = 100;
export const JOB_POLL_MS = 15_000;

/** Job names (openapi/joblog.yaml, src/workers) → the spec's labels (part 1 §2 Notifications screen). */
const JOB_LABELS: Record<string, string> = {
  JOB_PARSE_CONTACT_FILE: 'parsed contact file',
  JOB_CREATE_WORKFLOW: 'created workflow',
  JOB_DELETE_WORKFLOW: 'archived workflow',
  JOB_PROCESS_EMAIL_BLAST: 'processed partial email blast',
  JOB_DISTRIBUTE_EMAIL_BLAST: 'distributed partial email blast',
  JOB_ACCOUNT_ACTIVATED: 'account activated',
  JOB_ACCOUNT_SANDBOXED: 'account returned to the sandbox',
};

/**
 * jobLabel is the label of a job name; unknown names are shown as they are. Contact-file parsing is not built yet,
 * so any name about a contact file (e.g. JOB_PROCESS_CONTACT_FILE) also reads 'parsed contact file'.
 */
export function jobLabel(jobName: string): string {
  const known = JOB_LABELS[jobName];
  if (known) return known;
  if (/CONTACT_?FILE|USER_?FILE|BULK_?UPLOAD/i.test(jobName)) return 'parsed contact file';
  return jobName;
}

function detail(obj: unknown, key: string): unknown {
  return obj && typeof obj === 'object' && !Array.isArray(obj) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * jobName is the entry's file or item name: start_details.filename, .name or .workflow_payload.name, or an operator's
 * notice (.notice: "Your account is active: …"); '' if none.
 */
export function jobName(entry: Pick<JobLogEntry, 'start_details'>): string {
  const d = entry.start_details;
  for (const value of [detail(d, 'filename'), detail(d, 'name'), detail(detail(d, 'workflow_payload'), 'name'), detail(d, 'notice')]) {
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

function messagesOf(value: unknown): string[] {
  if (value === null || value === undefined || value === '' || value === false) return [];
  if (Array.isArray(value)) return value.flatMap(messagesOf);
  const textValue = typeof value === 'object' ? JSON.stringify(value) : String(value);
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
