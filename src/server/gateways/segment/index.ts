/** segment gateway handlers (openapi/segment.yaml). */
import type { operations } from '../../../../generated/types/segment.gen.ts';
import type { AppContext } from '../../context.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import type { QueryFn } from '../../db/client.ts';
import { addSegmentUsers, countSegments, filterUsers, listSegments, removeSegmentUsers, renameSegment, saveSegments } from '../../core/segments/index.ts';

/** segmentHandlers builds the segment gateway's handlers over one app context. */
export function segmentHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listSegments(req) {
      return { data: await listSegments(db, scope(req).id, req.query) };
    },
    async countSegments(req) {
      return { num_segments: await countSegments(db, scope(req).id, req.query.ids, req.query.names) };
    },
    async renameSegment(req) {
      return { data: await renameSegment(db, scope(req).id, req.params.id, req.body.name) };
    },
    async removeSegmentUsers(req) {
      return removeSegmentUsers(db, scope(req).id, req.params.id, req.params.user_ids);
    },
    async saveSegments(req) {
      return { data: await saveSegments(db, scope(req).id, req.body) };
    },
    async filterUsers(req) {
      return filterUsers(ctx.database.query.bind(ctx.database) as QueryFn, scope(req).id, req.body);
    },
    async addSegmentUsers(req) {
      return addSegmentUsers(db, scope(req).id, req.params.id, req.body.user_ids, req.body.emails);
    },
  };
}
