/** reporting gateway handlers (openapi/reporting.yaml). */
import type { operations } from '../../../../generated/types/reporting.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { emailHistory, emailSendResults, quickStats, series } from './service.ts';
import { BadRequest } from '../../errors.ts';

/** reportingHandlers builds the reporting gateway's handlers over one app context. */
export function reportingHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async getEmailSendResults(req) {
      const { locations, email, limit, offset } = req.query;
      if (locations) return emailSendResults(ctx.storage, scope(req).id, locations);
      if (email) return emailHistory(query, ctx.storage, scope(req).id, email, limit ?? 10, offset ?? 0);
      throw new BadRequest(['locations: Required field (or give email)']);
    },
    async getQuickStats(req) { return { data: await quickStats(query, scope(req).id, req.query.campaign_id), errors: [] }; },
    async getSendsLast24Hours(req) { return { data: await series(query, scope(req).id, 'hour', req.query.campaign_id), errors: [] }; },
    async getSendsLast31Days(req) { return { data: await series(query, scope(req).id, 'day', req.query.campaign_id), errors: [] }; },
  };
}
