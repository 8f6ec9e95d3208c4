/**
 * Waiting on a workflow job (spec part 2 §4 Workflow save, Campaign archive, §9): the job log is read every
 * `pollMs` (the newest `entries` entries) until the entry of one job — by job name (JOB_CREATE_WORKFLOW or
 * JOB_DELETE_WORKFLOW) and start_details.workflow_id, optionally by entry id or leaving out entries known before the
 * job was asked for — has an ended_at, at most `attempts` reads. The gateway calls are injected, so the rules are
 * tested without a server; the campaign archive, the workflow list's archive and the editor's save all use it.
 */
import { normaliseErrorText } from '../../domain/errors';

/** A job-log entry as a wait reads it (openapi/joblog.yaml JobLogEntry). */
export interface JobEntry {
  id?: string;
  job_name: string;
  ended_at: string | null;
  success: boolean | null;
  start_details: Record<string, unknown>;
  end_details: Record<string, unknown> | null;
}

/** The calls a wait needs: read the newest `limit` job-log entries, and sleep `ms`. */
export interface JobWaitDeps {
  listJobs: (limit: number) => Promise<JobEntry[]>;
  sleep: (ms: number) => Promise<void>;
}

/** How a wait polls: every pollMs, reading `entries` job-log entries, at most `attempts` times. */
export interface WaitPolicy { pollMs: number; entries: number; attempts: number }

/** The workflow save and archive waits (part 2 §4, §9): every 2 s, 100 entries, up to 200 checks. */
export const WORKFLOW_JOB_WAIT: WaitPolicy = { pollMs: 2000, entries: 100, attempts: 200 };

/** The job that reports a workflow's save (spec part 1 §3 Notification / job log entry). */
export const JOB_CREATE_WORKFLOW = 'JOB_CREATE_WORKFLOW';
/** The job that reports a workflow's archive. */
export const JOB_DELETE_WORKFLOW = 'JOB_DELETE_WORKFLOW';

/** Which entry a wait looks for. */
export interface JobMatch {
  jobName: string;
  workflowId: string;
  /** The entry's id when the request answered it (a save's job_log_entry_id). */
  entryId?: string;
  /** Entries to pass over: those of earlier jobs for the same workflow, read before this job was asked for. */
  ignore?: ReadonlySet<string>;
}

/** How a wait ended: the job succeeded, failed (with its end_details errors), or the wait ran out of checks. */
export type JobWaitResult =
  | { status: 'succeeded'; entry: JobEntry }
  | { status: 'failed'; entry: JobEntry; error: string }
  | { status: 'timed_out' };

/**
 * jobEndError is the text of a job that ended without success: every end_details field whose name contains 'error'
 * (spec part 1 §2 Notifications screen), normalised to one line.
 */
export function jobEndError(entry: Pick<JobEntry, 'end_details'>): string {
  const values = Object.entries(entry.end_details ?? {})
    .filter(([key]) => key.toLowerCase().includes('error'))
    .map(([, v]) => (typeof v === 'string' ? v : JSON.stringify(v)));
  // end_details often carries both `error` (joined) and `errors` (the list): show the joined one alone then.
  const error = entry.end_details?.error;
  return normaliseErrorText(typeof error === 'string' && error ? [error] : values);
}

/** matchesJob is true for the ended entry a wait is looking for. */
export function matchesJob(entry: JobEntry, match: JobMatch): boolean {
  if (entry.job_name !== match.jobName || !entry.ended_at) return false;
  if (String(entry.start_details?.workflow_id ?? '').toLowerCase() !== match.workflowId.toLowerCase()) return false;
  if (match.entryId && entry.id !== match.entryId) return false;
  return !(entry.id && match.ignore?.has(entry.id));
}

/** waitForJob polls the job log until the matching entry has ended (see the module comment), or times out. */
export async function waitForJob(deps: JobWaitDeps, match: JobMatch, wait: WaitPolicy = WORKFLOW_JOB_WAIT): Promise<JobWaitResult> {
  for (let attempt = 1; attempt <= wait.attempts; attempt++) {
    const jobs = await deps.listJobs(wait.entries);
    const entry = jobs.find((j) => matchesJob(j, match));
    if (entry) return entry.success === false ? { status: 'failed', entry, error: jobEndError(entry) } : { status: 'succeeded', entry };
    if (attempt < wait.attempts) await deps.sleep(wait.pollMs);
  }
  return { status: 'timed_out' };
}

/** knownJobIds lists the ids of the entries of `jobName` for `workflowId` among `entries` (for JobMatch.ignore). */
export function knownJobIds(entries: JobEntry[], jobName: string, workflowId: string): Set<string> {
  return new Set(entries
    .filter((j) => j.job_name === jobName && String(j.start_details?.workflow_id ?? '').toLowerCase() === workflowId.toLowerCase() && j.id)
    .map((j) => j.id as string));
}
