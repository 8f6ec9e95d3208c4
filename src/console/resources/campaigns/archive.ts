/**
 * Running a campaign's archive steps (spec part 2 §4 Campaign archive, §7 Campaigns and Workflows): each step of
 * archiveSteps() done with injected gateway calls, so the rules can be tested without a server. A blast is disabled
 * (one already disabled counts as done, so an archive that stopped half-way can be run again); a workflow is archived
 * and then waited for: the job log is read every ARCHIVE_WAIT.pollMs (ARCHIVE_WAIT.entries entries) until a
 * JOB_DELETE_WORKFLOW entry for that workflow_id has ended, at most ARCHIVE_WAIT.attempts times, after which the wait
 * reports a time-out (runSteps then cancels the next step); the campaign itself is archived last.
 */
import { ARCHIVE_WAIT, type ArchiveStep, type StepOutcome } from '../../../domain/campaigns';
import { normaliseErrorText } from '../../../domain/errors';

/** A job-log entry as the wait reads it (openapi/joblog.yaml JobLogEntry). */
export interface JobEntry {
  job_name: string;
  ended_at: string | null;
  success: boolean | null;
  start_details: Record<string, unknown>;
  end_details: Record<string, unknown> | null;
}

/** The gateway calls the archive needs; each throws with the gateway's error text when it fails. */
export interface ArchiveDeps {
  disableBlast: (id: string) => Promise<void>;
  archiveWorkflow: (id: string) => Promise<void>;
  listJobs: (limit: number) => Promise<JobEntry[]>;
  archiveCampaign: (id: string) => Promise<void>;
  sleep: (ms: number) => Promise<void>;
}

/** How a wait polls: every pollMs, reading `entries` job-log entries, at most `attempts` times (ARCHIVE_WAIT). */
export interface WaitPolicy { pollMs: number; entries: number; attempts: number }


/** The time-out text of a workflow wait (runSteps shows it on the failed wait). */
export const WORKFLOW_WAIT_TIMEOUT = 'The workflow is taking a very long time to be archived. Please check the notifications tab before trying again.';

/** The job that reports a workflow's archive (spec part 1 §3 Notification / job log entry). */
export const JOB_DELETE_WORKFLOW = 'JOB_DELETE_WORKFLOW';

/**
 * waitForWorkflowDeleted polls the job log for the ended JOB_DELETE_WORKFLOW entry of `workflowId`: 'done' when it
 * succeeded, an error naming the job's errors when it ended without success, 'timed_out' after `wait.attempts` reads.
 */
export async function waitForWorkflowDeleted(deps: ArchiveDeps, workflowId: string, wait: WaitPolicy = ARCHIVE_WAIT): Promise<StepOutcome> {
  for (let attempt = 1; attempt <= wait.attempts; attempt++) {
    const jobs = await deps.listJobs(wait.entries);
    const job = jobs.find((j) => j.job_name === JOB_DELETE_WORKFLOW && !!j.ended_at && j.start_details?.workflow_id === workflowId);
    if (job) {
      if (job.success === false) {
        const detail = normaliseErrorText(Object.entries(job.end_details ?? {}).filter(([k]) => k.toLowerCase().includes('error')).map(([, v]) => (typeof v === 'string' ? v : JSON.stringify(v))));
        throw new Error(`archiving workflow ${workflowId} failed${detail ? `: ${detail}` : ''}; see the notifications tab`);
      }
      return 'done';
    }
    if (attempt < wait.attempts) await deps.sleep(wait.pollMs);
  }
  return 'timed_out';
}

/** archiveStepRunner returns the function runSteps calls for each archive step. */
export function archiveStepRunner(deps: ArchiveDeps, wait: WaitPolicy = ARCHIVE_WAIT): (step: ArchiveStep) => Promise<StepOutcome> {
  return async (step) => {
    switch (step.kind) {
      case 'disable_blast':
        await deps.disableBlast(step.id);
        return 'done';
      case 'archive_workflow':
        await deps.archiveWorkflow(step.id);
        return 'done';
      case 'wait_workflow_deleted':
        return waitForWorkflowDeleted(deps, step.id, wait);
      case 'archive_campaign':
        await deps.archiveCampaign(step.id);
        return 'done';
    }
  };
}
