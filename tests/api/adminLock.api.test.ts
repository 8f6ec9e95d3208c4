/**
 * Operator commands never lose a change (issue 19 item 9): against the PGlite folder of a running server,
 * `create-account` and `activate` refuse (exit code 2, the holder named, stop the server or use DATABASE_URL) and
 * change nothing the server can see; a second server on the folder refuses to start too. After the server is killed
 * with SIGKILL (its lock left behind) the command works at once, and a server started afterwards sees its change. A
 * server stopped with SIGTERM releases the lock, so the next command runs. PGlite only: a PostgreSQL server
 * (DATABASE_URL) takes no lock.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { API_DB, callServer, processFixture } from './harness.ts';

const OWNER = { email: 'ops@lock.example.com', password: 'lock-password-1' };
const CREATE = ['create-account', '--company', 'Lock Co', '--project', 'lock', '--email', OWNER.email, '--password', OWNER.password];
const ACTIVATE = ['activate', '--project', 'lock'];
/** What a refused command prints (runTs puts the exit code and stderr in its error). */
const REFUSED =
  /exited 2: The embedded database in .*pglite is in use by the server \(pid \d+ on .*stop the server first, or run the server and operator commands on PostgreSQL with DATABASE_URL/s;

let sink: SmtpSink | undefined;
let env: NodeJS.ProcessEnv;
let server: ServerProcess | undefined;

beforeAll(async () => {
  if (API_DB !== 'pglite') return;
  ({ sink, env } = await processFixture('lock', { WORKERS: 'off' }));
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await sink?.stop();
});

/** admin runs an operator command on the fixture's data folder: its stdout, or a rejection with its exit code. */
const admin = (args: string[]) => runTs('src/server/admin.ts', args, env);

/** login signs in as OWNER on the running server; resolves the status and the session's api key. */
async function login(): Promise<{ status: number; key?: string }> {
  const res = await fetch(`${server!.url}/api/login/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
  const body = (await res.json()) as { api_client_key?: string };
  return { status: res.status, key: body.api_client_key };
}

/** inSandbox asks the running server whether the project of `key` is still in the sandbox. */
async function inSandbox(key: string): Promise<boolean> {
  const res = await callServer(server!.url, key, 'GET', '/api/companyauthwrapper/sandbox_activation');
  expect(res.status).toBe(200);
  return !res.body.not_in_sandbox;
}

describe(`operator commands against a running server's PGlite folder (${API_DB})`, () => {
  it.skipIf(API_DB !== 'pglite')(
    'refuse and change nothing while it runs, and work once it is gone (PGlite only: skipped with API_DB=postgres, where nothing is locked)',
    async () => {
      const lockFile = path.join(env.DATA_DIR!, 'pglite.lock');
      server = await startServer(env);
      expect(existsSync(lockFile)).toBe(true);

      await expect(admin(CREATE)).rejects.toThrow(REFUSED);
      expect((await login()).status).toBe(401); // the server knows no such admin
      await expect(startServer(env)).rejects.toThrow(/server exited 1: .*The embedded database in .*pglite is in use by the server/s);

      // SIGKILL: the server cannot release its lock; the command finds its holder dead and takes it over at once.
      await server.kill('SIGKILL');
      expect(existsSync(lockFile)).toBe(true);
      expect(await admin(CREATE)).toMatch(/api key: \S+/);
      expect(existsSync(lockFile)).toBe(false);

      server = await startServer(env);
      const session = await login();
      expect(session.status).toBe(200); // the account the command created was kept
      expect(await inSandbox(session.key!)).toBe(true);
      await expect(admin(ACTIVATE)).rejects.toThrow(REFUSED);
      expect(await inSandbox(session.key!)).toBe(true);

      // SIGTERM: the server closes its database and releases the lock; the command runs (its change found the project).
      await server.kill('SIGTERM');
      server = undefined;
      expect(existsSync(lockFile)).toBe(false);
      expect(await admin(ACTIVATE)).toMatch(/Activated 1 project\(s\) named lock/);
    },
    120_000,
  ); // about 35 s alone: three server starts (one refused) and four commands, each a process; more on a busy machine
});
