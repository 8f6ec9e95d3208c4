/**
 * AppContext: the infrastructure every gateway and worker takes as an argument (STYLE.md 8), so tests pass real local
 * implementations (a fresh database, a temp folder, an SMTP sink).
 */
import type { Database } from './db/client.ts';
import type { Storage } from './storage/storage.ts';
import type { Config } from './config.ts';

export interface JobQueue {
  /** enqueue schedules job `name` with `data`, not before `startAfter` (UTC). `singletonKey` drops duplicates. */
  enqueue(name: string, data: object, opts?: { startAfter?: Date; singletonKey?: string }): Promise<void>;
}

export interface AppContext {
  config: Config;
  database: Database;
  storage: Storage;
  queue: JobQueue;
  /** notifySender wakes an idle in-process sender after rows were queued (a no-op when workers run elsewhere). */
  notifySender: () => void;
}
