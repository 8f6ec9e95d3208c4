/**
 * main: the product's entry point (`npm start`). Opens the runtime (migrating the database), seeds the demo account,
 * serves the console and gateways on PORT, runs the workers when WORKERS is on, and stops cleanly on SIGINT/SIGTERM.
 */
import { loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { startRuntime } from './runtime.ts';
import { DEMO_ACCOUNT } from './accounts.ts';
import { seedDemoAccount } from './demo.ts';

const config = loadConfig();
const runtime = await startRuntime(config);
const created = await seedDemoAccount(runtime.database.db);
const app = await buildApp(runtime.ctx, { logLevel: process.env.LOG_LEVEL ?? 'warn' });
await app.listen({ port: config.port, host: process.env.HOST ?? '0.0.0.0' });

console.log(`Console and gateways: ${config.publicUrl}`);
console.log(`Database: ${runtime.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)'}`);
console.log(`Mail: ${runtime.transport.description}; workers ${config.workers ? 'on' : 'off'}`);
console.log(`Demo account${created ? ' (created now)' : ''}: ${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password} (in the sandbox)`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await runtime.stop();
    process.exit(0);
  });
}
