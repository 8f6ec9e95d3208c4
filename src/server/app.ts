/**
 * buildApp assembles the HTTP server (DESIGN.md §1-§3) and never listens (main.ts does): one gateway per service at
 * /api/<service>, routes and request validation registered from generated/openapi/<service>.json (bundled from
 * openapi/ by codegen) with fastify-openapi-glue, the x-api-key check, the request guards (content types, empty
 * bodies, non-finite numbers: plugins/requestGuards.ts), the cross-site guard of the operator session cookie
 * (plugins/crossSiteGuard.ts), security headers (plugins/securityHeaders.ts), the central
 * error handler, the links inside emails (/t/ tracking, /u/ unsubscribe: plugins/publicLinks.ts), /healthz and /readyz
 * (plugins/health.ts), /metrics (plugins/metrics.ts), each gateway's OpenAPI document at /openapi/<service>.json
 * (plugins/apiDocuments.ts), and the built console, whose page answers console routes only (plugins/console.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import codegenConfig from '../../codegen.config.ts';
import type { AppContext } from './context.ts';
import { projectByApiKey } from './core/accounts/index.ts';
import { Unauthorized } from './errors.ts';
import { registerErrorHandler } from './plugins/errorHandler.ts';
import { registerPublicLinks } from './plugins/publicLinks.ts';
import { registerUploads } from './plugins/uploads.ts';
import { badUrlHandler, registerRequestGuards, requiredBodyRoutes } from './plugins/requestGuards.ts';
import { registerSecurityHeaders } from './plugins/securityHeaders.ts';
import { cookieSessionRoutes, registerCrossSiteGuard } from './plugins/crossSiteGuard.ts';
import { registerConsole } from './plugins/console.ts';
import { registerHealth } from './plugins/health.ts';
import { registerApiDocuments } from './plugins/apiDocuments.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { shareSpecValidator } from './plugins/specValidator.ts';
import { loginHandlers } from './gateways/login/index.ts';
import { signupHandlers } from './gateways/signup/index.ts';
import { contactUsHandlers } from './gateways/contact_us/index.ts';
import { companyAuthHandlers } from './gateways/companyauthwrapper/index.ts';
import { userHandlers } from './gateways/user/index.ts';
import { segmentHandlers } from './gateways/segment/index.ts';
import { segmentWrapperHandlers } from './gateways/segmentwrapper/index.ts';
import { senderPersonaHandlers } from './gateways/senderpersonawrapper/index.ts';
import { templateHandlers } from './gateways/template/index.ts';
import { schedulerHandlers } from './gateways/scheduler/index.ts';
import { campaignHandlers } from './gateways/campaign/index.ts';
import { workflowHandlers } from './gateways/workflow/index.ts';
import { workflowWrapperHandlers } from './gateways/workflowwrapper/index.ts';
import { eventHandlers } from './gateways/event/index.ts';
import { reportingHandlers } from './gateways/reporting/index.ts';
import { joblogHandlers } from './gateways/joblog/index.ts';
import { domainsHandlers } from './gateways/domains/index.ts';
import { webhooksHandlers } from './gateways/webhooks/index.ts';
import { subscriptionsHandlers } from './gateways/subscriptions/index.ts';
import { operatorHandlers } from './gateways/operator/index.ts';
import { emailHandlers } from './gateways/email/index.ts';
import { messagesHandlers } from './gateways/messages/index.ts';
import fastifyCookie from '@fastify/cookie';
import { onProjectStateChange, operatorBySession, OPERATOR_COOKIE } from './core/operator/index.ts';
import { isLoopback, secretMatches } from './operatorEndpoint.ts';
import { HttpError } from './errors.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The handlers of every gateway, by service name (must match codegen.config.ts services). */
const GATEWAYS: Record<string, (ctx: AppContext) => object> = {
  login: loginHandlers,
  signup: signupHandlers,
  contact_us: contactUsHandlers,
  companyauthwrapper: companyAuthHandlers,
  user: userHandlers,
  segment: segmentHandlers,
  segmentwrapper: segmentWrapperHandlers,
  senderpersonawrapper: senderPersonaHandlers,
  template: templateHandlers,
  scheduler: schedulerHandlers,
  campaign: campaignHandlers,
  workflow: workflowHandlers,
  workflowwrapper: workflowWrapperHandlers,
  event: eventHandlers,
  reporting: reportingHandlers,
  joblog: joblogHandlers,
  domains: domainsHandlers,
  webhooks: webhooksHandlers,
  subscriptions: subscriptionsHandlers,
  email: emailHandlers,
  messages: messagesHandlers,
  operator: operatorHandlers,
};

export interface BuildOptions {
  /** Log level for Fastify's logger (default 'warn'; 'silent' in tests). */
  logLevel?: string;
  /** Validate every response against its spec (tests turn this on). */
  validateResponses?: boolean;
  /** Folder of the built console (default dist/console); not served when it does not exist. */
  consoleDir?: string;
  /**
   * The secret of POST /api/operator/cli (operatorEndpoint.ts): main.ts sets it when it serves a PGlite data folder,
   * so `npm run admin` can hand its command to this server. Unset, every /cli call is a 401.
   */
  operatorCliSecret?: string;
}

/** buildApp returns a ready Fastify instance serving every gateway over `ctx`. */
export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: opts.logLevel ?? 'warn' },
    bodyLimit: 25 * 1024 * 1024,
    // Tracking and unsubscribe tokens in paths carry ids and, for clicks, the destination URL.
    routerOptions: { maxParamLength: 8192 },
    // A path with malformed percent-encoding gets the {errors} body every answer has (plugins/requestGuards.ts).
    frameworkErrors: badUrlHandler,
    // The client address behind trusted proxies (TRUST_PROXY): the sign-in limit counts per address.
    trustProxy: ctx.config.trustProxy ?? false,
  });
  registerErrorHandler(app);
  await registerSecurityHeaders(app, ctx.config);
  const specifications = codegenConfig.services.map((service) => ({
    service,
    prefix: `/api/${service}`,
    specification: JSON.parse(readFileSync(path.join(root, 'generated/openapi', `${service}.json`), 'utf8')),
  }));
  // Which operations need a body, the specs say (requestBody.required; fastify-openapi-glue does not pass it on).
  registerRequestGuards(app, new Set(specifications.flatMap(({ specification, prefix }) => [...requiredBodyRoutes(specification, prefix)])));
  // Before any route, so its request-duration hook times them all.
  await registerMetrics(app, ctx);
  if (opts.validateResponses) {
    const { default: responseValidation } = await import('@fastify/response-validation');
    const { default: ajvFormats } = await import('ajv-formats');
    // With ajv-formats, date-time, uuid and email formats in the specs are checked too (not just ignored).
    await app.register(responseValidation, { ajv: { strict: false, plugins: [ajvFormats] } as never });
  }

  // Known keys are remembered for API_KEY_TTL_MS, so a busy integration (the events API) costs no lookup per request;
  // a project activated by another process is seen within that time. Unknown keys are never remembered.
  const API_KEY_TTL_MS = 5000;
  const knownKeys = new Map<string, { project: NonNullable<Awaited<ReturnType<typeof projectByApiKey>>>; until: number }>();
  // An operator's change in this process (activation, suspension) holds from the next request.
  const unsubscribe = onProjectStateChange((projectId) => {
    for (const [key, known] of knownKeys) if (known.project.id === projectId) knownKeys.delete(key);
  });
  app.addHook('onClose', async () => unsubscribe());
  await app.register(fastifyCookie);
  const securityHandlers = {
    // The operators' back-office (gateways/operator): its own session cookie; a customer's x-api-key never counts.
    async OperatorSession(req: { cookies: Record<string, string | undefined>; operator?: unknown }) {
      const operator = await operatorBySession(ctx.database.query.bind(ctx.database), req.cookies[OPERATOR_COOKIE]);
      if (!operator) throw new Unauthorized('operator: sign in at /operator/login');
      req.operator = operator;
    },
    // The command line's way in to this server (operatorEndpoint.ts): this machine only, with the DATA_DIR secret.
    async OperatorSecret(req: { headers: Record<string, unknown>; ip: string }) {
      if (!isLoopback(req.ip)) throw new HttpError(403, ['request: operator commands are taken only from this machine (127.0.0.1)']);
      if (!secretMatches(req.headers['x-operator-secret'], opts.operatorCliSecret)) throw new Unauthorized('x-operator-secret: missing or wrong');
    },
    async ApiKey(req: { headers: Record<string, unknown>; project?: unknown }) {
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || !key) throw new Unauthorized();
      const known = knownKeys.get(key);
      if (known && known.until > Date.now()) {
        req.project = known.project;
        return;
      }
      const project = await projectByApiKey(ctx.database.db, key);
      if (!project) throw new Unauthorized();
      if (knownKeys.size >= 10_000) knownKeys.clear();
      knownKeys.set(key, { project, until: Date.now() + API_KEY_TTL_MS });
      req.project = project;
    },
  };

  // fastify-openapi-glue runs security handlers as preHandler, after body validation; run them first (onRequest) so a
  // missing or wrong x-api-key is a 401 whatever the body, and nothing about the schema leaks to an unknown caller.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/') && typeof route.preHandler === 'function') {
      route.onRequest = route.preHandler as never;
      route.preHandler = undefined;
    }
  });

  // Forged cross-site requests to cookie-authenticated operations (the operator back-office) are refused after the
  // session check (plugins/crossSiteGuard.ts): which operations, the specs say.
  const cookieRoutes = new Set(specifications.flatMap(({ specification, prefix }) => [...cookieSessionRoutes(specification, prefix)]));
  registerCrossSiteGuard(app, ctx.config.publicUrl, cookieRoutes);

  // Each gateway's document is checked against the OpenAPI meta-schema, compiled once per process (plugins/specValidator.ts).
  shareSpecValidator();
  for (const { service, prefix, specification } of specifications) {
    const make = GATEWAYS[service];
    if (!make) throw new Error(`no handlers for gateway ${service}`);
    await app.register(openapiGlue, { specification, serviceHandlers: make(ctx), securityHandlers, prefix });
  }

  await registerPublicLinks(app, ctx);
  await registerUploads(app, ctx);
  await registerHealth(app, ctx);
  registerApiDocuments(app, specifications);
  await registerConsole(app, opts.consoleDir ?? path.join(root, 'dist/console'));
  await app.ready();
  return app;
}
