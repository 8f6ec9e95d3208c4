/** scheduler gateway handlers (openapi/scheduler.yaml). */
import type { operations } from '../../../../generated/types/scheduler.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countBlasts, disableBlasts, listBlasts, previewBlast, saveBlast } from '../../core/blasts/index.ts';
import type { QueryFn } from '../../db/client.ts';
import { HttpError } from '../../errors.ts';
import { resumeSending, sendingStatus } from '../../core/sending/reputation.ts';

/** schedulerHandlers builds the scheduler gateway's handlers over one app context. */
export function schedulerHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async listEmailBlasts(req) {
      return { data: await listBlasts(db, scope(req).id, req.query) };
    },
    async countEmailBlasts(req) {
      return { num_email_blasts: await countBlasts(db, scope(req).id, req.query.ids, req.query.enabled_only, req.query.search_value) };
    },
    async saveEmailBlast(req) {
      return { data: await saveBlast(ctx, scope(req), req.body) };
    },
    async disableEmailBlasts(req) {
      return disableBlasts(db, scope(req).id, req.params.ids);
    },
    async getSendingStatus(req) {
      return sendingStatus(query, scope(req).id, ctx.config);
    },
    async resumeSending(req) {
      if (!(await resumeSending(query, scope(req).id))) throw new HttpError(409, ['sending_status: marketing sending is not paused']);
      return sendingStatus(query, scope(req).id, ctx.config);
    },
    async previewEmailBlast(req) {
      return { data: await previewBlast(ctx.database.query.bind(ctx.database) as QueryFn, scope(req), req.body, ctx.config), errors: [] };
    },
  };
}
