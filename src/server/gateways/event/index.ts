/** event gateway handlers (openapi/event.yaml): event lists, single sends, the public events API and delivery feedback. */
import { erasureKey } from '../../core/privacy/key.ts';
import type { operations } from '../../../../generated/types/event.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { BadRequest, HttpError, Unauthorized } from '../../errors.ts';
import { addManualSuppressions, listSuppressions, recordFeedback, removeSuppressions } from '../../core/feedback/index.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { likePattern } from '../../core/listing.ts';
import { oncePerKey } from '../../idempotency.ts';
import { scope, type GatewayHandlers } from '../types.ts';
import { countEvents, listEvents } from '../../core/events/search.ts';
import { projectIdByIntegrationKey } from '../../core/accounts/index.ts';
import { queueSingleEmail } from '../../core/sending/singleEmail.ts';
import { EVENT_BATCH_LIMITS, ingestEvents } from '../../core/events/ingest.ts';
import { confirmSubscription, parseSnsBody, sesFeedback } from './sns.ts';
import { checkProviderSecret, replayed, verifyProviderRequest } from './providers.ts';
import { applyProviderEvents, inboundSettings, PREPARED } from '../../core/feedback/inbound.ts';
import { feedbackSecret, listFeedbackIntegrations, removeFeedbackIntegration, setFeedbackIntegration } from '../../core/feedback/integrations.ts';
import { readProviderEvents } from '../../../domain/providerFeedback.ts';
import { claimKey } from '../../idempotency.ts';
import { inboundMetrics, type InboundResult } from '../../metrics.ts';

/** eventHandlers builds the event gateway's handlers over one app context. */
export function eventHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const db = ctx.database.db;
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  return {
    async listEvents(req) {
      return { data: await listEvents(db, scope(req).id, req.query) };
    },
    async countEvents(req) {
      return { num_events: await countEvents(db, scope(req).id, req.query) };
    },
    async sendSingleEmail(req) {
      const queued = await queueSingleEmail(db, query, scope(req), req.body.mailer_payload, erasureKey(ctx.config));
      ctx.notifySender();
      return { data: { queued } };
    },
    async postEvents(req, reply) {
      const size = Number(req.headers['content-length'] ?? 0);
      if (size > EVENT_BATCH_LIMITS.bytes) {
        throw new BadRequest([
          `events: the batch is ${size} bytes; at most ${EVENT_BATCH_LIMITS.bytes} bytes (and ${EVENT_BATCH_LIMITS.events} events) per request`,
        ]);
      }
      const key = req.headers['idempotency-key'];
      const { status, result, replayed } = await ingestEvents(
        ctx.database,
        scope(req).id,
        req.body.events as unknown[],
        typeof key === 'string' ? key : undefined,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      reply.code(status);
      return result;
    },
    async listSuppressions(req) {
      const email = req.query.email?.trim();
      return listSuppressions(query, scope(req).id, {
        limit: req.query.limit ?? 10,
        offset: req.query.offset ?? 0,
        emailLike: email ? likePattern(email) : undefined,
      });
    },
    async addSuppressions(req) {
      const failed: Array<{ index: number; errors: string[] }> = [];
      const valid: string[] = [];
      req.body.emails.forEach((email, index) => {
        const error = checkEmail(email);
        if (error) failed.push({ index, errors: [`emails[${index}]: ${error}`] });
        else valid.push(email);
      });
      if (!valid.length) throw new BadRequest(failed.flatMap((f) => f.errors));
      return { changed: await addManualSuppressions(query, scope(req).id, valid), failed };
    },
    async removeSuppressions(req) {
      const changed = await ctx.database.transaction((run) => removeSuppressions(run, scope(req).id, req.body.emails));
      return { changed, failed: [] };
    },
    async postFeedback(req) {
      const items = req.body.notifications.map((n) => ({
        kind: n.type,
        email: n.email,
        bounceType: n.type === 'bounce' ? (n.bounce_type ?? 'Permanent') : undefined,
        bounceSubType: n.bounce_sub_type,
        diagnosticCode: n.diagnostic_code,
        feedbackType: n.feedback_type,
        messageId: n.message_id,
        timestamp: n.timestamp,
      }));
      const { recorded, suppressed } = await ctx.database.transaction((run) =>
        recordFeedback(run, scope(req).id, items, 'json', ctx.config.reputation, ctx.blocks),
      );
      return { recorded, suppressed };
    },
    async postSesNotification(req) {
      const projectId = await projectIdByIntegrationKey(ctx.database.db, req.params.integration_key);
      if (!projectId) throw new Unauthorized('integration_key: unknown integration key');
      const msg = await parseSnsBody(req.body, ctx.config.snsVerify);
      const topics = ctx.config.snsTopicArns;
      if (topics.length && !topics.includes(msg.TopicArn ?? '')) {
        throw new HttpError(403, [`TopicArn: ${msg.TopicArn ?? '(none)'} is not one of the topics this server accepts (SNS_TOPIC_ARNS)`]);
      }
      if (msg.Type === 'SubscriptionConfirmation') {
        await confirmSubscription(msg, ctx.config.snsVerify);
        return { type: msg.Type };
      }
      if (msg.Type !== 'Notification') return { type: msg.Type };
      const items = sesFeedback(msg);
      // SNS redelivers a message it thinks was not received (same MessageId): the first delivery's answer is kept
      // in event_batches and repeated, so a retry never records a bounce twice.
      const dedupeKey = typeof msg.MessageId === 'string' && msg.MessageId ? `sns:${msg.MessageId}` : undefined;
      const result = await ctx.database.transaction(async (run) => {
        const record = () => recordFeedback(run, projectId, items, 'sns', ctx.config.reputation, ctx.blocks);
        return dedupeKey ? (await oncePerKey(run, projectId, dedupeKey, record)).result : record();
      });
      return { type: msg.Type, recorded: result.recorded, suppressed: result.suppressed };
    },
    async postProviderFeedback(req) {
      const { provider, integration_key } = req.params;
      const projectId = await projectIdByIntegrationKey(ctx.database.db, integration_key);
      if (!projectId) throw new Unauthorized('integration_key: unknown integration key');
      const count = (result: InboundResult) => inboundMetrics.messages.inc({ source: provider, result });
      const secret = await feedbackSecret(query, projectId, provider);
      if (!secret) {
        count('unauthorized');
        throw new Unauthorized(`provider: ${provider} webhooks are not set up for this project (PUT /feedback_integrations/${provider})`);
      }
      const events = readProviderEvents(provider, req.body);
      let outcomes;
      try {
        const { replayKey } = verifyProviderRequest(provider, req, req.rawBody ?? JSON.stringify(req.body), secret);
        outcomes = await ctx.database.transaction(async (run) => {
          if (!(await claimKey(run, projectId, replayKey))) throw replayed();
          return applyProviderEvents(run, projectId, events, provider, inboundSettings(ctx.config, ctx.blocks));
        }, PREPARED);
      } catch (err) {
        if (err instanceof Unauthorized) count('unauthorized');
        throw err;
      }
      for (const o of outcomes) count(o.outcome === 'applied' ? ((o.class ?? 'undetermined') as InboundResult) : (o.reason ?? 'unreadable'));
      const applied = outcomes.filter((o) => o.outcome === 'applied').length;
      return { events: events.length, applied, ignored: events.length - applied, suppressed: outcomes.reduce((n, o) => n + o.suppressed, 0) };
    },
    async listFeedbackIntegrations(req) {
      return { data: await listFeedbackIntegrations(query, scope(req).id, ctx.config.publicUrl) };
    },
    async setFeedbackIntegration(req) {
      const problem = checkProviderSecret(req.params.provider, req.body.secret);
      if (problem) throw new BadRequest([problem]);
      return setFeedbackIntegration(query, scope(req).id, req.params.provider, req.body.secret, ctx.config.publicUrl);
    },
    async removeFeedbackIntegration(req) {
      return { removed: await removeFeedbackIntegration(query, scope(req).id, req.params.provider) };
    },
  };
}
