/** senderpersonawrapper gateway handlers (openapi/senderpersonawrapper.yaml; verification emails: src/server/core/personas/verification.ts). */
import type { operations } from '../../../../generated/types/senderpersonawrapper.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countPersonas, listPersonas, savePersonas } from '../../core/personas/index.ts';
import { ResendThrottle, sendPersonaVerifications, TooManyResends } from '../../core/personas/verification.ts';
import { BadRequest, NotFound } from '../../errors.ts';

/** senderPersonaHandlers builds the gateway's handlers over one app context. */
export function senderPersonaHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  const resends = new ResendThrottle(db);
  return {
    async listSenderPersonas(req) {
      return { data: await listPersonas(db, scope(req).id, req.query) };
    },
    async countSenderPersonas(req) {
      return { num_sender_personas: await countPersonas(db, scope(req).id, req.query.ids) };
    },
    async saveSenderPersonas(req) {
      const projectId = scope(req).id;
      const data = await savePersonas(db, projectId, req.body.sender_personas);
      // Every save of an unverified persona (re)sends its verification email.
      return { data, errors: await sendPersonaVerifications(ctx, projectId, data) };
    },
    async resendPersonaVerification(req, reply) {
      const projectId = scope(req).id;
      const [persona] = await listPersonas(db, projectId, { ids: req.params.id });
      if (!persona) throw new NotFound([`id: no sender persona ${req.params.id} in this project`]);
      if (persona.verified_at) throw new BadRequest(['id: this sender persona is already verified']);
      try {
        await resends.take(persona.id, persona.email);
      } catch (err) {
        if (err instanceof TooManyResends) reply.header('retry-after', String(err.retryAfterS));
        throw err;
      }
      return { data: persona, errors: await sendPersonaVerifications(ctx, projectId, [persona]) };
    },
  };
}
