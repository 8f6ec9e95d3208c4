/**
 * build-if-changed: what `npm start` runs before the server. It builds the console (`vite build`) only
 * when the sources it is built from changed since the last build, so a restart with an up-to-date build costs no
 * build (a Vite build takes 10-60 s). The sources are CONSOLE_INPUTS: what vite.config.ts and index.html pull in, the
 * generated clients and API documents, the public files, the lock file (dependency versions) and any .env file or
 * VITE_* variable Vite would read; their SHA-256 is kept in dist/console/.build-hash after a successful build (a dot
 * file, which the server does not serve). Missing hash or index.html, or a different hash: build, with Vite's output
 * at warn level (no chunk listing). Exits with Vite's code when the build fails, leaving no hash.
 *
 *   npx tsx scripts/build-if-changed.ts           build when needed
 *   npx tsx scripts/build-if-changed.ts --check   only say whether a build is needed (exit 0: up to date, 1: needed)
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Where the console is built to (vite.config.ts build.outDir) and where the hash of its sources is kept. */
const OUT_DIR = path.join(ROOT, 'dist/console');
const HASH_FILE = path.join(OUT_DIR, '.build-hash');

/**
 * CONSOLE_INPUTS: the files and folders (relative to the repository) a console build reads. vite.config.ts imports
 * scripts/apiDocs.ts (which reads generated/openapi and src/domain/pricing.ts) and scripts/precompress.ts; index.html
 * loads src/console/main.tsx, which imports src/console, src/domain and generated/. Of package.json only the version
 * counts (/docs/api.yml shows it; the dependencies are in the lock file), so editing a script does not rebuild. Test
 * files under these folders are left out: no build imports them.
 */
const CONSOLE_INPUTS = [
  'index.html',
  'vite.config.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/apiDocs.ts',
  'scripts/precompress.ts',
  'src/console',
  'src/domain',
  'generated',
  'public',
  '.env',
  '.env.local',
  '.env.production',
  '.env.production.local',
];

/** files lists every file under `rel` (a file or a folder; nothing when it does not exist), sorted, without test files. */
function files(rel: string): string[] {
  const full = path.join(ROOT, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * consoleSourcesHash returns the SHA-256 (hex) of CONSOLE_INPUTS (each file's path and bytes, in a fixed order) and of
 * the VITE_* variables of `env`. Reads a few MB; tens of milliseconds.
 */
function consoleSourcesHash(env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash('sha256');
  for (const rel of CONSOLE_INPUTS.flatMap(files)) {
    const raw = readFileSync(path.join(ROOT, rel));
    const bytes = rel === 'package.json' ? Buffer.from(String(JSON.parse(raw.toString('utf8')).version)) : raw;
    hash.update(`${rel}\0${bytes.length}\0`).update(bytes);
  }
  for (const [name, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (name.startsWith('VITE_')) hash.update(`env\0${name}=${value}\0`);
  }
  return hash.digest('hex');
}

/** builtHash returns the hash kept by the last successful build, or undefined when there is no usable build. */
function builtHash(): string | undefined {
  if (!existsSync(path.join(OUT_DIR, 'index.html')) || !existsSync(HASH_FILE)) return undefined;
  return readFileSync(HASH_FILE, 'utf8').trim();
}

/** main builds the console when its sources changed (see the module comment); returns the process's exit code. */
function main(args: string[]): number {
  const started = performance.now();
  const hash = consoleSourcesHash();
  const built = builtHash();
  if (built === hash) {
    console.log(`Console: up to date (sources unchanged since the last build; checked in ${Math.round(performance.now() - started)} ms)`);
    return 0;
  }
  const why = built === undefined ? 'no build yet' : 'sources changed since the last build';
  if (args.includes('--check')) {
    console.log(`Console: a build is needed (${why})`);
    return 1;
  }
  console.log(`Console: building (${why})…`);
  // The hash is of the sources as they were before the build: a file changed while it runs is built again next time.
  const vite = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (vite.status !== 0) {
    console.error(`Console: the build failed (vite exited ${vite.status ?? vite.signal})`);
    return vite.status || 1;
  }
  writeFileSync(HASH_FILE, `${hash}\n`);
  console.log(`Console: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
