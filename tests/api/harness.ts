/**
 * The API test harness (STYLE.md 9): a fresh database per test file — a copy of the migrated PGlite template, or a new
 * database on the PostgreSQL server named by TEST_DATABASE_URL when API_DB=postgres — a real SMTP sink, the app built
 * with response validation on, and helpers to call gateways and make tenants.
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig, type Config } from '../../src/server/config.ts';
import { openDatabase, type Database } from '../../src/server/db/client.ts';
import { startRuntime, type Runtime } from '../../src/server/runtime.ts';
import { SmtpTransport } from '../../src/server/mail/transport.ts';
import { createAccount } from '../../src/server/core/accounts/index.ts';
import { expandBlast } from '../../src/server/core/blasts/expand.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { SmtpSink } from '../helpers/smtpSink.ts';
import type { Json } from '../helpers/json.ts';
import { TEMPLATE_PATH } from './globalSetup.ts';
import { operations, type OperationId } from '../../generated/operations.gen.ts';
import type { OperationTypes } from '../../generated/operationTypes.gen.ts';

/** The JSON request body of operation O (never when it takes none). */
export type OpBody<O extends OperationId> = OperationTypes[O] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The 200 answer's JSON body of operation O. */
export type OpResult<O extends OperationId> = OperationTypes[O] extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : unknown;
/** What a test gives to call operation O: the key, the path parameters, the query and the body. */
export interface OpRequest<O extends OperationId> {
  key?: string;
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: OpBody<O>;
}

/** The secret of POST /api/operator/cli in the harness's app (a running server makes a random one: operatorEndpoint.ts). */
export const OPERATOR_CLI_SECRET = 'harness-operator-cli-secret';

export const API_DB = (process.env.API_DB ?? 'pglite') as 'pglite' | 'postgres';
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** freshDatabase opens an empty migrated database of the kind under test and the URL it lives at (postgres only). */
export async function freshDatabase(): Promise<{ database: Database; url?: string; drop(): Promise<void> }> {
  if (API_DB === 'postgres') {
    const name = `t_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: u.toString(), dataDir: 'memory://', poolSize: 5 });
    return {
      database,
      url: u.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
        await c.end();
      },
    };
  }
  const tar = await readFile(TEMPLATE_PATH);
  const database = await openDatabase({ dataDir: 'memory://', loadDataDir: new Blob([tar]) });
  return { database, async drop() {} };
}

export interface Tenant {
  apiKey: string;
  projectId: string;
  email: string;
  password: string;
}

export interface Harness {
  app: FastifyInstance;
  runtime: Runtime;
  sink: SmtpSink;
  config: Config;
  /** call sends one request; `key` is the x-api-key (omit for none). Returns status and parsed JSON body. */
  call<T = Json>(
    method: string,
    url: string,
    opts?: { key?: string; body?: unknown; query?: Record<string, string | number | boolean> },
  ): Promise<{ status: number; body: T }>;
  /**
   * op calls one gateway operation by its operationId (generated/operations.gen.ts gives its method and path; `path`
   * fills the path's {parameters}): the body is typed from the spec, and so is the answer's body when it is a 200
   * (an error answer's body is the spec's Errors shape, read as `errors`).
   */
  op<O extends OperationId>(id: O, req?: OpRequest<O>): Promise<{ status: number; body: OpResult<O> & { errors?: string[] } }>;
  /**
   * confirmPersonas confirms every sender persona whose verification email reached the sink (POST to its link, as its
   * page's button does); each link is followed once, and one for an address the persona no longer has is skipped.
   * Returns how many it confirmed now.
   */
  confirmPersonas(): Promise<number>;
  /** tenant creates a company/project/admin; sandboxed unless activated. */
  tenant(opts?: { activated?: boolean }): Promise<Tenant>;
  close(): Promise<void>;
}

/** startHarness builds the app over a fresh database; `workers` starts the sender and queue handlers (default off); `config` overrides settings. */
export async function startHarness(opts: { workers?: boolean; sendPollMs?: number; config?: Partial<Config> } = {}): Promise<Harness> {
  const fresh = await freshDatabase();
  const sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-api-'));
  const config: Config = {
    ...loadConfig({}),
    dataDir,
    storageUrl: path.join(dataDir, 'storage'),
    smtpUrl,
    publicUrl: 'http://localhost:8080',
    sendPollMs: opts.sendPollMs ?? 100,
    ...opts.config,
  };
  const runtime = await startRuntime(config, { database: fresh.database, transport: new SmtpTransport(smtpUrl), workers: opts.workers ?? false });
  const app = await buildApp(runtime.ctx, { logLevel: 'silent', validateResponses: true, operatorCliSecret: OPERATOR_CLI_SECRET });
  let n = 0;
  const followed = new Set<string>();
  const call: Harness['call'] = async (method, url, o = {}) => {
    const qs = o.query ? `?${new URLSearchParams(Object.entries(o.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
    const res = await app.inject({
      method: method as never,
      url: url + qs,
      headers: { ...(o.key !== undefined ? { 'x-api-key': o.key } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : undefined) as never };
  };
  return {
    app,
    runtime,
    sink,
    config,
    call,
    async op(id, req = {}) {
      const o = operations[id];
      const url = `/api/${o.service}${o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(req.path?.[name] ?? ''))}`;
      return call(o.method, url, { key: req.key, body: req.body, query: req.query });
    },
    async confirmPersonas() {
      let confirmed = 0;
      for (const link of await sink.personaVerificationLinks()) {
        if (followed.has(link)) continue;
        followed.add(link);
        const res = await app.inject({ method: 'POST', url: new URL(link).pathname });
        // 404: a link for an address the persona no longer has; anything else but 200 is a failure.
        if (res.statusCode === 404) continue;
        if (res.statusCode !== 200) throw new Error(`confirming ${link}: ${res.statusCode} ${res.body}`);
        confirmed++;
      }
      return confirmed;
    },
    async tenant(t = {}) {
      n++;
      const email = `admin${n}-${randomBytes(3).toString('hex')}@tenant${n}.example.com`;
      const password = 'correct-horse-battery-9';
      const r = await createAccount(runtime.database.db, { company: `Company ${n} ${email}`, project: `project${n}`, email, password, activated: t.activated });
      return { apiKey: r.apiKey, projectId: r.projectId, email, password };
    },
    async close() {
      await app.close();
      await runtime.stop();
      await sink.stop();
      await fresh.drop();
    },
  };
}

/** A server that runs as a child process (for tests that kill it): its environment, SMTP sink and database. */
export interface ProcessFixture {
  sink: SmtpSink;
  env: NodeJS.ProcessEnv;
  /** drop removes the fixture's PostgreSQL database (nothing on PGlite: its data dir is a temp folder). */
  drop(): Promise<void>;
}

/**
 * processFixture prepares what a child-process server needs: a started SMTP sink, a temp DATA_DIR, WORKERS on, and on
 * API_DB=postgres a fresh database on the server (DATABASE_URL); `env` adds settings (leases, polls).
 */
export async function processFixture(prefix: string, env: NodeJS.ProcessEnv = {}): Promise<ProcessFixture> {
  const sink = new SmtpSink();
  const smtpUrl = await sink.start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `mw-${prefix}-`));
  const fixture: ProcessFixture = { sink, env: { DATA_DIR: dataDir, SMTP_URL: smtpUrl, WORKERS: 'on', LOG_LEVEL: 'error', ...env }, drop: async () => {} };
  if (API_DB === 'postgres') {
    const fresh = await freshDatabase();
    await fresh.database.close();
    fixture.env.DATABASE_URL = fresh.url;
    fixture.drop = fresh.drop;
  }
  return fixture;
}

/** callServer sends one JSON request with the x-api-key to a child-process server; resolves status and body. */
export async function callServer(baseUrl: string, key: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * dueBlast makes, through the gateways, a confirmed sender persona `from`, a template of `type` and a contact for each
 * of `emails`, saves a blast to them that was due a minute ago, and expands it (one outbox row per recipient) without
 * the workers, for tests that drive a Sender by hand. Resolves the blast's id.
 */
export async function dueBlast(
  h: Harness,
  t: Tenant,
  emails: string[],
  opts: { from: string; type?: 'TEMPLATE_TRANSACTIONAL' | 'TEMPLATE_MARKETING' },
): Promise<string> {
  const api = async (url: string, body: unknown) => {
    const res = await h.call('POST', url, { key: t.apiKey, body });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // One persona per address in a project: a later blast from the same address saves that persona again.
  const listed = await h.call('GET', '/api/senderpersonawrapper/sender_personas', { key: t.apiKey });
  const existing = (listed.body.data as Array<{ id: string; email: string }>).find((p) => p.email.toLowerCase() === opts.from.toLowerCase());
  const persona = (
    await api('/api/senderpersonawrapper/sender_personas', {
      sender_personas: [{ ...(existing ? { id: existing.id } : {}), email: opts.from, first_name: 'F' }],
    })
  ).data[0];
  await h.confirmPersonas();
  const template = (
    await api('/api/template/templates', {
      templates: [
        {
          name: `T ${randomBytes(3).toString('hex')}`,
          subject: 'S',
          type: opts.type ?? 'TEMPLATE_TRANSACTIONAL',
          html_body: '<p>{{user.email}} <a href="{{unsubscribe_link}}">u</a></p>',
        },
      ],
    })
  ).data[0];
  // The contacts gateway takes at most 1,000 per call.
  const users: Array<{ id: string }> = [];
  for (let i = 0; i < emails.length; i += 1000) {
    users.push(...(await api('/api/user/users', { users: emails.slice(i, i + 1000).map((email) => ({ email })) })).data);
  }
  const id = crypto.randomUUID();
  await api('/api/scheduler/scheduler', {
    id,
    name: 'Due',
    template_id: template.id,
    sender_persona_id: persona.id,
    to_user_ids: users.map((u) => u.id),
    send_at: wallClockUtc(-1),
    timezone: 'UTC',
  });
  const queued = await expandBlast(h.runtime.ctx, id);
  if (queued !== emails.length) throw new Error(`the blast queued ${queued} of ${emails.length} recipients`);
  return id;
}
