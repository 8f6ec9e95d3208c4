/**
 * Report compaction (docs/architecture.md §14): folds the deltas the events triggers add to the report aggregates
 * (merged = false) into one merged row per key, so reports read few rows however many statements wrote events.
 * Readers sum merged rows and deltas alike, so compaction never changes a report's numbers: it only keeps them fast.
 * Safe to run in several processes at once: a delta is deleted by exactly one compaction (the others skip rows already
 * gone), and merged rows are upserted in key order.
 */
import type { QueryFn } from '../server/db/client.ts';

/** The aggregate tables: their key columns (the merged rows' unique index) and their counter columns. */
const TABLES: Array<{ table: string; keys: string[]; counters: string[] }> = [
  {
    table: 'report_counts',
    keys: ['project_id', 'hour', 'name', 'blast_id', 'template_id', 'workflow_id'],
    counters: ['num', 'num_unique', 'num_human', 'num_unique_human'],
  },
  {
    table: 'report_totals',
    keys: ['project_id', 'name', 'blast_id', 'template_id', 'workflow_id'],
    counters: ['num', 'num_unique', 'num_human', 'num_unique_human'],
  },
  {
    table: 'report_links',
    keys: ['project_id', 'link_hash', 'blast_id', 'template_id', 'workflow_id'],
    counters: ['num', 'num_unique', 'num_human', 'num_unique_human'],
  },
  {
    table: 'report_sources',
    keys: ['project_id', 'kind', 'value_hash', 'blast_id', 'template_id', 'workflow_id'],
    counters: [
      'num_opens',
      'num_unique_opens',
      'num_clicks',
      'num_unique_clicks',
      'num_human_opens',
      'num_unique_human_opens',
      'num_human_clicks',
      'num_unique_human_clicks',
    ],
  },
];

/** Extra columns carried along with a key (the same for every delta of the key). */
const CARRIED: Record<string, string[]> = { report_links: ['link'], report_sources: ['value'] };

/**
 * compactReports merges up to `batch` deltas of each aggregate table in one statement per table and returns how many
 * deltas it merged in all (0 when there were none).
 */
export async function compactReports(query: QueryFn, batch = 20_000): Promise<number> {
  let merged = 0;
  for (const { table, keys, counters } of TABLES) {
    const carried = CARRIED[table] ?? [];
    const cols = [...keys, ...carried, ...counters];
    const rows = await query<{ n: number }>(
      `WITH d AS (
         DELETE FROM ${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table} WHERE NOT merged LIMIT ${Number(batch)}))
         RETURNING ${cols.join(', ')}),
       m AS (
         INSERT INTO ${table} (${cols.join(', ')}, merged)
         SELECT ${keys.join(', ')}, ${carried
           .map((c) => `min(${c})`)
           .concat(counters.map((c) => `sum(${c})`))
           .join(', ')}, true
           FROM d GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}
         ON CONFLICT (${keys.join(', ')}) WHERE merged
         DO UPDATE SET ${counters.map((c) => `${c} = ${table}.${c} + EXCLUDED.${c}`).join(', ')})
       SELECT count(*)::int AS n FROM d`,
    );
    merged += Number(rows[0]?.n ?? 0);
  }
  return merged;
}

/**
 * startReportCompaction runs compactReports every `everyMs` (again at once while a table had a full batch) until
 * the returned stop function is called; errors are logged and retried on the next tick.
 */
export function startReportCompaction(query: QueryFn, everyMs: number): () => Promise<void> {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running = (async () => {
      let again = false;
      try {
        again = (await compactReports(query)) >= 20_000;
      } catch (err) {
        if (!stopped) console.error('report compaction failed:', (err as Error).message);
      }
      if (!stopped) timer = setTimeout(tick, again ? 0 : everyMs);
    })();
  };
  timer = setTimeout(tick, everyMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
