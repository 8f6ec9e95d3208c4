/**
 * `npm run bench:workflows`: 10,000 contacts through event trigger → delay 1 s → filter (email contains
 * 'a', about half match) → send, on PostgreSQL (BENCH_DB=pglite for the embedded database), with the workers of one
 * process (the engine, the sender with its render threads) and an SMTP sink in this process. The events are posted
 * through the events API's service in batches of 1,000 (each batch enters the workflow in its own statement). Prints
 * completions/s (runs completed, from the first event to the last completion), the lag between each delay's due time
 * (when its next step was due) and when that step ran (p50/p95/max), emails delivered/s, and a check that every
 * contact ran every step once. Prints figures; asserts nothing.
 *
 * BENCH_WORKFLOW_CONTACTS (10000), BENCH_DB (postgres), BENCH_PG_URL.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { QueryFn } from '../src/server/db/client.ts';
import { openBenchDatabase } from './databases.ts';
import { benchConfig, machineFacts, quantile } from './figures.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { SmtpTransport } from '../src/server/mail/transport.ts';
import { createAccount, projectByApiKey } from '../src/server/core/accounts/index.ts';
import { upsertContacts } from '../src/server/core/contacts/index.ts';
import { savePersonas } from '../src/server/core/personas/index.ts';
import { saveTemplates } from '../src/server/core/templates/index.ts';
import { ingestEvents } from '../src/server/core/events/ingest.ts';
import { runWorkflowSave } from '../src/server/core/workflows/index.ts';
import { displayToTree, type Display } from '../src/domain/workflowGraph.ts';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';

const N = Number(process.env.BENCH_WORKFLOW_CONTACTS ?? 10_000);
const KIND = (process.env.BENCH_DB ?? 'postgres') as 'pglite' | 'postgres';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function main(): Promise<void> {
  const opened = await openBenchDatabase(KIND, PG_URL, 'workflows');
  if (!opened) return;
  const { database, cleanup } = opened;
  const query = database.query.bind(database) as QueryFn;
  const sink = new SmtpSink();
  sink.countOnly = true;
  const smtpUrl = await sink.start();
  const config = await benchConfig('mw-bench-wf', smtpUrl, { workflowPollMs: 1000 });
  const runtime = await startRuntime(config, { database, transport: new SmtpTransport(smtpUrl), workers: true });
  const { apiKey } = await createAccount(database.db, {
    company: 'Bench workflows',
    project: 'bench',
    email: 'bench-wf@example.com',
    password: 'bench-password-1',
    activated: true,
  });
  const project = (await projectByApiKey(database.db, apiKey))!;
  const [persona] = await savePersonas(database.db, project.id, [{ email: 'news@bench.example.com', first_name: 'Bench' }]);
  await query('UPDATE sender_personas SET verified_at = now() WHERE id = $1', [persona.id]);
  const [template] = await saveTemplates(database.db, project.id, [
    {
      name: 'Welcome',
      subject: 'Welcome {{user.first_name}}',
      type: 'TEMPLATE_TRANSACTIONAL',
      enabled: true,
      html_body: '<p>Hi {{user.first_name}}, you did {{event.name}}.</p>',
    },
  ]);
  const emails: string[] = [];
  for (let i = 0; i < N; i += 1000) {
    // Addresses alternate between ones with an 'a' and ones without, so the filter sends about half.
    const batch = Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({
      email: (i + j) % 2 ? `user${i + j}@bench.io` : `dana${i + j}@bench.io`,
      first_name: `F${i + j}`,
    }));
    await upsertContacts(database.query, project.id, batch);
    emails.push(...batch.map((b) => b.email));
  }
  const display: Display = {
    nodes: [
      { id: 't', type: 'event', position: { x: 0, y: 0 }, properties: { eventName: 'signed_up' } },
      { id: 'd', type: 'delay', position: { x: 0, y: 1 }, properties: { delayMS: 1000 } },
      { id: 'f', type: 'splitter', position: { x: 0, y: 2 }, properties: { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }] } },
      { id: 's', type: 'sender', position: { x: 0, y: 3 }, properties: { templateId: template.id, senderPersonaId: persona.id } },
    ],
    links: [
      { id: 'l1', from: { nodeId: 't', portId: 'output' }, to: { nodeId: 'd', portId: 'input' } },
      { id: 'l2', from: { nodeId: 'd', portId: 'output' }, to: { nodeId: 'f', portId: 'input' } },
      { id: 'l3', from: { nodeId: 'f', portId: 'output1' }, to: { nodeId: 's', portId: 'input' } },
    ],
  };
  const workflowId = randomUUID();
  const [entry] = await query<{ id: string }>(
    `INSERT INTO job_log (project_id, job_name, start_details) VALUES ($1, 'JOB_CREATE_WORKFLOW', '{}') RETURNING id`,
    [project.id],
  );
  await runWorkflowSave(query, {
    jobLogId: entry.id,
    projectId: project.id,
    input: { id: workflowId, name: 'Bench', display: JSON.parse(JSON.stringify(display)), tree: displayToTree(display).tree },
  });

  console.log(`Workflow benchmark on ${KIND}: ${N.toLocaleString('en')} contacts through event → delay 1 s → filter → send; ${await machineFacts(database)}`);
  const sentBefore = sink.count;
  const start = performance.now();
  for (let i = 0; i < N; i += 1000) {
    const res = await ingestEvents(
      database,
      project.id,
      emails.slice(i, i + 1000).map((email) => ({ name: 'signed_up', email })),
    );
    if (res.status !== 200) throw new Error(JSON.stringify(res.result).slice(0, 500));
  }
  runtime.ctx.notifyWorkflows();
  const posted = performance.now();
  let done = 0;
  while (done < N) {
    await new Promise((r) => setTimeout(r, 200));
    [{ done }] = await query<{ done: number }>(`SELECT count(*)::int AS done FROM workflow_runs WHERE workflow_id = $1 AND status <> 'active'`, [workflowId]);
    if (performance.now() - start > 30 * 60_000) throw new Error(`only ${done} of ${N} runs completed in 30 minutes`);
  }
  const completedAt = performance.now();
  const [{ matched }] = await query<{ matched: number }>(`SELECT count(*)::int AS matched FROM workflow_steps WHERE workflow_id = $1 AND node_id = 's'`, [
    workflowId,
  ]);
  await sink.waitFor(() => sink.count - sentBefore >= matched, 30 * 60_000);
  const deliveredAt = performance.now();
  // The lag of each step after a delay: when it ran against when it was due (the delay's due time + 1 s).
  const lags = (
    await query<{ lag: number }>(
      `SELECT extract(epoch FROM (executed_at - due_at)) * 1000 AS lag FROM workflow_steps WHERE workflow_id = $1 AND node_id = 'f'`,
      [workflowId],
    )
  )
    .map((r) => Number(r.lag))
    .sort((a, b) => a - b);
  const [check] = await query<{ runs: number; steps: number; done: number; dupes: number; outbox: number }>(
    `SELECT (SELECT count(*)::int FROM workflow_runs WHERE workflow_id = $1) AS runs,
            (SELECT count(*)::int FROM workflow_steps WHERE workflow_id = $1) AS steps,
            (SELECT count(*)::int FROM workflow_steps WHERE workflow_id = $1 AND status = 'done') AS done,
            (SELECT count(*)::int FROM (SELECT run_id, node_id FROM workflow_steps WHERE workflow_id = $1 GROUP BY 1, 2 HAVING count(*) > 1) d) AS dupes,
            (SELECT count(*)::int FROM outbox WHERE workflow_id = $1) AS outbox`,
    [workflowId],
  );
  const secs = (ms: number) => (ms / 1000).toFixed(1);
  console.log(
    `events posted in ${secs(posted - start)} s; all ${N.toLocaleString('en')} runs completed after ${secs(completedAt - start)} s: ${(N / ((completedAt - start) / 1000)).toFixed(0)} completions/s (the 1 s delay included)`,
  );
  console.log(
    `delay → next step lag over ${lags.length.toLocaleString('en')} steps: p50 ${quantile(lags, 0.5).toFixed(0)} ms, p95 ${quantile(lags, 0.95).toFixed(0)} ms, max ${lags[lags.length - 1].toFixed(0)} ms`,
  );
  console.log(`${matched.toLocaleString('en')} emails (the filter's matches) delivered to the sink after ${secs(deliveredAt - start)} s`);
  console.log(`check: ${check.runs} runs, ${check.steps} steps (${check.done} done), ${check.dupes} run/node pairs twice, ${check.outbox} emails queued`);
  await runtime.stop();
  await sink.stop();
  await cleanup();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
