/**
 * Configuration from the environment (README "Configuration"). Every variable has a default that runs the product on
 * one machine with no other service.
 */
import os from 'node:os';
import path from 'node:path';

export interface Config {
  /** HTTP port (PORT, default 8080). */
  port: number;
  /** Folder for PGlite and the default storage (DATA_DIR, default ./data). */
  dataDir: string;
  /** Public base URL used in gateway endpoints, tracking and unsubscribe links (PUBLIC_URL, default http://localhost:PORT). */
  publicUrl: string;
  /** PostgreSQL connection string (DATABASE_URL); unset means embedded PGlite in DATA_DIR. */
  databaseUrl?: string;
  /** SMTP relay URL for nodemailer (SMTP_URL, e.g. smtp://user:pass@host:587); unset means the local capture transport. */
  smtpUrl?: string;
  /** Storage for sent-email copies (STORAGE_URL, file:// or a path; default DATA_DIR/storage). */
  storageUrl: string;
  /** Run the workers in this process (WORKERS=on|off, default on). */
  workers: boolean;
  /** How long a sender's claim on a recipient row lasts before another worker may take it over (SEND_LEASE_MS, default 120000 ms). */
  sendLeaseMs: number;
  /** Sender poll interval when idle (SEND_POLL_MS, default 1000 ms). */
  sendPollMs: number;
  /** Emails in flight per sender (SEND_CONCURRENCY, default 128: rendered ahead while the SMTP pool drains; 32 left the main thread idle, see docs/architecture.md §4). */
  sendConcurrency: number;
  /** Threads that render emails (RENDER_THREADS, default cores − 1, at least 1, at most 4; 0 renders in-process). */
  renderThreads: number;
  /** Require a valid Amazon SNS signature on SES notifications (SNS_VERIFY=on|off, default on; issue 5). */
  snsVerify: boolean;
  /**
   * SNS topics whose messages are accepted (SNS_TOPIC_ARNS, comma-separated ARNs; empty accepts any topic). With it
   * set, a validly signed message from someone else's topic is refused even if they learn an integration key.
   */
  snsTopicArns: string[];
}

/** loadConfig reads the environment (process.env by default). Throws on a malformed number. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const num = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
    return n;
  };
  const port = num('PORT', 8080);
  const dataDir = path.resolve(env.DATA_DIR || './data');
  return {
    port,
    dataDir,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    storageUrl: env.STORAGE_URL || path.join(dataDir, 'storage'),
    workers: !/^(off|false|0|no)$/i.test(env.WORKERS ?? 'on'),
    sendLeaseMs: num('SEND_LEASE_MS', 120_000),
    sendPollMs: num('SEND_POLL_MS', 1000),
    sendConcurrency: Math.max(1, Math.floor(num('SEND_CONCURRENCY', 128))),
    renderThreads: Math.floor(num('RENDER_THREADS', Math.max(1, Math.min(4, os.availableParallelism() - 1)))),
    snsVerify: !/^(off|false|0|no)$/i.test(env.SNS_VERIFY ?? 'on'),
    snsTopicArns: (env.SNS_TOPIC_ARNS ?? '').split(',').map((a) => a.trim()).filter(Boolean),
  };
}
