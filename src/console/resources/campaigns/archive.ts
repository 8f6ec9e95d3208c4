/**
 * A campaign's archive (spec part 2 §4 Campaign archive, §7 Campaigns and Workflows, §8): planning it (planArchive)
 * and running each step of archiveSteps() with injected gateway calls, so the rules can be tested without a server.
 * The plan reads the campaign ('an error has occurred, please reload the page and try again' only when the gateway
 * answered without it; "Couldn't fetch campaigns: …" when it could not be read) and names the steps after its email
 * blasts and workflows when they can be read (their ids otherwise). A blast is disabled (one already disabled counts
 * as done, so an archive that stopped half-way can be run again); a workflow is archived once (not retried: a
 * re-sent DELETE would queue another JOB_DELETE_WORKFLOW) and then waited for: its entry is read by the job_log_id
 * the DELETE answered, or after a 503 the newest ARCHIVE_WAIT.entries entries are scanned for a new JOB_DELETE_WORKFLOW
 * entry of that workflow (those read before the DELETE are passed over), every ARCHIVE_WAIT.pollMs, at most
 * ARCHIVE_WAIT.attempts times, after which the wait reports a time-out (runSteps then cancels the next step); the
 * campaign itself is archived last. An AbortSignal (the list unmounted) stops the run before its next step or read.
 */
import { ARCHIVE_WAIT, archiveSteps, type ArchiveStep, type StepOutcome } from '../../../domain/campaigns';
import { normaliseErrorText } from '../../../domain/errors';
import { JOB_DELETE_WORKFLOW, requestJob, waitForJob, type JobEntry, type JobMatch, type JobWaitDeps, type WaitPolicy } from '../../data/jobWait';
import type { Schema } from '../../data/apiTypes';

export { JOB_DELETE_WORKFLOW, type JobEntry, type WaitPolicy };

/** The toast of an archive click on a campaign that no longer exists (part 2 §8). */
export const CAMPAIGN_GONE = 'an error has occurred, please reload the page and try again';

/** The toast of an archive click whose campaign could not be read (part 2 §8 "Couldn't fetch campaigns"). */
export const campaignsFetchFailed = (reason: string) => `Couldn't fetch campaigns: ${reason}`;

/** The gateway calls the archive needs; each throws with the gateway's error text when it fails. */
export interface ArchiveDeps extends JobWaitDeps {
  disableBlast: (id: string) => Promise<void>;
  /** Archives a workflow once and answers the job_log_id of its JOB_DELETE_WORKFLOW entry; throws on failure (a 503 too). */
  archiveWorkflow: (id: string) => Promise<string | undefined>;
  archiveCampaign: (id: string) => Promise<void>;
}

/** The time-out text of a workflow wait (runSteps shows it on the failed wait). */
export const WORKFLOW_WAIT_TIMEOUT = 'The workflow is taking a very long time to be archived. Please check the notifications tab before trying again.';

/** The fields of a campaign an archive reads (openapi/campaign.yaml Campaign, as generated). */
export type ArchivedCampaign = Pick<Schema<'campaign', 'Campaign'>, 'id' | 'name' | 'workflow_ids' | 'scheduled_email_blast_group_ids'>;

/** The look-ups an archive's plan needs: the campaign (undefined when the gateway answered without it) and names by id. */
export interface PlanDeps<C extends ArchivedCampaign> {
  findCampaign: (id: string) => Promise<C | undefined>;
  blastNames: (ids: string[]) => Promise<Record<string, string>>;
  workflowNames: (ids: string[]) => Promise<Record<string, string>>;
}

/** What an archive click comes to: the planned steps, a campaign that is gone, or a campaign that could not be read. */
export type ArchivePlan<C extends ArchivedCampaign> =
  { kind: 'ready'; campaign: C; steps: ArchiveStep[] } | { kind: 'gone'; message: string } | { kind: 'unreadable'; message: string };

/**
 * planArchive reads campaign `campaignId` and plans its steps (archiveSteps), labelled with its blasts' and workflows'
 * names; a name look-up that fails leaves the ids as labels.
 */
export async function planArchive<C extends ArchivedCampaign>(deps: PlanDeps<C>, campaignId: string): Promise<ArchivePlan<C>> {
  let campaign: C | undefined;
  try {
    campaign = await deps.findCampaign(campaignId);
  } catch (error) {
    return { kind: 'unreadable', message: campaignsFetchFailed(normaliseErrorText(error)) };
  }
  if (!campaign) return { kind: 'gone', message: CAMPAIGN_GONE };
  const blastIds = campaign.workflow_ids.length ? [] : campaign.scheduled_email_blast_group_ids;
  const [blasts, workflows] = await Promise.all([
    blastIds.length ? deps.blastNames(blastIds).catch(() => ({})) : {},
    campaign.workflow_ids.length ? deps.workflowNames(campaign.workflow_ids).catch(() => ({})) : {},
  ]);
  return { kind: 'ready', campaign, steps: archiveSteps(campaign, { ...blasts, ...workflows }) };
}

/**
 * waitForWorkflowDeleted polls the job log for the ended JOB_DELETE_WORKFLOW entry `match` names (waitForJob): 'done'
 * when it succeeded, an error naming the job's errors when it ended without success (or the job log could not be read
 * at the last check), 'timed_out' after `wait.attempts` reads.
 */
export async function waitForWorkflowDeleted(deps: ArchiveDeps, match: JobMatch, wait: WaitPolicy = ARCHIVE_WAIT, signal?: AbortSignal): Promise<StepOutcome> {
  const result = await waitForJob(deps, match, wait, signal);
  if (result.status === 'failed') {
    throw new Error(`archiving workflow ${match.workflowId} failed${result.error ? `: ${result.error}` : ''}; see the notifications tab`);
  }
  if (result.status === 'unreadable') {
    throw new Error(`the job log could not be read (${result.error}); please check the notifications tab before trying again`);
  }
  return result.status === 'succeeded' ? 'done' : 'timed_out';
}

/** archiveStepRunner returns the function runSteps calls for each archive step; `signal` stops it before any further step. */
export function archiveStepRunner(deps: ArchiveDeps, wait: WaitPolicy = ARCHIVE_WAIT, signal?: AbortSignal): (step: ArchiveStep) => Promise<StepOutcome> {
  const matches = new Map<string, JobMatch>();
  return async (step) => {
    signal?.throwIfAborted();
    switch (step.kind) {
      case 'disable_blast':
        await deps.disableBlast(step.id);
        return 'done';
      case 'archive_workflow':
        matches.set(step.id, await requestJob(deps, { jobName: JOB_DELETE_WORKFLOW, workflowId: step.id }, () => deps.archiveWorkflow(step.id), wait));
        return 'done';
      case 'wait_workflow_deleted':
        return waitForWorkflowDeleted(deps, matches.get(step.id) ?? { jobName: JOB_DELETE_WORKFLOW, workflowId: step.id }, wait, signal);
      case 'archive_campaign':
        await deps.archiveCampaign(step.id);
        return 'done';
    }
  };
}
