/**
 * Running the send wizard's launch (spec part 2 §4 Wizard launch, §7, §8, §9): each step of launchSteps() done with
 * injected gateway calls, so the order, the waits and the failures are tested without a server. runSteps (the
 * campaign archive's runner) runs them: a failure shows its error under the step and cancels the later ones. The
 * workflow's save is a job: its JOB_CREATE_WORKFLOW entry is waited for every 2 s, up to 450 polls, read by the
 * job_log_entry_id the save answered (a save answered 503 may still be running, so the wait then scans the newest
 * entries for one of the workflow: its id is new to this launch, so no earlier entry of it can be taken for this
 * one), and a wait that runs out shows the spec's long-wait message. An AbortSignal (the page was left) stops the
 * run before its next step or job-log read.
 */
import { runSteps, type StepOutcome, type StepState } from '../../domain/campaigns';
import { normaliseErrorText } from '../../domain/errors';
import { JOB_CREATE_WORKFLOW, stillRunning, waitForJob, type JobWaitDeps, type WaitPolicy } from '../data/jobWait';
import type { OperationBody } from '../data/apiTypes';
import type { QueuedSave } from '../workflows/saveFlow';
import {
  WIZARD_MESSAGES,
  WIZARD_WORKFLOW_WAIT,
  blastBody,
  campaignBody,
  launchSteps,
  workflowBody,
  type BlastBody,
  type CampaignBody,
  type LaunchIds,
  type LaunchStep,
  type WizardState,
} from './wizardModel';
import type { WorkflowBody } from '../../domain/workflowGraph';

/** The gateway calls a launch needs; each throws with the gateway's error text when it fails (an HttpError carries `status`). */
export interface LaunchDeps extends JobWaitDeps {
  saveCampaign: (body: CampaignBody) => Promise<void>;
  saveBlast: (body: BlastBody) => Promise<void>;
  saveWorkflow: (body: WorkflowBody) => Promise<QueuedSave>;
  sendSegment: (body: OperationBody<'sendSegmentToWorkflow'>) => Promise<void>;
  /** Told when the workflow's save waits behind another workflow job. */
  onBehind?: () => void;
}

/** A planned launch: its steps and the bodies they send. */
export interface LaunchPlan {
  steps: LaunchStep[];
  campaign: CampaignBody;
  linkedCampaign: CampaignBody;
  blast?: BlastBody;
  workflow?: WorkflowBody;
  rootId?: string;
}

/** planLaunch builds every body of the launch up front (so a broken workflow graph is found before any step runs). */
export function planLaunch(s: WizardState, ids: LaunchIds, today: string, segmentNames: Record<string, string> = {}): LaunchPlan {
  const plan: LaunchPlan = {
    steps: launchSteps(s, segmentNames),
    campaign: campaignBody(s, ids),
    linkedCampaign: campaignBody(s, ids, true),
  };
  if (plan.steps.some((st) => st.kind === 'schedule_blast')) plan.blast = blastBody(s, ids.blastId);
  if (plan.steps.some((st) => st.kind === 'create_workflow')) {
    const { body, rootId } = workflowBody(s, ids, today);
    plan.workflow = body;
    plan.rootId = rootId;
  }
  return plan;
}

/** The error of a workflow wait whose last read of the job log failed (part 2 §8: pointing to the notifications tab). */
export const jobLogUnreadable = (error: string) =>
  `the job log could not be read (${error}); please check the notifications tab and campaign details to make sure the workflow was created`;

/**
 * launchStepRunner returns the function runSteps calls for each step of `plan`. The workflow's save answers the job
 * entry to wait for; the wait step waits for it (or, after a 503, for any entry of the workflow). `signal` stops it
 * before any further step.
 */
export function launchStepRunner(
  deps: LaunchDeps,
  plan: LaunchPlan,
  wait: WaitPolicy = WIZARD_WORKFLOW_WAIT,
  signal?: AbortSignal,
): (step: LaunchStep) => Promise<StepOutcome> {
  let entryId: string | undefined;
  return async (step) => {
    signal?.throwIfAborted();
    switch (step.kind) {
      case 'create_campaign':
        await deps.saveCampaign(plan.campaign);
        return 'done';
      case 'schedule_blast':
        await deps.saveBlast(plan.blast!);
        return 'done';
      case 'link_blast':
      case 'link_workflow':
        await deps.saveCampaign(plan.linkedCampaign);
        return 'done';
      case 'create_workflow':
        try {
          const queued = await deps.saveWorkflow(plan.workflow!);
          entryId = queued.job_log_entry_id || undefined;
          if (queued.behind_another_job && !signal?.aborted) deps.onBehind?.();
        } catch (error) {
          if (!stillRunning(error)) throw error;
        }
        return 'done';
      case 'wait_workflow': {
        const result = await waitForJob(deps, { jobName: JOB_CREATE_WORKFLOW, workflowId: plan.workflow!.id, entryId }, wait, signal);
        if (result.status === 'failed') throw new Error(`the workflow was not created: ${result.error || 'the save job failed'}`);
        if (result.status === 'unreadable') throw new Error(jobLogUnreadable(result.error));
        return result.status === 'succeeded' ? 'done' : 'timed_out';
      }
      case 'send_segment':
        await deps.sendSegment({ segment_id: step.segmentId, workflow_id: plan.workflow!.id, root_node_id: plan.rootId! });
        return 'done';
    }
  };
}

/**
 * runLaunch runs the plan's steps in order (runSteps), publishing each change; a workflow wait that runs out shows the
 * spec's message; `signal` stops the run (the step it stops shows failed, the rest cancelled).
 */
export function runLaunch(
  deps: LaunchDeps,
  plan: LaunchPlan,
  onChange: (states: StepState[]) => void,
  wait: WaitPolicy = WIZARD_WORKFLOW_WAIT,
  signal?: AbortSignal,
): Promise<StepState[]> {
  const run = launchStepRunner(deps, plan, wait, signal);
  return runSteps(
    plan.steps,
    async (step) => {
      try {
        return await run(step);
      } catch (error) {
        throw new Error(normaliseErrorText(error));
      }
    },
    onChange,
    WIZARD_MESSAGES.workflowTimeout,
  );
}
