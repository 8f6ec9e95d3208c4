/**
 * migrate: brings the database named by DATABASE_URL (else the PGlite folder in DATA_DIR) up to this build and exits:
 * the pending drizzle migrations and the current database functions (db/client.ts openDatabase), then pg-boss's schema
 * and every queue of the registry (core/jobs/queue.ts openQueue). It sends no mail, serves nothing and runs no worker.
 *
 * Why it exists: every server process does the same at start, but not safely at the same moment on a database that
 * needs it. drizzle's migrator takes no lock (two processes both find a migration missing and both run it; one fails),
 * and two processes creating pg-boss's queues at once on a new database can deadlock. Run this once before starting
 * several processes on a new database, or after an upgrade that adds a migration or a queue; docker-compose.yml runs
 * it as the one-shot `migrate` service that the HTTP and worker processes wait for.
 *
 *   npx tsx scripts/migrate.ts        exit 0: the database is current; 1: it could not be brought there (said why)
 */
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { openQueue } from '../src/server/core/jobs/queue.ts';

try {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lockHolder: 'migrate' });
  try {
    const queue = await openQueue(database);
    await queue.stop();
  } finally {
    await database.close();
  }
  console.log(`mailwright: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}/pglite`} is migrated: schema, functions, queues`);
  process.exit(0);
} catch (err) {
  console.error(`mailwright: migrate failed: ${(err as Error).message}`);
  process.exit(1);
}
