/**
 * Workflows core (spec part 2 §3 Workflow, §4, §5, §7): checking a workflow (its tree's rules and that everything it
 * names is a live row of the project), saving and archiving as jobs with their job-log entries (JOB_CREATE_WORKFLOW,
 * JOB_DELETE_WORKFLOW), entering contacts, and reading runs with their paths. Every query is scoped to one project.
 *
 * Entering a workflow has one definition, the SQL function enter_workflows (./sql/enter_workflows.sql), reached
 * through ./queries.ts: a segment's members (enterSegment), contacts created or updated through the API or a file
 * import and subscribe forms (enterUpsertedFrom, inside the contact upsert), runs handed on between workflows (enterHandedOn) and events (the
 * events_enter_workflows trigger, same file). The engine that runs the steps is src/workers/workflows.ts.
 */
import type { QueryFn } from '../../db/client.ts';
import type { AppContext } from '../../context.ts';
import { BadRequest, NotFound } from '../../errors.ts';
import { checkTree, displayOf, displayToTree, flattenTree, type TreeNode } from '../../../domain/workflowGraph.ts';
import type { components } from '../../../../generated/types/workflowwrapper.gen.ts';
import { likePattern, orderSql, uuidList } from '../listing.ts';
import { ANY_UPSERT_TRIGGERED, ENTER_HANDED_ON, ENTER_SEGMENT } from './queries.ts';

export { enterUpsertedFrom } from './queries.ts';

type WorkflowInput = components['schemas']['WorkflowInput'];
type WorkflowOut = components['schemas']['Workflow'];
type RunOut = components['schemas']['WorkflowRun'];

/** The spec's message for a workflow without a name (part 2 §5). */
export const WORKFLOW_NAME_REQUIRED = 'You must provide a workflow name';

interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  display: Record<string, unknown>;
  root_node: TreeNode | null;
  enabled: boolean;
  job_log_id: string | null;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

function toWorkflow(r: WorkflowRow): WorkflowOut {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    display: r.display ?? {},
    root_node: r.root_node as WorkflowOut['root_node'],
    job_log_id: r.job_log_id,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/**
 * treeOf returns the tree of a save or validate request: `tree` (or `root_node`), else the tree of its display graph.
 * Returns the errors of the display graph when it has to be converted and cannot be.
 */
export function treeOf(input: Pick<WorkflowInput, 'tree' | 'root_node' | 'display'>): { tree?: TreeNode; errors: string[] } {
  const given = (input.tree ?? input.root_node) as TreeNode | undefined;
  if (given) return { tree: given, errors: [] };
  if (input.display && Array.isArray(input.display.nodes)) {
    const r = displayToTree(displayOf(input.display));
    return r.tree ? { tree: r.tree, errors: [] } : { errors: r.errors };
  }
  return { errors: ['tree: Required field (the workflow has no trigger node: Please add a trigger node to the workflow)'] };
}

/**
 * workflowProblems lists what is wrong with a workflow to save: the name, the tree's rules (checkTree) and every
 * template, sender persona, segment and workflow its nodes name that is not a live row of the project (a workflow may
 * not hand contacts to itself). Each message names the field or the node.
 */
export async function workflowProblems(query: QueryFn, projectId: string, input: WorkflowInput): Promise<{ tree?: TreeNode; errors: string[] }> {
  const errors: string[] = [];
  if (!input.name?.trim()) errors.push(`name: ${WORKFLOW_NAME_REQUIRED}`);
  const { tree, errors: treeErrors } = treeOf(input);
  errors.push(...treeErrors);
  if (!tree) return { errors };
  errors.push(...checkTree(tree));
  if (errors.length) return { errors };
  const refs = { templates: new Set<string>(), personas: new Set<string>(), segments: new Set<string>(), workflows: new Set<string>() };
  for (const { node } of flattenTree(tree)) {
    const s = node.settings;
    if (node.type === 'sender') {
      refs.templates.add(s.template_id!.toLowerCase());
      refs.personas.add(s.sender_persona_id!.toLowerCase());
    }
    if (node.type === 'segmenter') refs.segments.add(s.segment_id!.toLowerCase());
    if (node.type === 'send_to_workflow') refs.workflows.add(s.workflow_id!.toLowerCase());
    if (node.type === 'send_to_workflow' && s.workflow_id!.toLowerCase() === input.id.toLowerCase()) {
      errors.push(`node ${node.id} (To workflow): a workflow cannot hand contacts to itself`);
    }
  }
  const [found] = await query<{ templates: string[]; personas: string[]; segments: string[]; workflows: string[] }>(
    `SELECT ARRAY(SELECT id::text FROM templates WHERE project_id = $1 AND archived_at IS NULL AND id = ANY($2::uuid[])) AS templates,
            ARRAY(SELECT id::text FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL AND id = ANY($3::uuid[])) AS personas,
            ARRAY(SELECT id::text FROM segments WHERE project_id = $1 AND archived_at IS NULL AND id = ANY($4::uuid[])) AS segments,
            ARRAY(SELECT id::text FROM workflows WHERE project_id = $1 AND archived_at IS NULL AND id = ANY($5::uuid[])) AS workflows`,
    [projectId, [...refs.templates], [...refs.personas], [...refs.segments], [...refs.workflows]],
  );
  for (const { node } of flattenTree(tree)) {
    const s = node.settings;
    const missing = (what: string, id: string | undefined, list: string[]) => {
      if (id && !list.includes(id.toLowerCase())) errors.push(`node ${node.id}: no ${what} with id ${id} in this project`);
    };
    if (node.type === 'sender') {
      missing('template', s.template_id, found.templates);
      missing('sender persona', s.sender_persona_id, found.personas);
    }
    if (node.type === 'segmenter') missing('segment', s.segment_id, found.segments);
    if (node.type === 'send_to_workflow') missing('workflow', s.workflow_id, found.workflows);
  }
  return { tree, errors };
}

/**
 * queueWorkflowSave checks what can be checked at once (the name; the id not another project's or archived), writes
 * the JOB_CREATE_WORKFLOW job-log entry and queues the save. Returns the entry's id and whether another workflow job of
 * the project is still running ahead of it. Throws BadRequest naming the field.
 */
export async function queueWorkflowSave(
  ctx: AppContext,
  projectId: string,
  input: WorkflowInput,
): Promise<{ behind_another_job: boolean; job_log_entry_id: string; workflow_id: string }> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  if (!input.name?.trim()) throw new BadRequest([`name: ${WORKFLOW_NAME_REQUIRED}`]);
  const id = input.id.toLowerCase();
  const [other] = await query<{ project_id: string; archived: boolean }>(
    'SELECT project_id, archived_at IS NOT NULL AS archived FROM workflows WHERE id = $1',
    [id],
  );
  if (other && other.project_id !== projectId) throw new BadRequest([`id: ${id} is already used; generate a new id`]);
  if (other?.archived) throw new BadRequest([`id: workflow ${id} is archived; create a new workflow instead`]);
  const [{ behind }] = await query<{ behind: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM job_log WHERE project_id = $1 AND job_name IN ('JOB_CREATE_WORKFLOW', 'JOB_DELETE_WORKFLOW') AND ended_at IS NULL) AS behind`,
    [projectId],
  );
  const [entry] = await query<{ id: string }>(`INSERT INTO job_log (project_id, job_name, start_details) VALUES ($1, 'JOB_CREATE_WORKFLOW', $2) RETURNING id`, [
    projectId,
    JSON.stringify({ workflow_id: id, workflow_payload: { name: input.name.trim(), timezone: input.timezone ?? null } }),
  ]);
  await ctx.queue.enqueue('workflow-save', { jobLogId: entry.id, projectId, input: { ...input, id } });
  return { behind_another_job: behind, job_log_entry_id: entry.id, workflow_id: id };
}

/** endJob writes the end of a job-log entry: success, or failure with its error in end_details.error. */
async function endJob(query: QueryFn, jobLogId: string, success: boolean, details: Record<string, unknown>): Promise<void> {
  await query('UPDATE job_log SET ended_at = now(), success = $2, end_details = $3 WHERE id = $1 AND ended_at IS NULL', [
    jobLogId,
    success,
    JSON.stringify(details),
  ]);
}

/**
 * runWorkflowSave is the JOB_CREATE_WORKFLOW job: checks the workflow (workflowProblems) and creates it, or replaces the
 * live workflow's name, display and tree (its version goes up; a disabled workflow is enabled again), then ends the
 * job-log entry — with end_details.error listing the problems when it is refused. Runs in flight keep their place:
 * a step at a node the new tree no longer has ends its run.
 */
export async function runWorkflowSave(query: QueryFn, job: { jobLogId: string; projectId: string; input: WorkflowInput }): Promise<void> {
  const { jobLogId, projectId, input } = job;
  const { tree, errors } = await workflowProblems(query, projectId, input);
  if (!tree || errors.length) {
    await endJob(query, jobLogId, false, { workflow_id: input.id, error: errors.join('; '), errors });
    return;
  }
  const rows = await query<{ id: string }>(
    `INSERT INTO workflows (id, project_id, name, display, root_node, trigger_type, trigger_event, job_log_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, display = EXCLUDED.display, root_node = EXCLUDED.root_node,
       trigger_type = EXCLUDED.trigger_type, trigger_event = EXCLUDED.trigger_event, job_log_id = EXCLUDED.job_log_id,
       version = workflows.version + 1, enabled = true, disabled_at = NULL, updated_at = now()
       WHERE workflows.project_id = EXCLUDED.project_id AND workflows.archived_at IS NULL
     RETURNING id`,
    [
      input.id,
      projectId,
      input.name.trim(),
      JSON.stringify(input.display ?? {}),
      JSON.stringify(tree),
      tree.type,
      tree.type === 'event' ? tree.event_topic : null,
      jobLogId,
    ],
  );
  if (!rows.length) await endJob(query, jobLogId, false, { workflow_id: input.id, error: `id: workflow ${input.id} is archived or not this project's` });
  else await endJob(query, jobLogId, true, { workflow_id: input.id });
}

/** queueWorkflowArchive writes the JOB_DELETE_WORKFLOW job-log entry and queues the archive. Throws 404 for none. */
export async function queueWorkflowArchive(
  ctx: AppContext,
  projectId: string,
  id: string,
): Promise<{ job_log_id: string; workflow_id: string; errors: string[] }> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const [w] = await query<{ name: string }>('SELECT name FROM workflows WHERE id = $1 AND project_id = $2', [id.toLowerCase(), projectId]);
  if (!w) throw new NotFound([`id: no workflow with id ${id}`]);
  const [entry] = await query<{ id: string }>(`INSERT INTO job_log (project_id, job_name, start_details) VALUES ($1, 'JOB_DELETE_WORKFLOW', $2) RETURNING id`, [
    projectId,
    JSON.stringify({ workflow_id: id.toLowerCase(), workflow_payload: { name: w.name } }),
  ]);
  await ctx.queue.enqueue('workflow-delete', { jobLogId: entry.id, projectId, workflowId: id.toLowerCase() });
  return { job_log_id: entry.id, workflow_id: id.toLowerCase(), errors: [] };
}

/**
 * runWorkflowArchive is the JOB_DELETE_WORKFLOW job: in one transaction the workflow is archived (it takes no new
 * contacts), its pending steps are cancelled and its active runs ended; an email already queued by a sender node
 * still goes. Archiving an archived workflow again succeeds and changes nothing.
 */
export async function runWorkflowArchive(ctx: AppContext, job: { jobLogId: string; projectId: string; workflowId: string }): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    await tx('UPDATE workflows SET archived_at = coalesce(archived_at, now()), enabled = false, updated_at = now() WHERE id = $1 AND project_id = $2', [
      job.workflowId,
      job.projectId,
    ]);
    await tx(
      `UPDATE workflow_steps SET status = 'cancelled', outcome = 'workflow archived', claim_token = NULL
               WHERE workflow_id = $1 AND project_id = $2 AND status IN ('pending', 'running')`,
      [job.workflowId, job.projectId],
    );
    await tx(`UPDATE workflow_runs SET status = 'ended', ended_at = now() WHERE workflow_id = $1 AND project_id = $2 AND status = 'active'`, [
      job.workflowId,
      job.projectId,
    ]);
    await endJob(tx, job.jobLogId, true, { workflow_id: job.workflowId });
  });
}

/** disableWorkflow stops a live workflow taking new contacts (runs in flight go on). Throws 404 for none. */
export async function disableWorkflow(query: QueryFn, projectId: string, id: string): Promise<WorkflowOut> {
  const [row] = await query<WorkflowRow>(
    `UPDATE workflows SET enabled = false, disabled_at = coalesce(disabled_at, now()), updated_at = now()
      WHERE id = $1 AND project_id = $2 AND archived_at IS NULL RETURNING *`,
    [id.toLowerCase(), projectId],
  );
  if (!row) throw new NotFound([`id: no workflow with id ${id}`]);
  return toWorkflow(row);
}

const SORT: Record<string, string> = { name: 'lower(name)', created_at: 'created_at', updated_at: 'updated_at' };

/** listWorkflows lists live workflows (by ids, a name search, enabled only), sorted (default newest first) and paged. */
export async function listWorkflows(
  query: QueryFn,
  projectId: string,
  q: {
    ids?: string;
    search_value?: string;
    enabled_only?: boolean;
    limit?: number;
    offset?: number;
    sort_columns?: string;
  },
): Promise<WorkflowOut[]> {
  const order = orderSql(q.sort_columns, SORT, 'created_at DESC');
  const { where, params } = listFilter(projectId, q);
  const rows = await query<WorkflowRow>(
    `SELECT * FROM workflows WHERE ${where} ORDER BY ${order}, id LIMIT ${Number(q.limit ?? 10)} OFFSET ${Number(q.offset ?? 0)}`,
    params,
  );
  return rows.map(toWorkflow);
}

/** countWorkflows counts live workflows with the list's filters. */
export async function countWorkflows(query: QueryFn, projectId: string, q: { ids?: string; search_value?: string; enabled_only?: boolean }): Promise<number> {
  const { where, params } = listFilter(projectId, q);
  const [{ n }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM workflows WHERE ${where}`, params);
  return Number(n);
}

function listFilter(projectId: string, q: { ids?: string; search_value?: string; enabled_only?: boolean }) {
  const ids = uuidList(q.ids, 'ids');
  return {
    where: `project_id = $1 AND archived_at IS NULL AND (cardinality($2::uuid[]) = 0 OR id = ANY($2::uuid[])) AND ($3::text IS NULL OR name ILIKE $3) AND (NOT $4 OR enabled)`,
    params: [projectId, ids, q.search_value?.trim() ? likePattern(q.search_value.trim()) : null, !!q.enabled_only],
  };
}

/**
 * enterSegment enters every live contact of segment `segmentId` into workflow `workflowId` at its trigger node
 * `rootNodeId` (Run segment; part 2 §7): one run each, with its first step due now, in one statement. Returns how many
 * entered. Throws 404 for an unknown segment or workflow, 400 when the workflow is disabled or the node is not its
 * trigger.
 */
export async function enterSegment(
  query: QueryFn,
  projectId: string,
  body: { segment_id: string; workflow_id: string; root_node_id: string },
): Promise<number> {
  const [w] = await query<{ enabled: boolean; root_id: string | null }>(
    `SELECT enabled, root_node->>'id' AS root_id FROM workflows WHERE id = $1 AND project_id = $2 AND archived_at IS NULL`,
    [body.workflow_id, projectId],
  );
  if (!w) throw new NotFound([`workflow_id: no workflow with id ${body.workflow_id}`]);
  if (!w.enabled) throw new BadRequest(['workflow_id: the workflow is disabled; save it again to enable it']);
  if (!w.root_id || w.root_id !== body.root_node_id)
    throw new BadRequest([`root_node_id: not the trigger node of this workflow (Please add a trigger node to the workflow)`]);
  const [seg] = await query('SELECT 1 FROM segments WHERE id = $1 AND project_id = $2 AND archived_at IS NULL', [body.segment_id, projectId]);
  if (!seg) throw new NotFound([`segment_id: no segment with id ${body.segment_id}`]);
  const rows = await query<{ n: number }>(ENTER_SEGMENT, [projectId, body.workflow_id, body.segment_id]);
  return Number(rows[0]?.n ?? 0);
}

/** anyUpsertTriggered says whether the project has an enabled, live workflow triggered by contacts created or updated. */
export async function anyUpsertTriggered(query: QueryFn, projectId: string): Promise<boolean> {
  const [{ entering }] = await query<{ entering: boolean }>(ANY_UPSERT_TRIGGERED, [projectId]);
  return entering;
}

/**
 * enterHandedOn enters runs handed on by a send_to_workflow node into workflow `workflowId` (spec part 2 §5 "To
 * workflow"): each with its contact (null for a run without one), address, trigger event (null for none) and hop
 * count (already counted up). Returns how many entered (enter_workflows skips a disabled or archived workflow and
 * runs handed on more than 10 times).
 */
export async function enterHandedOn(
  query: QueryFn,
  projectId: string,
  workflowId: string,
  runs: Array<{ contactId: string | null; email: string | null; event: object | null; hops: number }>,
): Promise<number> {
  if (!runs.length) return 0;
  const rows = await query<{ n: number }>(ENTER_HANDED_ON, [
    projectId,
    workflowId,
    runs.map((r) => r.contactId),
    runs.map((r) => r.email),
    runs.map((r) => (r.event ? JSON.stringify(r.event) : null)),
    runs.map((r) => r.hops),
  ]);
  return Number(rows[0]?.n ?? 0);
}

/**
 * listRuns returns runs newest first with their paths (steps in the order they were due), of one workflow (optionally
 * one contact's) or of one contact across workflows, and the total.
 */
export async function listRuns(
  query: QueryFn,
  projectId: string,
  q: { workflowId?: string; contactId?: string; limit?: number; offset?: number },
): Promise<{ data: RunOut[]; total: number }> {
  const where = `r.project_id = $1 AND ($2::uuid IS NULL OR r.workflow_id = $2) AND ($3::uuid IS NULL OR r.contact_id = $3)`;
  const params = [projectId, q.workflowId ?? null, q.contactId ?? null];
  const [runs, [{ n }]] = await Promise.all([
    query<{
      id: string;
      workflow_id: string;
      workflow_name: string;
      contact_id: string | null;
      email: string | null;
      status: RunOut['status'];
      created_at: Date;
      ended_at: Date | null;
      trigger_event: string | null;
      root_node: TreeNode | null;
    }>(
      `SELECT r.id, r.workflow_id, w.name AS workflow_name, r.contact_id, r.email, r.status, r.created_at, r.ended_at, r.event->>'name' AS trigger_event, w.root_node
         FROM workflow_runs r JOIN workflows w ON w.id = r.workflow_id WHERE ${where}
        ORDER BY r.created_at DESC, r.id LIMIT ${Number(q.limit ?? 10)} OFFSET ${Number(q.offset ?? 0)}`,
      params,
    ),
    query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs r WHERE ${where}`, params),
  ]);
  const steps = runs.length
    ? await query<{ run_id: string; node_id: string; status: string; due_at: Date; executed_at: Date | null; outcome: string | null }>(
        `SELECT run_id, node_id, status, due_at, executed_at, outcome FROM workflow_steps WHERE run_id = ANY($1::uuid[]) ORDER BY due_at, id`,
        [runs.map((r) => r.id)],
      )
    : [];
  return {
    total: Number(n),
    data: runs.map((r) => {
      const types = new Map(r.root_node ? flattenTree(r.root_node).map(({ node }) => [node.id, node.type]) : []);
      return {
        id: r.id,
        workflow_id: r.workflow_id,
        workflow_name: r.workflow_name,
        contact_id: r.contact_id,
        email: r.email,
        status: r.status,
        created_at: new Date(r.created_at).toISOString(),
        ended_at: r.ended_at ? new Date(r.ended_at).toISOString() : null,
        trigger_event: r.trigger_event,
        steps: steps
          .filter((s) => s.run_id === r.id)
          .map((s) => ({
            node_id: s.node_id,
            node_type: types.get(s.node_id) ?? null,
            status: s.status as RunOut['steps'][number]['status'],
            due_at: new Date(s.due_at).toISOString(),
            executed_at: s.executed_at ? new Date(s.executed_at).toISOString() : null,
            outcome: s.outcome,
          })),
      };
    }),
  };
}
