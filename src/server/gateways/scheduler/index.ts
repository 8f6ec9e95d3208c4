/** scheduler gateway handlers (openapi/scheduler.yaml). */
import type { operations } from '../../../../generated/types/scheduler.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countBlasts, disableBlasts, listBlasts, previewBlast, saveBlast } from '../../core/blasts/index.ts';
import type { QueryFn } from '../../db/client.ts';

/** schedulerHandlers builds the scheduler gateway's handlers over one app context. */
export function schedulerHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
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
    async previewEmailBlast(req) {
      return { data: await previewBlast(ctx.database.query.bind(ctx.database) as QueryFn, scope(req), req.body), errors: [] };
    },
  };
}
