/**
 * The body of the PGlite thread (see pgliteThread.ts): owns the embedded database, applies the migrations and the function definitions (functions.ts), and answers
 * query / exec / transaction / listen / dump requests from the main thread. Transactions hold PGlite's own lock, so
 * other requests wait for them exactly as they would in-process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { functionsSql } from './functions.ts';

if (!parentPort) throw new Error('pgliteWorker must run as a worker thread');
const port = parentPort;
const { dataDir, loadDataDir } = workerData as { dataDir?: string; loadDataDir?: ArrayBuffer };

/** drizzle's own parsers: date and time values come back as the text PostgreSQL sent (drizzle maps them itself). */
const identity = (value: string) => value;
const DRIZZLE_PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map((oid) => [oid, identity]),
);

interface Request {
  id: number;
  op: 'query' | 'exec' | 'begin' | 'commit' | 'rollback' | 'listen' | 'unlisten' | 'dump' | 'close';
  tx?: number;
  sql?: string;
  params?: unknown[];
  rowMode?: 'array' | 'object';
  drizzle?: boolean;
  channel?: string;
}

type Runner = Pick<Transaction, 'query' | 'exec'>;

const reply = (id: number, result: unknown) => port.postMessage({ id, result });
const fail = (id: number, err: unknown) => {
  const e = err as Record<string, unknown> & Error;
  const fields: Record<string, unknown> = {};
  for (const k of ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position']) if (e?.[k] !== undefined) fields[k] = e[k];
  port.postMessage({ id, error: { message: e?.message ?? String(err), fields } });
};

async function run(db: Runner, r: Request): Promise<unknown> {
  if (r.op === 'exec') return (await db.exec(r.sql!)).map((x) => ({ rows: x.rows, affectedRows: x.affectedRows, fields: x.fields }));
  const res = await db.query(r.sql!, r.params, { rowMode: r.rowMode ?? 'object', ...(r.drizzle ? { parsers: DRIZZLE_PARSERS } : {}) });
  return { rows: res.rows, affectedRows: res.affectedRows, fields: res.fields };
}

const lite = await PGlite.create(dataDir, loadDataDir ? { loadDataDir: new Blob([loadDataDir]) } : {});
await migrate(drizzle(lite), { migrationsFolder: path.join(import.meta.dirname, 'migrations') });
await lite.exec(functionsSql());

/** Open transactions: requests for each wait in its queue, served one at a time inside lite.transaction. */
const transactions = new Map<number, { push(r: Request): void }>();
const listeners = new Map<number, () => Promise<void>>();

function openTransaction(begin: Request): void {
  const queue: Request[] = [];
  let wake: (() => void) | undefined;
  let ending: Request | undefined;
  let begun = false;
  transactions.set(begin.tx!, {
    push(r) {
      queue.push(r);
      wake?.();
    },
  });
  // Once commit or rollback is taken the transaction is closed to new work: it leaves the map (a later request for
  // it fails as "not open"), and anything queued behind the ending fails instead of running outside the transaction.
  const close = (why: string) => {
    transactions.delete(begin.tx!);
    for (const r of queue.splice(0)) fail(r.id, new Error(`transaction ${begin.tx} ${why}`));
  };
  lite
    .transaction(async (tx) => {
      begun = true;
      reply(begin.id, null);
      for (;;) {
        while (!queue.length)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        wake = undefined;
        const r = queue.shift()!;
        if (r.op === 'commit') {
          ending = r;
          close('has ended');
          return;
        }
        if (r.op === 'rollback') {
          ending = r;
          close('has ended');
          await tx.rollback();
          return;
        }
        try {
          reply(r.id, await run(tx, r));
        } catch (err) {
          fail(r.id, err);
        }
      }
    })
    .then(
      () => {
        close('has ended');
        if (ending) reply(ending.id, null);
      },
      (err) => {
        close('failed');
        // BEGIN itself failed: the caller is still waiting for the begin answer.
        if (!begun) fail(begin.id, err);
        else if (ending) fail(ending.id, err);
      },
    );
}

port.on('message', async (r: Request) => {
  try {
    if (r.tx !== undefined && r.op !== 'begin') {
      const t = transactions.get(r.tx);
      if (!t) throw new Error(`transaction ${r.tx} is not open`);
      t.push(r);
      return;
    }
    switch (r.op) {
      case 'begin':
        openTransaction(r);
        return;
      case 'query':
      case 'exec':
        reply(r.id, await run(lite, r));
        return;
      case 'listen': {
        const unlisten = await lite.listen(r.channel!, (payload) => port.postMessage({ notify: r.id, payload }));
        listeners.set(r.id, unlisten);
        reply(r.id, null);
        return;
      }
      case 'unlisten':
        await listeners.get(Number(r.channel))?.();
        listeners.delete(Number(r.channel));
        reply(r.id, null);
        return;
      case 'dump': {
        const blob = await lite.dumpDataDir('none');
        const bytes = await blob.arrayBuffer();
        port.postMessage({ id: r.id, result: bytes }, [bytes]);
        return;
      }
      case 'close':
        await lite.close();
        reply(r.id, null);
        return;
      default:
        throw new Error(`unknown request ${String(r.op)}`);
    }
  } catch (err) {
    fail(r.id, err);
  }
});

port.postMessage({ ready: true });
