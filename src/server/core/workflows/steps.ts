/**
 * Named SQL of the workflow engine's steps (spec part 2 §5 workflows; the engine is src/workers/workflows.ts): claiming
 * due steps with a token and a lease (as the sender claims the outbox), reading their runs and workflows, fencing a
 * group's claim, marking steps done, failed or cancelled, inserting the next steps, and ending runs. What each node does
 * is ./nodes.ts; who enters a workflow is ./queries.ts.
 */

/** Attempts before a step that keeps failing is marked failed and its run ended. */
export const MAX_STEP_ATTEMPTS = 5;

/** NEXT_DUE: the earliest due time of a step still to run (pending, or running under a lease), or NULL. */
export const NEXT_DUE = `SELECT min(due_at) AS next FROM workflow_steps WHERE status IN ('pending', 'running')`;

/**
 * CLAIM_STEPS: up to $3 due steps (pending and due, or running with an expired lease) become running under claim token
 * $1 for $2 ms (text), their attempt counted. Returns the steps claimed.
 */
export const CLAIM_STEPS = `UPDATE workflow_steps SET status = 'running', claim_token = $1, lease_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
        WHERE id IN (SELECT id FROM workflow_steps WHERE status IN ('pending', 'running') AND due_at <= now()
                        AND (status = 'pending' OR lease_until < now())
                      ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, run_id, workflow_id, node_id, due_at, attempts`;

/** STEP_RUNS: runs $1 with their contact's current address, time zone and whether it was archived. */
export const STEP_RUNS = `SELECT r.id, r.project_id, r.workflow_id, r.contact_id, r.email, r.event, r.hops, r.status, c.email AS contact_email, c.timezone,
              (c.archived_at IS NOT NULL) AS contact_archived
         FROM workflow_runs r LEFT JOIN contacts c ON c.id = r.contact_id WHERE r.id = ANY($1::uuid[])`;

/** STEP_WORKFLOWS: workflows $1 with their version, tree and state. */
export const STEP_WORKFLOWS = `SELECT id, project_id, version, root_node, enabled, archived_at IS NOT NULL AS archived FROM workflows WHERE id = ANY($1::uuid[])`;

/** STOP_STEPS: steps $1 still held under token $4 get status $2 and outcome $3 (each per step: cancelled or failed). */
export const STOP_STEPS = `UPDATE workflow_steps s SET status = u.status, outcome = u.outcome, executed_at = now(), claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, status, outcome) WHERE s.id = u.id AND s.claim_token = $4`;

/** END_RUNS: active runs $1 end with status $2 ('ended', or 'excluded' when a node left the contact out). */
export const END_RUNS = `UPDATE workflow_runs SET status = $2, ended_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`;

/**
 * RETRY_STEPS: steps $1 held under token $2 that failed with outcome $3 go back to pending after 2^attempts s, or,
 * after MAX_STEP_ATTEMPTS, are marked failed. Returns each step's run and new status.
 */
export const RETRY_STEPS = `UPDATE workflow_steps SET status = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN 'failed' ELSE 'pending' END,
                due_at = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN due_at ELSE now() + power(2, attempts) * interval '1 second' END,
                outcome = $3, claim_token = NULL, executed_at = CASE WHEN attempts >= ${MAX_STEP_ATTEMPTS} THEN now() END
          WHERE id = ANY($1::bigint[]) AND claim_token = $2 RETURNING run_id, status`;

/** HOLD_STEPS: of steps $1, the ones still running under token $2, locked until the transaction ends (the fence). */
export const HOLD_STEPS = `SELECT id FROM workflow_steps WHERE id = ANY($1::bigint[]) AND claim_token = $2 AND status = 'running' FOR UPDATE`;

/** STEPS_DONE: steps $1 are done with outcomes $2 (one per step). */
export const STEPS_DONE = `UPDATE workflow_steps s SET status = 'done', executed_at = now(), outcome = u.outcome, claim_token = NULL
                 FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE s.id = u.id`;

/**
 * NEXT_STEPS: the steps that follow in workflow $2 of project $1: runs $3 at nodes $4, due at $5 (NULL: now). A step
 * already made for a run and node (a re-run after a lost claim) is kept.
 */
export const NEXT_STEPS = `INSERT INTO workflow_steps (project_id, run_id, workflow_id, node_id, due_at)
                 SELECT $1, u.run, $2, u.node, coalesce(u.due, now()) FROM unnest($3::uuid[], $4::text[], $5::timestamptz[]) AS u(run, node, due)
                 ON CONFLICT (run_id, node_id) DO NOTHING`;
