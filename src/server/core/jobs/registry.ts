/**
 * The job registry: every pg-boss queue the product uses — its name, payload type, how its workers poll, its
 * schedule (cron, UTC) and its handler — in one place. Code that enqueues names a queue by its key here, checked by
 * the type system (JobQueue.enqueue in server/context.ts takes a JobName and that queue's JobPayload); workers/index.ts
 * registers every entry; ./queue.ts creates every queue at start.
 */
import { applyRetention } from '../privacy/retention.ts';
import { refreshSunsetSegments } from '../audience/policies.ts';
import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { QueryFn } from '../../db/client.ts';
import type { JobName, JobPayloads } from './payloads.ts';
import { expandBlast } from '../blasts/expand.ts';
import { importContactFile } from '../contacts/import.ts';
import { resetDemoAccount } from '../accounts/demo.ts';
import { checkDomains } from '../domains/index.ts';
import { buildSegmentFromFilters } from '../segments/fromFilters.ts';
import { runWorkflowArchive, runWorkflowSave } from '../workflows/index.ts';
import { removeUnconfirmed } from '../subscriptions/index.ts';
import { readBounceMailbox } from '../feedback/bounceMailbox.ts';
import { inboundSettings } from '../feedback/inbound.ts';

/** What a handler gets besides its payload: the app context and a way to wake this process's sender. */
export interface JobContext {
  ctx: AppContext;
  /** Wakes the in-process sender (rows were queued). */
  pokeSender: () => void;
}

/** One queue: how its workers poll, its optional schedule, and its handler. */
export interface JobDefinition<P> {
  /** Jobs a worker takes at once (handled one after another). */
  batchSize: number;
  /** Seconds between polls when idle (≥ 0.5); a job this process enqueues already due wakes its workers at once. */
  pollingIntervalSeconds: number;
  /** The cron expression (UTC) that enqueues an empty payload on schedule, from the config; undefined = no schedule. */
  schedule?: (config: Config) => string | undefined;
  /** pg-boss's queue policy: 'singleton' lets one job of the queue be active at a time across all processes. */
  policy?: 'singleton';
  /** Runs one job; a throw makes pg-boss retry it (10 times, backing off from 5 s). */
  handle: (job: JobContext, payload: P) => Promise<void>;
}

const query = (ctx: AppContext) => ctx.database.query.bind(ctx.database) as QueryFn;

/** JOBS: every queue's definition, by name. */
export const JOBS: { [N in JobName]: JobDefinition<JobPayloads[N]> } = {
  'blast-expand': {
    batchSize: 5,
    pollingIntervalSeconds: 1,
    handle: ({ ctx, pokeSender }, { blastId }) => expandBlast(ctx, blastId, pokeSender).then(() => undefined),
  },
  // pg-boss runs each scheduled tick once across all worker processes.
  'demo-reset': {
    batchSize: 1,
    pollingIntervalSeconds: 5,
    schedule: (config) => config.demoResetCron,
    handle: ({ ctx }) => resetDemoAccount(ctx.database.db).then(() => undefined),
  },
  'domain-check': {
    batchSize: 5,
    pollingIntervalSeconds: 2,
    schedule: (config) => config.domainCheckCron,
    handle: async ({ ctx }, { domainIds }) => {
      const { errors } = await checkDomains(query(ctx), ctx.config, domainIds);
      for (const e of errors) console.warn(`domain check: ${e}`);
    },
  },
  // One at a time per process, so an import of a large file never starves the sender.
  'contact-import': { batchSize: 1, pollingIntervalSeconds: 1, handle: ({ ctx }, { jobLogId }) => importContactFile(ctx, jobLogId) },
  'segment-from-filters': { batchSize: 1, pollingIntervalSeconds: 1, handle: ({ ctx }, { jobLogId }) => buildSegmentFromFilters(ctx, jobLogId) },
  // Workflow saves and archives run one at a time per process (a project's jobs run in order).
  'workflow-save': { batchSize: 1, pollingIntervalSeconds: 0.5, handle: ({ ctx }, job) => runWorkflowSave(query(ctx), job) },
  'workflow-delete': { batchSize: 1, pollingIntervalSeconds: 0.5, handle: ({ ctx }, job) => runWorkflowArchive(ctx, job) },
  // One reader at a time: a run waits on IDLE for most of a minute, and the next tick's job waits for it to end.
  'bounce-mailbox': {
    batchSize: 1,
    pollingIntervalSeconds: 5,
    policy: 'singleton',
    schedule: (config) => (config.bounceMailbox ? config.bounceMailbox.cron : undefined),
    handle: async ({ ctx }) => {
      const settings = ctx.config.bounceMailbox;
      if (!settings) return;
      // An unreachable mailbox is logged, not retried: the next tick tries again.
      await readBounceMailbox(ctx.database, settings, inboundSettings(ctx.config, ctx.blocks)).catch((err: Error) =>
        console.error(`bounce mailbox: ${settings.host}:${settings.port}: ${err.message}`),
      );
    },
  },
  'unconfirmed-cleanup': {
    batchSize: 1,
    pollingIntervalSeconds: 30,
    schedule: () => '*/30 * * * *',
    handle: ({ ctx }) => removeUnconfirmed(query(ctx)).then(() => undefined),
  },
  // Each project's retention of raw events, stored copies, unconfirmed sign-ups and job log (core/privacy/retention.ts).
  retention: {
    batchSize: 1,
    pollingIntervalSeconds: 60,
    schedule: (config) => config.retentionCron,
    handle: ({ ctx }) => applyRetention(ctx).then(() => undefined),
  },
  // The built-in sunset segments, as contacts cross the sunset policy's line with the days (core/audience/policies.ts).
  'sunset-segments': {
    batchSize: 1,
    pollingIntervalSeconds: 60,
    schedule: (config) => config.retentionCron,
    handle: ({ ctx }) => refreshSunsetSegments(query(ctx)).then(() => undefined),
  },
};

/** Every queue name, in registry order. */
export const JOB_NAMES = Object.keys(JOBS) as JobName[];
