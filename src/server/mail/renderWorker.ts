/**
 * renderWorker: the body of a render thread (see renderPool.ts). Compiles each template version once and answers
 * every RenderRequest by storing the exact raw message and returning its subject and bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { renderMessage, TemplateNotCompiled, type RenderRequest } from './render.ts';
import { openStorage } from '../storage/storage.ts';

if (!parentPort) throw new Error('renderWorker must run as a worker thread');
const port = parentPort;
const storage = openStorage((workerData as { storageUrl: string }).storageUrl, { sync: true });

port.on('message', async (msg: { id: number; request: RenderRequest }) => {
  try {
    const { subject, raw } = await renderMessage(msg.request, storage);
    const bytes = new Uint8Array(raw); // a fresh buffer of its own, safe to transfer
    port.postMessage({ id: msg.id, subject, raw: bytes }, [bytes.buffer]);
  } catch (err) {
    port.postMessage({
      id: msg.id,
      error: (err as Error).message ?? String(err),
      stage: (err as { stage?: string }).stage,
      missingTemplate: err instanceof TemplateNotCompiled,
    });
  }
});

port.postMessage({ ready: true });
