/** event gateway handlers (openapi/event.yaml). */
import type { operations } from '../../../../generated/types/event.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countEvents, listEvents, queueSingleEmail } from './service.ts';

/** eventHandlers builds the event gateway's handlers over one app context. */
export function eventHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listEvents(req) { return { data: await listEvents(db, scope(req).id, req.query) }; },
    async countEvents(req) { return { num_events: await countEvents(db, scope(req).id, req.query) }; },
    async sendSingleEmail(req) {
      const queued = await queueSingleEmail(db, scope(req), req.body.mailer_payload);
      ctx.notifySender();
      return { data: { queued } };
    },
  };
}
