/** segmentwrapper gateway handlers (openapi/segmentwrapper.yaml): segment operations that run as jobs. */
import type { operations } from '../../../../generated/types/segmentwrapper.gen.ts';
import type { AppContext } from '../../context.ts';
import { contactUploadUrl } from '../../core/contacts/upload.ts';
import { createSegmentFromFilters } from '../../core/segments/fromFilters.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import type { QueryFn } from '../../db/client.ts';
import { enterSegment } from '../../core/workflows/index.ts';

/** segmentWrapperHandlers builds the segmentwrapper gateway's handlers over one app context. */
export function segmentWrapperHandlers(ctx: AppContext): GatewayHandlers<operations> {
  return {
    async getSegmentUploadUrl(req) {
      return { data: await contactUploadUrl(ctx, scope(req).id, req.query.filename, req.query.type, 'segment', undefined, req.query.columns) };
    },
    async createSegmentFromFilters(req) {
      return createSegmentFromFilters(ctx, scope(req).id, req.body);
    },
    async sendSegmentToWorkflow(req) {
      const n = await enterSegment(ctx.database.query.bind(ctx.database) as QueryFn, scope(req).id, req.body);
      ctx.notifyWorkflows();
      return { data: { num_users: n, workflow_id: req.body.workflow_id }, errors: [] };
    },
  };
}
