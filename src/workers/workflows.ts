/**
 * The workflow engine (issue 8 §5; docs/architecture.md §4h): runs the steps of workflow runs, each exactly once.
 *
 * A step is one node for one run (workflow_steps, unique on run and node). The engine claims due steps in batches
 * (FOR UPDATE SKIP LOCKED, a claim token and a lease, as the sender claims the outbox), groups them by node, and runs
 * each group in one transaction: it re-checks the claim (FOR UPDATE on the steps still held), applies the node's effect
 * to every run of the group with set-based statements (metadata, unsubscribes, segment membership, hand-offs, queued
 * emails), marks the steps done with what they did, and inserts the next steps. All of a step's effects and its
 * successors commit together or not at all, so a worker killed at any moment leaves its steps `running` until the
 * lease ends and another worker runs them — once. A sender node's effect is an outbox row (unique per step), which the
 * sender then delivers exactly once.
 *
 * Timing: a delay's next step is due exactly delay_ms after the delay step was due; a delay-until's at the instant its
 * mode gives (src/domain/workflowGraph.ts delayUntilInstant); every other next step is due at once. The engine sleeps
 * until the earliest pending step is due (or POLL ms), and wakes early on NOTIFY workflow_steps (events entering
 * workflows) or a poke from this process.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { delayUntilInstant, flattenTree, isTrigger, MAX_WORKFLOW_HOPS, type TreeNode } from '../domain/workflowGraph.ts';
import { checkFilters } from '../domain/segmentFilter.ts';
import { compileFilters, matchingContacts } from '../server/core/segments/filter.ts';
import { sandboxRejection } from '../domain/sandbox.ts';
import { EVENT } from '../domain/events.ts';
import { insertSystemEventsSql, recordEvents } from '../server/core/events/index.ts';
import { unsubscribe } from '../server/core/feedback/index.ts';
import { enterHandedOn } from '../server/core/workflows/index.ts';

/** How many times a step that fails for an unexpected reason (a database error) is tried before its run ends. */
export const MAX_STEP_ATTEMPTS = 5;

export interface EngineOptions {
  /** How long a claim lasts before another worker may take the step over (ms). */
  leaseMs: number;
  /** The longest idle sleep between looks for due steps (ms). */
  pollMs: number;
  /** Steps claimed at once (default 1000). */
  batchSize?: number;
}

interface StepRow { id: string; project_id: string; run_id: string; workflow_id: string; node_id: string; due_at: Date; attempts: number }
interface RunRow {
  id: string; project_id: string; workflow_id: string; contact_id: string | null; email: string | null; event: Record<string, unknown> | null;
  hops: number; status: string; contact_email: string | null; timezone: string | null; contact_archived: boolean;
}
interface WorkflowRow { id: string; project_id: string; version: number; root_node: TreeNode | null; enabled: boolean; archived: boolean }

/** What one step did: its outcome text, the next steps (node and due instant; null = now), and whether it ends the run. */
interface StepResult { outcome: string; next: Array<{ nodeId: string; dueAt: Date | null }>; end?: 'excluded' | 'ended' }

/** WorkflowEngine claims and runs due workflow steps until stopped. */
export class WorkflowEngine {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private poked = false;
  private unlisten?: () => Promise<void>;
  private readonly query: QueryFn;
  private readonly trees = new Map<string, { version: number; nodes: Map<string, TreeNode> }>();

  constructor(private readonly ctx: AppContext, private readonly opts: EngineOptions) {
    this.query = ctx.database.query.bind(ctx.database) as QueryFn;
  }

  /** start begins the loop and listens for NOTIFY workflow_steps. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unlisten = await this.ctx.database.listen('workflow_steps', () => this.poke()).catch((err) => {
      console.warn(`workflows: not listening for new runs (${(err as Error).message}); polling every ${this.opts.pollMs} ms`);
      return undefined;
    });
    this.loop = this.run();
  }

  /** stop lets the batch in hand finish and resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loop;
    await this.unlisten?.();
  }

  /** poke wakes the loop at once (new runs were started). */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      this.poked = false;
      try {
        claimed = await this.runBatch();
      } catch (err) {
        console.error('workflows: batch failed:', (err as Error).message);
      }
      if (!this.running || claimed >= (this.opts.batchSize ?? 1000) || this.poked) continue;
      let waitMs = this.opts.pollMs;
      try {
        const [{ next }] = await this.query<{ next: Date | null }>(`SELECT min(due_at) AS next FROM workflow_steps WHERE status IN ('pending', 'running')`);
        if (next) waitMs = Math.max(0, Math.min(waitMs, new Date(next).getTime() - Date.now()));
      } catch { /* poll */ }
      if (waitMs > 0 && !this.poked) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, waitMs);
          function done() { clearTimeout(t); resolve(); }
          this.wake = done;
        });
        this.wake = undefined;
      }
    }
  }

  /**
   * runBatch claims up to batchSize due steps (pending and due, or running with an expired lease), runs them node by
   * node, and returns how many it claimed.
   */
  async runBatch(): Promise<number> {
    const token = randomUUID();
    const steps = await this.query<StepRow>(
      `UPDATE workflow_steps SET status = 'running', claim_token = $1, lease_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
        WHERE id IN (SELECT id FROM workflow_steps WHERE status IN ('pending', 'running') AND due_at <= now()
                        AND (status = 'pending' OR lease_until < now())
                      ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, run_id, workflow_id, node_id, due_at, attempts`,
      [token, String(this.opts.leaseMs), this.opts.batchSize ?? 1000]);
    if (!steps.length) return 0;
    const runs = new Map((await this.query<RunRow>(
      `SELECT r.id, r.project_id, r.workflow_id, r.contact_id, r.email, r.event, r.hops, r.status, c.email AS contact_email, c.timezone,
              (c.archived_at IS NOT NULL) AS contact_archived
         FROM workflow_runs r LEFT JOIN contacts c ON c.id = r.contact_id WHERE r.id = ANY($1::uuid[])`,
      [[...new Set(steps.map((s) => s.run_id))]])).map((r) => [r.id, r]));
    const workflows = new Map((await this.query<WorkflowRow>(
      `SELECT id, project_id, version, root_node, enabled, archived_at IS NOT NULL AS archived FROM workflows WHERE id = ANY($1::uuid[])`,
      [[...new Set(steps.map((s) => s.workflow_id))]])).map((w) => [w.id, w]));

    const groups = new Map<string, { node: TreeNode; workflow: WorkflowRow; steps: StepRow[] }>();
    const stopped: Array<{ step: StepRow; status: 'cancelled' | 'failed'; outcome: string; endRun: boolean }> = [];
    for (const step of steps) {
      const run = runs.get(step.run_id);
      const workflow = workflows.get(step.workflow_id);
      if (!run || run.status !== 'active') { stopped.push({ step, status: 'cancelled', outcome: 'the run had ended', endRun: false }); continue; }
      if (!workflow || workflow.archived) { stopped.push({ step, status: 'cancelled', outcome: 'workflow archived', endRun: true }); continue; }
      const node = this.nodeOf(workflow, step.node_id);
      if (!node) { stopped.push({ step, status: 'failed', outcome: 'node no longer in the workflow (it was edited)', endRun: true }); continue; }
      const key = `${workflow.id}\u0000${node.id}`;
      const g = groups.get(key) ?? { node, workflow, steps: [] };
      g.steps.push(step);
      groups.set(key, g);
    }
    if (stopped.length) await this.stopSteps(stopped, token);
    let queuedEmail = false;
    for (const { node, workflow, steps: group } of groups.values()) {
      try {
        const done = await this.runGroup(node, workflow, group, runs, token);
        if (node.type === 'sender' && done) queuedEmail = true;
      } catch (err) {
        await this.retryLater(group, token, (err as Error).message);
      }
    }
    if (queuedEmail) this.ctx.notifySender();
    return steps.length;
  }

  /** nodeOf finds a node of a workflow's tree (the tree is indexed once per workflow version). */
  private nodeOf(workflow: WorkflowRow, nodeId: string): TreeNode | undefined {
    let cached = this.trees.get(workflow.id);
    if (!cached || cached.version !== workflow.version) {
      cached = { version: workflow.version, nodes: new Map(workflow.root_node ? flattenTree(workflow.root_node).map(({ node }) => [node.id, node]) : []) };
      if (this.trees.size > 1000) this.trees.clear();
      this.trees.set(workflow.id, cached);
    }
    return cached.nodes.get(nodeId);
  }

  /** stopSteps cancels or fails steps that cannot run (their run ended, the workflow was archived or edited). */
  private async stopSteps(list: Array<{ step: StepRow; status: 'cancelled' | 'failed'; outcome: string; endRun: boolean }>, token: string): Promise<void> {
    await this.ctx.database.transaction(async (q) => {
      await q(`UPDATE workflow_steps s SET status = u.status, outcome = u.outcome, executed_at = now(), claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, status, outcome) WHERE s.id = u.id AND s.claim_token = $4`,
      [list.map((x) => x.step.id), list.map((x) => x.status), list.map((x) => x.outcome), token]);
      const ending = [...new Set(list.filter((x) => x.endRun).map((x) => x.step.run_id))];
      if (ending.length) await q(`UPDATE workflow_runs SET status = 'ended', ended_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`, [ending]);
    });
  }

  /** retryLater puts a group's steps back (after 2^attempts s), or after MAX_STEP_ATTEMPTS fails them and ends their runs. */
  private async retryLater(group: StepRow[], token: string, reason: string): Promise<void> {
    console.error(`workflows: ${group.length} step(s) failed, to be retried: ${reason}`);
    await this.ctx.database.transaction(async (q) => {
      const failed = await q<{ run_id: string; status: string }>(
        `UPDATE workflow_steps SET status = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN 'failed' ELSE 'pending' END,
                due_at = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN due_at ELSE now() + power(2, attempts) * interval '1 second' END,
                outcome = $3, claim_token = NULL, executed_at = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN now() END
          WHERE id = ANY($1::bigint[]) AND claim_token = $2 RETURNING run_id, status`, [group.map((s) => s.id), token, `error: ${reason}`.slice(0, 500)]);
      const ended = failed.filter((f) => f.status === 'failed').map((f) => f.run_id);
      if (ended.length) await q(`UPDATE workflow_runs SET status = 'ended', ended_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`, [ended]);
    });
  }

  /**
   * runGroup runs one node for a group of steps in one transaction: fence the claim, apply the effect, mark the steps
   * done with their outcomes, insert the next steps, end or complete the runs that stop here. Returns how many ran.
   */
  private async runGroup(node: TreeNode, workflow: WorkflowRow, group: StepRow[], runs: Map<string, RunRow>, token: string): Promise<number> {
    const finishedRuns: string[] = [];
    const ran = await this.ctx.database.transaction(async (q) => {
      const held = new Set((await q<{ id: string }>(
        `SELECT id FROM workflow_steps WHERE id = ANY($1::bigint[]) AND claim_token = $2 AND status = 'running' FOR UPDATE`,
        [group.map((s) => s.id), token])).map((r) => String(r.id)));
      const steps = group.filter((s) => held.has(String(s.id)));
      if (!steps.length) return 0;
      const results = await this.effect(q, node, workflow, steps, runs);
      await q(`UPDATE workflow_steps s SET status = 'done', executed_at = now(), outcome = u.outcome, claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE s.id = u.id`,
      [steps.map((s) => s.id), steps.map((s) => results.get(String(s.id))!.outcome)]);
      const next = steps.flatMap((s) => results.get(String(s.id))!.next.map((n) => ({ run: s.run_id, node: n.nodeId, due: n.dueAt?.toISOString() ?? null })));
      if (next.length) {
        await q(`INSERT INTO workflow_steps (project_id, run_id, workflow_id, node_id, due_at)
                 SELECT $1, u.run, $2, u.node, coalesce(u.due, now()) FROM unnest($3::uuid[], $4::text[], $5::timestamptz[]) AS u(run, node, due)
                 ON CONFLICT (run_id, node_id) DO NOTHING`,
        [workflow.project_id, workflow.id, next.map((n) => n.run), next.map((n) => n.node), next.map((n) => n.due)]);
      }
      for (const status of ['excluded', 'ended'] as const) {
        const ids = steps.filter((s) => results.get(String(s.id))!.end === status).map((s) => s.run_id);
        if (ids.length) await q(`UPDATE workflow_runs SET status = $2, ended_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`, [ids, status]);
      }
      finishedRuns.push(...steps.filter((s) => { const r = results.get(String(s.id))!; return !r.next.length && !r.end; }).map((s) => s.run_id));
      await completeRuns(q, finishedRuns);
      return steps.length;
    });
    // Two branches of one run finishing at once each see the other still running inside their transactions: looking
    // again after the commit, the later one sees both done.
    if (finishedRuns.length) await completeRuns(this.query, finishedRuns);
    return ran;
  }

  /** effect applies one node to the group's runs and returns each step's result. */
  private async effect(q: QueryFn, node: TreeNode, workflow: WorkflowRow, steps: StepRow[], runs: Map<string, RunRow>): Promise<Map<string, StepResult>> {
    const results = new Map<string, StepResult>();
    const all = (dueAt: Date | null, port?: 'output1' | 'output2') => node.children.filter((c) => !port || c.port === port).map((c) => ({ nodeId: c.id, dueAt }));
    const set = (s: StepRow, r: StepResult) => results.set(String(s.id), r);
    const runOf = (s: StepRow) => runs.get(s.run_id)!;
    const liveContact = (s: StepRow) => { const r = runOf(s); return r.contact_id && !r.contact_archived ? r.contact_id : null; };
    const json = (s: StepRow) => JSON.stringify({ workflow_id: workflow.id, workflow_hops: runOf(s).hops, run_id: s.run_id, node_id: node.id });
    const settings = node.settings;

    if (isTrigger(node.type)) {
      await recordEvents(q, workflow.project_id, steps.map((s) => ({
        name: EVENT.workflowStarted, email: runOf(s).contact_email ?? runOf(s).email, contactId: runOf(s).contact_id, json: JSON.parse(json(s)) as object,
      })));
      for (const s of steps) set(s, { outcome: runOf(s).event ? `entered by event ${String(runOf(s).event!.name)}` : 'entered', next: all(null) });
      return results;
    }
    switch (node.type) {
      case 'delay':
        for (const s of steps) set(s, { outcome: `waited ${settings.delay_ms} ms`, next: all(new Date(new Date(s.due_at).getTime() + (settings.delay_ms ?? 0))) });
        break;
      case 'delay_until': {
        const now = new Date();
        for (const s of steps) {
          const at = delayUntilInstant(settings, now, runOf(s).timezone);
          if (at === 'exclude') set(s, { outcome: 'excluded: the date and time had passed', next: [], end: 'excluded' });
          else set(s, { outcome: `waits until ${at.toISOString()}`, next: all(at) });
        }
        break;
      }
      case 'splitter': {
        const checked = checkFilters(settings.filters ?? []);
        if ('errors' in checked) throw new Error(`filter node ${node.id}: ${checked.errors.join('; ')}`);
        const compiled = compileFilters(checked.filters, settings.conjunction ?? 'and', 2);
        const ids = steps.map(liveContact).filter((x): x is string => !!x);
        const matched = new Set(ids.length ? (await q<{ id: string }>(
          `SELECT c.id ${matchingContacts(compiled)} AND c.id = ANY($${2 + compiled.params.length}::uuid[])`,
          [workflow.project_id, ...compiled.params, ids])).map((r) => r.id) : []);
        for (const s of steps) {
          const yes = matched.has(liveContact(s) ?? '');
          set(s, { outcome: yes ? 'match' : 'no match', next: all(null, yes ? 'output1' : 'output2') });
        }
        break;
      }
      case 'update_user': {
        const ids = steps.map(liveContact).filter((x): x is string => !!x);
        const updated = new Set(ids.length ? (await q<{ id: string }>(
          `UPDATE contacts SET json = json || $3::jsonb, updated_at = now(), version = version + 1
            WHERE project_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL RETURNING id`,
          [workflow.project_id, ids, JSON.stringify(settings.user_json ?? {})])).map((r) => r.id) : []);
        for (const s of steps) set(s, { outcome: updated.has(liveContact(s) ?? '') ? 'updated metadata' : 'skipped: no contact', next: all(null) });
        break;
      }
      case 'unsubscriber': {
        // A run with a live contact unsubscribes the contact; one without, its address (core/feedback unsubscribe).
        const candidates = steps.filter((s) => liveContact(s) || runOf(s).email);
        const changed = await unsubscribe(q, workflow.project_id, candidates.map((s) => ({
          contactIds: liveContact(s) ? [liveContact(s)!] : [], email: (liveContact(s) ? runOf(s).contact_email ?? runOf(s).email : runOf(s).email)!,
          eventEmail: runOf(s).contact_email ?? runOf(s).email, eventContactId: liveContact(s),
          json: JSON.parse(json(s)) as Record<string, unknown>,
        })), 'workflow');
        const did = new Set(candidates.filter((_, i) => changed[i]).map((s) => String(s.id)));
        for (const s of steps) set(s, { outcome: did.has(String(s.id)) ? 'unsubscribed' : 'already unsubscribed', next: all(null) });
        break;
      }
      case 'segmenter': {
        const ids = steps.map(liveContact).filter((x): x is string => !!x);
        const [segment] = await q('SELECT 1 FROM segments WHERE id = $1 AND project_id = $2 AND archived_at IS NULL', [settings.segment_id, workflow.project_id]);
        if (!segment) {
          for (const s of steps) set(s, { outcome: `skipped: segment ${settings.segment_id} not found`, next: all(null) });
          break;
        }
        if (ids.length && settings.segment_operation === 'REMOVE') {
          await q('DELETE FROM segment_members WHERE segment_id = $1 AND contact_id = ANY($2::uuid[])', [settings.segment_id, ids]);
        } else if (ids.length) {
          await q(`INSERT INTO segment_members (segment_id, contact_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT (segment_id, contact_id) DO NOTHING`, [settings.segment_id, ids]);
        }
        const verb = settings.segment_operation === 'REMOVE' ? 'removed from' : 'added to';
        for (const s of steps) set(s, { outcome: liveContact(s) ? `${verb} segment` : 'skipped: no contact', next: all(null) });
        break;
      }
      case 'send_to_workflow': {
        const [target] = await q<{ root_id: string | null }>(
          `SELECT root_node->>'id' AS root_id FROM workflows WHERE id = $1 AND project_id = $2 AND enabled AND archived_at IS NULL`,
          [settings.workflow_id, workflow.project_id]);
        const go = target?.root_id ? steps.filter((s) => runOf(s).hops + 1 <= MAX_WORKFLOW_HOPS) : [];
        await enterHandedOn(q, workflow.project_id, settings.workflow_id!, go.map((s) => ({
          contactId: liveContact(s), email: runOf(s).contact_email ?? runOf(s).email, event: runOf(s).event, hops: runOf(s).hops + 1,
        })));
        const handed = new Set(go.map((s) => String(s.id)));
        for (const s of steps) {
          const why = !target?.root_id ? 'the workflow is disabled or archived' : `more than ${MAX_WORKFLOW_HOPS} hand-offs`;
          set(s, { outcome: handed.has(String(s.id)) ? `handed to workflow ${settings.workflow_id}` : `not handed: ${why}`, next: [] });
        }
        break;
      }
      case 'sender': {
        await this.queueEmails(q, node, workflow, steps, runs, set);
        break;
      }
      default:
        for (const s of steps) set(s, { outcome: 'done', next: all(null) });
    }
    return results;
  }

  /**
   * queueEmails is a sender node's effect: one outbox row per step (unique on the step), with the run's event for
   * {{event.*}}; in a sandboxed project a recipient that is not allowed gets a failed row and an unsuccessful-send event
   * instead, as a blast's would (src/domain/sandbox.ts).
   */
  private async queueEmails(q: QueryFn, node: TreeNode, workflow: WorkflowRow, steps: StepRow[], runs: Map<string, RunRow>,
    set: (s: StepRow, r: StepResult) => void): Promise<void> {
    const [project] = await q<{ not_in_sandbox: boolean }>('SELECT not_in_sandbox FROM projects WHERE id = $1', [workflow.project_id]);
    const personaEmails = project?.not_in_sandbox ? [] : (await q<{ email: string }>(
      'SELECT email FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL', [workflow.project_id])).map((r) => r.email);
    const [persona] = await q<{ email: string }>('SELECT email FROM sender_personas WHERE id = $1', [node.settings.sender_persona_id]);
    const domain = persona?.email.split('@')[1] ?? 'localhost';
    const rows: Array<{ step: StepRow; email: string; contact: string | null; error: string | null; messageId: string }> = [];
    for (const s of steps) {
      const run = runs.get(s.run_id)!;
      const email = run.contact_id ? (run.contact_archived ? null : run.contact_email) : run.email;
      if (!email) { set(s, { outcome: 'not sent: no address (the contact was archived)', next: [] }); continue; }
      const error = project?.not_in_sandbox ? null : sandboxRejection(email, personaEmails) ?? null;
      rows.push({ step: s, email, contact: run.contact_id, error, messageId: `<${randomUUID()}@${domain}>` });
    }
    if (rows.length) {
      const queued = await q<{ id: string; workflow_step_id: string }>(
        `WITH made AS (
           INSERT INTO outbox (project_id, contact_id, email, template_id, sender_persona_id, send_at, next_attempt_at, status, last_error,
                               message_id, workflow_id, workflow_step_id, workflow_hops, event)
           SELECT $1, u.contact, u.email, $2, $3, now(), now(), CASE WHEN u.error IS NULL THEN 'pending' ELSE 'failed' END, u.error,
                  u.message_id, $4, u.step, u.hops, u.event
             FROM unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::int[], $11::jsonb[])
                  AS u(contact, email, error, message_id, step, hops, event)
           ON CONFLICT (workflow_step_id) WHERE workflow_step_id IS NOT NULL DO NOTHING
           RETURNING id, project_id, contact_id, email, template_id, status, last_error, message_id, workflow_id, workflow_step_id, workflow_hops),
         failed AS (${insertSystemEventsSql({
           project_id: 'project_id', name: `'${EVENT.sendFailure}'`, email: 'email', user_id: 'contact_id', template_id: 'template_id',
           json: "jsonb_build_object('error_string', last_error, 'message_id', message_id, 'workflow_id', workflow_id, 'workflow_hops', workflow_hops)",
         }, "made WHERE status = 'failed'")})
         SELECT id, workflow_step_id FROM made`,
        [workflow.project_id, node.settings.template_id, node.settings.sender_persona_id, workflow.id,
          rows.map((r) => r.contact), rows.map((r) => r.email), rows.map((r) => r.error), rows.map((r) => r.messageId), rows.map((r) => r.step.id),
          rows.map((r) => runs.get(r.step.run_id)!.hops), rows.map((r) => { const e = runs.get(r.step.run_id)!.event; return e ? JSON.stringify(e) : null; })]);
      const byStep = new Map(queued.map((x) => [String(x.workflow_step_id), x.id]));
      for (const r of rows) {
        const id = byStep.get(String(r.step.id));
        set(r.step, { outcome: r.error ? `not sent: ${r.error}` : `queued email ${id ?? '(already queued)'}`, next: node.children.map((c) => ({ nodeId: c.id, dueAt: null })) });
      }
    }
  }
}

/**
 * completeRuns marks completed each active run of `runIds` with no step left pending or running, and records its
 * workflow_completed event (once: only the statement that flips the run records it).
 */
async function completeRuns(q: QueryFn, runIds: string[]): Promise<void> {
  if (!runIds.length) return;
  // The runs still busy are found through the (run_id, node_id) index for the given runs only; a NOT EXISTS per run
  // let the planner walk every pending step of every run instead (5 s for 5,000 runs in npm run bench:workflows).
  await q(`WITH busy AS (SELECT DISTINCT run_id FROM workflow_steps WHERE run_id = ANY($1::uuid[]) AND status IN ('pending', 'running')),
           done AS (
             UPDATE workflow_runs r SET status = 'completed', ended_at = now()
              WHERE r.id = ANY($1::uuid[]) AND r.status = 'active' AND r.id NOT IN (SELECT run_id FROM busy)
             RETURNING r.id, r.project_id, r.workflow_id, r.contact_id, r.email, r.hops)
           ${insertSystemEventsSql({
             project_id: 'd.project_id', name: `'${EVENT.workflowCompleted}'`, email: 'coalesce(c.email, d.email)', user_id: 'd.contact_id',
             json: "jsonb_build_object('workflow_id', d.workflow_id, 'workflow_hops', d.hops, 'run_id', d.id)",
           }, 'done d LEFT JOIN contacts c ON c.id = d.contact_id')}`, [[...new Set(runIds)]]);
}
