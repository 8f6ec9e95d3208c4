/**
 * domains gateway (openapi/domains.yaml; spec part 2 §2 /account/domains, §3 Domain settings, §7 Sending domains): the project's sending domains with their DKIM, SPF and DMARC records (src/server/core/domains/index.ts). Every
 * call is scoped to the x-api-key's project.
 */
import type { operations } from '../../../../generated/types/domains.gen.ts';
import type { AppContext } from '../../context.ts';
import { addDomain, listDomains, setBounceDomain } from '../../core/domains/index.ts';
import { dmarcSummary } from '../../core/domains/dmarc.ts';
import type { QueryFn } from '../../db/client.ts';
import { sameProject, scope, type GatewayHandlers } from '../types.ts';

/** domainsHandlers builds the domains gateway's handlers over one app context. */
export function domainsHandlers(ctx: AppContext): GatewayHandlers<operations> {
  return {
    async getDkimSettings(req) {
      const project = scope(req);
      sameProject(project, req.query.company_name, req.query.project_name);
      return { data: await listDomains(ctx, project) };
    },
    async addDomain(req) {
      const project = scope(req);
      sameProject(project, req.body.company_name, req.body.project_name);
      return { data: await addDomain(ctx, project, req.body.domain) };
    },
    async setBounceDomain(req) {
      return { data: await setBounceDomain(ctx, scope(req), req.params.id, req.body.bounce_domain) };
    },
    async getDmarcReport(req) {
      const query = ctx.database.query.bind(ctx.database) as QueryFn;
      return { data: await dmarcSummary(query, ctx.config, scope(req), req.params.id, req.query.days ?? 30) };
    },
  };
}
