/**
 * openBenchDatabase opens a fresh database for one benchmark run: a new database on the PostgreSQL server at `pgUrl`
 * (dropped again by `cleanup`; `url` is its connection URL), or PGlite in a new temporary folder. Returns undefined, after saying so, when the
 * PostgreSQL server cannot be reached (that database is skipped, the other still measured).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../src/server/db/client.ts';

export async function openBenchDatabase(
  kind: 'pglite' | 'postgres',
  pgUrl: string,
  prefix: string,
): Promise<{ database: Database; cleanup: () => Promise<void>; url?: string } | undefined> {
  if (kind === 'pglite') {
    return { database: await openDatabase({ dataDir: await mkdtemp(path.join(os.tmpdir(), `mw-${prefix}-`)) }), cleanup: async () => {} };
  }
  const name = `${prefix.replace(/\W/g, '_')}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  try {
    await admin.connect();
  } catch (err) {
    console.log(`postgres: skipped (${(err as Error).message})`);
    return undefined;
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(pgUrl);
  u.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: u.toString(), dataDir: 'memory://' });
  const cleanup = async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await c.end();
  };
  return { database, cleanup, url: u.toString() };
}

/**
 * openGeneratedDatabase opens the database a large benchmark measures: the kept one at `reuseUrl` as it is (pending
 * migrations applied), or a fresh one on the server at `pgUrl` filled by `generate` (dropped again by `cleanup`
 * unless `keep`, in which case its URL is printed under `keepVariable` for the next run). Undefined when the server
 * cannot be reached.
 */
export async function openGeneratedDatabase(opts: {
  reuseUrl?: string;
  pgUrl: string;
  prefix: string;
  keep: boolean;
  keepVariable: string;
  what: string;
  generate: (database: Database, url: string) => Promise<void>;
}): Promise<{ database: Database; url: string; cleanup: () => Promise<void> } | undefined> {
  if (opts.reuseUrl) return { database: await openDatabase({ databaseUrl: opts.reuseUrl, dataDir: 'memory://' }), url: opts.reuseUrl, cleanup: async () => {} };
  const opened = await openBenchDatabase('postgres', opts.pgUrl, opts.prefix);
  if (!opened) return undefined;
  if (opts.keep) console.log(`keeping the database: ${opts.keepVariable}=${opened.url}`);
  console.log(`${opts.what} on postgres: generating the data`);
  await opts.generate(opened.database, opened.url!);
  return { database: opened.database, url: opened.url!, cleanup: opts.keep ? async () => {} : opened.cleanup };
}

/**
 * setAsideEventIndexes prepares the events table for a bulk load through `client` (as the generating benches do):
 * makes the monthly partitions from `daysBack` days ago to now (core/events/sql/event_partitions.sql), drops the
 * table's indexes and its primary key, and returns what builds them again once the rows are in (sorted builds, far
 * quicker than row by row). The key is read from the catalogue: (id, emitted_at) on the partitioned table.
 */
export async function setAsideEventIndexes(client: pg.Client, daysBack: number): Promise<() => Promise<void>> {
  await client.query(`SELECT events_ensure_partitions((now() - make_interval(days => $1))::date, now()::date)`, [daysBack]);
  const indexes = (
    await client.query<{ def: string; name: string }>(`SELECT indexname AS name, indexdef AS def FROM pg_indexes
    WHERE tablename = 'events' AND indexname NOT IN (SELECT conname FROM pg_constraint)`)
  ).rows;
  const key = (
    await client.query<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'p'`,
    )
  ).rows[0];
  for (const ix of indexes) await client.query(`DROP INDEX ${ix.name}`);
  await client.query(`ALTER TABLE events DROP CONSTRAINT ${key.name}`);
  return async () => {
    await client.query(`ALTER TABLE events ADD CONSTRAINT ${key.name} ${key.def}`);
    for (const ix of indexes) await client.query(ix.def);
  };
}

/** SQL for the bytes of the events table with its indexes: the sum over its partitions (the parent itself holds none). */
export const EVENTS_SIZE = `(SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits WHERE inhparent = 'events'::regclass)`;
