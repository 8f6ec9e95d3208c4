/**
 * What each workflow node does (spec part 2 §4 node types, §5): NODE_EFFECTS maps every node type to its effect, which
 * applies the node to a group of steps (one node, many runs) with set-based statements inside the step's transaction
 * and says, per step, its outcome, its next steps and whether the run ends there. The engine that claims and runs
 * steps is src/workers/workflows.ts; contacts enter through enter_workflows (./sql/enter_workflows.sql).
 */
import type { QueryFn } from '../../db/client.ts';
import { countsMachines, delayUntilInstant, isTrigger, MAX_WORKFLOW_HOPS, type NodeType, type TreeNode } from '../../../domain/workflowGraph.ts';
import { checkFilters } from '../../../domain/segmentFilter.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { EVENT } from '../../../domain/events.ts';
import { compileFilters, matchingContacts } from '../segments/filter.ts';
import { insertSystemEventsSql, recordEvents } from '../events/index.ts';
import { unsubscribe } from '../feedback/index.ts';
import { enterHandedOn } from './index.ts';
import * as sql from './queries.ts';
import { PROJECT_PERSONA_EMAILS } from '../blasts/queries.ts';
import { insertOutboxSql } from '../sending/outbox.ts';
import { mergeContactMetadata } from '../contacts/index.ts';

/** A claimed step: one node for one run. */
export interface StepRow {
  id: string;
  project_id: string;
  run_id: string;
  workflow_id: string;
  node_id: string;
  due_at: Date;
  attempts: number;
}
/** A run with its contact's address, time zone and whether the contact was archived. */
export interface RunRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string | null;
  email: string | null;
  event: Record<string, unknown> | null;
  hops: number;
  status: string;
  contact_email: string | null;
  timezone: string | null;
  contact_archived: boolean;
}
/** A workflow as the engine reads it. */
export interface WorkflowRow {
  id: string;
  project_id: string;
  version: number;
  root_node: TreeNode | null;
  enabled: boolean;
  archived: boolean;
}

/** What one step did: its outcome text, the next steps (node and due instant; null = now), and whether it ends the run. */
export interface StepResult {
  outcome: string;
  next: Array<{ nodeId: string; dueAt: Date | null }>;
  end?: 'excluded' | 'ended';
}

/** One node applied to a group of steps: the transaction, the node, its workflow and steps, and helpers over them. */
export interface NodeGroup {
  q: QueryFn;
  node: TreeNode;
  settings: TreeNode['settings'];
  workflow: WorkflowRow;
  steps: StepRow[];
  /** The run of a step. */
  runOf: (s: StepRow) => RunRow;
  /** The step's contact when it is live (not archived), else null. */
  liveContact: (s: StepRow) => string | null;
  /** The json the step's events carry (workflow, hops, run, node). */
  json: (s: StepRow) => string;
  /** The node's next steps, due at `dueAt` (null = now), through every child or those on `port`. */
  all: (dueAt: Date | null, port?: 'output1' | 'output2') => StepResult['next'];
  /** Records a step's result. */
  set: (s: StepRow, r: StepResult) => void;
}

/** A node type's effect on a group of steps; it records every step's result through `set`. */
export type NodeEffect = (g: NodeGroup) => Promise<void>;

/**
 * A trigger node: the run starts (workflow_started) and goes on to the next node. An event trigger on opens or clicks
 * that counts people only (the events trigger let in only people's) looks at its triggering event again:
 * one judged a machine's or a bot's since it was recorded (a click followed by another link within a second is a
 * link scanner's, marked after it entered) ends the run, excluded, before anything happens.
 */
const started: NodeEffect = async ({ q, node, settings, workflow, steps: claimed, runOf, json, all, set }) => {
  let steps = claimed;
  if (node.type === 'event' && countsMachines(node.event_topic ?? undefined) && !settings.include_machine) {
    const ids = steps.map((s) => runOf(s).event?.id).filter((id): id is string => typeof id === 'string');
    const machine = new Set(ids.length ? (await q<{ id: string }>(sql.MACHINE_EVENTS, [workflow.project_id, ids])).map((r) => r.id) : []);
    for (const s of steps) {
      if (!machine.has(String(runOf(s).event?.id))) continue;
      const what = runOf(s).event?.name === EVENT.click ? 'a bot click (link scanner)' : 'a machine open (a mail privacy proxy or scanner fetched the image)';
      set(s, { outcome: `excluded: entered by ${what}, and the trigger counts people only`, next: [], end: 'excluded' });
    }
    steps = steps.filter((s) => !machine.has(String(runOf(s).event?.id)));
    if (!steps.length) return;
  }
  await recordEvents(
    q,
    workflow.project_id,
    steps.map((s) => ({
      name: EVENT.workflowStarted,
      email: runOf(s).contact_email ?? runOf(s).email,
      contactId: runOf(s).contact_id,
      json: JSON.parse(json(s)) as object,
    })),
  );
  for (const s of steps) set(s, { outcome: runOf(s).event ? `entered by event ${String(runOf(s).event!.name)}` : 'entered', next: all(null) });
};

/** NODE_EFFECTS: every node type's effect. */
export const NODE_EFFECTS: Record<NodeType, NodeEffect> = {
  root: started,
  event: started,
  user_upserted: started,
  delay: async ({ steps, settings, all, set }) => {
    for (const s of steps) {
      // Executed on arrival: it schedules the next step and says until when (the console shows it as waiting until then).
      const at = new Date(new Date(s.due_at).getTime() + (settings.delay_ms ?? 0));
      set(s, { outcome: `waits until ${at.toISOString()}`, next: all(at) });
    }
  },
  delay_until: async ({ steps, settings, runOf, all, set }) => {
    const now = new Date();
    for (const s of steps) {
      const at = delayUntilInstant(settings, now, runOf(s).timezone);
      if (at === 'exclude') set(s, { outcome: 'excluded: the date and time had passed', next: [], end: 'excluded' });
      else set(s, { outcome: `waits until ${at.toISOString()}`, next: all(at) });
    }
  },
  splitter: async ({ q, node, settings, workflow, steps, liveContact, all, set }) => {
    const checked = checkFilters(settings.filters ?? []);
    if ('errors' in checked) throw new Error(`filter node ${node.id}: ${checked.errors.join('; ')}`);
    const compiled = compileFilters(checked.filters, settings.conjunction ?? 'and', 2);
    const ids = steps.map(liveContact).filter((x): x is string => !!x);
    const matched = new Set(
      ids.length
        ? (
            await q<{ id: string }>(`SELECT c.id ${matchingContacts(compiled)} AND c.id = ANY($${2 + compiled.params.length}::uuid[])`, [
              workflow.project_id,
              ...compiled.params,
              ids,
            ])
          ).map((r) => r.id)
        : [],
    );
    for (const s of steps) {
      const yes = matched.has(liveContact(s) ?? '');
      set(s, { outcome: yes ? 'match' : 'no match', next: all(null, yes ? 'output1' : 'output2') });
    }
  },
  update_user: async ({ q, settings, workflow, steps, liveContact, all, set }) => {
    const ids = steps.map(liveContact).filter((x): x is string => !!x);
    const updated = new Set(await mergeContactMetadata(q, workflow.project_id, ids, settings.user_json ?? {}));
    for (const s of steps) set(s, { outcome: updated.has(liveContact(s) ?? '') ? 'updated metadata' : 'skipped: no contact', next: all(null) });
  },
  unsubscriber: async ({ q, workflow, steps, runOf, liveContact, json, all, set }) => {
    // A run with a live contact unsubscribes the contact; one without, its address (core/feedback unsubscribe).
    const candidates = steps.filter((s) => liveContact(s) || runOf(s).email);
    const changed = await unsubscribe(
      q,
      workflow.project_id,
      candidates.map((s) => ({
        contactIds: liveContact(s) ? [liveContact(s)!] : [],
        email: (liveContact(s) ? (runOf(s).contact_email ?? runOf(s).email) : runOf(s).email)!,
        eventEmail: runOf(s).contact_email ?? runOf(s).email,
        eventContactId: liveContact(s),
        json: JSON.parse(json(s)) as Record<string, unknown>,
      })),
      'workflow',
    );
    const did = new Set(candidates.filter((_, i) => changed[i]).map((s) => String(s.id)));
    for (const s of steps) set(s, { outcome: did.has(String(s.id)) ? 'unsubscribed' : 'already unsubscribed', next: all(null) });
  },
  segmenter: async ({ q, settings, workflow, steps, liveContact, all, set }) => {
    const ids = steps.map(liveContact).filter((x): x is string => !!x);
    const [segment] = await q(sql.LIVE_SEGMENT, [settings.segment_id, workflow.project_id]);
    if (!segment) {
      for (const s of steps) set(s, { outcome: `skipped: segment ${settings.segment_id} not found`, next: all(null) });
      return;
    }
    if (ids.length && settings.segment_operation === 'REMOVE') {
      await q(sql.REMOVE_SEGMENT_MEMBERS, [settings.segment_id, ids]);
    } else if (ids.length) {
      await q(sql.ADD_SEGMENT_MEMBERS, [settings.segment_id, ids]);
    }
    const verb = settings.segment_operation === 'REMOVE' ? 'removed from' : 'added to';
    for (const s of steps) set(s, { outcome: liveContact(s) ? `${verb} segment` : 'skipped: no contact', next: all(null) });
  },
  send_to_workflow: async ({ q, settings, workflow, steps, runOf, liveContact, set }) => {
    const [target] = await q<{ root_id: string | null }>(sql.HANDOFF_TARGET, [settings.workflow_id, workflow.project_id]);
    const go = target?.root_id ? steps.filter((s) => runOf(s).hops + 1 <= MAX_WORKFLOW_HOPS) : [];
    await enterHandedOn(
      q,
      workflow.project_id,
      settings.workflow_id!,
      go.map((s) => ({
        contactId: liveContact(s),
        email: runOf(s).contact_email ?? runOf(s).email,
        event: runOf(s).event,
        hops: runOf(s).hops + 1,
      })),
    );
    const handed = new Set(go.map((s) => String(s.id)));
    for (const s of steps) {
      const why = !target?.root_id ? 'the workflow is disabled or archived' : `more than ${MAX_WORKFLOW_HOPS} hand-offs`;
      set(s, { outcome: handed.has(String(s.id)) ? `handed to workflow ${settings.workflow_id}` : `not handed: ${why}`, next: [] });
    }
  },
  sender: (g) => queueEmails(g),
};

/**
 * applyNode applies `node` to the group's steps (NODE_EFFECTS) inside transaction `q` and returns each step's result
 * by step id. Throws what the effect throws (a database error, a filter node that no longer compiles).
 */
export async function applyNode(
  q: QueryFn,
  node: TreeNode,
  workflow: WorkflowRow,
  steps: StepRow[],
  runs: Map<string, RunRow>,
): Promise<Map<string, StepResult>> {
  const results = new Map<string, StepResult>();
  const runOf = (s: StepRow) => runs.get(s.run_id)!;
  const group: NodeGroup = {
    q,
    node,
    settings: node.settings,
    workflow,
    steps,
    runOf,
    liveContact: (s) => {
      const r = runOf(s);
      return r.contact_id && !r.contact_archived ? r.contact_id : null;
    },
    json: (s) => JSON.stringify({ workflow_id: workflow.id, workflow_hops: runOf(s).hops, run_id: s.run_id, node_id: node.id }),
    all: (dueAt, port) => node.children.filter((c) => !port || c.port === port).map((c) => ({ nodeId: c.id, dueAt })),
    set: (s, r) => results.set(String(s.id), r),
  };
  const effect = isTrigger(node.type) ? started : NODE_EFFECTS[node.type];
  await effect(group);
  return results;
}

/**
 * queueEmails is a sender node's effect: one outbox row per step (unique on the step), with the run's event for
 * {{event.*}}; in a sandboxed project a recipient that is not allowed gets a failed row and an unsuccessful-send event
 * instead, as a blast's would (src/domain/sandbox.ts).
 */
async function queueEmails({ q, node, workflow, steps, runOf, set }: NodeGroup): Promise<void> {
  const [project] = await q<{ not_in_sandbox: boolean }>('SELECT not_in_sandbox FROM projects WHERE id = $1', [workflow.project_id]);
  const personaEmails = project?.not_in_sandbox ? [] : (await q<{ email: string }>(PROJECT_PERSONA_EMAILS, [workflow.project_id])).map((r) => r.email);
  const [persona] = await q<{ email: string }>('SELECT email FROM sender_personas WHERE id = $1', [node.settings.sender_persona_id]);
  const domain = persona?.email.split('@')[1] ?? 'localhost';
  const rows: Array<{ step: StepRow; email: string; contact: string | null; error: string | null }> = [];
  for (const s of steps) {
    const run = runOf(s);
    const email = run.contact_id ? (run.contact_archived ? null : run.contact_email) : run.email;
    if (!email) {
      set(s, { outcome: 'not sent: no address (the contact was archived)', next: [] });
      continue;
    }
    const error = project?.not_in_sandbox ? null : (sandboxRejection(email, personaEmails) ?? null);
    rows.push({ step: s, email, contact: run.contact_id, error });
  }
  if (rows.length) {
    const queued = await q<{ id: string; workflow_step_id: string }>(
      `WITH made AS (${insertOutboxSql(
        {
          project_id: '$1',
          contact_id: 'u.contact',
          email: 'u.email',
          template_id: '$2',
          sender_persona_id: '$3',
          status: "CASE WHEN u.error IS NULL THEN 'pending' ELSE 'failed' END",
          last_error: 'u.error',
          workflow_id: '$4',
          workflow_step_id: 'u.step',
          workflow_hops: 'u.hops',
          event: 'u.event',
        },
        '$8::text',
        'unnest($5::uuid[], $6::text[], $7::text[], $9::bigint[], $10::int[], $11::jsonb[]) AS u(contact, email, error, step, hops, event)',
        `ON CONFLICT (workflow_step_id) WHERE workflow_step_id IS NOT NULL DO NOTHING
         RETURNING id, project_id, contact_id, email, template_id, status, last_error, message_id, workflow_id, workflow_step_id, workflow_hops`,
      )}),
     failed AS (${insertSystemEventsSql(
       {
         project_id: 'project_id',
         name: `'${EVENT.sendFailure}'`,
         email: 'email',
         user_id: 'contact_id',
         template_id: 'template_id',
         json: "jsonb_build_object('error_string', last_error, 'message_id', message_id, 'workflow_id', workflow_id, 'workflow_hops', workflow_hops)",
       },
       "made WHERE status = 'failed'",
     )})
     SELECT id, workflow_step_id FROM made`,
      [
        workflow.project_id,
        node.settings.template_id,
        node.settings.sender_persona_id,
        workflow.id,
        rows.map((r) => r.contact),
        rows.map((r) => r.email),
        rows.map((r) => r.error),
        domain,
        rows.map((r) => r.step.id),
        rows.map((r) => runOf(r.step).hops),
        rows.map((r) => {
          const e = runOf(r.step).event;
          return e ? JSON.stringify(e) : null;
        }),
      ],
    );
    const byStep = new Map(queued.map((x) => [String(x.workflow_step_id), x.id]));
    for (const r of rows) {
      const id = byStep.get(String(r.step.id));
      set(r.step, {
        outcome: r.error ? `not sent: ${r.error}` : `queued email ${id ?? '(already queued)'}`,
        next: node.children.map((c) => ({ nodeId: c.id, dueAt: null })),
      });
    }
  }
}

/**
 * completeRuns marks completed each active run of `runIds` with no step left pending or running, and records its
 * workflow_completed event (once: only the statement that flips the run records it).
 */
export async function completeRuns(q: QueryFn, runIds: string[]): Promise<void> {
  if (!runIds.length) return;
  // The runs still busy are found through the (run_id, node_id) index for the given runs only; a NOT EXISTS per run
  // let the planner walk every pending step of every run instead (5 s for 5,000 runs in npm run bench:workflows).
  await q(
    `WITH busy AS (SELECT DISTINCT run_id FROM workflow_steps WHERE run_id = ANY($1::uuid[]) AND status IN ('pending', 'running')),
           done AS (
             UPDATE workflow_runs r SET status = 'completed', ended_at = now()
              WHERE r.id = ANY($1::uuid[]) AND r.status = 'active' AND r.id NOT IN (SELECT run_id FROM busy)
             RETURNING r.id, r.project_id, r.workflow_id, r.contact_id, r.email, r.hops)
           ${insertSystemEventsSql(
             {
               project_id: 'd.project_id',
               name: `'${EVENT.workflowCompleted}'`,
               email: 'coalesce(c.email, d.email)',
               user_id: 'd.contact_id',
               json: "jsonb_build_object('workflow_id', d.workflow_id, 'workflow_hops', d.hops, 'run_id', d.id)",
             },
             'done d LEFT JOIN contacts c ON c.id = d.contact_id',
           )}`,
    [[...new Set(runIds)]],
  );
}
