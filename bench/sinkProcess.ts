/**
 * The blast benchmark's SMTP sink in a process of its own, as a real relay would be: started by RemoteSink (below)
 * with fork; it reports its URL, then its accepted-message count whenever it changes (at most every 10 ms), and stops
 * on 'stop'. Run as a child only.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SmtpSink } from '../tests/helpers/smtpSink.ts';

/** RemoteSink runs an SmtpSink (count only) in a child process and mirrors its count here. */
export class RemoteSink {
  count = 0;
  private child?: ChildProcess;

  /** start forks the sink process and resolves its smtp:// URL. */
  async start(): Promise<string> {
    const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child = child;
    return await new Promise<string>((resolve, reject) => {
      child.on('message', (m: { url?: string; count?: number }) => {
        if (m.url) resolve(m.url);
        if (m.count !== undefined) this.count = m.count;
      });
      child.once('exit', (code) => reject(new Error(`the sink process exited (${code})`)));
    });
  }

  /** waitFor resolves once `predicate` holds (checked every 5 ms); rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`RemoteSink.waitFor timed out after ${timeoutMs} ms (${this.count} accepted)`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.send('stop');
    await exited;
  }
}

if (process.argv.includes('--child') && process.send) {
  const sink = new SmtpSink();
  sink.countOnly = true;
  const url = await sink.start();
  process.send({ url });
  let reported = 0;
  const timer = setInterval(() => {
    if (sink.count !== reported) {
      reported = sink.count;
      process.send!({ count: reported });
    }
  }, 10);
  process.on('message', async (m) => {
    if (m !== 'stop') return;
    clearInterval(timer);
    await sink.stop();
    process.exit(0);
  });
}
