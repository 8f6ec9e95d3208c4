/**
 * The built console (Vite's dist/console) and what answers a path no route has.
 *
 * The console is one page whose router draws every client route (src/console/App.tsx and the react-admin resources:
 * /campaigns, /people/users/edit/:id, /login, /pricing, /operator …), so an unknown path a browser navigates to gets
 * index.html and the console shows the page or its own "not found". Everything else answers its own 404 `{errors}`:
 * the server's namespaces (RESERVED_PREFIXES: gateways, email links, uploads, health and metrics, built assets), a
 * path naming a file (`/favicon.ico`, `/x.js`: a missing file, not a page), any method but GET/HEAD, and a client that
 * does not accept text/html (fetch with `Accept: application/json`). So a mistyped API path or a scraper's /metrics
 * never receives the console's page with a 200.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * Path prefixes the server owns (a path equal to one without its trailing slash counts too): the gateways, tracking and
 * unsubscribe links, persona verification, subscribe forms (/s/), uploads and template images, the gateways' OpenAPI
 * documents (/openapi/), Vite's assets, health and metrics. None is a console route. (/docs is the documentation's
 * pages; the files under it, such as /docs/api.yml, are files by the rule below.)
 */
export const RESERVED_PREFIXES = [
  '/api/',
  '/t/',
  '/u/',
  '/v/',
  '/s/',
  '/uploads/',
  '/template-images/',
  '/openapi/',
  '/assets/',
  '/metrics',
  '/healthz',
  '/readyz',
];

/**
 * acceptsHtml says whether an Accept header admits text/html (RFC 9110 §12.5.1): no header admits anything; else a
 * `text/html`, `text/*` or `*\/*` range whose q is above 0.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  if (!accept?.trim()) return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'text/html' && type !== 'text/*' && type !== '*/*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** isConsoleRoute says whether a request may be answered with the console's page (see the module comment). */
export function isConsoleRoute(method: string, url: string, accept: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const pathname = url.split(/[?#]/)[0];
  if (RESERVED_PREFIXES.some((p) => pathname.startsWith(p) || (p.endsWith('/') && pathname === p.slice(0, -1)))) return false;
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  if (/\.[A-Za-z0-9]+$/.test(last)) return false;
  return acceptsHtml(accept);
}

/** notFound answers the 404 every unknown route gets: `{errors: ["request: no route GET /path"]}`. */
function notFound(req: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({ errors: [`request: no route ${req.method} ${req.url.split('?')[0]}`] });
}

/**
 * registerConsole serves the built console from `consoleDir` (its files pre-compressed: scripts/precompress.ts) with
 * index.html for console routes, and sets the 404 for everything else. Without `consoleDir/index.html` (no build),
 * every unknown route is the 404.
 */
export async function registerConsole(app: FastifyInstance, consoleDir: string): Promise<void> {
  if (!existsSync(path.join(consoleDir, 'index.html'))) {
    app.setNotFoundHandler(notFound);
    return;
  }
  // preCompressed: the build writes .br and .gz beside each file; the one the browser accepts is sent.
  await app.register(fastifyStatic, { root: consoleDir, wildcard: false, index: ['index.html'], preCompressed: true });
  app.setNotFoundHandler((req, reply) => {
    if (isConsoleRoute(req.method, req.url, req.headers.accept)) return reply.type('text/html').sendFile('index.html');
    return notFound(req, reply);
  });
}
