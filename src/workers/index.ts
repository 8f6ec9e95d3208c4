/**
 * startWorkers runs the background work in this process (WORKERS=on): the pg-boss handlers (blast expansion, the
 * scheduled demo reset, DNS checks, imports, segments from filters), the report compaction and the sender loop. Returns a stop function that lets in-hand work finish.
 */
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import type { MailTransport } from '../server/mail/transport.ts';
import { BLAST_EXPAND_QUEUE } from '../server/gateways/scheduler/service.ts';
import { expandBlast } from './blasts.ts';
import type { Queue } from './queue.ts';
import { Sender } from './sender.ts';
import { DEMO_RESET_QUEUE, resetDemoAccount } from '../server/demo.ts';
import { RenderPool } from '../server/mail/renderPool.ts';
import { checkDomains, DOMAIN_CHECK_QUEUE } from '../server/domains.ts';
import { CONTACT_IMPORT_QUEUE } from '../server/contactImport.ts';
import { importContactFile } from './contactImport.ts';
import { buildSegmentFromFilters, SEGMENT_FROM_FILTERS_QUEUE } from '../server/segmentFromFilters.ts';
import { startReportCompaction } from './reportCompaction.ts';
import { WorkflowEngine } from './workflows.ts';
import { runWorkflowArchive, runWorkflowSave, WORKFLOW_DELETE_QUEUE, WORKFLOW_SAVE_QUEUE } from '../server/core/workflows/index.ts';
import type { components as WorkflowSchemas } from '../../generated/types/workflowwrapper.gen.ts';

export interface Workers {
  sender: Sender;
  engine: WorkflowEngine;
  stop(): Promise<void>;
}

/** startWorkers registers the job handlers on `queue` and starts the sender. */
export async function startWorkers(ctx: AppContext, queue: Queue, transport: MailTransport): Promise<Workers> {
  const renderer = new RenderPool(ctx.config.renderThreads, ctx.config.storageUrl);
  const sender = new Sender(ctx, transport, renderer, { leaseMs: ctx.config.sendLeaseMs, pollMs: ctx.config.sendPollMs, concurrency: ctx.config.sendConcurrency });
  await queue.work<{ blastId: string }>(BLAST_EXPAND_QUEUE, { batchSize: 5, pollingIntervalSeconds: 1 }, async ({ blastId }) => {
    await expandBlast(ctx, blastId, () => sender.poke());
  });
  // The shared demo account goes back to its known state on DEMO_RESET_CRON (UTC); pg-boss runs each tick once across
  // all worker processes. DEMO_RESET_CRON=off removes the schedule.
  await queue.work(DEMO_RESET_QUEUE, { batchSize: 1, pollingIntervalSeconds: 5 }, async () => { await resetDemoAccount(ctx.database.db); });
  if (ctx.config.demoResetCron) await queue.boss.schedule(DEMO_RESET_QUEUE, ctx.config.demoResetCron, {}, { tz: 'UTC' });
  else await queue.boss.unschedule(DEMO_RESET_QUEUE);
  // Sending domains' DNS: a domain just added is checked at once ({domainIds}), every domain on DOMAIN_CHECK_CRON ({}).
  await queue.work<{ domainIds?: string[] }>(DOMAIN_CHECK_QUEUE, { batchSize: 5, pollingIntervalSeconds: 2 }, async ({ domainIds }) => {
    const { errors } = await checkDomains(ctx.database.query.bind(ctx.database) as QueryFn, ctx.config, domainIds);
    for (const e of errors) console.warn(`domain check: ${e}`);
  });
  if (ctx.config.domainCheckCron) await queue.boss.schedule(DOMAIN_CHECK_QUEUE, ctx.config.domainCheckCron, {}, { tz: 'UTC' });
  else await queue.boss.unschedule(DOMAIN_CHECK_QUEUE);
  // Contact file imports (issue 3): one at a time per process, so an import of a large file never starves the sender.
  await queue.work<{ jobLogId: string }>(CONTACT_IMPORT_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ({ jobLogId }) => {
    await importContactFile(ctx, jobLogId);
  });
  // Segments from filters (issue 3 §6): one INSERT … SELECT each.
  await queue.work<{ jobLogId: string }>(SEGMENT_FROM_FILTERS_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, async ({ jobLogId }) => {
    await buildSegmentFromFilters(ctx, jobLogId);
  });
  // Workflows (issue 8): saves and archives as jobs, one at a time per process (a project's jobs run in order).
  await queue.work<{ jobLogId: string; projectId: string; input: WorkflowSchemas['schemas']['WorkflowInput'] }>(WORKFLOW_SAVE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (job) => {
    await runWorkflowSave(ctx.database.query.bind(ctx.database) as QueryFn, job);
  });
  await queue.work<{ jobLogId: string; projectId: string; workflowId: string }>(WORKFLOW_DELETE_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (job) => {
    await runWorkflowArchive(ctx, job);
  });
  const engine = new WorkflowEngine(ctx, { leaseMs: ctx.config.workflowLeaseMs, pollMs: ctx.config.workflowPollMs });
  // Report aggregates (issue 6): deltas folded into merged rows every REPORT_COMPACT_MS.
  const stopCompaction = startReportCompaction(ctx.database.query.bind(ctx.database) as QueryFn, ctx.config.reportCompactMs);
  await renderer.ready();
  sender.start();
  await engine.start();
  return {
    sender,
    engine,
    async stop() {
      await engine.stop();
      await sender.stop();
      await stopCompaction();
      await renderer.close();
    },
  };
}
