/**
 * The browser tests' one set-up: startE2E starts what a test file needs — an SMTP sink (unless `sink: false`), the
 * built server on a fresh data folder, Debian's chromium and a page — signed in as the test asks: the shared demo
 * account through demo_login (`demo`), an activated account made with the admin command (`owner`), or only an API key
 * from a password sign-in with the page left signed out (`login`). e2eHooks() registers stopE2E after all tests and
 * the server's last output after a failed one.
 *
 * The state is this module's: vitest gives each test file its own module graph, so each file has one suite.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { demoContext, launchChromium, type DemoSession } from './browser.ts';
import { SmtpSink } from './smtpSink.ts';
import { apiCaller, runTs, startServer, type ServerProcess } from './processes.ts';
import { wallClockUtc } from './time.ts';
import type { Json } from './json.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../src/domain/sandbox.ts';

/** What startE2E started. */
export interface E2E {
  sink: SmtpSink;
  server: ServerProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The signed-in project's x-api-key ('' when nobody is signed in). */
  apiKey: string;
  /** The server's environment (DATA_DIR, SMTP_URL, …), for admin commands run beside it. */
  env: Record<string, string>;
  /** Errors thrown by the page's scripts. */
  pageErrors: string[];
}

/** How a test file wants its suite. */
export interface E2EOptions {
  /** Names the data folder (mw-e2e-<tag>-…). */
  tag: string;
  /** The server's environment beyond DATA_DIR, SMTP_URL and LOG_LEVEL=error. */
  env?: Record<string, string>;
  /** Start no SMTP sink (the server gets no SMTP_URL). */
  sink?: false;
  /** The relay's governor parameters, added to SMTP_URL as its query (e.g. 'max_rate=2'). */
  relayParams?: string;
  /** Sign the page in to the shared demo account as this address (demo_login). */
  demo?: string;
  /** Make an activated account with `npm run admin -- create-account` and sign the page in as its owner. */
  owner?: { company: string; project: string; email: string; password: string };
  /** Sign in with this password only for the API key; the page stays signed out. */
  login?: { email: string; password: string };
  viewport?: { width: number; height: number };
}

let current: E2E | undefined;
const landings: Server[] = [];

/** api calls the gateways of the running suite's server with its signed-in key; a non-2xx answer throws. */
export const api = apiCaller(
  () => current!.server.url,
  () => current!.apiKey,
);

/**
 * e2eHooks registers, in the calling test file (call it at the file's top level, where vitest collects hooks), the
 * suite's stop after all tests (stopE2E) and, after a failed test, the server's last output.
 */
export function e2eHooks(): void {
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') console.error(`server output (last 20 kB):\n${current?.server.output().slice(-20_000)}`);
  });
  afterAll(stopE2E);
}

/**
 * startE2E starts a browser-test suite (see the module comment). Call it in beforeAll, with e2eHooks() at the file's
 * top level; it throws when the server does not start or a sign-in is refused.
 */
export async function startE2E(o: E2EOptions): Promise<E2E> {
  const sink = new SmtpSink();
  const env: Record<string, string> = {
    DATA_DIR: await mkdtemp(path.join(os.tmpdir(), `mw-e2e-${o.tag}-`)),
    LOG_LEVEL: 'error',
    ...(o.sink === false ? {} : { SMTP_URL: (await sink.start()) + (o.relayParams ? `?${o.relayParams}` : '') }),
    ...o.env,
  };
  if (o.owner) {
    const { company, project, email, password } = o.owner;
    await runTs(
      'src/server/admin.ts',
      ['create-account', '--company', company, '--project', project, '--email', email, '--password', password, '--activated', '--create'],
      env,
    );
  }
  const server = await startServer(env);
  const browser = await launchChromium();
  const viewport = o.viewport ?? { width: 1280, height: 900 };
  let session: DemoSession | undefined;
  let context: BrowserContext;
  if (o.demo) ({ context, session } = await demoContext(browser, server.url, o.demo, viewport));
  else {
    context = await browser.newContext({ viewport });
    const signIn = o.owner ?? o.login;
    if (signIn) session = await passwordLogin(server.url, signIn);
    if (o.owner) await context.addCookies([{ name: 'user_info', value: encodeURIComponent(JSON.stringify(session)), url: server.url, sameSite: 'Strict' }]);
  }
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  current = { sink, server, browser, context, page, apiKey: session?.api_client_key ?? '', env, pageErrors };
  return current;
}

/** stopE2E closes the browser, stops the server (SIGTERM) and the sink. */
export async function stopE2E(): Promise<void> {
  const c = current;
  current = undefined;
  await c?.browser.close();
  await c?.server.kill('SIGTERM');
  await c?.sink.stop();
  for (const l of landings.splice(0)) l.close();
}

/**
 * landingPage serves a small HTML page on 127.0.0.1 (a link's destination, e.g. a sale's landing page) with `title`
 * as its title and heading; stopE2E closes it. Returns its URL with `pathAndQuery` (e.g. '/sale?src=email').
 */
export async function landingPage(title: string, pathAndQuery: string): Promise<string> {
  const landing = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${title}</title><h1>${title} landing page</h1>`);
  });
  await new Promise<void>((r) => landing.listen(0, '127.0.0.1', r));
  landings.push(landing);
  return `http://127.0.0.1:${(landing.address() as AddressInfo).port}${pathAndQuery}`;
}

/**
 * sandboxRecipients makes the two contacts a sandboxed (demo) account may mail: the simulator's success address
 * ("Sim") and `personaEmail` ("Pat"). Returns them in that order.
 */
export async function sandboxRecipients(personaEmail: string): Promise<Array<{ id: string; email: string }>> {
  const users = [
    { email: SIMULATOR_SUCCESS_ADDRESS, first_name: 'Sim' },
    { email: personaEmail, first_name: 'Pat' },
  ];
  return (await api<{ data: Array<{ id: string; email: string }> }>('POST', '/api/user/users', { users })).data;
}

/** marketingTemplate saves a marketing template with this name, subject and HTML; returns its id. */
export async function marketingTemplate(name: string, subject: string, html_body: string): Promise<string> {
  const templates = [{ name, subject, type: 'TEMPLATE_MARKETING', html_body }];
  return (await api<{ data: Array<{ id: string }> }>('POST', '/api/template/templates', { templates })).data[0].id;
}

/** passwordLogin signs in through POST /api/login/login; throws unless it answers 200 with an API key. */
async function passwordLogin(serverUrl: string, who: { email: string; password: string }): Promise<DemoSession> {
  const res = await fetch(`${serverUrl}/api/login/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: who.email, password: who.password }),
  });
  expect(res.status).toBe(200);
  const session = (await res.json()) as DemoSession;
  expect(session.api_client_key).toBeTruthy();
  return session;
}

/**
 * verifiedPersona creates a sender persona through the API and confirms it by the link its verification email
 * carries (the sink's latest such link). Returns the persona.
 */
export async function verifiedPersona(persona: { email: string; first_name: string; last_name?: string }): Promise<{ id: string; email: string }> {
  const before = (await current!.sink.personaVerificationLinks()).length;
  const made = (await api<{ data: Array<{ id: string; email: string }> }>('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [persona] }))
    .data[0];
  const end = Date.now() + 30_000;
  let links: string[];
  while ((links = await current!.sink.personaVerificationLinks()).length <= before) {
    if (Date.now() > end) throw new Error(`no verification email for ${persona.email}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const link = links.at(-1)!;
  expect((await fetch(link, { method: 'POST' })).status).toBe(200);
  return made;
}

/**
 * sendBlastNow saves a blast due a minute ago in UTC (so due at once) to contacts `to_user_ids` and waits (up to 60 s)
 * until the job log shows it distributed. Returns the blast's id.
 */
export async function sendBlastNow(blast: {
  name: string;
  template_id: string;
  sender_persona_id: string;
  to_user_ids: string[];
  id?: string;
}): Promise<string> {
  const id = blast.id ?? crypto.randomUUID();
  await api('POST', '/api/scheduler/scheduler', { ...blast, id, send_at: wallClockUtc(-1), timezone: 'UTC' });
  const end = Date.now() + 60_000;
  for (;;) {
    const jobs = await api<{ data: Array<{ job_name: string; start_details: Record<string, Json> }> }>('GET', '/api/joblog/joblog?limit=100');
    if (jobs.data.some((j) => j.job_name === 'JOB_DISTRIBUTE_EMAIL_BLAST' && j.start_details.scheduled_email_group_id === id)) return id;
    if (Date.now() > end) throw new Error(`blast ${blast.name} was not distributed in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** signInWithForm signs `page` in on the server's /login page as a person does (Enter in the password field) and waits for /insights. */
export async function signInWithForm(page: Page, serverUrl: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${serverUrl}/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByLabel('Password').press('Enter');
  await page.waitForURL(/\/insights$/);
}
