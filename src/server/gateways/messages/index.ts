/**
 * messages gateway (openapi/messages.yaml): the message activity list and one message's timeline and stored copy
 * (src/server/core/messages). Every call is scoped to the x-api-key's project.
 */
import type { operations } from '../../../../generated/types/messages.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { getMessage, listMessages } from '../../core/messages/index.ts';
import { scope, type GatewayHandlers } from '../types.ts';

/** messagesHandlers builds the messages gateway's handlers over one app context. */
export function messagesHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async listMessages(req) {
      return listMessages(query, scope(req).id, req.query);
    },
    async getMessage(req) {
      return { data: await getMessage(query, ctx.storage, scope(req).id, req.params.id) };
    },
  };
}
