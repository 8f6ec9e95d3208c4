/**
 * Webhooks (openapi/webhooks.yaml; docs/architecture.md §22): a project's endpoints, the messages made for
 * them, and one delivery attempt. The messages themselves are written by the triggers of core/webhooks/sql/webhooks.sql
 * in the same transaction as the event or contact change they report; workers/webhooks.ts claims due ones (CLAIM_DUE)
 * and calls deliverOne. Signing is the standardwebhooks library's (the Standard Webhooks specification); the
 * private-address guard is request-filtering-agent's at connect time, and checkWebhookUrl's at registration.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { useAgent } from 'request-filtering-agent';
import type { QueryFn } from '../../db/client.ts';
import { BadRequest, FieldErrors, NotFound } from '../../errors.ts';
import type { ProjectScope } from '../scope.ts';
import { iso, isoRequired } from '../listing.ts';
import { isWebhookEventType, JOB_WEBHOOK_SECRET_REVEALED, retryWaitS, secretHint, WEBHOOK_TEST_TYPE } from '../../../domain/webhooks.ts';
import { UUID_RE } from '../../../domain/validation.ts';
import type { components } from '../../../../generated/types/webhooks.gen.ts';

type Endpoint = components['schemas']['WebhookEndpoint'];
type EndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
type Delivery = components['schemas']['WebhookDelivery'];

/** newSecret makes an endpoint's signing secret: whsec_ and 24 random bytes in base64 (what Standard Webhooks libraries take). */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * checkWebhookUrl says what is wrong with an endpoint URL, or undefined: it must be http(s), absolute, without
 * credentials, at most 2,000 characters, and (unless `allowPrivate`) its host must not be or resolve to a non-public
 * address (private, loopback, link-local, reserved: any ipaddr.js range but 'unicast'). A host that does not resolve
 * is refused too. Never throws.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string | undefined> {
  const text = raw.trim();
  if (!text) return 'Required field';
  if (text.length > 2000) return 'must be at most 2,000 characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL, e.g. https://example.com/hooks/mailwright';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http or https, not ${url.protocol.replace(':', '')}`;
  if (url.username || url.password) return 'must not carry a user name or password; put a token in the path or query instead';
  if (allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const problem = await nonPublicHost(host);
  if (problem?.kind === 'unresolved') return `the host ${host} does not resolve`;
  if (problem?.kind === 'private') return `${host} is a ${problem.range} address (${problem.address}); webhooks go to public addresses only`;
  return undefined;
}

/**
 * nonPublicHost says why an outgoing request must not go to `host` (a name or an IP address, without brackets):
 * `unresolved` when the name does not resolve, `private` with the first non-public address (any ipaddr.js range but
 * 'unicast': private, loopback, link-local, reserved…) and its range, or undefined for a public host. The rule of
 * checkWebhookUrl, shared with the pre-send link check (core/templates/links.ts). Never throws.
 */
export async function nonPublicHost(host: string): Promise<{ kind: 'unresolved' } | { kind: 'private'; range: string; address: string } | undefined> {
  let addresses: string[];
  if (ipaddr.isValid(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return { kind: 'unresolved' };
    }
  }
  for (const a of addresses) {
    const range = ipaddr.process(a).range();
    if (range !== 'unicast') return { kind: 'private', range, address: a };
  }
  return undefined;
}

/** An endpoint's columns as lists and reads show them: of the secret, only its last 4 characters (never the secret). */
const ENDPOINT_COLUMNS = `w.id, w.url, w.description, w.event_types, right(w.secret, 4) AS secret_last4, w.disabled_at, w.disabled_reason, w.failing_since, w.created_at,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'pending')::int AS pending,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'delivered')::int AS delivered,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.status = 'failed')::int AS failed`;

/** LIST_ENDPOINTS: project $1's live endpoints, oldest first, with their message counts (by status). */
const LIST_ENDPOINTS = `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints w WHERE w.project_id = $1 AND w.archived_at IS NULL ORDER BY w.created_at, w.id`;
/** ONE_ENDPOINT: endpoint $2 of project $1, if live. */
const ONE_ENDPOINT = `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints w WHERE w.project_id = $1 AND w.id = $2 AND w.archived_at IS NULL`;

interface EndpointRow {
  id: string;
  url: string;
  description: string;
  event_types: string[];
  secret_last4: string;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  pending: number;
  delivered: number;
  failed: number;
}

function endpointOut(r: EndpointRow): Endpoint {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    event_types: r.event_types as Endpoint['event_types'],
    secret_hint: secretHint(r.secret_last4),
    enabled: !r.disabled_at,
    disabled_at: iso(r.disabled_at),
    disabled_reason: r.disabled_reason,
    failing_since: iso(r.failing_since),
    created_at: isoRequired(r.created_at),
    counts: { pending: Number(r.pending), delivered: Number(r.delivered), failed: Number(r.failed) },
  };
}

/** listEndpoints returns project `projectId`'s endpoints (openapi listWebhookEndpoints), each with its secret's hint, never the secret. */
export async function listEndpoints(query: QueryFn, projectId: string): Promise<Endpoint[]> {
  return (await query<EndpointRow>(LIST_ENDPOINTS, [projectId])).map(endpointOut);
}

/** endpointOf returns one endpoint of the project, with its secret's hint (never the secret); throws NotFound naming `id`. */
export async function endpointOf(query: QueryFn, projectId: string, id: string): Promise<Endpoint> {
  const [row] = UUID_RE.test(id) ? await query<EndpointRow>(ONE_ENDPOINT, [projectId, id]) : [];
  if (!row) throw new NotFound([`id: no webhook endpoint ${id} in this project`]);
  return endpointOut(row);
}

/** checkEndpointInput collects what is wrong with an endpoint's fields (those given) and throws them as one BadRequest. */
async function checkEndpointInput(input: { url?: string; event_types?: string[]; description?: string }, allowPrivate: boolean): Promise<void> {
  const errs = new FieldErrors();
  if (input.url !== undefined) errs.add('url', await checkWebhookUrl(input.url, allowPrivate));
  if (input.event_types !== undefined) {
    if (!input.event_types.length) errs.add('event_types', 'choose at least one event type');
    input.event_types.forEach((t, i) => errs.add(`event_types[${i}]`, isWebhookEventType(t) ? undefined : `unknown event type ${t}`));
  }
  errs.throwIfAny();
}

/**
 * createEndpoint registers an endpoint with a new secret (openapi createWebhookEndpoint) and answers the endpoint with
 * the secret, the one time it is shown unasked (later: revealSecret). Throws BadRequest naming url or event_types.
 */
export async function createEndpoint(
  query: QueryFn,
  project: ProjectScope,
  input: { url: string; event_types: string[]; description?: string },
  allowPrivate: boolean,
): Promise<EndpointWithSecret> {
  await checkEndpointInput(input, allowPrivate);
  const [{ id, secret }] = await query<{ id: string; secret: string }>(
    'INSERT INTO webhook_endpoints (project_id, url, description, event_types, secret) VALUES ($1, $2, $3, $4::text[], $5) RETURNING id, secret',
    [project.id, input.url.trim(), input.description?.trim() ?? '', [...new Set(input.event_types)], newSecret()],
  );
  return { ...(await endpointOf(query, project.id, id)), secret };
}

/**
 * updateEndpoint changes the fields given (openapi updateWebhookEndpoint); `enabled: true` clears the disabled and
 * failing state, `false` disables it by hand. Throws NotFound, or BadRequest naming the field.
 */
export async function updateEndpoint(
  query: QueryFn,
  project: ProjectScope,
  id: string,
  input: { url?: string; event_types?: string[]; description?: string; enabled?: boolean },
  allowPrivate: boolean,
): Promise<Endpoint> {
  await endpointOf(query, project.id, id);
  await checkEndpointInput(input, allowPrivate);
  await query(
    `UPDATE webhook_endpoints SET url = coalesce($3, url), event_types = coalesce($4::text[], event_types), description = coalesce($5, description),
            disabled_at = CASE WHEN $6::boolean IS NULL THEN disabled_at WHEN $6 THEN NULL ELSE coalesce(disabled_at, now()) END,
            disabled_reason = CASE WHEN $6::boolean IS NULL THEN disabled_reason WHEN $6 THEN NULL ELSE coalesce(disabled_reason, 'disabled by hand') END,
            failing_since = CASE WHEN $6::boolean THEN NULL ELSE failing_since END
      WHERE project_id = $1 AND id = $2`,
    [
      project.id,
      id,
      input.url?.trim() ?? null,
      input.event_types ? [...new Set(input.event_types)] : null,
      input.description?.trim() ?? null,
      input.enabled ?? null,
    ],
  );
  return endpointOf(query, project.id, id);
}

/** deleteEndpoint archives an endpoint; its pending messages are marked failed ('endpoint deleted'). Throws NotFound. */
export async function deleteEndpoint(query: QueryFn, projectId: string, id: string): Promise<void> {
  await endpointOf(query, projectId, id);
  await query('UPDATE webhook_endpoints SET archived_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
  await query(
    "UPDATE webhook_deliveries SET status = 'failed', last_response = 'endpoint deleted', claim_token = NULL, lease_until = NULL WHERE endpoint_id = $1 AND status = 'pending'",
    [id],
  );
}

/**
 * rotateSecret gives an endpoint a new secret (openapi rotateWebhookSecret); later attempts are signed with it. Answers
 * the endpoint with the new secret, shown this once unasked. Throws NotFound naming `id`.
 */
export async function rotateSecret(query: QueryFn, projectId: string, id: string): Promise<EndpointWithSecret> {
  await endpointOf(query, projectId, id);
  const [{ secret }] = await query<{ secret: string }>('UPDATE webhook_endpoints SET secret = $3 WHERE project_id = $1 AND id = $2 RETURNING secret', [
    projectId,
    id,
    newSecret(),
  ]);
  return { ...(await endpointOf(query, projectId, id)), secret };
}

/**
 * REVEAL_SECRET: the secret of live endpoint $2 of project $1, and in the same statement the job-log entry $3
 * (JOB_WEBHOOK_SECRET_REVEALED) that says so in the project's notifications: which endpoint (id, url), the client's
 * address $4 and user agent $5 (the x-api-key is the project's, so the client is all that names who), and when
 * (started_at). The entry never holds the secret. No row for an unknown, deleted or other project's endpoint.
 */
const REVEAL_SECRET = `WITH e AS (SELECT id, url, secret FROM webhook_endpoints WHERE project_id = $1 AND id = $2 AND archived_at IS NULL),
  noted AS (
    INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
    SELECT $1, $3, now(), now(), true,
           jsonb_build_object('endpoint_id', e.id, 'url', e.url, 'name', e.url, 'ip', $4::text, 'user_agent', $5::text,
                              'notice', 'The signing secret of webhook endpoint ' || e.url || ' was revealed'),
           jsonb_build_object('notice', 'The signing secret of webhook endpoint ' || e.url || ' was revealed')
      FROM e RETURNING id)
  SELECT e.id, e.secret, (SELECT count(*) FROM noted)::int AS noted FROM e`;

/**
 * revealSecret answers an endpoint's signing secret (openapi revealWebhookSecret) and notes it in the project's job
 * log (REVEAL_SECRET) with `client` — the request's address and user agent — in one statement, so a secret is never
 * shown without its entry. Throws NotFound naming `id` for an unknown, deleted or other project's endpoint.
 */
export async function revealSecret(
  query: QueryFn,
  projectId: string,
  id: string,
  client: { ip: string; userAgent: string | null },
): Promise<{ id: string; secret: string }> {
  const [row] = UUID_RE.test(id)
    ? await query<{ id: string; secret: string }>(REVEAL_SECRET, [projectId, id, JOB_WEBHOOK_SECRET_REVEALED, client.ip, client.userAgent])
    : [];
  if (!row) throw new NotFound([`id: no webhook endpoint ${id} in this project`]);
  return { id: row.id, secret: row.secret };
}

const DELIVERY_COLUMNS = `id, event_type, status, attempts, created_at, next_attempt_at, last_attempt_at, last_status_code, last_response, last_latency_ms, delivered_at, payload`;

interface DeliveryRow {
  id: string;
  event_type: string;
  status: Delivery['status'];
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_response: string | null;
  last_latency_ms: number | null;
  delivered_at: Date | null;
  payload: Record<string, unknown>;
}

function deliveryOut(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    event_type: r.event_type,
    status: r.status,
    attempts: Number(r.attempts),
    created_at: isoRequired(r.created_at),
    next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    last_attempt_at: iso(r.last_attempt_at),
    last_status_code: r.last_status_code,
    last_response: r.last_response,
    last_latency_ms: r.last_latency_ms,
    delivered_at: iso(r.delivered_at),
    payload: r.payload,
  };
}

/** listDeliveries returns one page of an endpoint's messages, newest first (openapi listWebhookDeliveries). Throws NotFound. */
export async function listDeliveries(
  query: QueryFn,
  projectId: string,
  endpointId: string,
  page: { status?: string; limit: number; offset: number },
): Promise<Delivery[]> {
  await endpointOf(query, projectId, endpointId);
  const rows = await query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE project_id = $1 AND endpoint_id = $2 AND ($3::text IS NULL OR status = $3)
      ORDER BY seq DESC LIMIT $4 OFFSET $5`,
    [projectId, endpointId, page.status ?? null, page.limit, page.offset],
  );
  return rows.map(deliveryOut);
}

/** sendTest queues a webhook.test message to an endpoint (openapi sendWebhookTest). Throws NotFound. */
export async function sendTest(query: QueryFn, projectId: string, endpointId: string): Promise<Delivery> {
  const endpoint = await endpointOf(query, projectId, endpointId);
  const id = `msg_${randomUUID().replace(/-/g, '')}`;
  const payload = {
    type: WEBHOOK_TEST_TYPE,
    timestamp: new Date().toISOString(),
    data: { endpoint_id: endpoint.id, message: 'A test message from Mailwright: your endpoint is reachable and can check our signature.' },
  };
  const [row] = await query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_type, contact_key, payload) VALUES ($1, $2, $3, $4, $1, $5::jsonb)
     RETURNING ${DELIVERY_COLUMNS}`,
    [id, projectId, endpointId, WEBHOOK_TEST_TYPE, JSON.stringify(payload)],
  );
  return deliveryOut(row);
}

/**
 * resendDelivery makes a message due now again with the same webhook-id and payload (openapi resendWebhookDelivery):
 * a delivered or failed one becomes pending with a fresh retry window and schedule (attempts from 0; created_at
 * stays), a pending one is tried now. Throws NotFound naming `id`; BadRequest when its endpoint is deleted, or while
 * an attempt is in flight (it would be sent twice at once).
 */
export async function resendDelivery(query: QueryFn, projectId: string, id: string): Promise<Delivery> {
  const [row] = await query<DeliveryRow>(
    `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), delivered_at = NULL, attempts = 0, retry_from = now()
       FROM webhook_endpoints w
      WHERE d.project_id = $1 AND d.id = $2 AND w.id = d.endpoint_id AND w.archived_at IS NULL
        AND NOT (d.status = 'pending' AND d.lease_until > now())
      RETURNING d.id, d.event_type, d.status, d.attempts, d.created_at, d.next_attempt_at, d.last_attempt_at, d.last_status_code, d.last_response,
                d.last_latency_ms, d.delivered_at, d.payload`,
    [projectId, id],
  );
  if (!row) {
    const [known] = await query<{ deleted: boolean; in_flight: boolean }>(
      `SELECT w.archived_at IS NOT NULL AS deleted, d.status = 'pending' AND d.lease_until > now() AS in_flight
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE d.project_id = $1 AND d.id = $2`,
      [projectId, id],
    );
    if (known?.deleted) throw new BadRequest([`id: the endpoint of ${id} is deleted`]);
    if (known?.in_flight) throw new BadRequest([`id: ${id} is being sent right now; see its answer before sending it again`]);
    throw new NotFound([`id: no webhook message ${id} in this project`]);
  }
  return deliveryOut(row);
}

/** Messages to one endpoint in flight at once over all workers: a slow or dead endpoint holds this many, not all. */
export const PER_ENDPOINT_IN_FLIGHT = 4;

/**
 * CLAIM_DUE: up to $1 due messages of enabled endpoints, each the earliest pending message of its contact to its
 * endpoint (so a contact's messages go in order, one at a time), at most PER_ENDPOINT_IN_FLIGHT per endpoint counting
 * those in flight (so a slow or dead endpoint never takes every slot), claimed with token $2 for $3 ms (FOR UPDATE
 * SKIP LOCKED: workers never take the same message; one whose worker died is taken again when its lease ends). Each
 * comes with its endpoint's URL and secret and the attempt number it is. Ordering is by the messages' commit-time
 * sequence as seen: two transactions writing messages for one contact at the same moment may go in either order.
 */
export const CLAIM_DUE = `WITH candidates AS (
    SELECT d.id, row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.seq) AS nth,
           (SELECT count(*) FROM webhook_deliveries f WHERE f.endpoint_id = d.endpoint_id AND f.status = 'pending' AND f.lease_until > now()) AS in_flight
      FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.disabled_at IS NULL AND w.archived_at IS NULL
     WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.contact_key = d.contact_key
                          AND p.status = 'pending' AND p.seq < d.seq)),
  due AS (
    SELECT d.id FROM webhook_deliveries d JOIN candidates c ON c.id = d.id
     WHERE c.nth + c.in_flight <= ${PER_ENDPOINT_IN_FLIGHT}
     ORDER BY d.next_attempt_at, d.seq LIMIT $1 FOR UPDATE OF d SKIP LOCKED)
  UPDATE webhook_deliveries d SET claim_token = $2::uuid, lease_until = now() + ($3 || ' milliseconds')::interval, attempts = d.attempts + 1
    FROM due, webhook_endpoints w WHERE d.id = due.id AND w.id = d.endpoint_id AND d.status = 'pending'
  RETURNING d.id, d.project_id, d.endpoint_id, d.attempts, d.payload, coalesce(d.retry_from, d.created_at) AS retry_from, w.url, w.secret`;

/**
 * NEXT_DUE_IN_MS: milliseconds until the next pending message of an enabled endpoint that is not in flight falls due
 * (NULL: none). 0 means one is due now but could not be claimed (blocked behind its contact's earlier message, or its
 * endpoint at PER_ENDPOINT_IN_FLIGHT): the dispatcher then waits its poll, not 0 ms.
 */
export const NEXT_DUE_IN_MS = `SELECT greatest(0, extract(epoch FROM min(d.next_attempt_at) - now()) * 1000)::float8 AS ms
  FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.disabled_at IS NULL AND w.archived_at IS NULL
 WHERE d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until < now())`;

/** A claimed message (CLAIM_DUE). */
export interface ClaimedMessage {
  id: string;
  project_id: string;
  endpoint_id: string;
  attempts: number;
  payload: Record<string, unknown>;
  retry_from: Date;
  url: string;
  secret: string;
}

/** What one attempt got: the HTTP status (null: none), the start of the answer or why there was none, and its latency (ms). */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  response: string;
  latencyMs: number;
}

/**
 * attempt POSTs one message to its endpoint, signed per Standard Webhooks (standardwebhooks' sign over the exact
 * body), with a time-out of `timeoutMs`; through request-filtering-agent, so a host that resolves to a non-public
 * address is refused at connect time too (unless `allowPrivate`). ok is a 2xx answer. Never throws.
 */
export async function attempt(message: ClaimedMessage, opts: { timeoutMs: number; allowPrivate: boolean }): Promise<AttemptResult> {
  const body = JSON.stringify(message.payload);
  const now = new Date();
  const signature = new Webhook(message.secret).sign(message.id, now, body);
  const started = performance.now();
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (r: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, latencyMs: Math.round(performance.now() - started) });
    };
    let url: URL;
    try {
      url = new URL(message.url);
    } catch {
      return done({ ok: false, status: null, response: 'not a valid URL' });
    }
    const request = url.protocol === 'https:' ? https.request : http.request;
    const req = request(
      url,
      {
        method: 'POST',
        agent: useAgent(url.toString(), { allowPrivateIPAddress: opts.allowPrivate, keepAlive: false }),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Mailwright-Webhooks/1.0',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        timeout: opts.timeoutMs,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < 1000) text += chunk;
        });
        res.on('end', () =>
          done({ ok: !!res.statusCode && res.statusCode >= 200 && res.statusCode < 300, status: res.statusCode ?? null, response: text.slice(0, 1000) }),
        );
        res.on('error', (err) => done({ ok: false, status: res.statusCode ?? null, response: err.message.slice(0, 1000) }));
      },
    );
    // The whole exchange, not just each idle gap, must end within the time-out (a receiver trickling bytes is cut off).
    const deadline = setTimeout(() => req.destroy(new Error(`no complete answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('close', () => {
      clearTimeout(deadline);
      // Closed without a complete answer (cut off by the deadline, or by the receiver): a failed attempt.
      done({ ok: false, status: null, response: `no complete answer within ${opts.timeoutMs} ms (connection closed)` });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err) => done({ ok: false, status: null, response: err.message.slice(0, 1000) }));
    req.end(body);
  });
}

/**
 * RECORD_DELIVERED: the attempt of message $1 under claim $2 succeeded: delivered, with status $3, answer $4 and
 * latency $5 ms; its endpoint is healthy again (failing_since cleared). A lost claim records nothing.
 */
const RECORD_DELIVERED = `WITH d AS (
    UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_attempt_at = now(), last_status_code = $3, last_response = $4,
           last_latency_ms = $5, claim_token = NULL, lease_until = NULL
     WHERE id = $1 AND claim_token = $2::uuid AND status = 'pending' RETURNING endpoint_id)
  UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM d) AND failing_since IS NOT NULL`;

/**
 * RECORD_FAILED: the attempt of message $1 under claim $2 failed (status $3, answer $4, latency $5 ms): pending again
 * in $6 ms, or failed when $6 is NULL (out of retry time). Its endpoint's failing period starts now if it was healthy,
 * or if its last failure is more than $7 ms ago (longer than any retry wait: nothing was failing in between).
 */
const RECORD_FAILED = `WITH d AS (
    UPDATE webhook_deliveries SET status = CASE WHEN $6::float8 IS NULL THEN 'failed' ELSE 'pending' END,
           next_attempt_at = now() + (coalesce($6::float8, 0) || ' milliseconds')::interval, last_attempt_at = now(), last_status_code = $3,
           last_response = $4, last_latency_ms = $5, claim_token = NULL, lease_until = NULL
     WHERE id = $1 AND claim_token = $2::uuid AND status = 'pending' RETURNING endpoint_id)
  UPDATE webhook_endpoints
     SET failing_since = CASE WHEN failing_since IS NULL OR last_failure_at < now() - ($7 || ' milliseconds')::interval THEN now() ELSE failing_since END,
         last_failure_at = now()
   WHERE id IN (SELECT endpoint_id FROM d)`;

/**
 * DISABLE_FAILING: endpoints failing for longer than $1 ms are disabled, with the reason; returns them (id,
 * project_id, url) so the admins can be told (a job-log entry, Account → Notifications).
 */
const DISABLE_FAILING = `UPDATE webhook_endpoints SET disabled_at = now(),
       disabled_reason = 'every attempt failed for ' || round($1::float8 / 3600000) || ' hours (since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC)'
 WHERE disabled_at IS NULL AND archived_at IS NULL AND failing_since < now() - ($1 || ' milliseconds')::interval
 RETURNING id, project_id, url, disabled_reason`;

/**
 * recordAttempt writes what an attempt of a claimed message got: delivered, or pending again after the schedule's wait
 * (`retryScheduleS`, seconds, the last repeating), or failed once the next attempt would come later than `retryForMs`
 * after the message was made (or resent). Then endpoints failing for longer than `retryForMs` are disabled and a
 * job-log entry (JOB_WEBHOOK_ENDPOINT_DISABLED) tells the project's admins. A claim another worker took over records
 * nothing.
 */
export async function recordAttempt(
  query: QueryFn,
  claim: string,
  message: ClaimedMessage,
  result: AttemptResult,
  opts: { retryScheduleS: readonly number[]; retryForMs: number },
): Promise<void> {
  if (result.ok) {
    await query(RECORD_DELIVERED, [message.id, claim, result.status, result.response, result.latencyMs]);
    return;
  }
  const waitMs = retryWaitS(opts.retryScheduleS, message.attempts) * 1000;
  const giveUp = Date.now() + waitMs > new Date(message.retry_from).getTime() + opts.retryForMs;
  const quietMs = (Math.max(0, ...opts.retryScheduleS) + 3600) * 1000;
  await query(RECORD_FAILED, [
    message.id,
    claim,
    result.status,
    result.response || `HTTP ${result.status}`,
    result.latencyMs,
    giveUp ? null : waitMs,
    String(quietMs),
  ]);
  const disabled = await query<{ id: string; project_id: string; url: string; disabled_reason: string }>(DISABLE_FAILING, [opts.retryForMs]);
  for (const e of disabled) {
    await query(
      `INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
       VALUES ($1, 'JOB_WEBHOOK_ENDPOINT_DISABLED', now(), now(), false, $2::jsonb, $3::jsonb)`,
      [
        e.project_id,
        JSON.stringify({ endpoint_id: e.id, url: e.url }),
        JSON.stringify({ reason: `Webhook endpoint ${e.url} was disabled: ${e.disabled_reason}` }),
      ],
    );
  }
}
