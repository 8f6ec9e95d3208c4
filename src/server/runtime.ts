/**
 * startRuntime opens everything a process needs from a Config: database (migrated), storage, queue, transport, the
 * app context, optionally the workers, the inbound SMTP receiver when INBOUND_SMTP_PORT is set, and SMTP submission when
 * SUBMISSION_PORT or SUBMISSION_TLS_PORT is. Shared by main.ts, the API tests' server processes and the benchmark.
 */
import { analyseEvents, ensureEventPartitions } from './core/events/partitions.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database } from './db/client.ts';
import { checkStorage, openStorage } from './storage/storage.ts';
import { openTransport, type MailTransport } from './mail/transport.ts';
import { openQueue, type Queue } from './core/jobs/queue.ts';
import { startWorkers, type Workers } from '../workers/index.ts';
import { startInboundReceiver, type InboundReceiver } from './gateways/inbound/receiver.ts';
import { BlockWatch } from './core/feedback/blocks.ts';
import { startSubmissionServer, type SubmissionServer } from './gateways/submission/server.ts';
import type { QueryFn } from './db/client.ts';

export interface Runtime {
  ctx: AppContext;
  database: Database;
  queue: Queue;
  transport: MailTransport;
  workers?: Workers;
  /** The inbound SMTP receiver of bounces and complaint reports, when INBOUND_SMTP_PORT is set. */
  inbound?: InboundReceiver;
  /** SMTP submission for applications, when SUBMISSION_PORT or SUBMISSION_TLS_PORT is set. */
  submission?: SubmissionServer;
  stop(): Promise<void>;
}

/**
 * startRuntime opens the runtime; `transport` overrides the one SMTP_URL names, `database` an already open one.
 * Throws StorageUnavailable (storage/errors.ts), before opening anything, when STORAGE_URL's storage cannot be used.
 */
export async function startRuntime(config: Config, opts: { transport?: MailTransport; workers?: boolean; database?: Database } = {}): Promise<Runtime> {
  const storage = openStorage(config.storageUrl);
  await checkStorage(storage);
  const database = opts.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  // The events table's coming months (a retention run makes them too; a server started after months away needs them now).
  await ensureEventPartitions(database.query.bind(database) as QueryFn);
  await analyseEvents(database.query.bind(database) as QueryFn, true);
  const queue = await openQueue(database);
  const transport = opts.transport ?? openTransport(config.smtpUrl, config.relayMaxConnections);
  let workers: Workers | undefined;
  const ctx: AppContext = {
    config,
    database,
    storage,
    queue,
    transport,
    notifySender: () => workers?.sender.poke(),
    notifyWorkflows: () => workers?.engine.poke(),
    blocks: new BlockWatch(database.query.bind(database) as QueryFn, config.blockAlertRate),
  };
  if (opts.workers ?? config.workers) workers = await startWorkers(ctx, queue, transport);
  const inbound = await startInboundReceiver(ctx);
  const submission = await startSubmissionServer(ctx);
  // Port 0 asks for a free port (tests): the settings then name the port bound, as the SMTP screen shows it.
  if (submission) Object.assign(config.submission, { port: submission.port, tlsPort: submission.tlsPort });
  return {
    ctx,
    database,
    queue,
    transport,
    workers,
    inbound,
    submission,
    async stop() {
      await submission?.close();
      await inbound?.close();
      await workers?.stop();
      await queue.stop();
      // After everything that records feedback (the receiver, the workers, the queue's jobs).
      await ctx.blocks.stop();
      await transport.close();
      await database.close();
    },
  };
}
