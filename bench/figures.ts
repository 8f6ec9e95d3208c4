/**
 * Shared by the benchmarks: percentiles, a one-line description of the machine and PostgreSQL they ran on, and the SQL
 * pieces the data generators share.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../src/server/config.ts';
import type { Database } from '../src/server/db/client.ts';

/** quantile picks the value at rank ⌈q·n⌉ of ascending `sorted` (p95 of 20 runs is the 19th). */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/** machineFacts describes the machine, its load and the PostgreSQL settings that shape the plans, for the report. */
export async function machineFacts(database: Database): Promise<string> {
  const settings = await database.query<{ name: string; setting: string; unit: string | null }>(`SELECT name, setting, unit FROM pg_settings
    WHERE name IN ('shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'effective_cache_size', 'jit', 'random_page_cost')`);
  const [{ version }] = await database.query<{ version: string }>('SELECT version()');
  const show = (s: { name: string; setting: string; unit: string | null }) =>
    s.unit === '8kB'
      ? `${s.name}=${(Number(s.setting) * 8) / 1024} MB`
      : s.unit === 'kB'
        ? `${s.name}=${Number(s.setting) / 1024} MB`
        : `${s.name}=${s.setting}`;
  return `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, load average ${os.loadavg()[0].toFixed(2)}, Node ${process.version}; ${version.split(' on ')[0]}; ${settings.map(show).join(', ')}`;
}

/** unit is a uniform number in [0, 1) from a bigint SQL expression: the same every run. */
export const unit = (x: string) => `((hashint8(${x}) & 1048575) / 1048576.0)`;

/** emailOf is contact `k`'s email: about 30 % gmail.com, 15 % yahoo.com, 10 % hotmail.com, 10 % outlook.com, the rest 50 company domains. */
export const emailOf = (k: string) => `'user' || ${k} || '@' || (CASE WHEN ${k} % 100 < 30 THEN 'gmail.com' WHEN ${k} % 100 < 45 THEN 'yahoo.com'
  WHEN ${k} % 100 < 55 THEN 'hotmail.com' WHEN ${k} % 100 < 65 THEN 'outlook.com' ELSE 'company' || (${k} % 50) || '.example' END)`;

/**
 * addEstablishedDomain registers `domain` for project `projectId` as an established sender's would be: a fresh
 * RSA-2048 DKIM key (as addDomain makes one), DKIM, SPF and DMARC verified, and its warm-up a year behind it — written
 * directly, so no DNS check (which would find no records here and mark it Failed) ever runs. Returns the DKIM key.
 */
export async function addEstablishedDomain(
  database: Database,
  projectId: string,
  domain: string,
): Promise<{ domainName: string; keySelector: string; privateKey: string }> {
  const { generateKeyPairSync } = await import('node:crypto');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  await database.query(
    `INSERT INTO sending_domains (project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, dkim_status, spf_status, dmarc_status, warmup_started_on)
     VALUES ($1, $2, 'mw1', $3, $4, 'Success', 'Success', 'Success', current_date - 365)`,
    [projectId, domain, privateKey, Buffer.from(publicKey).toString('base64')],
  );
  return { domainName: domain, keySelector: 'mw1', privateKey };
}

/**
 * postgresCpu samples the CPU of every `postgres` process on this machine (Linux /proc; empty elsewhere): call it
 * before a measurement, and the function it returns after, for the CPU seconds spent since. Counted per process, so
 * a backend or autovacuum worker that ends in between takes its ticks with it (the figure is then a little low,
 * never negative). USER_HZ is 100.
 */
export function postgresCpu(): () => number {
  const ticks = () => {
    const byPid = new Map<string, number>();
    try {
      for (const pid of readdirSync('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
          const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          byPid.set(pid, Number(f[11]) + Number(f[12]));
        } catch {
          /* the process ended */
        }
      }
    } catch {
      /* not Linux */
    }
    return byPid;
  };
  const before = ticks();
  return () => {
    let sum = 0;
    for (const [pid, t] of ticks()) sum += t - (before.get(pid) ?? 0);
    return sum / 100;
  };
}

/**
 * benchConfig is the configuration a benchmark runs the product with in its own process: the environment's, over
 * the database the benchmark opened itself (no DATABASE_URL), a fresh data folder `prefix`-… for the stored copies,
 * the sink at `smtpUrl`, the sender polling every 100 ms, and no periodic domain check (no DNS here: it would find
 * no DKIM record and mark an established domain Failed mid-run). `overrides` last.
 */
export async function benchConfig(prefix: string, smtpUrl: string, overrides: Partial<Config> = {}): Promise<Config> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
  return {
    ...loadConfig(process.env),
    databaseUrl: undefined,
    dataDir,
    storageUrl: path.join(dataDir, 'storage'),
    smtpUrl,
    sendPollMs: 100,
    domainCheckCron: undefined,
    ...overrides,
  };
}

/** threadTicks reads each thread's user+system clock ticks (1/100 s) from /proc/self/task (Linux only; empty elsewhere). */
export function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks.set(tid, Number(f[11]) + Number(f[12]));
      } catch {
        /* the thread ended */
      }
    }
  } catch {
    /* not Linux */
  }
  return ticks;
}
