/**
 * Whether the database has every migration of this build (for /readyz). drizzle's migrator (db/client.ts,
 * db/pgliteWorker.ts) records each applied migration in drizzle.__drizzle_migrations with its journal instant
 * (`created_at` = the journal entry's `when`, ms), and applies a migration when it is later than the last one recorded;
 * so the database is current when its latest record is at or after the journal's last entry.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { QueryFn } from './client.ts';

/** One entry of the migration journal (migrations/meta/_journal.json): its file name (tag) and instant (ms). */
interface JournalEntry {
  tag: string;
  when: number;
}

/** readJournal reads the migrations this build carries, oldest first. Throws when the journal cannot be read. */
export function readJournal(folder = path.join(import.meta.dirname, 'migrations')): JournalEntry[] {
  const journal = JSON.parse(readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8')) as { entries: JournalEntry[] };
  return journal.entries.map((e) => ({ tag: e.tag, when: Number(e.when) })).sort((a, b) => a.when - b.when);
}

/** RECORDED: whether drizzle's migration table exists (a statement naming a missing table would fail to plan). */
const RECORDED = `SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS recorded`;
/** LAST_APPLIED: the instant (ms, as text) of the latest applied migration; null when none is recorded. */
const LAST_APPLIED = 'SELECT max(created_at)::text AS last FROM drizzle.__drizzle_migrations';

/**
 * pendingMigrations returns the tags of the journal's migrations the database has not applied (empty when it is
 * current), oldest first. Rejects when the database does not answer.
 */
export async function pendingMigrations(query: QueryFn, journal: JournalEntry[]): Promise<string[]> {
  const [{ recorded }] = await query<{ recorded: boolean }>(RECORDED);
  const last = recorded ? (await query<{ last: string | null }>(LAST_APPLIED))[0].last : null;
  const applied = last === null ? -Infinity : Number(last);
  return journal.filter((e) => e.when > applied).map((e) => e.tag);
}
