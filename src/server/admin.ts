/**
 * Operator commands (`npm run admin -- <command>`):
 *   create-account --company NAME --project NAME --email EMAIL --password PASSWORD [--activated]
 *       creates a company, project (in the sandbox unless --activated) and first admin; prints the project's api key.
 *   activate --project NAME [--company NAME]
 *       takes the project out of the sandbox (spec part 1 §1 sandbox activation).
 *   verify-persona --email EMAIL [--project NAME]
 *       confirms sender personas with this address as the operator (e.g. when SMTP_URL is unset, so no verification
 *       email can reach them; issue 4 §4).
 *   contact-messages [--limit N]
 *       prints the newest messages from the public contact form (default 20).
 *   reset-demo
 *       puts the shared demo account back to its known contents now (the server also does it on DEMO_RESET_CRON).
 *   rebuild-reports [--project NAME]
 *       recomputes the report aggregates of one project (or all) from the raw events (docs/architecture.md §14); event
 *       writes wait meanwhile. Reports never need it in normal operation: it is for an operator who edited events by hand.
 * Uses the same DATABASE_URL / DATA_DIR as the server. One process at a time may open an embedded (PGlite) database:
 * against the PGlite folder of a running server (or of another command) a command changes nothing, prints who holds
 * it and exits with code 2 (db/dataDirLock.ts); stop the server first, or run both on PostgreSQL (DATABASE_URL).
 * A lock left by a server that was killed is taken over at once. Exit codes: 0 done, 1 the command failed, 2 usage or
 * a locked data folder.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { DataDirLocked, openDatabase, type Database } from './db/client.ts';
import { desc } from 'drizzle-orm';
import { activateProject, createAccount } from './core/accounts/index.ts';
import { resetDemoAccount } from './core/accounts/demo.ts';
import { verifyPersonasByEmail } from './core/personas/verification.ts';
import type { QueryFn } from './db/client.ts';
import { contactMessages } from './db/schema.ts';
import { HttpError } from './errors.ts';

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    company: { type: 'string' },
    project: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    limit: { type: 'string', default: '20' },
    activated: { type: 'boolean', default: false },
  },
});

const USAGE =
  'usage: npm run admin -- create-account --company NAME --project NAME --email EMAIL --password PASSWORD [--activated]\n' +
  '       npm run admin -- activate --project NAME [--company NAME]\n' +
  '       npm run admin -- verify-persona --email EMAIL [--project NAME]\n' +
  '       npm run admin -- contact-messages [--limit N]\n' +
  '       npm run admin -- reset-demo\n' +
  '       npm run admin -- rebuild-reports [--project NAME]';
const COMMANDS = ['create-account', 'activate', 'verify-persona', 'contact-messages', 'reset-demo', 'rebuild-reports'];
if (!COMMANDS.includes(command)) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfig();
let database: Database;
try {
  database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, lockHolder: `admin ${command}` });
} catch (err) {
  if (!(err instanceof DataDirLocked)) throw err;
  console.error(err.message);
  process.exit(2);
}
let code = 0;
try {
  if (command === 'create-account') {
    const { apiKey } = await createAccount(database.db, {
      company: values.company ?? '',
      project: values.project ?? '',
      email: values.email ?? '',
      password: values.password ?? '',
      firstName: values['first-name'],
      lastName: values['last-name'],
      activated: values.activated,
    });
    console.log(`Created ${values.company} / ${values.project} (${values.activated ? 'activated' : 'in the sandbox'}), admin ${values.email}`);
    console.log(`api key: ${apiKey}`);
  } else if (command === 'activate') {
    if (!values.project) throw new HttpError(400, ['project: Required field']);
    const n = await activateProject(database.db, values.project, values.company);
    if (!n) throw new HttpError(404, [`project: no project named ${values.project}`]);
    console.log(`Activated ${n} project(s) named ${values.project}: they may now send to any recipient.`);
  } else if (command === 'verify-persona') {
    if (!values.email) throw new HttpError(400, ['email: Required field']);
    const n = await verifyPersonasByEmail(database.query.bind(database) as QueryFn, values.email, values.project);
    if (!n) throw new HttpError(404, [`email: no sender persona ${values.email}${values.project ? ` in project ${values.project}` : ''}`]);
    console.log(`Confirmed ${n} sender persona(s) ${values.email}: they may send now.`);
  } else if (command === 'contact-messages') {
    const rows = await database.db
      .select()
      .from(contactMessages)
      .orderBy(desc(contactMessages.createdAt))
      .limit(Math.max(1, Number(values.limit) || 20));
    for (const m of rows) console.log(`${m.createdAt.toISOString()}  ${m.email}${m.name ? ` (${m.name})` : ''}\n  ${m.details.replace(/\n/g, '\n  ')}\n`);
    if (!rows.length) console.log('No contact messages.');
  } else if (command === 'reset-demo') {
    await resetDemoAccount(database.db);
    console.log('The demo account is back to its known contents.');
  } else if (command === 'rebuild-reports') {
    // Project names are unique per company only: every project of that name is rebuilt.
    const projects = values.project ? await database.query<{ id: string | null }>('SELECT id FROM projects WHERE name = $1', [values.project]) : [{ id: null }];
    if (!projects.length) throw new HttpError(404, [`project: no project named ${values.project}`]);
    const started = Date.now();
    for (const project of projects) await database.query('SELECT report_rebuild($1::uuid)', [project.id]);
    console.log(
      `Rebuilt the report aggregates of ${values.project ?? 'every project'} from the raw events in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
  }
} catch (err) {
  console.error(err instanceof HttpError ? err.errors.join('\n') : (err as Error).message);
  code = 1;
} finally {
  await database.close();
}
process.exit(code);
