/**
 * Stopping like a service: the server process (src/server/main.ts, workers on) is ready once started,
 * exits 0 within 10 s of SIGTERM when nothing holds it, and when something does (a request waiting on a relay that
 * never answers) exits anyway at the 10 s deadline with code 1 and a line naming what did not finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { startServer, type ServerProcess } from '../helpers/processes.ts';
import { DEMO_ACCOUNT } from '../../src/server/core/accounts/index.ts';
import { API_DB, processFixture } from './harness.ts';

let sink: SmtpSink;
let env: NodeJS.ProcessEnv;
let drop: () => Promise<void> = async () => {};
let server: ServerProcess | undefined;

beforeAll(async () => {
  ({ sink, env, drop } = await processFixture('shutdown'));
});
afterAll(async () => {
  sink?.release();
  await server?.kill('SIGKILL');
  await sink?.stop();
  await drop();
});

/** stop sends SIGTERM and resolves the exit code and how long (ms) the process took to exit. */
async function stop(s: ServerProcess): Promise<{ code: number | null; ms: number }> {
  const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
  const started = Date.now();
  s.child.kill('SIGTERM');
  const code = await exited;
  return { code, ms: Date.now() - started };
}

describe(`SIGTERM (${API_DB})`, () => {
  it('drains and exits 0 within 10 s', async () => {
    server = await startServer(env);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const { code, ms } = await stop(server);
    expect({ code, quick: ms < 10_000 }).toEqual({ code: 0, quick: true });
  });

  it('exits at the 10 s deadline, naming what did not finish', async () => {
    server = await startServer(env);
    const login = await fetch(`${server.url}/api/login/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }),
    });
    const key = (await login.json()).api_client_key as string;
    // A new persona's verification email goes to the relay within the request; the relay holds it unanswered.
    sink.hold();
    const pending = fetch(`${server.url}/api/senderpersonawrapper/sender_personas`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ sender_personas: [{ email: 'held@shutdown.example.com', first_name: 'Held' }] }),
    }).catch(() => undefined);
    await sink.waitFor(() => sink.heldCount >= 1, 20_000);
    const { code, ms } = await stop(server);
    await pending;
    expect(code).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(9_500);
    expect(ms).toBeLessThan(12_000);
    expect(server.output()).toContain('mailwright: stopping took longer than 10 s; exiting without waiting for the HTTP server (requests still in flight)');
  });
});
