/** reporting gateway handlers (openapi/reporting.yaml). */
import type { operations } from '../../../../generated/types/reporting.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import {
  sendTimeOptimisation,
  emailHistory,
  emailSendResults,
  mostClickedLinks,
  mostOpenedEmails,
  opensBySource,
  quickStats,
  recentlyClickedLinks,
  recentlyOpenedEmails,
  ReportCache,
  reportScope,
  series,
} from '../../core/reports/index.ts';
import { BadRequest } from '../../errors.ts';
import { REPORT_LIMITS } from '../../../domain/reports.ts';

/** reportingHandlers builds the reporting gateway's handlers over one app context (with its sends-report cache). */
export function reportingHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const cache = new ReportCache(ctx.config.reportCacheMs);
  const scoped = (projectId: string, campaignId: string | undefined) => reportScope(query, projectId, campaignId);
  return {
    async getEmailSendResults(req) {
      const { locations, email, limit, offset } = req.query;
      if (locations) return emailSendResults(ctx.storage, scope(req).id, locations);
      if (email) return emailHistory(query, ctx.storage, scope(req).id, email, limit ?? 10, offset ?? 0);
      throw new BadRequest(['locations: Required field (or give email)']);
    },
    async getQuickStats(req) {
      const p = scope(req).id;
      return { data: await quickStats(query, p, await scoped(p, req.query.campaign_id)), errors: [] };
    },
    async getSendsLast24Hours(req) {
      const p = scope(req).id;
      const s = await scoped(p, req.query.campaign_id);
      return { data: await cache.get(p, 'sendslast24hours', JSON.stringify(s), () => series(query, p, 'hour', s)), errors: [] };
    },
    async getSendsLast31Days(req) {
      const p = scope(req).id;
      const s = await scoped(p, req.query.campaign_id);
      return { data: await cache.get(p, 'sendslast31days', JSON.stringify(s), () => series(query, p, 'day', s)), errors: [] };
    },
    async clearReportCache(req) {
      return { cleared: cache.clear(scope(req).id, req.params.report), errors: [] };
    },
    async getMostClickedLinks(req) {
      const p = scope(req).id;
      return { data: await mostClickedLinks(query, p, await scoped(p, req.query.campaign_id), req.query.limit ?? REPORT_LIMITS.mostClickedLinks), errors: [] };
    },
    async getRecentlyClickedLinks(req) {
      const p = scope(req).id;
      return {
        data: await recentlyClickedLinks(query, p, await scoped(p, req.query.campaign_id), req.query.limit ?? REPORT_LIMITS.recentlyClickedLinks),
        errors: [],
      };
    },
    async getSendTimeOptimisation(req) {
      const p = scope(req).id;
      return { data: await sendTimeOptimisation(query, p, await scoped(p, req.query.campaign_id)), errors: [] };
    },
    async getOpensBySource(req) {
      const p = scope(req).id;
      return {
        data: await opensBySource(query, p, await scoped(p, req.query.campaign_id), req.query.by ?? 'user_agent', req.query.limit ?? REPORT_LIMITS.bySource),
        errors: [],
      };
    },
    async getMostOpenedEmails(req) {
      const p = scope(req).id;
      return {
        data: await mostOpenedEmails(
          query,
          p,
          await scoped(p, req.query.campaign_id),
          req.query.by ?? 'template_id',
          req.query.limit ?? REPORT_LIMITS.mostOpenedEmails,
        ),
        errors: [],
      };
    },
    async getRecentlyOpenedEmails(req) {
      const p = scope(req).id;
      return {
        data: await recentlyOpenedEmails(query, p, await scoped(p, req.query.campaign_id), req.query.limit ?? REPORT_LIMITS.recentlyOpenedEmails),
        errors: [],
      };
    },
  };
}
