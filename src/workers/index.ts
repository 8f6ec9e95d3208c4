/**
 * startWorkers runs the background work in this process (WORKERS=on): every queue of the job registry (jobs.ts: blast
 * expansion, the scheduled demo reset and DNS checks, imports, segments from filters, workflow saves), the report
 * compaction, the workflow engine, the webhook dispatcher and the sender loop. Returns a stop function that lets in-hand work finish.
 */
import { capHeapGrowth } from '../server/heap.ts';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { SmtpTransport, type MailTransport } from '../server/mail/transport.ts';
import type { Queue } from '../server/core/jobs/queue.ts';
import { JOB_NAMES, JOBS, type JobContext, type JobDefinition } from '../server/core/jobs/registry.ts';
import { Sender } from './sender.ts';
import { RenderPool } from '../server/mail/renderPool.ts';
import { startReportCompaction } from './reportCompaction.ts';
import { WorkflowEngine } from './workflows.ts';
import { WebhookDispatcher } from './webhooks.ts';

export interface Workers {
  sender: Sender;
  engine: WorkflowEngine;
  stop(): Promise<void>;
}

/** startWorkers registers the job handlers on `queue` and starts the sender. */
export async function startWorkers(ctx: AppContext, queue: Queue, transport: MailTransport): Promise<Workers> {
  capHeapGrowth();
  const renderer = new RenderPool(ctx.config.renderThreads, ctx.config.storageUrl);
  // SMTP_URL's further relays: the sender fails over to them when the ones before refuse connections.
  const backupRelays = ctx.config.backupRelays.map(({ url, ...setting }) => ({ ...setting, transport: new SmtpTransport(url, setting.maxConnections) }));
  const sender = new Sender(ctx, transport, renderer, {
    leaseMs: ctx.config.sendLeaseMs,
    pollMs: ctx.config.sendPollMs,
    concurrency: ctx.config.sendConcurrency,
    backupRelays,
  });
  // Every queue of the registry (jobs.ts): its handler, and its schedule when the config gives one.
  const job: JobContext = { ctx, pokeSender: () => sender.poke() };
  for (const name of JOB_NAMES) {
    const def = JOBS[name] as JobDefinition<unknown>;
    await queue.work(name, def, (payload) => def.handle(job, payload));
    if (!def.schedule) continue;
    const cron = def.schedule(ctx.config);
    if (cron) await queue.boss.schedule(name, cron, {}, { tz: 'UTC' });
    else await queue.boss.unschedule(name);
  }
  const engine = new WorkflowEngine(ctx, { leaseMs: ctx.config.workflowLeaseMs, pollMs: ctx.config.workflowPollMs });
  // Report aggregates: deltas folded into merged rows every REPORT_COMPACT_MS.
  const stopCompaction = startReportCompaction(ctx.database.query.bind(ctx.database) as QueryFn, ctx.config.reportCompactMs);
  // Webhook messages: delivered beside the sender, never in its way.
  const webhooks = new WebhookDispatcher(ctx);
  await renderer.ready();
  sender.start();
  await engine.start();
  webhooks.start();
  return {
    sender,
    engine,
    async stop() {
      // All at once: the sender's graceful stop starts without waiting for a slow webhook receiver.
      await Promise.all([webhooks.stop(), engine.stop(), sender.stop()]);
      for (const r of backupRelays) await r.transport.close();
      await stopCompaction();
      await renderer.close();
    },
  };
}
