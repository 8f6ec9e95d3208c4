/**
 * operator gateway (openapi/operator.yaml): the operators' back-office. Every call but /login and
 * /cli needs the operator session cookie (the OperatorSession security handler in app.ts sets req.operator); /cli is
 * the command line's way in to a running server (OperatorSecret: loopback and the DATA_DIR secret). The facts live in
 * core/operator; this file only maps requests to them.
 */
import type { FastifyRequest } from 'fastify';
import type { operations } from '../../../../generated/types/operator.gen.ts';
import type { AppContext } from '../../context.ts';
import { Unauthorized } from '../../errors.ts';
import { LoginThrottle } from '../../core/accounts/loginThrottle.ts';
import {
  endOperatorSession,
  listAudit,
  listMessages,
  listProjects,
  OPERATOR_COOKIE,
  OPERATOR_SESSION_MS,
  operatorLogin,
  projectDetail,
  resetAdminPassword,
  setProjectActive,
  setProjectSuspended,
  verifyPersonaById,
  type Operator,
} from '../../core/operator/index.ts';
import { activationMailer } from '../../core/operator/activationMail.ts';
import { runCommand, type CommandArgs } from '../../core/operator/commands.ts';
import type { GatewayHandlers } from '../types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in operator; set by the OperatorSession security handler. */
    operator?: Operator;
  }
}

/** operatorOf returns the request's operator; throws 401 when the route ran without the OperatorSession handler. */
function operatorOf(req: FastifyRequest): Operator {
  if (!req.operator) throw new Unauthorized('operator: sign in at /operator/login');
  return req.operator;
}

/** The throttle's account key of an operator, apart from any customer admin with the same email. */
const throttleKey = (email: string) => `operator:${email.trim().toLowerCase()}`;

/** operatorHandlers builds the operator gateway's handlers over one app context. */
export function operatorHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as AppContext['database']['query'];
  const mail = activationMailer(ctx);
  const throttle = new LoginThrottle(ctx.database.db, {
    perAddress: ctx.config.loginMaxFailures,
    perAccount: ctx.config.loginMaxFailuresPerAccount,
    windowS: ctx.config.loginFailureWindowS,
  });
  const secure = ctx.config.publicUrl.startsWith('https:');
  return {
    async operatorLogin(req, reply) {
      const { operator, token } = await throttle.attempt(req.ip, throttleKey(req.body.email), reply, () =>
        operatorLogin(query, req.body.email, req.body.password),
      );
      reply.setCookie(OPERATOR_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/api/operator', maxAge: OPERATOR_SESSION_MS / 1000 });
      return operator;
    },
    async operatorLogout(req, reply) {
      const token = req.cookies[OPERATOR_COOKIE];
      if (token) await endOperatorSession(query, token);
      reply.clearCookie(OPERATOR_COOKIE, { path: '/api/operator' });
      return { ok: true };
    },
    async getOperator(req) {
      return operatorOf(req);
    },
    async listOperatorProjects(req) {
      return listProjects(query, { search: req.query.search, limit: req.query.limit ?? 10, offset: req.query.offset ?? 0 });
    },
    async getOperatorProject(req) {
      return projectDetail(query, req.params.project_id);
    },
    async activateOperatorProject(req) {
      return setProjectActive(query, req.params.project_id, true, operatorOf(req).email, mail);
    },
    async sandboxOperatorProject(req) {
      return setProjectActive(query, req.params.project_id, false, operatorOf(req).email);
    },
    async suspendOperatorProject(req) {
      return setProjectSuspended(query, req.params.project_id, true, operatorOf(req).email, req.body.reason);
    },
    async resumeOperatorProject(req) {
      return setProjectSuspended(query, req.params.project_id, false, operatorOf(req).email);
    },
    async verifyOperatorPersona(req) {
      return verifyPersonaById(query, req.params.persona_id, operatorOf(req).email);
    },
    async resetOperatorAdminPassword(req) {
      return resetAdminPassword(query, req.params.admin_id, operatorOf(req).email);
    },
    async listOperatorMessages(req) {
      return { data: await listMessages(query, { kind: req.query.kind, limit: req.query.limit ?? 10, offset: req.query.offset ?? 0 }) };
    },
    async listOperatorAudit(req) {
      return { data: await listAudit(query, { projectId: req.query.project_id, limit: req.query.limit ?? 10, offset: req.query.offset ?? 0 }) };
    },
    async runOperatorCommand(req) {
      const actor = req.body.actor?.trim() || 'cli';
      return runCommand(ctx, req.body.command, req.body.args as CommandArgs, actor.startsWith('cli') ? actor : `cli (${actor})`);
    },
  };
}
