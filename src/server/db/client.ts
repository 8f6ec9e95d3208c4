/**
 * Database connections: embedded PGlite in a data directory (the default), or a PostgreSQL server when a connection
 * string is given (DATABASE_URL). Both get the same drizzle schema, the same migrations and a pg-boss adapter.
 */
import path from 'node:path';
import { mkdir, realpath } from 'node:fs/promises';
import { PGliteThread } from './pgliteThread.ts';
import { lockDataDir, type DataDirLock } from './dataDirLock.ts';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { FUNCTIONS_LOCK_KEY, functionsSql } from './functions.ts';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import * as schema from './schema.ts';

export { DataDirLocked } from './dataDirLock.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A parameterised statement ($1, $2, …) returning its rows. */
export type QueryFn = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/**
 * queryOf runs named raw SQL ($1, $2, … placeholders) on a drizzle database or transaction, for core functions that
 * take a QueryFn when the caller holds a drizzle transaction (the demo account's reset). Each placeholder becomes a
 * bound parameter; none is interpolated into the text.
 */
export function queryOf(db: Db): QueryFn {
  return async <T>(text: string, params: unknown[] = []) => {
    const chunks: SQL[] = text.split(/\$(\d+)/).map((part, i) => (i % 2 ? sql`${params[Number(part) - 1]}` : sql.raw(part)));
    const result = (await db.execute(sql.join(chunks))) as unknown as { rows: T[] };
    return result.rows;
  };
}

/** One open database: drizzle for typed queries, `query` for named raw SQL, and what pg-boss needs to connect. */
export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** query runs one parameterised statement and returns its rows. */
  query: QueryFn;
  /**
   * queryPrepared is query for a hot statement of fixed text run many times outside a transaction (SMTP submission's
   * storing statement): on PostgreSQL it is prepared once per connection under a name made from its text, so the
   * server parses and plans it once; on PGlite it is query.
   */
  queryPrepared: QueryFn;
  /**
   * transaction runs `fn` in one transaction (committed when it resolves, rolled back when it throws). With `prepared`
   * (PostgreSQL), each statement is prepared once per connection under a name made from its text and its plan kept:
   * for hot paths that run a few fixed statements many times (the inbound feedback receiver), never for SQL whose
   * text varies, which would fill each connection with statements.
   */
  transaction<T>(fn: (query: QueryFn) => Promise<T>, opts?: { prepared?: boolean }): Promise<T>;
  /** pg-boss connection options for this database. */
  bossOptions: { connectionString: string; max: number } | { db: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> } };
  /**
   * listen subscribes to NOTIFY on `channel` (e.g. 'workflow_steps', sent when workflow runs are entered); `onPayload` gets each
   * payload. Resolves with a function that unsubscribes. On PostgreSQL it holds one dedicated connection.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** dump returns a tarball of an embedded database's data directory (PGlite only), for fast test fixtures. */
  dump?: () => Promise<Blob>;
  close(): Promise<void>;
}

const migrationsFolder = path.join(import.meta.dirname, 'migrations');

/** applyFunctions writes the current function definitions (functions.ts) in one transaction, one process at a time. */
async function applyFunctions(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [FUNCTIONS_LOCK_KEY]);
    await client.query(functionsSql());
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * openDatabase opens PostgreSQL when `databaseUrl` is set, else PGlite: in `dataDir/pglite`, or in memory when
 * `dataDir` is 'memory://' (starting from the `loadDataDir` tarball when given). It applies every pending migration
 * and the current function definitions (db/functions.ts) before returning. Throws when the database is unreachable.
 *
 * An on-disk PGlite folder is opened by one process at a time: this takes its lock (`dataDir/pglite.lock`,
 * db/dataDirLock.ts) before PGlite touches it, naming this process `lockHolder` (e.g. 'server', 'admin activate';
 * default: the script's file name), and close() releases it. Throws DataDirLocked, before anything in the folder is
 * read or written, when another live process (or this one) holds it; a lock left by a process that no longer runs is
 * taken over. In-memory databases and PostgreSQL take no lock.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  loadDataDir?: Blob;
  lockHolder?: string;
}): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10) : openPglite(opts);
}

/** statementName: the name a prepared statement gets from its text (node-postgres prepares a name once per connection). */
function statementName(text: string): string {
  return `mw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/**
 * openPostgres opens a pool of `poolSize` connections to the PostgreSQL server at `databaseUrl`, applies the pending
 * migrations and the function definitions, and returns the Database over it (LISTEN on a dedicated connection that
 * reconnects). Throws when the server is unreachable.
 */
async function openPostgres(databaseUrl: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  pool.on('error', () => {
    /* an idle client dropped; the pool replaces it */
  });
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  await migratePg(drizzlePg(pool, { schema }), { migrationsFolder });
  await applyFunctions(pool);
  return {
    kind: 'postgres',
    db,
    async query<T>(text: string, params?: unknown[]) {
      return (await pool.query(text, params)).rows as T[];
    },
    async queryPrepared<T>(text: string, params?: unknown[]) {
      return (await pool.query({ name: statementName(text), text, values: params })).rows as T[];
    },
    async transaction(fn, opts = {}) {
      const client = await pool.connect();
      const run = opts.prepared
        ? async <T>(text: string, params?: unknown[]) => (await client.query({ name: statementName(text), text, values: params })).rows as T[]
        : async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[];
      try {
        await client.query('BEGIN');
        const result = await fn(run);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async listen(channel, onPayload) {
      // One dedicated connection; when it drops (server restart, network), a new one LISTENs again after 1 s, 2 s,
      // 4 s … (at most 30 s). Notifications sent while no connection is open are lost, as NOTIFY's always are:
      // listeners treat a payload as a wake-up and read the table itself.
      let stopped = false;
      let client: pg.Client | undefined;
      let retry: NodeJS.Timeout | undefined;
      /** connect opens a new connection and LISTENs on it; rejects when either fails. */
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: databaseUrl });
        c.on('notification', (n) => {
          if (n.channel === channel) onPayload(n.payload ?? '');
        });
        c.on('error', () => {
          /* reported through 'end' */
        });
        c.on('end', () => {
          if (stopped || client !== c) return;
          client = undefined;
          reconnect(0);
        });
        await c.connect();
        await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`).catch(async (err) => {
          await c.end().catch(() => undefined);
          throw err;
        });
        if (stopped) {
          await c.end().catch(() => undefined);
          return;
        }
        client = c;
      };
      /** reconnect tries again after 1 s, 2 s, 4 s … (at most 30 s) until a connection LISTENs or listening stops. */
      const reconnect = (attempt: number) => {
        if (stopped) return;
        retry = setTimeout(
          () => {
            connect().catch(() => reconnect(attempt + 1));
          },
          Math.min(30_000, 1000 * 2 ** attempt),
        );
      };
      await connect(); // the first connection: a failure reaches the caller
      return async () => {
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => undefined);
      };
    },
    bossOptions: { connectionString: databaseUrl, max: 4 },
    async close() {
      await pool.end();
    },
  };
}

/**
 * openPglite opens the embedded database on its own thread: in `dataDir/pglite` (taking the folder's lock first), or
 * in memory for 'memory://' (from the `loadDataDir` tarball when given). Throws DataDirLocked when another live
 * process holds the folder.
 */
async function openPglite(opts: { dataDir: string; loadDataDir?: Blob; lockHolder?: string }): Promise<Database> {
  let dataDir: string | undefined;
  let lock: DataDirLock | undefined;
  let lite: PGliteThread;
  try {
    if (opts.dataDir !== 'memory://') {
      const parent = path.resolve(opts.dataDir);
      await mkdir(parent, { recursive: true });
      // The lock file lives beside the PGlite folder, in the real parent (a symlinked DATA_DIR is still one folder).
      dataDir = path.join(await realpath(parent), 'pglite');
      lock = await lockDataDir(dataDir, opts.lockHolder ?? path.basename(process.argv[1] ?? 'node'));
      await mkdir(dataDir, { recursive: true });
    }
    // PGlite runs on its own thread (db/pgliteThread.ts), which also applies the migrations.
    lite = await PGliteThread.create({ dataDir, loadDataDir: opts.loadDataDir });
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const liteDb = drizzlePglite(lite as never, { schema });
  return {
    kind: 'pglite',
    db: liteDb as unknown as Db,
    async query<T>(text: string, params?: unknown[]) {
      return (await lite.query<T>(text, params)).rows;
    },
    async queryPrepared<T>(text: string, params?: unknown[]) {
      return (await lite.query<T>(text, params)).rows;
    },
    async transaction(fn) {
      return lite.transaction(async (tx) => fn(async <T>(text: string, params?: unknown[]) => (await tx.query<T>(text, params)).rows));
    },
    bossOptions: {
      db: {
        // pg-boss sends its schema as one multi-statement script without parameters: PGlite runs those with exec().
        async executeSql(text, values) {
          if (values && values.length) return lite.query(text, values);
          const results = await lite.exec(text);
          return results[results.length - 1] ?? { rows: [] };
        },
      },
    },
    async listen(channel, onPayload) {
      return lite.listen(channel, onPayload);
    },
    async dump() {
      return lite.dumpDataDir();
    },
    async close() {
      try {
        await lite.close();
      } finally {
        await lock?.release();
      }
    },
  };
}
