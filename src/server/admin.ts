/**
 * Operator commands (`npm run admin -- <command>`; the commands and their usage: core/operator/commands.ts):
 * create-account, activate, sandbox, suspend, resume, verify-persona, create-operator, contact-messages, reset-demo,
 * rebuild-reports. Projects are named by id, by an admin's email (--email) or by name (--project NAME [--company
 * NAME]); a name that matches more than one project is refused with the list of matches.
 *
 * Uses the same DATABASE_URL / DATA_DIR as the server. On PostgreSQL the command runs over its own connection. On the
 * embedded PGlite database, which one process at a time may open (db/dataDirLock.ts): when no process holds DATA_DIR
 * the command opens it itself; when the server holds it, the command is sent to that server (POST /api/operator/cli
 * on 127.0.0.1 with the secret in DATA_DIR/operator.json: operatorEndpoint.ts), which runs it and sees the change at
 * once; when another command holds it, or the server does not answer, nothing is changed and the command exits 2
 * naming the holder. Every change is written to the operators' audit log as "cli (<OS user>)".
 * Exit codes: 0 done, 1 the command failed (the message names the field), 2 usage or a data folder it cannot reach.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { DataDirLocked, openDatabase, type Database } from './db/client.ts';
import { openTransport } from './mail/transport.ts';
import { COMMANDS, runCommand, USAGE, type CommandArgs } from './core/operator/commands.ts';
import { readOperatorEndpoint } from './operatorEndpoint.ts';

const [command, ...rest] = process.argv.slice(2);
let values: CommandArgs;
try {
  values = parseArgs({
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
    },
  }).values;
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (!command || !(command in COMMANDS)) {
  console.error(USAGE);
  process.exit(2);
}
const actor = `cli (${os.userInfo().username})`;
const config = loadConfig();

/** finish prints a command's output (to stderr when it failed) and exits with its code. */
function finish(result: { code: number; output: string }): never {
  if (result.output) (result.code ? console.error : console.log)(result.output);
  process.exit(result.code);
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
