/**
 * email gateway (openapi/email.yaml): the sending API (one message, or a batch of up to 500), message streams and
 * SMTP credentials. What a message must be and how it is queued is core/sending/submission.ts; every call is scoped
 * to the x-api-key's project.
 */
import { erasureKey } from '../../core/privacy/key.ts';
import type { operations } from '../../../../generated/types/email.gen.ts';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { BadRequest } from '../../errors.ts';
import { oncePerKeyOutside, requestFingerprint } from '../../idempotency.ts';
import { fromApiMessage, queueSubmission, queueSubmissions, SubmissionRefused, type ApiMessage, type SubmissionResult } from '../../core/sending/submission.ts';
import { createStream, listStreams, updateStream } from '../../core/sending/streams.ts';
import { createSmtpCredential, listSmtpCredentials, revokeSmtpCredential } from '../../core/sending/smtpCredentials.ts';
import { scope, type GatewayHandlers } from '../types.ts';

/** emailHandlers builds the email gateway's handlers over one app context. */
export function emailHandlers(ctx: AppContext): GatewayHandlers<operations> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  /** Runs `work` once per Idempotency-Key (when given), marking a replayed answer. */
  const idempotent = async <T>(
    req: { headers: Record<string, unknown>; body: unknown },
    reply: { header(k: string, v: string): unknown },
    projectId: string,
    work: () => Promise<T>,
  ) => {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') return work();
    const { result, replayed } = await oncePerKeyOutside(query, projectId, key, requestFingerprint(req.body), work);
    if (replayed) reply.header('idempotent-replayed', 'true');
    return result;
  };
  const send = async (project: ReturnType<typeof scope>, m: ApiMessage): Promise<SubmissionResult> => {
    try {
      return await queueSubmission(ctx.database, project, fromApiMessage(m), { kind: 'api' }, erasureKey(ctx.config));
    } catch (err) {
      if (err instanceof SubmissionRefused) throw new BadRequest(err.errors);
      throw err;
    }
  };
  return {
    async sendEmail(req, reply) {
      const project = scope(req);
      const result = await idempotent(req, reply, project.id, () => send(project, req.body as ApiMessage));
      ctx.notifySender();
      return result;
    },
    async sendEmailBatch(req, reply) {
      const project = scope(req);
      const result = await idempotent(req, reply, project.id, async () => {
        // Each message is checked on its own (a refused one keeps nothing and stops nothing); the others are stored
        // together, in the batch's order (core/sending/submission.ts queueSubmissions).
        const results = await queueSubmissions(
          ctx.database,
          project,
          (req.body.messages as ApiMessage[]).map(fromApiMessage),
          { kind: 'api' },
          erasureKey(ctx.config),
        );
        const data: Array<SubmissionResult | { errors: string[] }> = results.map((r, i) =>
          r instanceof SubmissionRefused ? { errors: r.errors.map((e) => `messages[${i}].${e}`) } : r,
        );
        return { queued: data.filter((d) => !('errors' in d)).length, failed: data.filter((d) => 'errors' in d).length, data };
      });
      ctx.notifySender();
      return result;
    },
    async listStreams(req) {
      return { data: await listStreams(query, scope(req).id) };
    },
    async createStream(req) {
      return { data: await createStream(query, scope(req).id, req.body) };
    },
    async updateStream(req) {
      return { data: await updateStream(query, scope(req).id, req.params.name, req.body) };
    },
    async listSmtpCredentials(req) {
      const { port, tlsPort, hostname } = ctx.config.submission;
      return { data: await listSmtpCredentials(query, scope(req).id), host: hostname, ports: { starttls: port ?? null, tls: tlsPort ?? null } };
    },
    async createSmtpCredential(req) {
      return { data: await createSmtpCredential(query, scope(req).id, req.body) };
    },
    async revokeSmtpCredential(req) {
      return { data: await revokeSmtpCredential(query, scope(req).id, req.params.id) };
    },
  };
}
