/**
 * A real SpamAssassin daemon for tests: Debian's spamd (scripts/ensure-test-tools.sh installs it) on a free port of
 * 127.0.0.1 with the rules Debian ships in /usr/share/spamassassin, offline: `--local` (-L) runs no network tests
 * (no DNS blocklists, Razor, Pyzor), and no user preferences are read. Runs as nobody when the tests run as root
 * (spamd refuses to scan as root).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from './processes.ts';

/** The spamd binary; the test that needs it is skipped when it is absent. */
export const SPAMD = '/usr/sbin/spamd';

/** A running spamd: its SPAMD_URL parts and how to stop it. */
export interface TestSpamd {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** listening resolves once something accepts connections on 127.0.0.1:port; rejects after `ms`. */
async function listening(port: number, ms: number, child: ChildProcess, log: () => string): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`spamd exited (${child.exitCode}): ${log().slice(-2000)}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`spamd did not listen on ${port} within ${ms} ms: ${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** startSpamd starts spamd on a free port and waits (up to 60 s: it compiles its rules first) until it listens; undefined when spamd is not installed. */
export async function startSpamd(): Promise<TestSpamd | undefined> {
  if (!existsSync(SPAMD)) return undefined;
  const port = await freePort();
  const args = ['--port', String(port), '--listen', '127.0.0.1', '--allowed-ips', '127.0.0.1', '--local', '--nouser-config', '--syslog', 'stderr'];
  args.push('--min-children', '1', '--max-children', '2');
  if (process.getuid?.() === 0) args.push('--username', 'nobody');
  const child = spawn(SPAMD, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await listening(port, 60_000, child, () => output);
  return {
    host: '127.0.0.1',
    port,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
