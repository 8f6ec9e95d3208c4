/**
 * The cross-site request guard of cookie-authenticated operations (docs/architecture.md §4, §20). A
 * browser sends a cookie with every request to its site, whoever's page made it, and SameSite=Strict only keeps out
 * other sites: a page on another port or a sibling subdomain of the same host is the same site, so its form posts and
 * no-cors fetches arrive with the operator's mw_operator cookie. A state-changing request (POST, PUT, PATCH, DELETE)
 * to an operation a session cookie authenticates is therefore taken only when
 * - its `Sec-Fetch-Site` (Fetch Metadata, sent by every current browser) is `same-origin` or absent;
 * - its `Origin` (RFC 6454 §7; sent by browsers with every POST) is absent, PUBLIC_URL's origin or the request's own
 *   (scheme, Host and port as this server sees them; TRUST_PROXY's forwarded ones behind a balancer); and
 * - it carries `Content-Type: application/json` or an `X-Requested-With` header (any value). Neither can be sent by a
 *   form or a no-cors fetch, and a cross-origin fetch that sets them needs a CORS preflight this server never grants
 *   (OWASP's "custom request headers" defence), so the check holds even for a browser that sends no Origin.
 * Anything else is a 403 whose `errors` name each header that is wrong, before the operation runs.
 *
 * Which operations: the state-changing operations of a gateway whose spec secures its calls with a cookie (`in:
 * cookie`, today the operator gateway's OperatorSession), including those of that gateway with no security at all
 * (the sign-in, whose forgery would sign a browser in to someone else's session); not those secured by another scheme
 * (/api/operator/cli: a header secret, from this machine only). The customer console sends its project's key in the
 * x-api-key header, which a browser never adds by itself, and the public links (/u/, /v/, /s/, /t/) are no cookie's
 * calls: none of them is guarded, and they stay open to mail clients and other sites.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import { mediaType } from './requestGuards.ts';

/** The header the operator back-office sends with every call (src/console/operator/operatorApi.ts). */
export const REQUESTED_WITH = 'x-requested-with';

const STATE_CHANGING = new Set(['post', 'put', 'patch', 'delete']);

/** The parts of an OpenAPI document this module reads. */
interface Spec {
  security?: Array<Record<string, unknown>>;
  components?: { securitySchemes?: Record<string, { type?: string; in?: string }> };
  paths?: Record<string, Record<string, { security?: Array<Record<string, unknown>> } | unknown>>;
}

/**
 * cookieSessionRoutes returns the routes of one gateway's bundled spec (generated/openapi/<service>.json) to guard, as
 * "METHOD /prefix/path" keys in Fastify's form (`{id}` → `:id`, as fastify-openapi-glue registers them): every
 * state-changing operation secured by a cookie scheme, or by nothing in a gateway whose default security is a cookie
 * scheme. Empty for a gateway without a cookie scheme.
 */
export function cookieSessionRoutes(spec: Spec, prefix: string): Set<string> {
  const schemes = spec.components?.securitySchemes ?? {};
  const byCookie = (security: Array<Record<string, unknown>> | undefined) =>
    (security ?? []).some((requirement) => Object.keys(requirement).some((name) => schemes[name]?.type === 'apiKey' && schemes[name]?.in === 'cookie'));
  const cookieGateway = byCookie(spec.security);
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!STATE_CHANGING.has(method)) continue;
      const security = (operation as { security?: Array<Record<string, unknown>> }).security ?? spec.security;
      const open = !security?.length || security.some((requirement) => !Object.keys(requirement).length);
      if (byCookie(security) || (cookieGateway && open)) routes.add(routeKey(method, `${prefix}${path.replace(/{(\w+)}/g, ':$1')}`));
    }
  }
  return routes;
}

/** routeKey is the key of one route in cookieSessionRoutes' set: "POST /api/operator/login". */
const routeKey = (method: string, url: string) => `${method.toUpperCase()} ${url}`;

/** originOf returns the origin (scheme://host[:port], default ports dropped) of a URL, or undefined when it is not one. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * crossSiteProblems says, one message per header, why a request to a guarded operation looks forged: its
 * Sec-Fetch-Site, its Origin (compared with `ownOrigins`: PUBLIC_URL's and the request's own), and neither a JSON
 * content type nor the X-Requested-With header. Empty when it may act.
 */
export function crossSiteProblems(headers: FastifyRequest['headers'], ownOrigins: string[]): string[] {
  const problems: string[] = [];
  const origin = headers.origin;
  if (origin !== undefined) {
    const normalised = originOf(origin);
    if (!normalised || !ownOrigins.includes(normalised)) {
      problems.push(
        `origin: changes signed in with a session cookie are taken only from this site's own pages (${ownOrigins[0]}), not from ${origin || 'an empty origin'}`,
      );
    }
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    problems.push(
      `sec-fetch-site: the browser says this request came from ${site === 'same-site' ? 'a page of another port or subdomain of this site' : site === 'cross-site' ? 'another site' : 'outside any page'} (${site}); changes signed in with a session cookie are taken only from this site's own pages`,
    );
  }
  const type = mediaType(headers['content-type']);
  if (type !== 'application/json' && !headers[REQUESTED_WITH]) {
    problems.push(
      `content-type: a change signed in with a session cookie must be sent as application/json or with an X-Requested-With header, which forms and other sites' pages cannot send (this request has ${type ? type : 'no content type'})`,
    );
  }
  return problems;
}

/**
 * registerCrossSiteGuard makes every route in `routes` (from cookieSessionRoutes) refuse a forged request with 403 and
 * the crossSiteProblems messages. Register it before the gateways and after the hook that runs their security handlers
 * on onRequest: the guard runs after the session check, so a request without a session is still a 401.
 */
export function registerCrossSiteGuard(app: FastifyInstance, publicUrl: string, routes: Set<string>): void {
  const publicOrigin = originOf(publicUrl);
  const guard = async (req: FastifyRequest) => {
    const own = originOf(`${req.protocol}://${req.host}`);
    const origins = [publicOrigin, own].filter((o): o is string => !!o);
    const problems = crossSiteProblems(req.headers, origins);
    if (problems.length) throw new HttpError(403, problems);
  };
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => routes.has(routeKey(m, route.url)))) return;
    route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), guard] as never;
  });
}
