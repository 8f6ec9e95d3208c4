/** campaign gateway handlers (openapi/campaign.yaml). */
import type { operations } from '../../../../generated/types/campaign.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { archiveCampaign, campaignMetrics, countCampaigns, listCampaigns, saveCampaign } from '../../core/campaigns/index.ts';

/** campaignHandlers builds the campaign gateway's handlers over one app context. */
export function campaignHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async listCampaigns(req) {
      return { campaigns: await listCampaigns(query, scope(req).id, req.query), errors: [] };
    },
    async saveCampaign(req) {
      return { campaign: await saveCampaign(query, scope(req).id, req.body.campaign), errors: [] };
    },
    async archiveCampaign(req) {
      return archiveCampaign(query, scope(req).id, req.params.id);
    },
    async listCampaignMetrics(req) {
      return { campaigns_with_metrics: await campaignMetrics(query, scope(req).id, req.query), errors: [] };
    },
    async countCampaignMetrics(req) {
      return { num_campaigns: await countCampaigns(query, scope(req).id, req.query.ids) };
    },
  };
}
