/**
 * The pg-boss queues' names and payloads: what code that enqueues (JobQueue.enqueue in server/context.ts) and the
 * job registry that handles them (./registry.ts) agree on. Types only.
 */
import type { components as WorkflowSchemas } from '../../../../generated/types/workflowwrapper.gen.ts';

/** The payload of each queue. */
export interface JobPayloads {
  /** Expand a due blast into outbox rows (spec part 2 §5 Email blast; core/audience decides who). */
  'blast-expand': { blastId: string };
  /** Put the shared demo account back to its known state (DEMO_RESET_CRON). */
  'demo-reset': Record<string, never>;
  /** Check sending domains' DNS: the ones named, or every domain on DOMAIN_CHECK_CRON ({}). */
  'domain-check': { domainIds?: string[] };
  /** Import a stored contact file (the job-log entry names it). */
  'contact-import': { jobLogId: string };
  /** Build a segment from filters (one INSERT … SELECT). */
  'segment-from-filters': { jobLogId: string };
  /** Save a workflow (JOB_CREATE_WORKFLOW). */
  'workflow-save': { jobLogId: string; projectId: string; input: WorkflowSchemas['schemas']['WorkflowInput'] };
  /** Archive a workflow (JOB_DELETE_WORKFLOW). */
  'workflow-delete': { jobLogId: string; projectId: string; workflowId: string };
  /** Read the bounce mailbox (BOUNCE_MAILBOX_URL), then wait on IDLE for new messages (BOUNCE_MAILBOX_CRON). */
  'bounce-mailbox': Record<string, never>;
  /** Remove contacts whose double opt-in was not confirmed in their form's unconfirmed_days (every 30 minutes). */
  'unconfirmed-cleanup': Record<string, never>;
  retention: Record<string, never>;
  /** Refresh every project's built-in sunset segment (core/audience/policies.ts), nightly at RETENTION_CRON. */
  'sunset-segments': Record<string, never>;
}

/** The name of a queue. */
export type JobName = keyof JobPayloads;
