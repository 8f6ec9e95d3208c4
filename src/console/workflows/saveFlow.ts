/**
 * Saving a workflow (spec part 2 §4 Workflow save, §5 Workflow, §7 Workflows, §8, §9): the name is required; the
 * display graph must make a tree (displayToTree, whose errors name the nodes); the server validates
 * ({id, name, display, tree}); then the save is queued as a JOB_CREATE_WORKFLOW job and the console waits for that
 * job-log entry to end (2 s polls, up to 200 checks), read by the id the save answered. A save answered 503 may still
 * be running: the wait then looks for a new entry of the workflow's id, passing over the entries of its earlier saves
 * (read before every save, a first one included: a failed first save may have left one). Gateway calls are injected,
 * so every branch is tested without a server.
 */
import { displayToTree, type Display, type WorkflowBody } from '../../domain/workflowGraph';
import { normaliseErrorText } from '../../domain/errors';
import { JOB_CREATE_WORKFLOW, WORKFLOW_JOB_WAIT, requestJob, waitForJob, type JobMatch, type JobWaitDeps, type WaitPolicy } from '../data/jobWait';
import type { OperationBody, OperationResponse } from '../data/apiTypes';

/** The spec's message for a workflow without a name (part 2 §5). */
export const WORKFLOW_NAME_REQUIRED = 'You must provide a workflow name';

/** validationFailed is the heading of a refused validation (part 2 §5). */
export const validationFailed = (name: string) => `Workflow ‘${name}’ failed workflow validation`;
/** saveFailed is the message of a failed save (part 2 §5, §8). */
export const saveFailed = (name: string, errors: string) => `Couldn’t save workflow ‘${name}’: ${errors}`;
/** The notice of a save queued behind another workflow job (part 2 §4). */
export const BEHIND_ANOTHER_JOB = 'Another workflow job of this project is still running: this save waits for it to finish first.';
/** The message of a save that is still running after every check (part 2 §4, §9). */
export const saveTimedOut = (name: string) =>
  `Workflow ‘${name}’ is taking a very long time to save. Please check the notifications tab to make sure it was saved.`;
/** The message of a save whose job could not be followed because the job log could not be read (part 2 §8). */
export const saveUnconfirmed = (name: string, error: string) =>
  `Couldn’t read the job log to confirm that workflow ‘${name}’ was saved (${error}). Please check the notifications tab to make sure it was saved.`;

/** An error thrown by a gateway call: its message, HTTP status (0 for a network failure) and the body's errors. */
export interface CallError {
  message: string;
  status?: number;
  body?: { errors?: unknown };
}

/** The gateway calls a save needs; each throws a CallError when it fails. */
export interface SaveDeps extends JobWaitDeps {
  validate: (body: WorkflowBody) => Promise<void>;
  save: (body: WorkflowBody) => Promise<QueuedSave>;
  /** Called when the save waits behind another job. */
  onBehind?: () => void;
}

/** What a queued save answers that the save reads (saveWorkflow's `data`, as generated from openapi/workflowwrapper.yaml). */
export type QueuedSave = Pick<OperationResponse<'saveWorkflow'>['data'], 'behind_another_job' | 'job_log_entry_id'>;

/**
 * workflowInput is a save or validate body as the gateways' spec types it (WorkflowInput): the same JSON, with the
 * display's nodes and links copied into plain objects, since the spec's free-form node and link objects need an index
 * signature that the domain's Display interfaces do not declare.
 */
export function workflowInput(body: WorkflowBody): OperationBody<'saveWorkflow'> {
  return { ...body, display: { nodes: body.display.nodes.map((n) => ({ ...n })), links: body.display.links.map((l) => ({ ...l })) } };
}

/** What a save came to: saved, or refused with a message and the errors to list (each naming a field or a node). */
export type SaveResult =
  | { ok: true; id: string }
  | { ok: false; stage: 'name' | 'graph' | 'validation' | 'save' | 'job' | 'timeout' | 'unreadable'; message: string; errors: string[] };

function errorsOf(error: unknown): string[] {
  const body = (error as CallError | undefined)?.body;
  const list = Array.isArray(body?.errors) ? body.errors.map((e) => normaliseErrorText(String(e))).filter(Boolean) : [];
  return list.length ? list : [normaliseErrorText(error)];
}

/**
 * saveWorkflow runs the save of part 2 §4 for workflow `id` named `name` with graph `display`. The workflow's earlier
 * JOB_CREATE_WORKFLOW entries are read before the save, so that after a 503 the wait does not take an old entry for
 * this save's. `signal` aborts the wait (the promise then rejects with its reason) and keeps onBehind quiet.
 */
export async function saveWorkflow(
  deps: SaveDeps,
  input: { id: string; name: string; display: Display },
  wait: WaitPolicy = WORKFLOW_JOB_WAIT,
  signal?: AbortSignal,
): Promise<SaveResult> {
  const name = input.name.trim();
  if (!name) return { ok: false, stage: 'name', message: WORKFLOW_NAME_REQUIRED, errors: [WORKFLOW_NAME_REQUIRED] };
  const built = displayToTree(input.display);
  if (!built.tree) return { ok: false, stage: 'graph', message: validationFailed(name), errors: built.errors };
  const body: WorkflowBody = { id: input.id, name, display: input.display, tree: built.tree };

  try {
    await deps.validate(body);
  } catch (error) {
    const status = (error as CallError).status;
    if (status === 400) return { ok: false, stage: 'validation', message: validationFailed(name), errors: errorsOf(error) };
    return { ok: false, stage: 'validation', message: saveFailed(name, normaliseErrorText(error)), errors: errorsOf(error) };
  }

  signal?.throwIfAborted();
  let match: JobMatch;
  try {
    match = await requestJob(
      deps,
      { jobName: JOB_CREATE_WORKFLOW, workflowId: input.id },
      async () => {
        const queued = await deps.save(body);
        if (queued.behind_another_job && !signal?.aborted) deps.onBehind?.();
        return queued.job_log_entry_id;
      },
      wait,
    );
  } catch (error) {
    return { ok: false, stage: 'save', message: saveFailed(name, normaliseErrorText(error)), errors: errorsOf(error) };
  }

  const result = await waitForJob(deps, match, wait, signal);
  if (result.status === 'succeeded') return { ok: true, id: input.id };
  if (result.status === 'unreadable') return { ok: false, stage: 'unreadable', message: saveUnconfirmed(name, result.error), errors: [] };
  if (result.status === 'failed') {
    const errors = Array.isArray(result.entry.end_details?.errors)
      ? (result.entry.end_details!.errors as unknown[]).map((e) => normaliseErrorText(String(e)))
      : [result.error];
    return { ok: false, stage: 'job', message: saveFailed(name, result.error || 'the save job failed'), errors };
  }
  return { ok: false, stage: 'timeout', message: saveTimedOut(name), errors: [] };
}
