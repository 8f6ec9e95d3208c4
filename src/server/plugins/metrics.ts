/**
 * GET /metrics in Prometheus's text format, with prom-client:
 * - the process's metrics (src/server/metrics.ts): emails sent, deferred and failed by reason class, send latency
 *   (due → accepted by the relay, s), and Node's default metrics (event-loop lag, heap, GC, CPU);
 * - this app's HTTP request durations (s) by method, route pattern (`request.routeOptions.url`, never the raw URL;
 *   built files count as `(static)`, console pages as `(console)`, anything else without a route as `(no route)`) and
 *   status class;
 * - gauges read from the database at scrape time, so every process reports the same shared state: the outbox's
 *   pending, due, deferred and sending emails, pg-boss's unfinished jobs per queue and state, and each SMTP_URL relay's
 *   state (1 up, 0 taken for down by a sender; as GET {scheduler}/sending_status shows it). A gauge whose statement
 *   fails or takes longer than READY_TIMEOUT_MS is left out of that scrape (and logged); the rest still answer.
 *
 * Access: with METRICS_TOKEN set, only requests carrying `Authorization: Bearer <METRICS_TOKEN>` (else 401). Without it,
 * only requests from this machine (the connection from 127.0.0.1 or ::1 and no X-Forwarded-For or Forwarded header,
 * so a reverse proxy on the same host does not open it to everyone; else 403).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import type { QueryFn } from '../db/client.ts';
import { HttpError, Unauthorized } from '../errors.ts';
import { processRegistry, startProcessMetrics } from '../metrics.ts';
import { outboxDepths } from '../core/sending/depths.ts';
import { relayStates } from '../core/sending/reputation.ts';
import { queueDepths } from '../core/jobs/queue.ts';
import { JOB_NAMES } from '../core/jobs/registry.ts';
import { READY_TIMEOUT_MS, withTimeout } from './health.ts';

/** The job states counted as unfinished, each reported (0 when none) for every queue of the registry. */
const JOB_STATES = ['created', 'retry', 'active'] as const;

/**
 * routeLabel is the route label of a request: its route pattern (`/api/user/users`, `/t/o/:token`), `(static)` for a
 * built file (one route per file, which would otherwise add a series per file and build), and for a request no route
 * matched `(console)` when it was answered with the console's page (2xx/3xx) or `(no route)` (the 404s).
 */
export function routeLabel(route: string | undefined, statusCode: number): string {
  if (!route) return statusCode < 400 ? '(console)' : '(no route)';
  const last = route.slice(route.lastIndexOf('/') + 1);
  return /\.[A-Za-z0-9]+$/.test(last) && !last.includes(':') ? '(static)' : route;
}

/** isLocal says whether a request came straight from this machine: a loopback peer and no proxy's forwarding header. */
export function isLocal(req: Pick<FastifyRequest, 'headers'> & { socket: { remoteAddress?: string } }): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const loopback = peer === '127.0.0.1' || peer === '::1' || peer === '::ffff:127.0.0.1';
  return loopback && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined;
}

/** bearerMatches compares an Authorization header with `Bearer <token>` in constant time (over SHA-256 digests). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(header ?? ''), digest(`Bearer ${token}`));
}

/** registerMetrics adds the HTTP duration hook and GET /metrics over `ctx` (register it before the routes it should time). */
export async function registerMetrics(app: FastifyInstance, ctx: AppContext): Promise<void> {
  startProcessMetrics();
  const registry = new Registry();
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const token = ctx.config.metricsToken;
  /** scrapeFailed leaves a gauge out of this scrape and logs why. */
  const scrapeFailed = (gauge: Gauge, what: string, err: unknown) => {
    gauge.reset();
    app.log.warn(`metrics: ${what} not read: ${(err as Error).message}`);
  };

  const http = new Histogram({
    name: 'mailwright_http_request_duration_seconds',
    help: 'HTTP request durations in seconds, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    const status = `${Math.floor(reply.statusCode / 100)}xx`;
    http.observe({ method: req.method, route: routeLabel(req.routeOptions.url, reply.statusCode), status }, reply.elapsedTime / 1000);
  });

  new Gauge({
    name: 'mailwright_outbox_emails',
    help: 'Emails in the outbox not yet finished, by state: pending (all waiting), due (claimable now), deferred (waiting after a failed attempt), sending (held by a sender)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      try {
        const depths = await withTimeout(outboxDepths(query), READY_TIMEOUT_MS);
        for (const [state, n] of Object.entries(depths)) this.set({ state }, n);
      } catch (err) {
        scrapeFailed(this, 'outbox depths', err);
      }
    },
  });
  new Gauge({
    name: 'mailwright_queue_jobs',
    help: 'pg-boss jobs not yet finished, by queue and state (created, retry, active)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      try {
        const rows = await withTimeout(queueDepths(query), READY_TIMEOUT_MS);
        this.reset();
        for (const queue of JOB_NAMES) for (const state of JOB_STATES) this.set({ queue, state }, 0);
        for (const r of rows) this.set({ queue: r.name, state: r.state }, r.jobs);
      } catch (err) {
        scrapeFailed(this, 'queue depths', err);
      }
    },
  });
  new Gauge({
    name: 'mailwright_relay_up',
    help: "Each SMTP_URL relay's state: 1 up, 0 taken for down by a sender (it refused connections)",
    labelNames: ['relay'] as const,
    registers: [registry],
    async collect() {
      try {
        const relays = await withTimeout(relayStates(query, ctx.config), READY_TIMEOUT_MS);
        this.reset();
        for (const r of relays) this.set({ relay: r.name }, r.state === 'down' ? 0 : 1);
      } catch (err) {
        scrapeFailed(this, 'relay states', err);
      }
    },
  });

  app.get('/metrics', async (req, reply) => {
    if (token) {
      if (!bearerMatches(req.headers.authorization, token)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw new Unauthorized('authorization: /metrics needs Authorization: Bearer <METRICS_TOKEN>');
      }
    } else if (!isLocal(req)) {
      throw new HttpError(403, ['request: /metrics answers only requests from this machine (127.0.0.1, ::1) unless METRICS_TOKEN is set']);
    }
    const [processText, appText] = await Promise.all([processRegistry.metrics(), registry.metrics()]);
    reply.header('cache-control', 'no-store').type(processRegistry.contentType);
    return processText + appText;
  });
}
