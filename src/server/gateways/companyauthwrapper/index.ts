/**
 * companyauthwrapper gateway (openapi/companyauthwrapper.yaml; spec part 1 §2 Team, §3 Company user, §7,
 * §6, §8): the project's admins (team.ts), the sandbox activation steps, and the sandbox chat assistant's session
 * calls proxied to the configured provider (assistant.ts). Every call is scoped to the x-api-key's project.
 */
import type { QueryFn } from '../../db/client.ts';
import { getRetention, setRetention } from '../../core/privacy/retention.ts';
import { readPolicies, SUGGESTED_POLICIES, writePolicies } from '../../core/audience/policies.ts';
import type { FastifyRequest } from 'fastify';
import type { operations } from '../../../../generated/types/companyauthwrapper.gen.ts';
import type { AppContext } from '../../context.ts';
import { accountStatus, addTeamMember, listTeam, removeTeamMember, requestActivation, sandboxActivation } from '../../core/accounts/team.ts';
import { assistantAllowed, assistantCall } from './assistant.ts';
import { sameProject, scope, type GatewayHandlers } from '../types.ts';

function apiKeyOf(req: FastifyRequest): string {
  return String(req.headers['x-api-key']);
}

/** companyAuthHandlers builds the companyauthwrapper gateway's handlers over one app context. */
export function companyAuthHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  return {
    async listCompanyUsers(req) {
      const project = scope(req);
      sameProject(project, req.query.company_name, req.query.project_name);
      return { data: await listTeam(db, project) };
    },
    async addCompanyUser(req) {
      const project = scope(req);
      sameProject(project, req.body.company_name, req.body.project_name);
      const u = req.body.company_user;
      return {
        data: await addTeamMember(db, project, {
          email: u.email,
          firstName: u.first_name,
          lastName: u.last_name,
          password: req.body.password,
          addedBy: req.body.added_by,
        }),
      };
    },
    async removeCompanyUser(req) {
      return { data: await removeTeamMember(db, scope(req), req.body.company_user.id.toLowerCase()) };
    },
    async getSandboxActivation(req) {
      return sandboxActivation(db, scope(req));
    },
    async getRetention(req) {
      return { data: await getRetention(ctx.database.query.bind(ctx.database) as QueryFn, scope(req).id) };
    },
    async getAudiencePolicies(req) {
      return { data: await readPolicies(ctx.database.query.bind(ctx.database) as QueryFn, scope(req).id), suggested: SUGGESTED_POLICIES };
    },
    async setAudiencePolicies(req) {
      // The settings and the built-in sunset segment they define change together, or not at all.
      return { data: await ctx.database.transaction((tx) => writePolicies(tx, scope(req).id, req.body)) };
    },
    async setRetention(req) {
      return { data: await setRetention(ctx.database.query.bind(ctx.database) as QueryFn, scope(req).id, req.body) };
    },
    async getAccountStatus(req) {
      return accountStatus(db, scope(req));
    },
    async requestActivation(req) {
      return requestActivation(db, scope(req), req.body, req.ip);
    },
    async getAssistantStatus(req) {
      return { enabled: assistantAllowed(ctx.config, scope(req)), configured: !!ctx.config.assistant.providerUrl };
    },
    async createAssistantSession(req) {
      const { email, endpoints } = req.body;
      return assistantCall(ctx.config, scope(req), '/session', { email, endpoints: endpoints ?? {}, api_key: apiKeyOf(req) });
    },
    async refreshAssistantSession(req) {
      return assistantCall(ctx.config, scope(req), '/session/refresh', { client_secret: req.body.client_secret });
    },
  };
}
