/** joblog gateway (openapi/joblog.yaml): the project's job notifications, newest first. */
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { operations } from '../../../../generated/types/joblog.gen.ts';
import type { AppContext } from '../../context.ts';
import { jobLog } from '../../db/schema.ts';
import { iso, isoRequired, uuidList } from '../common.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import type { QueryFn } from '../../db/client.ts';
import { bulkUploadStatus } from '../../core/contacts/upload.ts';

/** joblogHandlers builds the joblog gateway's handlers over one app context. */
export function joblogHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async getBulkUploadStatus(req) {
      return bulkUploadStatus(query, scope(req).id, req.query.s3_key, req.query.since ? new Date(req.query.since) : undefined);
    },
    async listJobLog(req) {
      const ids = uuidList(req.query.ids, 'ids');
      const rows = await db
        .select()
        .from(jobLog)
        .where(and(eq(jobLog.projectId, scope(req).id), ids.length ? inArray(jobLog.id, ids) : undefined))
        .orderBy(desc(jobLog.startedAt), jobLog.id)
        .limit(req.query.limit ?? 100)
        .offset(req.query.offset ?? 0);
      return {
        data: rows.map((r) => ({
          id: r.id,
          job_name: r.jobName,
          started_at: isoRequired(r.startedAt),
          ended_at: iso(r.endedAt),
          success: r.success,
          start_details: r.startDetails,
          end_details: r.endDetails,
        })),
      };
    },
  };
}
