/**
 * RenderPool: renders and stores emails (Handlebars, MIME composition and the file write: most of the CPU cost per
 * message) on worker threads so the main thread keeps SMTP and the database busy; on a 2-core machine this is what lets sending use both cores.
 * With `threads` 0 it renders in-process. A thread that dies fails its requests (the sender retries them) and is
 * replaced.
 */
import { Worker } from 'node:worker_threads';
import { renderMessage, type RenderRequest } from './render.ts';
import { openStorage, type Storage } from '../storage/storage.ts';

/**
 * The young generation of each render thread's V8 heap, in MB. What a render allocates (strings, the message's
 * parts) dies with the message, so a small young generation costs only cheap, more frequent scavenges; V8's default
 * grows it to 48 MB per thread under a full-speed blast, which showed as the worker's RSS growth in
 * `npm run bench:expand` (docs/bench-log.md 2026-11-27).
 */
export const RENDER_THREAD_YOUNG_GENERATION_MB = 16;

interface Pending {
  resolve: (r: { subject: string; raw: Buffer }) => void;
  reject: (err: Error) => void;
  request: RenderRequest;
}

export class RenderPool {
  private readonly workers: Worker[] = [];
  private readonly readiness: Promise<void>[] = [];
  private readonly pending = new Map<number, Pending & { worker: Worker }>();
  private next = 0;
  private seq = 0;
  private closed = false;

  private readonly storage: Storage;
  /** The template keys each thread has been sent the text of: later requests leave the text out (it is compiled there). */
  private readonly sentTemplates = new Map<Worker, Set<string>>();

  /** `threads`: render threads to start (0 renders on the calling thread); `storageUrl`: where copies are stored. */
  constructor(
    private readonly threads: number,
    private readonly storageUrl: string,
  ) {
    this.storage = openStorage(storageUrl);
    for (let i = 0; i < threads; i++) this.workers.push(this.spawn());
  }

  private spawn(): Worker {
    // The worker body is TypeScript; the .mjs bootstrap registers tsx in the new thread first.
    const worker = new Worker(new URL('./renderWorker.mjs', import.meta.url), {
      execArgv: process.execArgv.filter((a) => !a.startsWith('--cpu-prof')),
      workerData: { storageUrl: this.storageUrl },
      resourceLimits: { maxYoungGenerationSizeMb: RENDER_THREAD_YOUNG_GENERATION_MB },
    });
    worker.unref();
    this.readiness.push(
      new Promise((resolve) => {
        const onReady = (msg: { ready?: boolean }) => {
          if (msg.ready) {
            worker.off('message', onReady);
            resolve();
          }
        };
        worker.on('message', onReady);
        worker.once('exit', () => resolve());
      }),
    );
    worker.on('message', (msg: { id: number; subject?: string; raw?: Uint8Array; error?: string; stage?: string; missingTemplate?: boolean }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.missingTemplate) {
        // The thread dropped the compiled template (its cache is bounded): send this request again with the text.
        this.sentTemplates.get(worker)?.delete(p.request.templateKey);
        this.post(worker, p.request, p);
        return;
      }
      if (msg.error !== undefined) p.reject(Object.assign(new Error(msg.error), { stage: msg.stage }));
      else p.resolve({ subject: msg.subject as string, raw: Buffer.from(msg.raw!.buffer, msg.raw!.byteOffset, msg.raw!.byteLength) });
    });
    const fail = (err: Error) => {
      for (const [id, p] of this.pending) {
        if (p.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(err);
      }
      const i = this.workers.indexOf(worker);
      if (i >= 0 && !this.closed) this.workers[i] = this.spawn();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`render thread exited with code ${code}`));
    });
    return worker;
  }

  /** ready resolves once every thread has loaded its code (a few hundred ms under tsx), so claims are not left waiting. */
  async ready(): Promise<void> {
    await Promise.all(this.readiness);
  }

  /** render renders and stores one email (see renderMessage). */
  render(request: RenderRequest): Promise<{ subject: string; raw: Buffer }> {
    if (!this.workers.length) return renderMessage(request, this.storage);
    const worker = this.workers[this.next++ % this.workers.length];
    return new Promise((resolve, reject) => this.post(worker, request, { resolve, reject, request }));
  }

  /**
   * post hands a request to a thread, with the template's text only the first time that thread sees its key (the
   * text is the largest part of a request, and copying it to the thread for every recipient cost the main thread).
   */
  private post(worker: Worker, request: RenderRequest, p: Pending): void {
    const id = ++this.seq;
    let sent = this.sentTemplates.get(worker);
    if (!sent) this.sentTemplates.set(worker, (sent = new Set()));
    const withText = !sent.has(request.templateKey);
    sent.add(request.templateKey);
    this.pending.set(id, { ...p, worker });
    worker.postMessage({ id, request: withText ? request : { ...request, template: undefined } });
  }

  /** close stops the threads; requests still pending are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new Error('render pool closed'));
    }
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
