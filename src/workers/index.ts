/**
 * startWorkers runs the background work in this process (WORKERS=on): the pg-boss handlers (blast expansion) and the
 * sender loop. Returns a stop function that lets in-hand work finish.
 */
import type { AppContext } from '../server/context.ts';
import type { MailTransport } from '../server/mail/transport.ts';
import { BLAST_EXPAND_QUEUE } from '../server/gateways/scheduler/service.ts';
import { expandBlast } from './blasts.ts';
import type { Queue } from './queue.ts';
import { Sender } from './sender.ts';
import { RenderPool } from '../server/mail/renderPool.ts';

export interface Workers {
  sender: Sender;
  stop(): Promise<void>;
}

/** startWorkers registers the job handlers on `queue` and starts the sender. */
export async function startWorkers(ctx: AppContext, queue: Queue, transport: MailTransport): Promise<Workers> {
  const renderer = new RenderPool(ctx.config.renderThreads, ctx.config.storageUrl);
  const sender = new Sender(ctx, transport, renderer, { leaseMs: ctx.config.sendLeaseMs, pollMs: ctx.config.sendPollMs, concurrency: ctx.config.sendConcurrency });
  await queue.work<{ blastId: string }>(BLAST_EXPAND_QUEUE, { batchSize: 5, pollingIntervalSeconds: 1 }, async ({ blastId }) => {
    const n = await expandBlast(ctx, blastId);
    if (n) sender.poke();
  });
  await renderer.ready();
  sender.start();
  return {
    sender,
    async stop() {
      await sender.stop();
      await renderer.close();
    },
  };
}
