/**
 * subscriptions gateway (openapi/subscriptions.yaml): the project's subscription topics, hosted
 * subscribe forms and consent records (src/server/core/subscriptions). Every call is scoped to the x-api-key's project.
 */
import type { operations } from '../../../../generated/types/subscriptions.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import {
  createForm,
  createTopic,
  deleteForm,
  deleteTopic,
  listConsents,
  listForms,
  listTopics,
  updateForm,
  updateTopic,
} from '../../core/subscriptions/index.ts';
import { scope, type GatewayHandlers } from '../types.ts';

/** subscriptionsHandlers builds the subscriptions gateway's handlers over one app context. */
export function subscriptionsHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const publicUrl = ctx.config.publicUrl;
  return {
    async listTopics(req) {
      return { data: await listTopics(query, scope(req).id) };
    },
    async createTopic(req) {
      return { data: await createTopic(query, scope(req).id, req.body) };
    },
    async updateTopic(req) {
      return { data: await updateTopic(query, scope(req).id, req.params.id, req.body) };
    },
    async deleteTopic(req) {
      await deleteTopic(ctx.database, scope(req).id, req.params.id);
      return { id: req.params.id };
    },
    async listSubscribeForms(req) {
      return { data: await listForms(query, publicUrl, scope(req).id) };
    },
    async createSubscribeForm(req) {
      return { data: await createForm(query, publicUrl, scope(req).id, req.body) };
    },
    async updateSubscribeForm(req) {
      return { data: await updateForm(query, publicUrl, scope(req).id, req.params.id, req.body) };
    },
    async deleteSubscribeForm(req) {
      await deleteForm(query, publicUrl, scope(req).id, req.params.id);
      return { id: req.params.id };
    },
    async listConsents(req) {
      return { data: await listConsents(query, scope(req).id, req.query) };
    },
  };
}
