/**
 * The workflow engine (docs/architecture.md §8): runs the steps of workflow runs, each exactly once.
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
import { flattenTree, type TreeNode } from '../domain/workflowGraph.ts';
import { applyNode, completeRuns, type RunRow, type StepRow, type WorkflowRow } from '../server/core/workflows/nodes.ts';

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

/** WorkflowEngine claims and runs due workflow steps until stopped. */
export class WorkflowEngine {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private poked = false;
  private unlisten?: () => Promise<void>;
  private readonly query: QueryFn;
  private readonly trees = new Map<string, { version: number; nodes: Map<string, TreeNode> }>();

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: EngineOptions,
  ) {
    this.query = ctx.database.query.bind(ctx.database) as QueryFn;
  }

  /** start begins the loop and listens for NOTIFY workflow_steps. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unlisten = await this.ctx.database
      .listen('workflow_steps', () => this.poke())
      .catch((err) => {
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
      } catch {
        /* poll */
      }
      if (waitMs > 0 && !this.poked) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, waitMs);
          function done() {
            clearTimeout(t);
            resolve();
          }
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
      [token, String(this.opts.leaseMs), this.opts.batchSize ?? 1000],
    );
    if (!steps.length) return 0;
    const runs = new Map(
      (
        await this.query<RunRow>(
          `SELECT r.id, r.project_id, r.workflow_id, r.contact_id, r.email, r.event, r.hops, r.status, c.email AS contact_email, c.timezone,
              (c.archived_at IS NOT NULL) AS contact_archived
         FROM workflow_runs r LEFT JOIN contacts c ON c.id = r.contact_id WHERE r.id = ANY($1::uuid[])`,
          [[...new Set(steps.map((s) => s.run_id))]],
        )
      ).map((r) => [r.id, r]),
    );
    const workflows = new Map(
      (
        await this.query<WorkflowRow>(
          `SELECT id, project_id, version, root_node, enabled, archived_at IS NOT NULL AS archived FROM workflows WHERE id = ANY($1::uuid[])`,
          [[...new Set(steps.map((s) => s.workflow_id))]],
        )
      ).map((w) => [w.id, w]),
    );

    const groups = new Map<string, { node: TreeNode; workflow: WorkflowRow; steps: StepRow[] }>();
    const stopped: Array<{ step: StepRow; status: 'cancelled' | 'failed'; outcome: string; endRun: boolean }> = [];
    for (const step of steps) {
      const run = runs.get(step.run_id);
      const workflow = workflows.get(step.workflow_id);
      if (!run || run.status !== 'active') {
        stopped.push({ step, status: 'cancelled', outcome: 'the run had ended', endRun: false });
        continue;
      }
      if (!workflow || workflow.archived) {
        stopped.push({ step, status: 'cancelled', outcome: 'workflow archived', endRun: true });
        continue;
      }
      const node = this.nodeOf(workflow, step.node_id);
      if (!node) {
        stopped.push({ step, status: 'failed', outcome: 'node no longer in the workflow (it was edited)', endRun: true });
        continue;
      }
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
      await q(
        `UPDATE workflow_steps s SET status = u.status, outcome = u.outcome, executed_at = now(), claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, status, outcome) WHERE s.id = u.id AND s.claim_token = $4`,
        [list.map((x) => x.step.id), list.map((x) => x.status), list.map((x) => x.outcome), token],
      );
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
          WHERE id = ANY($1::bigint[]) AND claim_token = $2 RETURNING run_id, status`,
        [group.map((s) => s.id), token, `error: ${reason}`.slice(0, 500)],
      );
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
      const held = new Set(
        (
          await q<{ id: string }>(`SELECT id FROM workflow_steps WHERE id = ANY($1::bigint[]) AND claim_token = $2 AND status = 'running' FOR UPDATE`, [
            group.map((s) => s.id),
            token,
          ])
        ).map((r) => String(r.id)),
      );
      const steps = group.filter((s) => held.has(String(s.id)));
      if (!steps.length) return 0;
      const results = await applyNode(q, node, workflow, steps, runs);
      await q(
        `UPDATE workflow_steps s SET status = 'done', executed_at = now(), outcome = u.outcome, claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE s.id = u.id`,
        [steps.map((s) => s.id), steps.map((s) => results.get(String(s.id))!.outcome)],
      );
      const next = steps.flatMap((s) => results.get(String(s.id))!.next.map((n) => ({ run: s.run_id, node: n.nodeId, due: n.dueAt?.toISOString() ?? null })));
      if (next.length) {
        await q(
          `INSERT INTO workflow_steps (project_id, run_id, workflow_id, node_id, due_at)
                 SELECT $1, u.run, $2, u.node, coalesce(u.due, now()) FROM unnest($3::uuid[], $4::text[], $5::timestamptz[]) AS u(run, node, due)
                 ON CONFLICT (run_id, node_id) DO NOTHING`,
          [workflow.project_id, workflow.id, next.map((n) => n.run), next.map((n) => n.node), next.map((n) => n.due)],
        );
      }
      for (const status of ['excluded', 'ended'] as const) {
        const ids = steps.filter((s) => results.get(String(s.id))!.end === status).map((s) => s.run_id);
        if (ids.length) await q(`UPDATE workflow_runs SET status = $2, ended_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`, [ids, status]);
      }
      finishedRuns.push(
        ...steps
          .filter((s) => {
            const r = results.get(String(s.id))!;
            return !r.next.length && !r.end;
          })
          .map((s) => s.run_id),
      );
      await completeRuns(q, finishedRuns);
      return steps.length;
    });
    // Two branches of one run finishing at once each see the other still running inside their transactions: looking
    // again after the commit, the later one sees both done.
    if (finishedRuns.length) await completeRuns(this.query, finishedRuns);
    return ran;
  }
}
