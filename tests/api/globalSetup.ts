/**
 * API tests' global setup: builds one migrated PGlite database (with pg-boss's schema) and saves it as a tarball, so
 * each test file starts from a fresh copy in under a second instead of running initdb (about 6 s here).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openDatabase } from '../../src/server/db/client.ts';
import { openQueue } from '../../src/server/core/jobs/queue.ts';

export const TEMPLATE_PATH = path.resolve(import.meta.dirname, '../../.tmp/pglite-template.tar');

export default async function setup(): Promise<void> {
  if ((process.env.API_DB ?? 'pglite') !== 'pglite') return;
  const database = await openDatabase({ dataDir: 'memory://' });
  const queue = await openQueue(database);
  await queue.stop();
  const blob = await database.dump!();
  await database.close();
  await mkdir(path.dirname(TEMPLATE_PATH), { recursive: true });
  await writeFile(TEMPLATE_PATH, Buffer.from(await blob.arrayBuffer()));
}
