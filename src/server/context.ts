/**
 * AppContext: the infrastructure every gateway and worker takes as an argument (STYLE.md 8), so tests pass real local
 * implementations (a fresh database, a temp folder, an SMTP sink).
 */
import type { Database } from './db/client.ts';
import type { Storage } from './storage/storage.ts';
import type { Config } from './config.ts';
import type { MailTransport } from './mail/transport.ts';
import type { BlockWatch } from './core/feedback/blocks.ts';
import type { JobName, JobPayloads } from './core/jobs/payloads.ts';

export interface JobQueue {
  /**
   * enqueue schedules a job on queue `name` (the registry: src/server/core/jobs/registry.ts) with that queue's payload, not before
   * `startAfter` (UTC). `singletonKey` drops duplicates.
   */
  enqueue<N extends JobName>(name: N, data: JobPayloads[N], opts?: { startAfter?: Date; singletonKey?: string }): Promise<void>;
}

export interface AppContext {
  config: Config;
  database: Database;
  storage: Storage;
  queue: JobQueue;
  /** The relay for the service's own mail (persona verification), sent at once rather than through the outbox. */
  transport: MailTransport;
  /** notifySender wakes an idle in-process sender after rows were queued (a no-op when workers run elsewhere). */
  notifySender: () => void;
  /** notifyWorkflows wakes an idle in-process workflow engine after runs were started (a no-op when workers run elsewhere). */
  notifyWorkflows: () => void;
  /** The process's watch of sender-side blocks: when to look at a sending domain's block alert (core/feedback/blocks.ts). */
  blocks: BlockWatch;
}
