/**
 * A real IMAP server for tests: Debian's dovecot-imapd (scripts/ensure-test-tools.sh installs it) started with a
 * temporary configuration on a free port of 127.0.0.1, one user with a plain password, Maildir storage in a temporary
 * folder, no TLS (loopback only). Runs as the current user (root: with Debian's dovecot and dovenull users).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync, chownSync, chmodSync, readFileSync, existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/** A running dovecot: its port, its one user's credentials, and how to stop it. */
export interface TestDovecot {
  port: number;
  user: string;
  password: string;
  /** The URL BOUNCE_MAILBOX_URL takes for the user's INBOX. */
  url: string;
  close(): Promise<void>;
}

const DOVECOT = '/usr/sbin/dovecot';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function answers(port: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('data', (d) => {
        c.destroy();
        resolve(d.toString().startsWith('* OK'));
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`dovecot did not answer on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** startDovecot starts dovecot in the foreground; throws when it is not installed or does not answer in 10 s. */
export async function startDovecot(): Promise<TestDovecot> {
  if (!existsSync(DOVECOT)) throw new Error('dovecot is not installed: run scripts/ensure-test-tools.sh (Debian dovecot-imapd)');
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-dovecot-'));
  // dovecot's auth and mail processes run as its own users: they must reach the folder (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  const port = await freePort();
  const me = userInfo();
  const root = me.uid === 0;
  const user = 'bounces';
  const password = 'mailbox-pass-1';
  for (const d of ['run', 'home', 'state']) mkdirSync(path.join(dir, d));
  // Mail is stored as the (unprivileged) dovecot user when running as root.
  const uid = root ? Number(execFileSync('id', ['-u', 'dovecot']).toString()) : me.uid;
  const gid = root ? Number(execFileSync('id', ['-g', 'dovecot']).toString()) : me.gid;
  chownSync(path.join(dir, 'home'), uid, gid);
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}\n`);
  const conf = path.join(dir, 'dovecot.conf');
  writeFileSync(
    conf,
    [
      `base_dir = ${dir}/run`,
      `state_dir = ${dir}/state`,
      `log_path = ${dir}/dovecot.log`,
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      `default_internal_user = ${root ? 'dovecot' : me.username}`,
      `default_login_user = ${root ? 'dovenull' : me.username}`,
      `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${dir}/users\n}`,
      `userdb {\n  driver = static\n  args = uid=${uid} gid=${gid} home=${dir}/home/%u\n}`,
      'mail_location = maildir:~/Maildir',
      `first_valid_uid = ${Math.min(uid, 100)}`,
      `first_valid_gid = ${Math.min(gid, 100)}`,
      `service imap-login {\n  inet_listener imap {\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
      'service stats {\n  unix_listener stats-reader {\n    mode = 0666\n  }\n  unix_listener stats-writer {\n    mode = 0666\n  }\n}',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  try {
    await answers(port, 10_000);
  } catch (err) {
    child.kill('SIGKILL');
    const log = existsSync(path.join(dir, 'dovecot.log')) ? readFileSync(path.join(dir, 'dovecot.log'), 'utf8') : '';
    throw new Error(`${(err as Error).message}\n${output}\n${log}`);
  }
  return {
    port,
    user,
    password,
    url: `imap://${user}:${password}@127.0.0.1:${port}/INBOX`,
    close: async () => {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
