/**
 * dataDirLock: one process at a time in an embedded (PGlite) data directory, the way PostgreSQL's postmaster.pid works.
 *
 * PGlite takes no lock of its own: a second process that opens the same folder (the operator CLI next to a running
 * server) reads and writes it as if alone, and whichever closes last overwrites the other's changes.
 * So whoever opens the directory `dir` first creates the file `dir.lock` beside it (DATA_DIR/pglite.lock; outside
 * the PGlite folder, so PGlite never sees it), holding the holder's pid, host name, process start time and command.
 * The file is created whole and atomically (written to a temporary file, then hard-linked to its name, which fails
 * when the name exists), so nobody ever reads a half-written lock. When the file exists its holder is judged:
 * - a process that still runs on this host (`kill(pid, 0)` succeeds or answers EPERM; on Linux its start time in
 *   /proc/PID/stat must also match, so a pid reused after a crash or a reboot does not count, nor does a zombie) holds
 *   it: opening fails with DataDirLocked. So does a lock of this very process (a second open in one process would
 *   be the same two writers) and a lock written on another host (it cannot be checked from here; the message says
 *   which file to delete once that process is known to be gone);
 * - a holder that no longer runs (ESRCH; typically a server killed with SIGKILL, which cannot clean up), a lock of
 *   this process's pid that no thread of this process took (a restarted container reuses pids), or a file that is not a
 *   lock at all (after a re-read 200 ms later, in case a filesystem without hard links made us write it in place) is
 *   stale: it is replaced at once. Two processes breaking the same stale lock take turns through a second, short-lived
 *   file `dir.lock.takeover` (created the same way), and each removes the stale lock only if it still reads exactly
 *   as it did when judged, so one of them wins and the other then finds a live holder.
 * The lock is released (its file removed, only while it is still ours) by release(), and by a handler on the
 * process's 'exit' event for locks still held then (process.exit, the end of the event loop, an uncaught error).
 * Signals that kill the process without 'exit' (SIGKILL; SIGINT/SIGTERM without a handler) leave the file behind,
 * which is what the liveness check is for.
 *
 * Why not a library from the registry: proper-lockfile (the common one) judges staleness by the lock's mtime, which
 * its holder refreshes on a timer. After a SIGKILL the next process must wait out the stale period (at least 2 s, 10 s
 * by default), and a holder whose event loop stalls longer than that period silently loses its lock to another
 * process: for a database that is two writers again. It also records nobody to name in the error. npid writes a pid
 * file but has no stale detection at all (only "force"). Liveness of the recorded pid frees a killed holder's lock at
 * once and never a live one's.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';

/** The contents of a lock file: who holds the directory. */
export interface LockHolder {
  /** The holder's process id. */
  pid: number;
  /** os.hostname() of the holder's machine. */
  hostname: string;
  /** When the holding process started (ISO 8601, UTC). */
  startedAt: string;
  /** Linux only: the process's start time in clock ticks after boot (/proc/PID/stat field 22), to tell a reused pid. */
  procStart?: string;
  /** What the holder is, e.g. 'server' or 'admin create-account'. */
  command: string;
  /** A random id of this one lock, so that a process tells its own lock from a stale one that bears its pid. */
  nonce: string;
}

/** DataDirLocked: the directory is held by another process (or by this one already). `holder` says who. */
export class DataDirLocked extends Error {
  readonly lockPath: string;
  readonly holder: LockHolder;
  constructor(dir: string, lockPath: string, holder: LockHolder, where: 'this process' | 'running' | 'elsewhere') {
    const since = `since ${holder.startedAt}`;
    const who =
      where === 'this process'
        ? `this process (${holder.command}, pid ${holder.pid})`
        : `${holder.command === 'server' ? 'the server' : `\`${holder.command}\``} (pid ${holder.pid} on ${holder.hostname}, ${since})`;
    const check =
      where === 'elsewhere' ? ` That host's processes cannot be checked from ${os.hostname()}: once that process is known to be gone, delete ${lockPath}.` : '';
    super(
      `The embedded database in ${dir} is in use by ${who}.${check} One process at a time may open an embedded (PGlite) ` +
        `database: stop ${holder.command === 'server' ? 'the server' : 'that process'} first, or run the server and operator ` +
        'commands on PostgreSQL with DATABASE_URL.',
    );
    this.name = 'DataDirLocked';
    this.lockPath = lockPath;
    this.holder = holder;
  }
}

/** A held lock on a directory. */
export interface DataDirLock {
  /** The lock file: `dir` + '.lock'. */
  readonly path: string;
  readonly holder: LockHolder;
  /** release removes the lock file if it is still this lock's (idempotent; never throws for a file already gone). */
  release(): Promise<void>;
  /** releaseSync is release for places that cannot wait (the process's 'exit' event). */
  releaseSync(): void;
}

/** Nonces of the locks this process holds or is taking: a lock file with our pid and one of these is ours. */
const ownNonces = new Set<string>();
/** Locks to release when the process exits. */
const held = new Set<DataDirLock>();
let exitHandlerInstalled = false;

/** GARBAGE_RECHECK_MS: how long a lock file that is not a lock gets to become one before it counts as stale. */
const GARBAGE_RECHECK_MS = 200;
/** TAKEOVER_WAIT_MS: how long to wait for another process's takeover of a stale lock (it takes milliseconds). */
const TAKEOVER_WAIT_MS = 5000;

/**
 * lockDataDir takes the exclusive lock on directory `dir` (an absolute path; its parent must exist) for this process,
 * naming it `command` (e.g. 'server', 'admin create-account'; shown to whoever is refused). Resolves with the held
 * lock; a stale lock (its holder no longer runs, or the file is not a lock) is replaced. Throws DataDirLocked when a
 * live process holds it (this one included, and any process on another host), and the filesystem's error when the
 * lock file cannot be written.
 */
export async function lockDataDir(dir: string, command: string): Promise<DataDirLock> {
  const lockPath = `${dir}.lock`;
  const me: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    procStart: procStat(process.pid)?.start,
    command,
    nonce: randomBytes(12).toString('hex'),
  };
  const body = `${JSON.stringify(me)}\n`;
  ownNonces.add(me.nonce);
  try {
    for (let attempt = 1; !(await createWhole(lockPath, body, me.nonce)); attempt++) {
      if (attempt >= 10) throw new Error(`could not lock ${dir}: ${lockPath} kept changing`);
      const found = await judge(lockPath);
      if (found.state === 'gone') continue; // released meanwhile: try again
      if (found.state === 'held') throw new DataDirLocked(dir, lockPath, found.holder, found.where);
      // Stale: remove it, one process at a time, and only as judged (another may have replaced it meanwhile).
      await withTakeover(lockPath, body, me.nonce, async () => {
        if ((await readText(lockPath)) === found.raw) await unlinkIfThere(lockPath);
      });
    }
  } catch (err) {
    ownNonces.delete(me.nonce);
    throw err;
  }
  let released = false;
  const lock: DataDirLock = {
    path: lockPath,
    holder: me,
    async release() {
      if (released) return;
      released = true;
      held.delete(lock);
      try {
        if ((await readText(lockPath)) === body) await unlinkIfThere(lockPath);
      } finally {
        ownNonces.delete(me.nonce);
      }
    },
    releaseSync() {
      if (released) return;
      released = true;
      held.delete(lock);
      try {
        if (readFileSync(lockPath, 'utf8') === body) unlinkSync(lockPath);
      } catch {
        /* already gone, or unreadable: nothing of ours to remove */
      }
      ownNonces.delete(me.nonce);
    },
  };
  held.add(lock);
  if (!exitHandlerInstalled) {
    exitHandlerInstalled = true;
    process.on('exit', () => {
      for (const l of [...held]) l.releaseSync();
    });
  }
  return lock;
}

type Judgement = { state: 'gone' } | { state: 'held'; holder: LockHolder; where: 'this process' | 'running' | 'elsewhere' } | { state: 'stale'; raw: string };

/** judge reads the lock file at `file` and tells whether it is gone, held (by whom) or stale (with the text judged). */
async function judge(file: string): Promise<Judgement> {
  let raw = await readText(file);
  if (raw === undefined) return { state: 'gone' };
  let holder = parseHolder(raw);
  if (!holder) {
    // Not a lock (yet?): a writer without hard links writes in place; give it a moment before calling it garbage.
    await new Promise((r) => setTimeout(r, GARBAGE_RECHECK_MS));
    const again = await readText(file);
    if (again === undefined) return { state: 'gone' };
    if (again !== raw) {
      raw = again;
      holder = parseHolder(raw);
    }
    if (!holder) return { state: 'stale', raw };
  }
  if (holder.hostname !== os.hostname()) return { state: 'held', holder, where: 'elsewhere' };
  if (holder.pid === process.pid) {
    // Ours when we took it, or (Linux) when it bears this process's start time: another thread of this process took
    // it. Otherwise an earlier process with this pid left it (a restarted container reuses pids).
    const ours = ownNonces.has(holder.nonce) || (!!holder.procStart && holder.procStart === procStat(process.pid)?.start);
    return ours ? { state: 'held', holder, where: 'this process' } : { state: 'stale', raw };
  }
  return isRunning(holder) ? { state: 'held', holder, where: 'running' } : { state: 'stale', raw };
}

/** isRunning tells whether the holder's process still runs on this host (and is the same process, where Linux says). */
function isRunning(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: it runs, as another user. Anything else: cannot tell, so it counts as running.
  }
  const stat = procStat(holder.pid);
  if (!stat) return true; // no /proc (not Linux) or not readable: the pid's liveness is all there is
  if (stat.state === 'Z' || stat.state === 'X') return false; // exited, not yet reaped by its parent
  return !holder.procStart || stat.start === holder.procStart;
}

/** procStat reads a process's state letter and start time (clock ticks after boot) from /proc; undefined when it cannot. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are counted after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const [state, start] = [fields[0], fields[19]];
    return state && start && /^\d+$/.test(start) ? { state, start } : undefined;
  } catch {
    return undefined;
  }
}

/** parseHolder reads a lock file's text; undefined when it is not a lock. */
function parseHolder(raw: string): LockHolder | undefined {
  try {
    const h = JSON.parse(raw) as Partial<LockHolder>;
    if (
      !h ||
      typeof h !== 'object' ||
      !Number.isSafeInteger(h.pid) ||
      (h.pid as number) <= 0 ||
      typeof h.hostname !== 'string' ||
      typeof h.nonce !== 'string' ||
      typeof h.command !== 'string'
    )
      return undefined;
    return {
      pid: h.pid as number,
      hostname: h.hostname,
      startedAt: String(h.startedAt ?? 'an unknown time'),
      procStart: typeof h.procStart === 'string' ? h.procStart : undefined,
      command: h.command,
      nonce: h.nonce,
    };
  } catch {
    return undefined;
  }
}

/**
 * createWhole creates `file` holding `body` only if no file has that name, never leaving it partly written: it writes
 * a temporary file and hard-links it to `file`. Where the filesystem has no hard links it creates `file` with
 * O_EXCL and writes it (judge() allows for that). Resolves true when created, false when `file` exists.
 */
async function createWhole(file: string, body: string, nonce: string): Promise<boolean> {
  const tmp = `${file}.${process.pid}.${nonce}.tmp`;
  await writeFile(tmp, body, { flag: 'wx' });
  try {
    await link(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw err;
  } finally {
    await unlinkIfThere(tmp);
  }
  try {
    await writeFile(file, body, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * withTakeover runs `fn` while holding `lockFile`.takeover, so that two processes do not both break the same stale
 * lock (each would remove the other's new one). A takeover file whose holder no longer runs is removed like a stale
 * lock (the one race left: two processes removing the same dead takeover file at the same moment, after a process
 * died within the milliseconds it holds one). Throws when a live process holds it for more than TAKEOVER_WAIT_MS.
 */
async function withTakeover(lockFile: string, body: string, nonce: string, fn: () => Promise<void>): Promise<void> {
  const mutex = `${lockFile}.takeover`;
  const end = Date.now() + TAKEOVER_WAIT_MS;
  while (!(await createWhole(mutex, body, nonce))) {
    const found = await judge(mutex);
    if (found.state === 'stale') {
      if ((await readText(mutex)) === found.raw) await unlinkIfThere(mutex);
    } else if (found.state === 'held') {
      if (Date.now() > end) throw new Error(`${mutex} has been held by pid ${found.holder.pid} for over ${TAKEOVER_WAIT_MS} ms; try again`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  try {
    await fn();
  } finally {
    await unlinkIfThere(mutex);
  }
}

/** readText reads a file as UTF-8; undefined when it does not exist. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** unlinkIfThere removes a file; one already gone is fine. */
async function unlinkIfThere(file: string): Promise<void> {
  await unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
