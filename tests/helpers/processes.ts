/** Child processes of the product for tests and benchmarks: the server (main.ts) and operator commands (admin.ts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Json } from './json.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** freePort returns a TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** runTs runs a TypeScript entry point with tsx to completion and returns its stdout; rejects on a non-zero exit. */
export async function runTs(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`${entry} ${args.join(' ')} exited ${code}: ${err || out}`);
  return out;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** kill sends a signal and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * startServer starts src/server/main.ts with `env` on a free port and resolves once /healthz answers. The hourly demo
 * reset is off unless `env` sets DEMO_RESET_CRON: a test signed in to the demo account that ran across the top of
 * an hour saw its contacts and blast wiped mid-test (the blast e2e test timed out in CI at 16:00 UTC).
 */
export async function startServer(env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DEMO_RESET_CRON: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => {
    log += d;
  });
  child.stderr!.on('data', (d) => {
    log += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`server did not start in ${timeoutMs} ms: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    url,
    output: () => log,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * apiCaller returns a function that sends one request to the server at `baseUrl()` with the x-api-key `key()` (a JSON
 * body when given) and answers the parsed JSON body; a non-2xx answer throws with the status and body. The getters
 * are read per call, so tests may set the server and key after making it.
 */
export function apiCaller(baseUrl: () => string, key: () => string) {
  return async <T = Json>(method: string, route: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { 'x-api-key': key() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl()}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json as T;
  };
}
