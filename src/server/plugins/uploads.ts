/**
 * Uploads through pre-signed URLs (spec part 2 §7 Templates image upload; DESIGN.md §1 storage), served without an
 * x-api-key since the signed token is the permission, as with an S3 pre-signed PUT:
 * - PUT /uploads/{token}                    stores the body under the bucket/key the token names, if the token is
 *                                           genuine and unexpired (else 403), the Content-Type is the one it names
 *                                           (else 415), the URL has not been used for an upload yet (else 410;
 *                                           src/server/uploadClaims.ts), the bytes really are that image type (else
 *                                           415) and the size is 1 byte to MAX_IMAGE_UPLOAD_BYTES (else 400/413). 200
 *                                           answers {data: {url}}, the public address of the stored file. A refused
 *                                           upload leaves the URL unused, so it can be tried again.
 *                                           A contact file (contact-uploads, segment-uploads buckets) is streamed to
 *                                           storage (1 byte to 2 GiB, never held in memory), then its import is
 *                                           queued (src/server/core/contacts/upload.ts); 200 answers {data: {s3_key}}.
 * - GET /template-images/{projectId}/{name} serves a stored template image (public: images in emails load from it),
 *                                           cached for a year since stored names never repeat.
 * Every refusal answers {errors: [message]} and stores nothing.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import type { AppContext } from '../context.ts';
import type { QueryFn } from '../db/client.ts';
import { projectOfToken, uploadLink, verifyUploadToken, type UploadTarget } from '../mail/links.ts';
import { claimUploadUrl, releaseUploadUrl } from '../uploadClaims.ts';
import { projectSecrets } from '../core/accounts/index.ts';
import { checkImageUpload, IMAGE_UPLOAD_TYPES, MAX_IMAGE_UPLOAD_BYTES, storedUploadName, UPLOAD_URL_TTL_MS } from '../../domain/uploads.ts';
import { FieldErrors } from '../errors.ts';
import type { Readable } from 'node:stream';
import { ObjectTooLarge } from '../storage/storage.ts';
import { CONTACT_UPLOADS_BUCKET, MAX_CONTACT_FILE_BYTES, SEGMENT_UPLOADS_BUCKET, startContactImport, statusKey } from '../core/contacts/upload.ts';

/** The storage bucket of template images; its objects are public. */
export const TEMPLATE_IMAGES_BUCKET = 'template-images';

/**
 * templateImageUploadUrl answers GET {template}/templates/images/upload_url: a pre-signed PUT URL for one image of
 * this name and MIME type, valid UPLOAD_URL_TTL_MS (15 min) from `now`. Throws BadRequest naming `filename` or `type`
 * when the image cannot be accepted, and Error for an unknown project.
 */
export async function templateImageUploadUrl(ctx: AppContext, projectId: string, filename: string, type: string, now = new Date()): Promise<string> {
  const errors = new FieldErrors();
  const problem = checkImageUpload(filename, type);
  errors.add(problem === 'Required field' ? 'filename' : 'type', problem);
  errors.throwIfAny();
  const secret = await projectSecrets(ctx.database.query.bind(ctx.database) as QueryFn)(projectId);
  if (!secret) throw new Error(`unknown project ${projectId}`);
  const mime = type.toLowerCase();
  const name = storedUploadName(filename, now, randomBytes(4).toString('hex'), IMAGE_UPLOAD_TYPES[mime]);
  return uploadLink(ctx.config.publicUrl, secret, {
    projectId,
    bucket: TEMPLATE_IMAGES_BUCKET,
    key: `${projectId}/${name}`,
    type: mime,
    expiresAt: now.getTime() + UPLOAD_URL_TTL_MS,
  });
}

const CONTENT_TYPES: Record<string, string> = Object.fromEntries(Object.entries(IMAGE_UPLOAD_TYPES).map(([mime, ext]) => [ext, mime]));

/** registerUploads adds the upload and template-image routes to `app`, in their own context (any body is read as bytes). */
export async function registerUploads(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const secretOf = projectSecrets(query);
  const refuse = (reply: FastifyReply, code: number, message: string) =>
    reply
      .code(code)
      .header('cache-control', 'no-store')
      .send({ errors: [message] });

  await app.register(async (scope) => {
    // Bodies are handed over as the raw stream: an image is read into memory up to its limit, a contact file is
    // streamed to storage. Nothing is read before the token, type and declared size have been checked.
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    scope.addContentTypeParser(['application/json', 'text/plain'], (_req, payload, done) => done(null, payload));

    scope.put<{ Params: { token: string }; Body: Readable | undefined }>('/uploads/:token', async (req, reply) => {
      const secret = await secretOf(projectOfToken(req.params.token));
      const target = secret ? verifyUploadToken(req.params.token, secret) : undefined;
      const contactFile = target?.bucket === CONTACT_UPLOADS_BUCKET || target?.bucket === SEGMENT_UPLOADS_BUCKET;
      if (!target || (target.bucket !== TEMPLATE_IMAGES_BUCKET && !contactFile)) return refuse(reply, 403, 'This upload link is not valid');
      if (Date.now() > target.expiresAt) return refuse(reply, 403, 'This upload link has expired: start the upload again');
      const declared = String(req.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      if (declared !== target.type)
        return refuse(reply, 415, `The upload must be sent as ${target.type || 'no content type'}, not ${declared || 'no content type'}`);
      // One upload per URL: claimed before anything is read or stored, given back when nothing was stored.
      if (!(await claimUploadUrl(query, target.projectId, req.params.token, new Date(target.expiresAt)))) {
        return refuse(reply, 410, 'This upload link has already been used: start a new upload');
      }
      // A refusal gives the claim back before it answers, so a retry with the same URL right after finds it free.
      let released = false;
      const refuseReleased = async (code: number, message: string) => {
        await releaseUploadUrl(query, req.params.token);
        released = true;
        return refuse(reply, code, message);
      };
      let stored = false;
      try {
        const answer = await store(req, reply, target, contactFile, refuseReleased);
        stored = reply.statusCode === 200;
        return answer;
      } finally {
        if (!stored && !released) await releaseUploadUrl(query, req.params.token);
      }
    });

    /**
     * store reads the body and stores it (a contact file streamed, an image checked in memory); answers the PUT, a
     * refusal through `no` (which gives the URL's claim back first).
     */
    async function store(
      req: FastifyRequest<{ Body: Readable | undefined }>,
      reply: FastifyReply,
      target: UploadTarget,
      contactFile: boolean,
      no: (code: number, message: string) => Promise<FastifyReply>,
    ) {
      const length = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
      const body = req.body;

      if (contactFile) {
        if (length !== undefined && length > MAX_CONTACT_FILE_BYTES) return no(413, 'The file is larger than 2 GB');
        if (length === 0 || !body) return no(400, 'The file is empty');
        let bytes: number;
        try {
          bytes = await ctx.storage.putStream(target.bucket, target.key, body, MAX_CONTACT_FILE_BYTES);
        } catch (err) {
          if (err instanceof ObjectTooLarge) return no(413, 'The file is larger than 2 GB');
          throw err;
        }
        if (bytes === 0) return no(400, 'The file is empty');
        await startContactImport(ctx, target, bytes);
        return reply.header('cache-control', 'no-store').send({ data: { s3_key: statusKey(target.key) } });
      }

      if (length !== undefined && length > MAX_IMAGE_UPLOAD_BYTES) return no(413, 'The image is larger than 5 MB');
      const image = body ? await readLimited(body, MAX_IMAGE_UPLOAD_BYTES) : Buffer.alloc(0);
      if (!image) return no(413, 'The image is larger than 5 MB');
      if (image.length === 0) return no(400, 'The image is empty');
      const sniffed = await fileTypeFromBuffer(image);
      if (sniffed?.mime !== target.type) return no(415, `The file is not a ${IMAGE_UPLOAD_TYPES[target.type]?.toUpperCase() ?? target.type} image`);
      await ctx.storage.put(target.bucket, target.key, image);
      return reply.header('cache-control', 'no-store').send({ data: { url: `${ctx.config.publicUrl}/${target.bucket}/${target.key}` } });
    }

    scope.get<{ Params: { projectId: string; name: string } }>(`/${TEMPLATE_IMAGES_BUCKET}/:projectId/:name`, async (req, reply) => {
      const { projectId, name } = req.params;
      const type = CONTENT_TYPES[name.split('.').pop() ?? ''];
      const body =
        type && /^[0-9a-f-]{36}$/.test(projectId) && !name.startsWith('.') ? await ctx.storage.get(TEMPLATE_IMAGES_BUCKET, `${projectId}/${name}`) : undefined;
      if (!body) return reply.code(404).type('text/plain').header('cache-control', 'no-store').send('Not found');
      return reply.type(type).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(body);
    });
  });
}

/** readLimited reads a stream into memory, or resolves undefined (and stops reading) once it passes `max` bytes. */
async function readLimited(stream: Readable, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
