/**
 * Running a campaign's archive steps (spec part 2 §4 Campaign archive, §7 Campaigns and Workflows): each step of
 * archiveSteps() done with injected gateway calls, so the rules can be tested without a server. A blast is disabled
 * (one already disabled counts as done, so an archive that stopped half-way can be run again); a workflow is archived
 * and then waited for: the job log is read every ARCHIVE_WAIT.pollMs (ARCHIVE_WAIT.entries entries) until a
 * JOB_DELETE_WORKFLOW entry for that workflow_id has ended, at most ARCHIVE_WAIT.attempts times, after which the wait
 * reports a time-out (runSteps then cancels the next step); the campaign itself is archived last.
 */
import { ARCHIVE_WAIT, type ArchiveStep, type StepOutcome } from '../../../domain/campaigns';
import { JOB_DELETE_WORKFLOW, waitForJob, type JobEntry, type JobWaitDeps, type WaitPolicy } from '../../data/jobWait';

export { JOB_DELETE_WORKFLOW, type JobEntry, type WaitPolicy };

/** The gateway calls the archive needs; each throws with the gateway's error text when it fails. */
export interface ArchiveDeps extends JobWaitDeps {
  disableBlast: (id: string) => Promise<void>;
  archiveWorkflow: (id: string) => Promise<void>;
  archiveCampaign: (id: string) => Promise<void>;
}

/** The time-out text of a workflow wait (runSteps shows it on the failed wait). */
export const WORKFLOW_WAIT_TIMEOUT = 'The workflow is taking a very long time to be archived. Please check the notifications tab before trying again.';

/**
 * waitForWorkflowDeleted polls the job log for the ended JOB_DELETE_WORKFLOW entry of `workflowId` (waitForJob):
 * 'done' when it succeeded, an error naming the job's errors when it ended without success, 'timed_out' after
 * `wait.attempts` reads.
 */
export async function waitForWorkflowDeleted(deps: ArchiveDeps, workflowId: string, wait: WaitPolicy = ARCHIVE_WAIT): Promise<StepOutcome> {
  const result = await waitForJob(deps, { jobName: JOB_DELETE_WORKFLOW, workflowId }, wait);
  if (result.status === 'failed') {
    throw new Error(`archiving workflow ${workflowId} failed${result.error ? `: ${result.error}` : ''}; see the notifications tab`);
  }
  return result.status === 'succeeded' ? 'done' : 'timed_out';
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
