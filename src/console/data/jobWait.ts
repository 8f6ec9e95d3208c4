/**
 * Waiting on a workflow job (spec part 1 §3 Notification / job log entry, part 2 §4 Workflow save, Campaign archive,
 * §7, §9): the job log is read every `pollMs` until the entry of one job — by job name (JOB_CREATE_WORKFLOW or
 * JOB_DELETE_WORKFLOW) and start_details.workflow_id — has an ended_at, at most `attempts` reads. When the request
 * answered the entry's id (a save's job_log_entry_id, an archive's job_log_id) that entry is read by id
 * (listJobLog?ids=), so a busy job log cannot push it out of view; otherwise (a 503 left it unknown) the newest
 * `entries` entries are read and the entries of the workflow's earlier jobs, read before the request, are passed over
 * (requestJob). A read that fails uses up one attempt; the wait reports the read error only when the last read failed
 * too. An ended entry whose success is not true has failed (part 1 §3). An AbortSignal ends the wait (and its sleep)
 * at once, rejecting with the signal's reason: the screens abort it when they unmount. The gateway calls are
 * injected, so the rules are tested without a server; the campaign archive, the workflow list's archive, the
 * editor's save and the wizard's launch all use it.
 */
import { normaliseErrorText } from '../../domain/errors';
import type { Schema } from './apiTypes';
import type { AppDataProvider } from './dataProvider';

/** The fields of a job-log entry a wait reads (openapi/joblog.yaml JobLogEntry, as generated; its id may be unknown). */
export type JobEntry = Pick<Schema<'joblog', 'JobLogEntry'>, 'job_name' | 'ended_at' | 'success' | 'start_details' | 'end_details'> &
  Partial<Pick<Schema<'joblog', 'JobLogEntry'>, 'id'>>;

/** The calls a wait needs: read job-log entries (those of `ids` when given, else the newest `limit`), and sleep `ms`. */
export interface JobWaitDeps {
  listJobs: (limit: number, ids?: string[]) => Promise<JobEntry[]>;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** How a wait polls: every pollMs, reading `entries` job-log entries, at most `attempts` times. */
export interface WaitPolicy {
  pollMs: number;
  entries: number;
  attempts: number;
}

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

/**
 * How a wait ended: the job succeeded, failed (with its end_details errors), the wait ran out of checks, or the last
 * read of the job log failed (`error`, its message), so whether the job ended is unknown.
 */
export type JobWaitResult =
  | { status: 'succeeded'; entry: JobEntry }
  | { status: 'failed'; entry: JobEntry; error: string }
  | { status: 'timed_out' }
  | { status: 'unreadable'; error: string };

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
  if (match.entryId) return entry.id === match.entryId;
  return !(entry.id && match.ignore?.has(entry.id));
}

/**
 * waitForJob polls the job log until the matching entry has ended (see the module comment), or times out; `signal`
 * aborts it (the promise then rejects with the signal's reason).
 */
export async function waitForJob(deps: JobWaitDeps, match: JobMatch, wait: WaitPolicy = WORKFLOW_JOB_WAIT, signal?: AbortSignal): Promise<JobWaitResult> {
  let readError: unknown;
  for (let attempt = 1; attempt <= wait.attempts; attempt++) {
    signal?.throwIfAborted();
    let jobs: JobEntry[] | undefined;
    try {
      jobs = match.entryId ? await deps.listJobs(1, [match.entryId]) : await deps.listJobs(wait.entries);
      readError = undefined;
    } catch (error) {
      readError = error;
    }
    signal?.throwIfAborted();
    const entry = jobs?.find((j) => matchesJob(j, match));
    if (entry) return entry.success === true ? { status: 'succeeded', entry } : { status: 'failed', entry, error: jobEndError(entry) };
    if (attempt < wait.attempts) await deps.sleep(wait.pollMs, signal);
  }
  if (readError !== undefined) return { status: 'unreadable', error: normaliseErrorText(readError) || 'the job log could not be read' };
  return { status: 'timed_out' };
}

/** knownJobIds lists the ids of the entries of `jobName` for `workflowId` among `entries` (for JobMatch.ignore). */
export function knownJobIds(entries: JobEntry[], jobName: string, workflowId: string): Set<string> {
  return new Set(
    entries
      .filter((j) => j.job_name === jobName && String(j.start_details?.workflow_id ?? '').toLowerCase() === workflowId.toLowerCase() && j.id)
      .map((j) => j.id as string),
  );
}

/** stillRunning is true for a request answered 503 or 504: the job it asked for probably runs on (part 2 §4). */
export function stillRunning(error: unknown): boolean {
  return [503, 504].includes(Number((error as { status?: unknown } | undefined)?.status));
}

/**
 * requestJob asks for a workflow job and answers what its wait must match: it reads the ids of the workflow's earlier
 * `jobName` entries first (the newest `wait.entries`; a failed read counts as none), then calls `send`, which answers
 * the new entry's id. A `send` answered 503 or 504 leaves the id unknown, and the wait passes over the earlier
 * entries instead; any other failure is thrown.
 */
export async function requestJob(
  deps: JobWaitDeps,
  job: { jobName: string; workflowId: string },
  send: () => Promise<string | undefined>,
  wait: WaitPolicy = WORKFLOW_JOB_WAIT,
): Promise<JobMatch> {
  const earlier = knownJobIds(await deps.listJobs(wait.entries).catch((): JobEntry[] => []), job.jobName, job.workflowId);
  let entryId: string | undefined;
  try {
    entryId = (await send()) || undefined;
  } catch (error) {
    if (!stillRunning(error)) throw error;
  }
  return { ...job, entryId, ignore: earlier };
}

/** abortableSleep resolves after `ms` milliseconds, or rejects with the signal's reason as soon as it is aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** gatewayJobWaitDeps binds a wait to the joblog gateway: listJobLog?ids=… for known entries, else ?limit=. */
export function gatewayJobWaitDeps(dataProvider: Pick<AppDataProvider, 'callGateway'>): JobWaitDeps {
  return {
    listJobs: async (limit, ids) =>
      (
        await dataProvider.callGateway('listJobLog', {
          query: { limit, ids: ids?.length ? ids.join(',') : undefined },
        })
      ).data,
    sleep: abortableSleep,
  };
}
