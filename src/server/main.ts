/**
 * main: the product's entry point (`npm start`). Opens the runtime (migrating the database), seeds the demo account,
 * serves the console and gateways on PORT, runs the workers when WORKERS is on, and stops cleanly on SIGINT/SIGTERM
 * (a second signal while stopping exits at once).
 *
 * The storage STORAGE_URL names is checked before the queue and the workers start: an S3 bucket that cannot be reached
 * stops the start, with exit code 1 and STORAGE_URL named.
 *
 * On PGlite the server holds its data folder's lock (DATA_DIR/pglite.lock, db/dataDirLock.ts) from start to exit: a
 * second server or an operator command on the same folder is refused, and so is this server, with exit code 1 and
 * the holder named, when something else holds it. Meanwhile `npm run admin` hands its commands to this server (POST
 * /api/operator/cli with the secret of DATA_DIR/operator.json, written at start: operatorEndpoint.ts). The lock is
 * released when the database closes on SIGINT/SIGTERM, and on any other exit of the process; only a SIGKILL leaves it
 * behind, and the next process takes it over.
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { startRuntime, type Runtime } from './runtime.ts';
import { DataDirLocked, openDatabase, type Database } from './db/client.ts';
import { DEMO_ACCOUNT } from './core/accounts/index.ts';
import { seedDemoAccount } from './core/accounts/demo.ts';
import { publishOperatorEndpoint } from './operatorEndpoint.ts';
import { StorageUnavailable } from './storage/storage.ts';

/** How long (ms) stopping may take after SIGINT/SIGTERM before the process exits anyway, saying what was left. */
const STOP_DEADLINE_MS = 10_000;

let app: FastifyInstance | undefined;
let runtime: Runtime | undefined;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) process.exit(1); // a second signal: stop waiting (the exit still releases the data folder's lock)
    stopping = true;
    // What is being closed now: named if the deadline passes first (exit code 1).
    let closing = 'the HTTP server (requests still in flight)';
    setTimeout(() => {
      console.error(`mailwright: stopping took longer than ${STOP_DEADLINE_MS / 1000} s; exiting without waiting for ${closing}`);
      process.exit(1);
    }, STOP_DEADLINE_MS);
    let code = 0;
    try {
      await app?.close();
      closing = 'the workers, the queue, the mail transport and the database (emails and jobs in hand)';
      await runtime?.stop();
    } catch (err) {
      console.error(`mailwright: stopping failed while closing ${closing}: ${(err as Error).message}`);
      code = 1;
    } finally {
      process.exit(code);
    }
  });
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  // A malformed setting (SMTP_URL, WARMUP_SCHEDULE, DOMAIN_LIMITS, a number or a duration) stops the start, named.
  console.error(`mailwright: not starting: ${(err as Error).message}`);
  process.exit(1);
}
let database: Database;
try {
  database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lockHolder: 'server' });
} catch (err) {
  if (!(err instanceof DataDirLocked)) throw err;
  console.error(err.message);
  process.exit(1);
}
try {
  runtime = await startRuntime(config, { database });
} catch (err) {
  // STORAGE_URL's S3 endpoint does not answer, or its bucket is missing or refuses the credentials.
  if (!(err instanceof StorageUnavailable)) throw err;
  console.error(`mailwright: not starting: ${err.message}`);
  process.exit(1);
}
const created = await seedDemoAccount(runtime.database.db);
// On PGlite `npm run admin` cannot open the folder this server holds: it hands its command to this server instead,
// through DATA_DIR/operator.json (operatorEndpoint.ts), removed again when the process exits.
const cli = runtime.database.kind === 'pglite' ? publishOperatorEndpoint(config.dataDir, config.port) : undefined;
if (cli) process.on('exit', () => cli.remove());
app = await buildApp(runtime.ctx, { logLevel: process.env.LOG_LEVEL ?? 'warn', operatorCliSecret: cli?.secret });
await app.listen({ port: config.port, host: process.env.HOST ?? '0.0.0.0' });

console.log(`Console and gateways: ${config.publicUrl}`);
console.log(`Database: ${runtime.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)'}`);
console.log(`Mail: ${runtime.transport.description}; workers ${config.workers ? 'on' : 'off'}`);
console.log(
  runtime.inbound
    ? `Feedback: bounces and complaints received by SMTP on port ${runtime.inbound.port} (bounce subdomains' MX: ${config.inbound.mxHost})`
    : 'Feedback: the inbound SMTP receiver is off (set INBOUND_SMTP_PORT to receive bounces and complaints from any relay)',
);
console.log(
  runtime.submission
    ? `SMTP submission: ${[runtime.submission.port && `port ${runtime.submission.port} (STARTTLS${config.submission.tls ? '' : ' not offered: no SUBMISSION_TLS_CERT; loopback clients only'})`, runtime.submission.tlsPort && `port ${runtime.submission.tlsPort} (TLS)`].filter(Boolean).join(', ')}; credentials in Account → SMTP`
    : 'SMTP submission: off (set SUBMISSION_PORT to let applications send over SMTP)',
);
console.log(
  `Health: /healthz, /readyz; metrics: /metrics (${config.metricsToken ? 'Authorization: Bearer METRICS_TOKEN' : 'from this machine only; set METRICS_TOKEN'})`,
);
console.log(`Demo account${created ? ' (created now)' : ''}: ${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password} (in the sandbox)`);
