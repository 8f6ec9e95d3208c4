/**
 * PGliteThread: embedded PostgreSQL (PGlite) on its own worker thread. PGlite is WebAssembly and runs every query
 * synchronously on the thread that owns it; on the main thread that stalled HTTP requests and the SMTP pool behind
 * every query (the sending benchmark showed the main thread 94–98 % busy, docs/bench-log.md). Here the main
 * thread only posts messages. It offers the part of PGlite's interface that drizzle's pglite driver, pg-boss's
 * adapter and client.ts use — query(sql, params, options), exec(sql), transaction(fn), listen, dumpDataDir, close —
 * with the same semantics (one connection; a transaction holds it, other queries wait).
 */
import { Worker } from 'node:worker_threads';

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}
/** The result shape drizzle and pg-boss read. */
export interface ThreadResult {
  rows: unknown[];
  affectedRows?: number;
  fields: Array<{ name: string; dataTypeID: number }>;
}
interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, unknown>;
}

/** A transaction's handle: the same query/exec, bound to the transaction. */
export interface ThreadTransaction {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<ThreadResult & { rows: T[] }>;
  exec(sql: string): Promise<ThreadResult[]>;
  rollback(): Promise<void>;
}

export class PGliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<number, (payload: string) => void>();
  private seq = 0;
  private txSeq = 0;
  private readonly ready: Promise<void>;
  private failed?: Error;

  private constructor(opts: { dataDir?: string; loadDataDir?: ArrayBuffer }) {
    this.worker = new Worker(new URL('./pgliteWorker.mjs', import.meta.url), {
      workerData: opts,
      transferList: opts.loadDataDir ? [opts.loadDataDir] : [],
      execArgv: process.execArgv.filter((a) => !a.startsWith('--cpu-prof')),
    });
    this.ready = new Promise((resolve, reject) => {
      const onReady = (m: { ready?: boolean }) => {
        if (m.ready) {
          this.worker.off('message', onReady);
          resolve();
        }
      };
      this.worker.on('message', onReady);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`PGlite thread exited with code ${code} before it was ready`)));
    });
    this.worker.on(
      'message',
      (m: { id?: number; result?: unknown; error?: { message: string; fields: Record<string, unknown> }; notify?: number; payload?: string }) => {
        if (m.notify !== undefined) {
          this.listeners.get(m.notify)?.(m.payload ?? '');
          return;
        }
        if (m.id === undefined) return;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.fields));
        else p.resolve(m.result);
      },
    );
    const dead = (err: Error) => {
      this.failed = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', dead);
    this.worker.on('exit', (code) => dead(new Error(`PGlite thread exited with code ${code}`)));
  }

  /**
   * create starts the thread, opens (or creates) the database in `dataDir` (in memory when undefined, starting from
   * the `loadDataDir` tarball when given) and applies every migration. Rejects when it cannot.
   */
  static async create(opts: { dataDir?: string; loadDataDir?: Blob }): Promise<PGliteThread> {
    const thread = new PGliteThread({ dataDir: opts.dataDir, loadDataDir: opts.loadDataDir ? await opts.loadDataDir.arrayBuffer() : undefined });
    await thread.ready;
    return thread;
  }

  private call<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failed) return Promise.reject(this.failed);
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, ...message }, transfer);
    });
  }

  /** query runs one statement; `options.parsers` (drizzle's) asks for date/time values as text. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions, tx?: number): Promise<ThreadResult & { rows: T[] }> {
    return this.call({ op: 'query', sql, params, rowMode: options?.rowMode, drizzle: !!options?.parsers, tx });
  }

  /** exec runs a script of statements without parameters; one result per statement. */
  exec(sql: string, tx?: number): Promise<ThreadResult[]> {
    return this.call({ op: 'exec', sql, tx });
  }

  /** transaction runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const tx = ++this.txSeq;
    await this.call({ op: 'begin', tx });
    let rolledBack = false;
    const handle: ThreadTransaction = {
      query: (sql, params, options) => this.query(sql, params, options, tx),
      exec: (sql) => this.exec(sql, tx),
      rollback: async () => {
        rolledBack = true;
      },
    };
    let result: T;
    try {
      result = await fn(handle);
    } catch (err) {
      await this.call({ op: 'rollback', tx }).catch(() => undefined);
      throw err;
    }
    await this.call({ op: rolledBack ? 'rollback' : 'commit', tx });
    return result;
  }

  /** listen subscribes to NOTIFY on `channel`; resolves with the function that unsubscribes. */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const id = this.seq + 1;
    this.listeners.set(id, onPayload);
    await this.call({ op: 'listen', channel });
    return async () => {
      this.listeners.delete(id);
      await this.call({ op: 'unlisten', channel: String(id) });
    };
  }

  /** dumpDataDir returns a tarball of the database (for test fixtures). */
  async dumpDataDir(): Promise<Blob> {
    return new Blob([await this.call<ArrayBuffer>({ op: 'dump' })]);
  }

  /** close closes the database and ends the thread. */
  async close(): Promise<void> {
    await this.call({ op: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }
}
