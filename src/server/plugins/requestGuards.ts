/**
 * Request guards of the gateways (bad input is never a 5xx, and every error answer has an `errors`
 * list). What the specs' schemas cannot say on their own:
 * - **Content types.** An operation with a request body takes only the media types its spec lists
 *   (`requestBody.content`); any other, or a body without a Content-Type, is a 415 naming `content-type` before the
 *   body is read. Operations without a body ignore the header.
 * - **Empty JSON bodies.** `Content-Type: application/json` with no body is no body (the spec's call shape sends that
 *   header on every call, DELETEs included); an operation that needs a body then answers 400 `body: …` from its schema.
 *   A request with no body and no Content-Type is treated the same (it was a 500 where a body is required), and an
 *   operation whose body is optional (`requestBody.required` false) takes either without one.
 * - **Numbers that are not numbers.** ajv (8.20) coerces a query string such as `1e400` or `Infinity` to Infinity and
 *   then skips `maximum` for it, as it does for every non-finite number; a query or path value that ends up non-finite
 *   is a 400 naming the parameter. Finite values past a documented maximum are refused by the schema itself.
 * - **Typed JSON bodies.** Query strings and path parameters are text, so their values are coerced to the schema's
 *   types (`limit=5` → 5, `ids=a` → ['a']); JSON bodies are typed already and are never coerced, so a null or a
 *   number sent for a string is a 400 naming the field, not a silent "" or "5".
 * - **Malformed URLs.** Broken percent-encoding in a path is a 400 with `errors`, not Fastify's own error shape
 *   (registered as `frameworkErrors` in buildApp, see badUrlHandler).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { BadRequest, HttpError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** A JSON request's body as sent (the webhooks whose signature covers its exact bytes read it). */
    rawBody?: string;
  }
}

/** Ajv options of every request schema: all errors at once (messages name each field), no silent stripping, defaults filled in. */
const AJV_OPTIONS = { removeAdditional: false, allErrors: true, useDefaults: true, allowUnionTypes: true };

/** The media types a route's body schema accepts (fastify-openapi-glue's `schema.body.content`), or undefined when it takes no body. */
function bodyMediaTypes(route: RouteOptions): string[] | undefined {
  const body = (route.schema as { body?: { content?: Record<string, unknown> } } | undefined)?.body;
  if (!body) return undefined;
  return body.content ? Object.keys(body.content).map((t) => t.toLowerCase()) : ['application/json'];
}

/**
 * requiredBodyRoutes lists the operations of one gateway's OpenAPI document whose request body is required
 * (`requestBody.required: true`), as "METHOD /prefix/path/:param" keys of its Fastify routes.
 */
export function requiredBodyRoutes(
  spec: { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } } | unknown>> },
  prefix: string,
): Set<string> {
  const routes = new Set<string>();
  for (const [p, item] of Object.entries(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if ((operation as { requestBody?: { required?: boolean } } | null)?.requestBody?.required === true) {
        routes.add(`${method.toUpperCase()} ${prefix}${p.replace(/{(\w+)}/g, ':$1')}`);
        // A gateway's root path ('/') is routed both with and without its trailing slash (Fastify's prefixTrailingSlash).
        if (p === '/') routes.add(`${method.toUpperCase()} ${prefix}`);
      }
    }
  }
  return routes;
}

/** mediaType returns a Content-Type header's media type, lower case and without parameters ('' when absent). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** hasBody tells whether a request carries body bytes (a non-zero Content-Length, or a chunked transfer). */
function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/** nonFinite returns the first `name` of `values` whose value (or an element of it) is a non-finite number. */
function nonFinite(values: unknown): string | undefined {
  if (!values || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const list = Array.isArray(value) ? value : [value];
    if (list.some((v) => typeof v === 'number' && !Number.isFinite(v))) return name;
  }
  return undefined;
}

/**
 * registerRequestGuards installs the guards on `app` (before the gateways are registered, so their routes get the
 * content-type check and the validators); `requiredBodies` are the routes whose body is required (requiredBodyRoutes): request validators (coerced query and path, exact bodies), a JSON parser that reads an empty body as none, a per-route 415 check, and the non-finite
 * number check after validation.
 */
export function registerRequestGuards(app: FastifyInstance, requiredBodies: ReadonlySet<string> = new Set()): void {
  const compilers = AjvCompiler();
  const coercing = compilers({}, { customOptions: { ...AJV_OPTIONS, coerceTypes: 'array' } } as never);
  const exact = compilers({}, { customOptions: { ...AJV_OPTIONS, coerceTypes: false } } as never);
  app.setValidatorCompiler((route) => (route.httpPart === 'body' ? exact(route as never) : coercing(route as never)));

  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body.toString();
    // Kept for the webhooks whose signature covers the exact bytes (SendGrid, Svix).
    req.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    json(req, text, done);
  });

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    const accepted = bodyMediaTypes(route);
    if (!accepted) return;
    const bodyRequired = [route.method].flat().some((m) => requiredBodies.has(`${String(m).toUpperCase()} ${route.url}`));
    const check = async (req: FastifyRequest) => {
      // No body (none at all, or an empty one under Content-Type: application/json): an operation whose spec requires
      // one answers 400 `body: …`, any other takes the request without one. Fastify picks the body
      // schema by media type: without a Content-Type it skipped the check, and the handler of a required body read
      // undefined and answered 500; with one, an optional body's schema refused the empty body.
      if (!hasBody(req)) {
        if (bodyRequired) throw new BadRequest([`body: this request needs a body (${accepted.join(' or ')}); none was sent`]);
        delete req.headers['content-type'];
        return;
      }
      const type = mediaType(req.headers['content-type']);
      if (accepted.includes(type)) return;
      throw new HttpError(415, [`content-type: must be ${accepted.join(' or ')}${type ? `, not ${type}` : ' (the header is missing)'}`]);
    };
    route.preParsing = [...(route.preParsing ? [route.preParsing].flat() : []), check] as never;
  });

  app.addHook('preHandler', async (req) => {
    const name = nonFinite(req.query) ?? nonFinite(req.params);
    if (name) throw new BadRequest([`${name}: must be a finite number`]);
  });
}

/**
 * badUrlHandler answers Fastify's framework errors (FST_ERR_BAD_URL: a path with malformed percent-encoding;
 * FST_ERR_ASYNC_CONSTRAINT) with the `{errors}` body every other answer has. Pass it as Fastify's `frameworkErrors`.
 */
export function badUrlHandler(error: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_BAD_URL' ? 'request: the URL is not valid (malformed percent-encoding)' : `request: ${error.message}`;
  void reply
    .code(400)
    .header('cache-control', 'no-store')
    .send({ errors: [message] });
}
