/**
 * The data directory lock (dataDirLock.ts): taken by creating DIR.lock, refused while a live process
 * holds it (another process, this process or another of its threads, or one on another host), taken over at once
 * when its holder is dead (killed with SIGKILL, or a pid reused by another process), or when the file is not a lock;
 * released by release() and by the process's exit; and of several processes breaking one stale lock at the same
 * moment, exactly one wins.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DataDirLocked, lockDataDir, type DataDirLock, type LockHolder } from './dataDirLock.ts';

/** slowReads: a file whose next read (by dataDirLock.ts) is answered `ms` late, with what it held when it was read. */
const slowReads = vi.hoisted(() => new Map<string, number>());
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const readFile = (async (file: string, ...rest: unknown[]) => {
    const text = await (fs.readFile as (...a: unknown[]) => Promise<unknown>)(file, ...rest);
    const ms = slowReads.get(String(file));
    if (ms !== undefined) {
      slowReads.delete(String(file));
      await new Promise((r) => setTimeout(r, ms));
    }
    return text;
  }) as typeof fs.readFile;
  return { ...fs, default: { ...fs, readFile }, readFile };
});

const MODULE = path.join(import.meta.dirname, 'dataDirLock.ts');
const children: ChildProcess[] = [];
const locks: DataDirLock[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const l of locks.splice(0)) await l.release();
});

/** newDir returns a directory path to lock (not created: the lock file lives beside it) in a new temp folder. */
async function newDir(): Promise<string> {
  return path.join(await mkdtemp(path.join(os.tmpdir(), 'mw-lock-')), 'pglite');
}

/** take locks `dir` in this process and remembers the lock for afterEach. */
async function take(dir: string, command = 'test'): Promise<DataDirLock> {
  const lock = await lockDataDir(dir, command);
  locks.push(lock);
  return lock;
}

/**
 * child starts a Node process that waits for 'go' on stdin (unless `go` is false: at once), tries to lock `dir` as
 * `command`, prints 'locked' or 'refused <message>', then runs `then` ('hold': until killed; 'exit': process.exit(3)).
 * Resolves once it is ready; `result` resolves with the line it printed.
 */
async function child(dir: string, command: string, then: 'hold' | 'exit', go = false): Promise<{ proc: ChildProcess; result: Promise<string>; go(): void }> {
  const script = `
    import { createInterface } from 'node:readline';
    import { lockDataDir } from ${JSON.stringify(MODULE)};
    const lines = createInterface({ input: process.stdin });
    console.log('ready');
    if (${go}) await new Promise((resolve) => lines.once('line', resolve));
    try {
      await lockDataDir(${JSON.stringify(dir)}, ${JSON.stringify(command)});
      console.log('locked');
    } catch (err) {
      console.log('refused ' + err.message);
    }
    if (${JSON.stringify(then)} === 'exit') process.exit(3);
    setInterval(() => {}, 60_000);`;
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(proc);
  const lines = createInterface({ input: proc.stdout! });
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  lines.on('line', (l) => {
    seen.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const nth = (n: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () =>
        seen.length > n ? resolve(seen[n]) : proc.exitCode !== null ? reject(new Error(`child exited ${proc.exitCode}`)) : waiters.push(check);
      check();
    });
  await nth(0);
  return { proc, result: nth(1), go: () => proc.stdin!.write('go\n') };
}

/** exited resolves when `proc` has exited (and been reaped). */
function exited(proc: ChildProcess): Promise<void> {
  return proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** holderFile writes a lock file for `dir` as a process with `pid` would (fields overridable). */
async function holderFile(dir: string, pid: number, fields: Partial<LockHolder> = {}): Promise<void> {
  const holder: LockHolder = { pid, hostname: os.hostname(), startedAt: new Date().toISOString(), command: 'server', nonce: 'n0', ...fields };
  await writeFile(`${dir}.lock`, JSON.stringify(holder));
}

/** deadPid returns the pid of a process that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '']);
  await exited(p);
  return p.pid!;
}

describe('lockDataDir', () => {
  it('creates DIR.lock naming this process, and release removes it', async () => {
    const dir = await newDir();
    const lock = await lockDataDir(dir, 'admin create-account');
    expect(lock.path).toBe(`${dir}.lock`);
    const holder = JSON.parse(await readFile(lock.path, 'utf8')) as LockHolder;
    expect(holder).toMatchObject({ pid: process.pid, hostname: os.hostname(), command: 'admin create-account' });
    expect(Date.parse(holder.startedAt)).toBeLessThanOrEqual(Date.now());
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
    await lock.release(); // a second release is harmless
    expect(readdirSync(path.dirname(dir))).toEqual([]); // no temporary or takeover file left behind
    locks.push(await lockDataDir(dir, 'again')); // and the directory can be locked again
  });

  it('refuses a second lock in the same process (two PGlites on one folder are two writers even in one process)', async () => {
    const dir = await newDir();
    await take(dir, 'server');
    const err = await lockDataDir(dir, 'admin activate').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLocked);
    expect((err as Error).message).toContain(`this process (server, pid ${process.pid})`);
  });

  it('refuses a directory held by a live process, naming it, and takes it over at once after that process is killed', async () => {
    const dir = await newDir();
    const holder = await child(dir, 'server', 'hold');
    expect(await holder.result).toBe('locked');
    const err = await lockDataDir(dir, 'admin create-account').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLocked);
    expect((err as DataDirLocked).holder.pid).toBe(holder.proc.pid);
    expect((err as Error).message).toMatch(
      new RegExp(
        `in use by the server \\(pid ${holder.proc.pid} on .*stop the server first, or run the server and operator commands on PostgreSQL with DATABASE_URL`,
      ),
    );
    holder.proc.kill('SIGKILL');
    await exited(holder.proc);
    const lock = await take(dir, 'admin create-account');
    expect((JSON.parse(await readFile(lock.path, 'utf8')) as LockHolder).pid).toBe(process.pid);
  });

  it('is released when its process exits (process.exit)', async () => {
    const dir = await newDir();
    const c = await child(dir, 'admin reset-demo', 'exit');
    expect(await c.result).toBe('locked');
    await exited(c.proc);
    expect(c.proc.exitCode).toBe(3);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('takes over the lock of a process that no longer runs', async () => {
    const dir = await newDir();
    await holderFile(dir, await deadPid());
    await take(dir);
  });

  it("takes over a lock that bears this process's pid but was not taken by it (a restarted container reuses pids)", async () => {
    const dir = await newDir();
    await holderFile(dir, process.pid, { nonce: 'left-by-an-earlier-process' });
    await take(dir);
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    "refuses a lock that bears this process's pid and start time (another thread of this process took it)",
    async () => {
      const dir = await newDir();
      const stat = await readFile('/proc/self/stat', 'utf8');
      const procStart = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; // field 22: start time after boot
      await holderFile(dir, process.pid, { nonce: 'taken-by-another-thread', procStart });
      await expect(lockDataDir(dir, 'test')).rejects.toThrow(/in use by this process/);
    },
  );

  it.skipIf(!existsSync('/proc/self/stat'))('takes over the lock of a pid that now belongs to another process (Linux: start times differ)', async () => {
    const dir = await newDir();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)']);
    children.push(other);
    await holderFile(dir, other.pid!, { procStart: '1' });
    await take(dir);
  });

  it('takes over a file that is not a lock (garbage, empty)', async () => {
    const dir = await newDir();
    await writeFile(`${dir}.lock`, '12345 not json');
    const lock = await take(dir);
    await lock.release();
    await writeFile(`${dir}.lock`, '');
    await take(dir);
  });

  it('refuses a lock written on another host, saying which file to delete once its holder is gone', async () => {
    const dir = await newDir();
    await holderFile(dir, await deadPid(), { hostname: `not-${os.hostname()}` });
    await expect(lockDataDir(dir, 'server')).rejects.toThrow(new RegExp(`on not-.*delete ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.lock`));
  });

  it('lets exactly one of several processes breaking the same stale lock at the same moment win', async () => {
    const dir = await newDir();
    await holderFile(dir, await deadPid());
    const racers = await Promise.all([1, 2, 3].map((i) => child(dir, `racer ${i}`, 'hold', true)));
    for (const r of racers) r.go();
    const results = await Promise.all(racers.map((r) => r.result));
    expect(results.filter((r) => r === 'locked')).toHaveLength(1);
    expect(results.filter((r) => r.startsWith('refused The embedded database'))).toHaveLength(2);
    expect(readdirSync(path.dirname(dir)).sort()).toEqual(['pglite.lock']);
  }, 30_000);

  it('does not remove a lock that replaced the stale one it judged (one attempt is slow between judging and taking over)', async () => {
    const dir = await newDir();
    await holderFile(dir, await deadPid());
    // Whichever attempt reads the stale lock first sees it but goes on 300 ms later; the other takes the lock
    // meanwhile. (Which one reads first is up to the file system, so the test names them only by outcome.)
    slowReads.set(`${dir}.lock`, 300);
    const commands = ['first', 'second'];
    const results = await Promise.allSettled(commands.map((c) => lockDataDir(dir, c)));
    for (const r of results) if (r.status === 'fulfilled') locks.push(r.value);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(refused.reason).toBeInstanceOf(DataDirLocked);
    const winner = commands[results.findIndex((r) => r.status === 'fulfilled')];
    expect((JSON.parse(await readFile(`${dir}.lock`, 'utf8')) as LockHolder).command).toBe(winner);
  });

  it('removes a takeover file left by a process that died while taking over', async () => {
    const dir = await newDir();
    const dead = await deadPid();
    await holderFile(dir, dead);
    await writeFile(`${dir}.lock.takeover`, JSON.stringify({ pid: dead, hostname: os.hostname(), startedAt: '', command: 'server', nonce: 'n1' }));
    await take(dir);
    expect(readdirSync(path.dirname(dir))).toEqual(['pglite.lock']);
  });

  it('lets exactly one of several concurrent attempts in one process win over a stale lock', async () => {
    const dir = await newDir();
    await holderFile(dir, await deadPid());
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => lockDataDir(dir, 'test')));
    for (const r of results) if (r.status === 'fulfilled') locks.push(r.value);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DataDirLocked);
  });
});
