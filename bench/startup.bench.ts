/**
 * `npm run bench:startup`: how soon `npm start` serves. Starts `npm start` on a fresh PGlite data
 * folder once (creating the database), then restarts it BENCH_RESTARTS times (default 3) on that folder, and prints,
 * for each start, the seconds from launch to the first 200 of GET /readyz and from SIGTERM to the process's exit.
 * `npm start` builds the console first when its sources changed (scripts/build-if-changed.ts), so the first start
 * includes a build unless one is up to date; the restarts never do. Also prints buildApp's wall and CPU time in this
 * process (three builds over an in-memory database: the first pays the module's warm-up). Prints figures; asserts
 * nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT, freePort } from '../tests/helpers/processes.ts';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/db/client.ts';
import { startRuntime } from '../src/server/runtime.ts';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 3);

/** startOnce runs `npm start` on `dataDir` until /readyz answers 200, then SIGTERMs it; resolves both durations (s) and the exit code. */
async function startOnce(dataDir: string): Promise<{ readyS: number; stopS: number; code: number | null }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_RESET_CRON: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${log}`);
    const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const readyS = (performance.now() - started) / 1000;
  const stopping = performance.now();
  // npm forwards SIGTERM to the server (the start script execs it).
  child.kill('SIGTERM');
  const code = await exited;
  return { readyS, stopS: (performance.now() - stopping) / 1000, code };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-bench-startup-'));
console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, load average ${os.loadavg()[0].toFixed(2)}, Node ${process.version}`);
for (let i = 0; i <= RESTARTS; i++) {
  const r = await startOnce(dataDir);
  console.log(
    `${i === 0 ? 'first start (new data folder)' : `restart ${i}`}: /readyz 200 after ${r.readyS.toFixed(2)} s; SIGTERM → exit ${r.code} after ${r.stopS.toFixed(2)} s`,
  );
}

const runtime = await startRuntime(loadConfig({ DATA_DIR: dataDir }), { database: await openDatabase({ dataDir: 'memory://' }), workers: false });
for (let i = 1; i <= 3; i++) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const app = await buildApp(runtime.ctx, { logLevel: 'warn' });
  const used = process.cpuUsage(cpu);
  console.log(`buildApp ${i}: ${((performance.now() - wall) / 1000).toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU`);
  await app.close();
}
await runtime.stop();
process.exit(0);
