/**
 * Operator commands (`npm run admin -- <command>`; the commands and their usage: core/operator/commands.ts):
 * create-account, activate, sandbox, suspend, resume, verify-persona, create-operator, contact-messages, reset-demo,
 * rebuild-reports. Projects are named by id, by an admin's email (--email) or by name (--project NAME [--company
 * NAME]); a name that matches more than one project is refused with the list of matches.
 *
 * Uses the same DATABASE_URL / DATA_DIR as the server. On PostgreSQL the command runs over its own connection. On the
 * embedded PGlite database it first checks that DATA_DIR holds one (DATA_DIR/pglite/PG_VERSION, the file PGlite looks
 * for before it creates a new database, or DATA_DIR/pglite.lock, left by a process creating or holding it). When it
 * holds none, the command refuses, naming the folder, and creates nothing: run without the server's DATA_DIR it would
 * otherwise create a new, empty database in ./data and report success against that one. `--create` creates a new
 * database there on purpose. One process at a time may open a PGlite folder (db/dataDirLock.ts): when no process
 * holds DATA_DIR the command opens it itself; when the server holds it, the command is sent to that server (POST
 * /api/operator/cli on 127.0.0.1 with the secret in DATA_DIR/operator.json: operatorEndpoint.ts), which runs it and
 * sees the change at once; when another command holds it, or the server does not answer, nothing is changed and the
 * command exits 2 naming the holder. Every change is written to the operators' audit log as "cli (<OS user>)".
 * Exit codes: 0 done, 1 the command failed (the message names the field), 2 usage, a data folder it cannot reach, or
 * one that holds no database (without --create).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { DataDirLocked, openDatabase, type Database } from './db/client.ts';
import { openTransport } from './mail/transport.ts';
import { COMMANDS, runCommand, USAGE, type CommandArgs } from './core/operator/commands.ts';
import { readOperatorEndpoint } from './operatorEndpoint.ts';

/** The usage: every command's line, then the options every command takes. */
const HELP = `${USAGE}

Every command uses the server's database: run it with the server's DATABASE_URL, or on the embedded database with the
server's DATA_DIR (default ./data, relative to the current folder). A DATA_DIR that holds no database is refused.
  --create   create a new embedded database in DATA_DIR when it holds none (on purpose: the server does not use it
             unless it is started with the same DATA_DIR)`;

const [command, ...rest] = process.argv.slice(2);
let values: CommandArgs;
let create = false;
try {
  ({ create = false, ...values } = parseArgs({
    args: rest,
    options: {
      company: { type: 'string' },
      project: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      reason: { type: 'string' },
      limit: { type: 'string' },
      activated: { type: 'boolean' },
      create: { type: 'boolean' },
    },
  }).values);
} catch (err) {
  console.error(`${(err as Error).message}\n${HELP}`);
  process.exit(2);
}
if (!command || !(command in COMMANDS)) {
  console.error(HELP);
  process.exit(2);
}
const actor = `cli (${os.userInfo().username})`;
const config = loadConfig();

/** finish prints a command's output (to stderr when it failed) and exits with its code. */
function finish(result: { code: number; output: string }): never {
  if (result.output) (result.code ? console.error : console.log)(result.output);
  process.exit(result.code);
}

/**
 * hasDatabase tells whether `dataDir` holds an embedded database: PGlite's folder with its PG_VERSION (what PGlite
 * checks before it runs initdb), or the folder's lock (db/dataDirLock.ts: a process, e.g. a starting server, holds it).
 */
function hasDatabase(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'pglite', 'PG_VERSION')) || existsSync(path.join(dataDir, 'pglite.lock'));
}

if (!config.databaseUrl && !create && !hasDatabase(config.dataDir)) {
  console.error(
    [
      `No Mailwright database was found in ${config.dataDir}. Nothing was changed and nothing was created.`,
      `Run the command against the server's database: set DATA_DIR to the server's data folder (or DATABASE_URL to its`,
      `PostgreSQL database), e.g. DATA_DIR=/path/to/the/server/data npm run admin -- ${command} ...`,
      `To create a new database in ${config.dataDir} on purpose, pass --create.`,
    ].join('\n'),
  );
  process.exit(2);
}

let database: Database;
try {
  database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lockHolder: `admin ${command}` });
} catch (err) {
  if (!(err instanceof DataDirLocked)) throw err;
  // The server holds the PGlite folder: hand it the command (it runs it and sees the change at once).
  const endpoint = err.holder.command === 'server' ? readOperatorEndpoint(config.dataDir) : undefined;
  if (!endpoint) {
    console.error(err.message);
    process.exit(2);
  }
  let res: Response;
  try {
    res = await fetch(`${endpoint.url}/api/operator/cli`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-operator-secret': endpoint.secret },
      body: JSON.stringify({ command, args: values, actor }),
    });
  } catch (e) {
    console.error(
      `The server (pid ${endpoint.pid}) holds ${config.dataDir} but did not answer at ${endpoint.url}: ${(e as Error).message}. Nothing was changed.`,
    );
    process.exit(2);
  }
  const body = (await res.json().catch(() => ({}))) as { code?: number; output?: string; errors?: string[] };
  if (!res.ok) {
    console.error(`The server at ${endpoint.url} refused the command (${res.status}): ${(body.errors ?? []).join('; ')}. Nothing was changed.`);
    process.exit(2);
  }
  finish({ code: body.code ?? 1, output: body.output ?? '' });
}
const transport = openTransport(config.smtpUrl);
let result: { code: number; output: string };
try {
  result = await runCommand({ config, database, transport }, command, values, actor);
} catch (err) {
  result = { code: 1, output: (err as Error).message };
} finally {
  await transport.close();
  await database.close();
}
finish(result!);
