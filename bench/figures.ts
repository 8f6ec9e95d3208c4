/** Shared by the benchmarks: percentiles and a one-line description of the machine and PostgreSQL they ran on. */
import os from 'node:os';
import type { Database } from '../src/server/db/client.ts';

/** quantile picks the value at rank ⌈q·n⌉ of ascending `sorted` (p95 of 20 runs is the 19th). */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/** machineFacts describes the machine, its load and the PostgreSQL settings that shape the plans, for the report. */
export async function machineFacts(database: Database): Promise<string> {
  const settings = await database.query<{ name: string; setting: string; unit: string | null }>(`SELECT name, setting, unit FROM pg_settings
    WHERE name IN ('shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'effective_cache_size', 'jit', 'random_page_cost')`);
  const [{ version }] = await database.query<{ version: string }>('SELECT version()');
  const show = (s: { name: string; setting: string; unit: string | null }) => s.unit === '8kB' ? `${s.name}=${Number(s.setting) * 8 / 1024} MB` : s.unit === 'kB' ? `${s.name}=${Number(s.setting) / 1024} MB` : `${s.name}=${s.setting}`;
  return `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, load average ${os.loadavg()[0].toFixed(2)}, Node ${process.version}; ${version.split(' on ')[0]}; ${settings.map(show).join(', ')}`;
}

