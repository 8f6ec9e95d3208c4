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
 *
 * The engine holds the loop; its statements are core/workflows/steps.ts, what each node does core/workflows/nodes.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { flattenTree, type TreeNode } from '../domain/workflowGraph.ts';
import { applyNode, completeRuns, type RunRow, type StepRow, type WorkflowRow } from '../server/core/workflows/nodes.ts';
import {
  CLAIM_STEPS,
  END_RUNS,
  HOLD_STEPS,
  NEXT_DUE,
  NEXT_STEPS,
  RETRY_STEPS,
  STEP_RUNS,
  STEP_WORKFLOWS,
  STEPS_DONE,
  STOP_STEPS,
} from '../server/core/workflows/steps.ts';

/** How many times a step that fails for an unexpected reason (a database error) is tried before its run ends. */

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
        const [{ next }] = await this.query<{ next: Date | null }>(NEXT_DUE);
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
    const steps = await this.query<StepRow>(CLAIM_STEPS, [token, String(this.opts.leaseMs), this.opts.batchSize ?? 1000]);
    if (!steps.length) return 0;
    const runs = new Map((await this.query<RunRow>(STEP_RUNS, [[...new Set(steps.map((s) => s.run_id))]])).map((r) => [r.id, r]));
    const workflows = new Map((await this.query<WorkflowRow>(STEP_WORKFLOWS, [[...new Set(steps.map((s) => s.workflow_id))]])).map((w) => [w.id, w]));

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
      await q(STOP_STEPS, [list.map((x) => x.step.id), list.map((x) => x.status), list.map((x) => x.outcome), token]);
      const ending = [...new Set(list.filter((x) => x.endRun).map((x) => x.step.run_id))];
      if (ending.length) await q(END_RUNS, [ending, 'ended']);
    });
  }

  /** retryLater puts a group's steps back (after 2^attempts s), or after MAX_STEP_ATTEMPTS fails them and ends their runs. */
  private async retryLater(group: StepRow[], token: string, reason: string): Promise<void> {
    console.error(`workflows: ${group.length} step(s) failed, to be retried: ${reason}`);
    await this.ctx.database.transaction(async (q) => {
      const failed = await q<{ run_id: string; status: string }>(RETRY_STEPS, [group.map((s) => s.id), token, `error: ${reason}`.slice(0, 500)]);
      const ended = failed.filter((f) => f.status === 'failed').map((f) => f.run_id);
      if (ended.length) await q(END_RUNS, [ended, 'ended']);
    });
  }

  /**
   * runGroup runs one node for a group of steps in one transaction: fence the claim, apply the effect, mark the steps
   * done with their outcomes, insert the next steps, end or complete the runs that stop here. Returns how many ran.
   */
  private async runGroup(node: TreeNode, workflow: WorkflowRow, group: StepRow[], runs: Map<string, RunRow>, token: string): Promise<number> {
    const finishedRuns: string[] = [];
    const ran = await this.ctx.database.transaction(async (q) => {
      const held = new Set((await q<{ id: string }>(HOLD_STEPS, [group.map((s) => s.id), token])).map((r) => String(r.id)));
      const steps = group.filter((s) => held.has(String(s.id)));
      if (!steps.length) return 0;
      const results = await applyNode(q, node, workflow, steps, runs);
      await q(STEPS_DONE, [steps.map((s) => s.id), steps.map((s) => results.get(String(s.id))!.outcome)]);
      const next = steps.flatMap((s) => results.get(String(s.id))!.next.map((n) => ({ run: s.run_id, node: n.nodeId, due: n.dueAt?.toISOString() ?? null })));
      if (next.length) {
        await q(NEXT_STEPS, [workflow.project_id, workflow.id, next.map((n) => n.run), next.map((n) => n.node), next.map((n) => n.due)]);
      }
      for (const status of ['excluded', 'ended'] as const) {
        const ids = steps.filter((s) => results.get(String(s.id))!.end === status).map((s) => s.run_id);
        if (ids.length) await q(END_RUNS, [ids, status]);
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
