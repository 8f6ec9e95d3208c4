/**
 * webhooks gateway (openapi/webhooks.yaml): a project's webhook endpoints and their messages
 * (src/server/core/webhooks). Every call is scoped to the x-api-key's project.
 */
import type { operations } from '../../../../generated/types/webhooks.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  resendDelivery,
  revealSecret,
  rotateSecret,
  sendTest,
  updateEndpoint,
} from '../../core/webhooks/index.ts';
import { scope, type GatewayHandlers } from '../types.ts';

/** webhooksHandlers builds the webhooks gateway's handlers over one app context. */
export function webhooksHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const allowPrivate = ctx.config.webhooks.allowPrivate;
  return {
    async listWebhookEndpoints(req) {
      return { data: await listEndpoints(query, scope(req).id) };
    },
    async createWebhookEndpoint(req) {
      return { data: await createEndpoint(query, scope(req), req.body, allowPrivate) };
    },
    async updateWebhookEndpoint(req) {
      return { data: await updateEndpoint(query, scope(req), req.params.id, req.body, allowPrivate) };
    },
    async deleteWebhookEndpoint(req) {
      const project = scope(req);
      await deleteEndpoint(query, project.id, req.params.id);
      return { id: req.params.id };
    },
    async rotateWebhookSecret(req) {
      return { data: await rotateSecret(query, scope(req).id, req.params.id) };
    },
    async revealWebhookSecret(req) {
      const agent = req.headers['user-agent'];
      return { data: await revealSecret(query, scope(req).id, req.params.id, { ip: req.ip, userAgent: typeof agent === 'string' ? agent : null }) };
    },
    async sendWebhookTest(req) {
      return { data: await sendTest(query, scope(req).id, req.params.id) };
    },
    async listWebhookDeliveries(req) {
      const project = scope(req);
      return {
        data: await listDeliveries(query, project.id, req.params.id, { status: req.query.status, limit: req.query.limit ?? 10, offset: req.query.offset ?? 0 }),
      };
    },
    async resendWebhookDelivery(req) {
      return { data: await resendDelivery(query, scope(req).id, req.params.id) };
    },
  };
}
