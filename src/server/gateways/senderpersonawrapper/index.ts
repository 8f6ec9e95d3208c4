/** senderpersonawrapper gateway handlers (openapi/senderpersonawrapper.yaml). */
import type { operations } from '../../../../generated/types/senderpersonawrapper.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countPersonas, listPersonas, savePersonas } from './service.ts';

/** senderPersonaHandlers builds the gateway's handlers over one app context. */
export function senderPersonaHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listSenderPersonas(req) { return { data: await listPersonas(db, scope(req).id, req.query) }; },
    async countSenderPersonas(req) { return { num_sender_personas: await countPersonas(db, scope(req).id, req.query.ids) }; },
    async saveSenderPersonas(req) { return { data: await savePersonas(db, scope(req).id, req.body.sender_personas) }; },
  };
}
