/**
 * `npm run admin` on the embedded database refuses a DATA_DIR that holds no database unless given --create: run without
 * the server's DATA_DIR, a command would otherwise create a new, empty database in ./data and report success against
 * it. The refusal exits 2, names the folder it looked in (absolute) and creates nothing there; --create makes the
 * database on purpose; a folder the server has run in is used as before. Each command runs the real CLI as a child
 * process, on PGlite whatever API_DB says (DATABASE_URL emptied: PostgreSQL has no folder to check).
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTs, startServer } from '../helpers/processes.ts';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

/** tempDir makes an empty folder, removed after the file's tests. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `mw-${prefix}-`));
  temps.push(dir);
  return dir;
}

/** The environment of a command or server on the PGlite folder `dataDir`. */
const pgliteEnv = (dataDir: string): NodeJS.ProcessEnv => ({ DATA_DIR: dataDir, DATABASE_URL: '', WORKERS: 'off', LOG_LEVEL: 'error' });

const operator = (n: number) => ['create-operator', '--email', `ops${n}@datadir.example.com`, '--password', `operator-password-${n}`];
const admin = (args: string[], dataDir: string) => runTs('src/server/admin.ts', args, pgliteEnv(dataDir));

describe('admin commands and a DATA_DIR with no database', () => {
  it('refuses an empty DATA_DIR, naming the folder, and creates nothing there', async () => {
    const dir = await tempDir('admin-empty');
    const refused = admin(operator(1), dir);
    await expect(refused).rejects.toThrow(/exited 2: No Mailwright database was found in /);
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toContain(dir); // the absolute path it looked in
    expect(message).toMatch(/set DATA_DIR to the server's data folder \(or DATABASE_URL/);
    expect(message).toMatch(/pass --create/);
    expect(readdirSync(dir)).toEqual([]); // no pglite folder, no lock file

    // A DATA_DIR that does not exist is not made either (the default ./data is resolved the same way).
    const missing = path.join(dir, 'data');
    const again = await admin(operator(1), missing).then(
      () => 'exited 0',
      (e: Error) => e.message,
    );
    expect(again).toContain(`exited 2: No Mailwright database was found in ${missing}.`);
    expect(existsSync(missing)).toBe(false);
  }, 60_000);

  it('creates the database with --create, and uses it afterwards without', async () => {
    const dir = await tempDir('admin-create');
    expect(await admin([...operator(1), '--create'], dir)).toMatch(/Created operator ops1@datadir\.example\.com/);
    expect(existsSync(path.join(dir, 'pglite', 'PG_VERSION'))).toBe(true);
    expect(await admin(operator(2), dir)).toMatch(/Created operator ops2@datadir\.example\.com/);
  }, 120_000); // two commands, the first running initdb

  it('works as before in a folder the server has run in: while it runs (through it) and after it stopped', async () => {
    const dir = await tempDir('admin-server');
    const server = await startServer(pgliteEnv(dir));
    try {
      expect(await admin(operator(1), dir)).toMatch(/Created operator ops1@datadir\.example\.com/);
    } finally {
      await server.kill('SIGTERM');
    }
    expect(await admin(operator(2), dir)).toMatch(/Created operator ops2@datadir\.example\.com/);
  }, 180_000); // a server start and two commands, each a process
});
