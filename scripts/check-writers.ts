/**
 * `npm run lint:writers` (part of `npm run lint`): one home per fact. Fails when a statement that writes (INSERT INTO
 * or UPDATE in SQL text, or drizzle's `.insert(table)` / `.update(table)`) one of the tables below appears outside its
 * home folders in src/server or src/workers (the code that reaches the database; tests, benches and migrations are not
 * looked at; comments are skipped). Deletes are not
 * checked (the demo reset and archiving remove rows of many tables). docs/architecture.md §3 names the functions.
 * Prints each offence as file:line and exits 1; prints the count of writers found and exits 0 otherwise.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Each checked table and the only folders (or files) whose code may write it. */
const HOMES: Record<string, string[]> = {
  outbox: ['src/server/core/sending/'],
  events: ['src/server/core/events/'],
  suppressions: ['src/server/core/feedback/'],
  contacts: ['src/server/core/contacts/', 'src/server/core/feedback/', 'src/server/core/subscriptions/'],
  dmarc_reports: ['src/server/core/domains/'],
  dmarc_records: ['src/server/core/domains/'],
};

/** The code of a file with its comments blanked (line numbers kept): `--` lines of SQL files, `//` and block comments of TypeScript. */
function withoutComments(file: string, text: string): string {
  if (file.endsWith('.sql')) return text.replace(/--.*$/gm, '');
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|\s)\/\/.*$/gm, '$1');
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'migrations' && name !== 'node_modules') yield* files(full);
    } else if (/\.(ts|tsx|sql)$/.test(name) && !/\.test\.tsx?$/.test(name)) yield full;
  }
}

const tables = Object.keys(HOMES).join('|');
const WRITE = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE)\\s+(${tables})\\b|\\.(?:insert|update)\\(\\s*(${tables})\\s*\\)`, 'gi');

const offences: string[] = [];
let writers = 0;
for (const file of [...files('src/server'), ...files('src/workers')]) {
  const rel = file.split(path.sep).join('/');
  const code = withoutComments(rel, readFileSync(file, 'utf8'));
  for (const m of code.matchAll(WRITE)) {
    const table = (m[1] ?? m[2]).toLowerCase();
    const line = code.slice(0, m.index).split('\n').length;
    if (HOMES[table].some((home) => rel.startsWith(home))) writers++;
    else offences.push(`${rel}:${line}: writes ${table} outside its home (${HOMES[table].join(', ')})`);
  }
}
if (offences.length) {
  console.error(`One home per fact: ${offences.length} write(s) outside their home folders\n${offences.join('\n')}`);
  process.exit(1);
}
console.log(`One home per fact: ${writers} writes of ${Object.keys(HOMES).join(', ')}, each in its home`);
