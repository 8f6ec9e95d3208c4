/**
 * `npm run bench` (contact import): rows/second of the contact file import job (src/server/core/contacts/import.ts:
 * stream, check every row, batch upsert) for a generated 1,000,000-row CSV and a 100,000-row XLSX written by openpyxl,
 * beside a raw `COPY … FROM STDIN (FORMAT csv)` of the same rows into a table shaped like contacts (same columns,
 * defaults and indexes) measured in the same run, the ratio (target ≥ 0.6 of COPY), and the import's peak resident
 * memory sampled every 20 ms (target < 400 MB). Prints figures; asserts nothing. BENCH_IMPORT_ROWS (default
 * 1000000), BENCH_XLSX_ROWS (100000), BENCH_DB (postgres | pglite; default postgres, the issue's target), BENCH_PG_URL.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { loadConfig, type Config } from '../src/server/config.ts';
import { openBenchDatabase } from './databases.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { CaptureTransport } from '../src/server/mail/transport.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { CONTACT_UPLOADS_BUCKET, MAX_CONTACT_FILE_BYTES, startContactImport } from '../src/server/core/contacts/upload.ts';
import { importContactFile } from '../src/server/core/contacts/import.ts';

const CSV_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const XLSX_ROWS = Number(process.env.BENCH_XLSX_ROWS ?? 100_000);
const KIND = (process.env.BENCH_DB ?? 'postgres') as 'postgres' | 'pglite';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Tokyo', 'Australia/Sydney', 'UTC'];
const HEADER = 'email,first_name,last_name,timezone,date_of_birth,json';

const row = (i: number, tag: string) => [
  `${tag}${i}@example${i % 97}.com`,
  `First${i}`,
  `Last${i}`,
  ZONES[i % ZONES.length],
  `19${50 + (i % 50)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
  `{"plan":"${i % 3 ? 'pro' : 'free'}","score":${i % 1000}}`,
];

/** writeCsv writes `n` contact rows (tagged so two files never share an email) and resolves the file's size in bytes. */
async function writeCsv(file: string, n: number, tag: string): Promise<number> {
  const out = createWriteStream(file);
  out.write(`${HEADER}\n`);
  for (let i = 0; i < n; i++) {
    const r = row(i, tag);
    r[5] = `"${r[5].replace(/"/g, '""')}"`;
    if (!out.write(`${r.join(',')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return (await stat(file)).size;
}

/** writeXlsxFile writes `n` rows with openpyxl in write-only mode (a real spreadsheet writer, not ours). */
function writeXlsxFile(file: string, n: number, tag: string): void {
  execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      `
import sys
from openpyxl import Workbook
n, tag, zones = int(sys.argv[2]), sys.argv[3], ${JSON.stringify(ZONES)}
wb = Workbook(write_only=True)
ws = wb.create_sheet('Contacts')
ws.append(${JSON.stringify(HEADER.split(','))})
for i in range(n):
    ws.append([f"{tag}{i}@example{i % 97}.com", f"First{i}", f"Last{i}", zones[i % len(zones)],
               f"19{50 + i % 50}-{1 + i % 12:02d}-{1 + i % 28:02d}", '{"plan":"%s","score":%d}' % ('pro' if i % 3 else 'free', i % 1000)])
wb.save(sys.argv[1])
`,
      file,
      String(n),
      tag,
    ],
    { stdio: 'inherit' },
  );
}

/**
 * rawCopy loads a CSV file with COPY FROM STDIN into a fresh table shaped like contacts and holding the same rows as
 * contacts held before the import being compared (all but the rows tagged `importedTag`; copied in first, untimed), so the COPY meets indexes of the size the import met; resolves rows/s.
 */
async function rawCopy(url: string, projectId: string, file: string, rows: number, importedTag: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const table = `copy_contacts_${Date.now()}`;
  await client.query(`CREATE TABLE ${table} (LIKE contacts INCLUDING DEFAULTS INCLUDING INDEXES)`);
  await client.query(`ALTER TABLE ${table} ALTER COLUMN project_id SET DEFAULT '${projectId}'`);
  await client.query(`INSERT INTO ${table} SELECT * FROM contacts WHERE email NOT LIKE $1`, [`${importedTag}%`]);
  const start = performance.now();
  await pipeline(
    createReadStream(file),
    client.query(copyFrom(`COPY ${table} (email, first_name, last_name, timezone, date_of_birth, json) FROM STDIN (FORMAT csv, HEADER true)`)),
  );
  const rate = rows / ((performance.now() - start) / 1000);
  await client.query(`DROP TABLE ${table}`);
  await client.end();
  return rate;
}

/** peakRss samples the process's resident memory every 20 ms while `work` runs; resolves [result, peak MB]. */
async function peakRss<T>(work: () => Promise<T>): Promise<[T, number]> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    return [await work(), peak / 1024 ** 2];
  } finally {
    clearInterval(timer);
  }
}

async function main() {
  const opened = await openBenchDatabase(KIND, PG_URL, 'import');
  if (!opened) return;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mw-import-bench-'));
  const config: Config = { ...loadConfig({}), dataDir: dir, storageUrl: path.join(dir, 'storage'), workers: false };
  const runtime = await startRuntime(config, { database: opened.database, transport: new CaptureTransport(), workers: false });
  const ctx = runtime.ctx;
  const account = await createAccount(opened.database.db, {
    company: 'Bench',
    project: 'bench',
    email: 'bench@example.com',
    password: 'correct-horse-battery-9',
    activated: true,
  });

  /** importFile stores the file as an upload would and runs the import job; resolves rows/s, peak RSS and counts. */
  const importFile = async (file: string, key: string, rows: number) => {
    const target = {
      projectId: account.projectId,
      bucket: CONTACT_UPLOADS_BUCKET,
      key: `${account.projectId}/${key}`,
      type: 'text/csv',
      expiresAt: Date.now() + 60_000,
    };
    const bytes = await ctx.storage.putStream(target.bucket, target.key, createReadStream(file), MAX_CONTACT_FILE_BYTES);
    const jobLogId = await startContactImport(ctx, target, bytes);
    global.gc?.();
    const start = performance.now();
    const [, peak] = await peakRss(() => importContactFile(ctx, jobLogId));
    const seconds = (performance.now() - start) / 1000;
    const [entry] = await opened.database.query<{ end_details: { rows_imported: number; rows_failed: number; errors: string[] } }>(
      'SELECT end_details FROM job_log WHERE id = $1',
      [jobLogId],
    );
    return { rate: rows / seconds, seconds, peak, ...entry.end_details };
  };

  const csv = path.join(dir, 'contacts.csv');
  const csvBytes = await writeCsv(csv, CSV_ROWS, 'c');
  console.log(
    `contact import on ${KIND}: CSV of ${CSV_ROWS.toLocaleString('en')} rows (${(csvBytes / 1024 ** 2).toFixed(0)} MB), rss before ${(process.memoryUsage().rss / 1024 ** 2).toFixed(0)} MB`,
  );
  const csvRun = await importFile(csv, 'contacts-bench.csv', CSV_ROWS);
  console.log(
    `  import: ${csvRun.rate.toFixed(0)} rows/s (${csvRun.seconds.toFixed(1)} s; ${csvRun.rows_imported} imported, ${csvRun.rows_failed} refused${csvRun.errors.length ? `, errors ${csvRun.errors.join('; ')}` : ''}), peak rss ${csvRun.peak.toFixed(0)} MB`,
  );
  if (opened.url) {
    const copy = await rawCopy(opened.url, account.projectId, csv, CSV_ROWS, 'c');
    console.log(`  raw COPY of the same file: ${copy.toFixed(0)} rows/s; import/COPY = ${(csvRun.rate / copy).toFixed(2)} (target ≥ 0.6)`);
  }

  const xlsx = path.join(dir, 'contacts.xlsx');
  writeXlsxFile(xlsx, XLSX_ROWS, 'x');
  const xlsxCsv = path.join(dir, 'contacts-x.csv');
  await writeCsv(xlsxCsv, XLSX_ROWS, 'x2');
  console.log(`contact import on ${KIND}: XLSX of ${XLSX_ROWS.toLocaleString('en')} rows (${((await stat(xlsx)).size / 1024 ** 2).toFixed(1)} MB, openpyxl)`);
  const xlsxRun = await importFile(xlsx, 'contacts-bench.xlsx', XLSX_ROWS);
  console.log(
    `  import: ${xlsxRun.rate.toFixed(0)} rows/s (${xlsxRun.seconds.toFixed(1)} s; ${xlsxRun.rows_imported} imported, ${xlsxRun.rows_failed} refused${xlsxRun.errors.length ? `, errors ${xlsxRun.errors.join('; ')}` : ''}), peak rss ${xlsxRun.peak.toFixed(0)} MB`,
  );
  if (opened.url) {
    const copy = await rawCopy(opened.url, account.projectId, xlsxCsv, XLSX_ROWS, 'x');
    console.log(`  raw COPY of the same rows as CSV: ${copy.toFixed(0)} rows/s; import/COPY = ${(xlsxRun.rate / copy).toFixed(2)} (target ≥ 0.6)`);
  }
  await runtime.stop();
  await opened.cleanup();
}

await main();
