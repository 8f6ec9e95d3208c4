/** joblog gateway (openapi/joblog.yaml): the project's job notifications, newest first. */
import type { operations } from '../../../../generated/types/joblog.gen.ts';
import type { AppContext } from '../../context.ts';
import { uuidList } from '../../core/listing.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import type { QueryFn } from '../../db/client.ts';
import { bulkUploadStatus } from '../../core/contacts/upload.ts';
import { listJobLog } from '../../core/jobs/index.ts';

/** joblogHandlers builds the joblog gateway's handlers over one app context. */
export function joblogHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async getBulkUploadStatus(req) {
      return bulkUploadStatus(query, scope(req).id, req.query.s3_key, req.query.since ? new Date(req.query.since) : undefined);
    },
    async listJobLog(req) {
      return {
        data: await listJobLog(ctx.database.db, scope(req).id, {
          ids: uuidList(req.query.ids, 'ids'),
          limit: req.query.limit ?? 100,
          offset: req.query.offset ?? 0,
        }),
      };
    },
  };
}
