/**
 * The central error handler (STYLE.md 11): every failure becomes `{errors: [...]}`. Schema validation errors name the
 * field (`users[0].email: …`); HttpErrors keep their messages; a storage outage is a 503 with Retry-After; anything else
 * is a 500 whose details go to the log only.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError } from '../errors.ts';
import { StorageFailure } from '../storage/errors.ts';

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** fieldPath turns an ajv instancePath (/users/0/email) into users[0].email. */
export function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : `${i ? '.' : ''}${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
}

/** validationMessages renders ajv errors as "field: message" lines, one per field problem. */
export function validationMessages(errors: AjvError[], context?: string): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    let field = fieldPath(e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = [field, String(e.params.missingProperty)].filter(Boolean).join('.');
      message = 'Required field';
    } else if (e.keyword === 'additionalProperties') {
      field = [field, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = 'unknown field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    if (!field) field = context === 'body' ? 'body' : (context ?? 'request');
    out.add(`${field}: ${message}`);
  }
  return [...out];
}

/**
 * Gateways whose replies carry `code` beside `errors` (spec part 1 §3 Sign-up payload "The response carries a code (200
 * or 400) and errors", §7 contact_us "Success has code 200"): their error bodies repeat the HTTP status as `code`.
 */
const CODE_IN_BODY = ['/api/signup/', '/api/contact_us/'];

/** registerErrorHandler installs the handler and a JSON 404 for unknown /api routes. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError & { errors?: unknown }, req, raw) => {
    // Error bodies of the CODE_IN_BODY gateways also carry the status as `code` (before serialisation, so response
    // validation sees the documented shape).
    const withCode = CODE_IN_BODY.some((p) => req.url.startsWith(p));
    const reply = {
      code(status: number) {
        return { send: (body: { errors: string[] }) => raw.code(status).send(withCode ? { code: status, ...body } : body) };
      },
    };
    if (err instanceof HttpError) return reply.code(err.statusCode).send({ errors: err.errors });
    if (err.validation) return reply.code(400).send({ errors: validationMessages(err.validation as AjvError[], err.validationContext) });
    // PostgreSQL refuses NUL characters in text and jsonb (22021, 22P05): the request is at fault, not the server.
    const pgCode = err.code ?? (err.cause as { code?: string } | undefined)?.code; // drizzle wraps driver errors
    if (pgCode === '22021' || pgCode === '22P05') return reply.code(400).send({ errors: ['body: text may not contain NUL (\\u0000) characters'] });
    if (err.statusCode === 401) return reply.code(401).send({ errors: ['x-api-key: missing or unknown API key'] });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      const msg =
        err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? `body: ${err.message}`
          : err.message;
      return reply.code(err.statusCode).send({ errors: [msg.includes(':') ? msg : `request: ${msg}`] });
    }
    // The file store (S3) is away: the request may be tried again; nothing was stored (storage/errors.ts).
    if (err instanceof StorageFailure) {
      req.log.warn({ err }, 'storage unavailable');
      raw.header('retry-after', '30');
      return reply.code(503).send({ errors: ['storage: the file store cannot be reached right now; nothing was stored; try again in a minute'] });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ errors: ['Internal server error; the details are in the server log'] });
  });
}
