/**
 * Operator commands while the server runs: on PGlite, where one process at a time may
 * open the data folder, `npm run admin` hands its command to the running server (DATA_DIR/operator.json, POST
 * /api/operator/cli), which runs it and sees the change at once: an account it creates signs in, an activation by an
 * admin's email shows in account_status and emails the admin; a project name that matches more than one project is
 * refused with the list of matches. A second server on the folder still refuses to start, and once the server was
 * killed with SIGKILL (its lock and endpoint file left behind) a command opens the folder itself and a server started
 * afterwards sees its change. PGlite only: on PostgreSQL (DATABASE_URL) commands run over their own connection.
 * On both databases, `create-operator` is in the operators' audit log as `cli (<OS user>)`, as every other command
 *, whether the running server ran it or the command line did over its own connection.
 */
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import type { Json } from '../helpers/json.ts';
import { API_DB, callServer, processFixture } from './harness.ts';

const OWNER = { email: 'ops@lock.example.com', password: 'lock-password-1' };
const CREATE = ['create-account', '--company', 'Lock Co', '--project', 'Main project', '--email', OWNER.email, '--password', OWNER.password];
const CREATE_2 = ['create-account', '--company', 'Other Co', '--project', 'Main project', '--email', 'ops@other.example.com', '--password', OWNER.password];

let sink: SmtpSink | undefined;
let env: NodeJS.ProcessEnv;
let server: ServerProcess | undefined;

beforeAll(async () => {
  if (API_DB !== 'pglite') return;
  ({ sink, env } = await processFixture('cli', { WORKERS: 'off' }));
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await sink?.stop();
});

/** admin runs an operator command on the fixture's data folder: its stdout, or a rejection with its exit code and stderr. */
const admin = (args: string[]) => runTs('src/server/admin.ts', args, env);

/** login signs in as OWNER on the running server; resolves the status and the session's api key. */
async function login(): Promise<{ status: number; key?: string }> {
  const res = await fetch(`${server!.url}/api/login/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
  const body = (await res.json()) as { api_client_key?: string };
  return { status: res.status, key: body.api_client_key };
}

/** active asks the running server whether the project of `key` is out of the sandbox. */
async function active(key: string): Promise<boolean> {
  const res = await callServer(server!.url, key, 'GET', '/api/companyauthwrapper/account_status');
  expect(res.status).toBe(200);
  return res.body.not_in_sandbox as boolean;
}

describe(`operator commands against a running server's PGlite folder (${API_DB})`, () => {
  it.skipIf(API_DB !== 'pglite')(
    'go through the server, which sees every change at once (PGlite only: skipped with API_DB=postgres, where nothing is locked)',
    async () => {
      const lockFile = path.join(env.DATA_DIR!, 'pglite.lock');
      const endpointFile = path.join(env.DATA_DIR!, 'operator.json');
      server = await startServer(env);
      expect(existsSync(lockFile)).toBe(true);
      expect(statSync(endpointFile).mode & 0o777).toBe(0o600); // only the server's OS user may read the secret

      expect(await admin(CREATE)).toMatch(/api key: \S+/);
      const session = await login();
      expect(session.status).toBe(200); // the running server knows the new admin at once
      expect(await active(session.key!)).toBe(false);

      expect(await admin(['activate', '--email', OWNER.email])).toMatch(/Activated Lock Co \/ Main project \(.+\): it may now send to any recipient/);
      expect(await active(session.key!)).toBe(true);
      await sink!.waitFor(() => sink!.messages.some((m) => m.envelopeTo.includes(OWNER.email)));
      const mail = (await sink!.parsed()).find((m) => m.envelopeTo.includes(OWNER.email))!;
      expect(mail.subject).toBe('Your Mailwright account is active');
      expect(mail.text).toContain('Your account is active: you can now send to anyone');

      // Sign-up names every project "Main project": a bare name that means two projects is refused, naming both.
      expect(await admin(CREATE_2)).toMatch(/api key/);
      const refused = admin(['sandbox', '--project', 'Main project']);
      await expect(refused).rejects.toThrow(/exited 1: project: 2 projects are named Main project;.*Lock Co \/ Main project \(.*Other Co \/ Main project \(/s);
      expect(await active(session.key!)).toBe(true); // nothing changed
      expect(await admin(['sandbox', '--project', 'Main project', '--company', 'Lock Co'])).toMatch(/is back in the sandbox/);
      expect(await active(session.key!)).toBe(false);

      await expect(startServer(env)).rejects.toThrow(/server exited 1: .*The embedded database in .*pglite is in use by the server/s);

      // SIGKILL: the server leaves its lock and endpoint file; the command finds the holder dead and opens the folder.
      await server.kill('SIGKILL');
      expect(existsSync(lockFile)).toBe(true);
      expect(await admin(['activate', '--email', OWNER.email])).toMatch(/Activated Lock Co/);
      expect(existsSync(lockFile)).toBe(false);
      server = await startServer(env);
      expect(await active((await login()).key!)).toBe(true); // the change the command made alone was kept

      // SIGTERM: the server removes its endpoint file and releases the lock.
      await server.kill('SIGTERM');
      server = undefined;
      expect(existsSync(lockFile)).toBe(false);
      expect(existsSync(endpointFile)).toBe(false);
    },
    180_000,
  ); // about 40 s alone: three server starts (one refused) and seven commands, each a process; more on a busy machine
});

describe(`create-operator's audit entry (${API_DB})`, () => {
  it('names the OS user, as every command does: through a running server (PGlite) or over its own connection, and with no server running', async () => {
    const fixture = await processFixture('cli-actor', { WORKERS: 'off' });
    const run = (args: string[]) => runTs('src/server/admin.ts', args, fixture.env);
    const first = { email: 'first@ops.example.com', password: 'operator-password-1' };
    const second = { email: 'second@ops.example.com', password: 'operator-password-2' };
    let running: ServerProcess | undefined;
    try {
      // PGlite: the server holds the folder, so the command hands itself to POST /api/operator/cli. PostgreSQL: the
      // command runs over its own connection beside the server.
      running = await startServer(fixture.env);
      expect(await run(['create-operator', '--email', first.email, '--password', first.password])).toMatch(/Created operator first@ops/);
      await running.kill('SIGTERM');
      // No server: the command opens the PGlite folder (or connects) itself.
      expect(await run(['create-operator', '--email', second.email, '--password', second.password])).toMatch(/Created operator second@ops/);
      running = await startServer(fixture.env);
      const login = await fetch(`${running.url}/api/operator/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(first),
      });
      expect(login.status).toBe(200);
      const cookie = String(login.headers.get('set-cookie')).split(';')[0];
      const audit = ((await (await fetch(`${running.url}/api/operator/audit?limit=100`, { headers: { cookie } })).json()) as Json).data as Json[];
      const created = audit.filter((e) => e.action === 'create_operator').map((e) => [e.after.email, e.actor]);
      const actor = `cli (${os.userInfo().username})`;
      expect(created.sort()).toEqual([
        [first.email, actor],
        [second.email, actor],
      ]);
    } finally {
      await running?.kill('SIGTERM');
      await fixture.sink.stop();
      await fixture.drop();
    }
  }, 180_000); // two server starts and two commands, each a process
});
