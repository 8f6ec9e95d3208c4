/**
 * `npm run bench:retention`: how long retention and erasure take on PostgreSQL (core/privacy/retention.ts,
 * core/events/partitions.ts, core/privacy/erasure.ts). A fresh database:
 * - two old months of RETENTION_BENCH_EVENTS (default 1,000,000) events each of one project that keeps events a year;
 *   the first month holds only that project's events, so a retention run drops it as a partition; the second also
 *   holds one event of a project that keeps its events, so the same rows go by batched DELETE — the baseline;
 * - ERASE_BENCH_CONTACTS (default 10,000) contacts with RETENTION_BENCH_EVENTS events between them (sends, opens and
 *   clicks in the current month) and an outbox row each, erased in one request.
 * Prints the time of each and checks the result (the month's partition gone, report totals unchanged, the contacts
 * gone, no event naming them). Targets: a month of 1M events dropped in < 1 s; 10,000 contacts with 1M events erased
 * in < 30 s. The erasure starts from a settled database (VACUUM ANALYZE and a CHECKPOINT after the setup), as a
 * request finds one whose events came over weeks, not in the minute before. ERASE_BENCH_ONLY=1 runs the erasure
 * alone. BENCH_PG_URL names the server (default 127.0.0.1:5432/test). Prints figures; asserts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openBenchDatabase } from './databases.ts';
import { machineFacts } from './figures.ts';
import type { Database } from '../src/server/db/client.ts';
import { openStorage } from '../src/server/storage/storage.ts';
import { applyRetention } from '../src/server/core/privacy/retention.ts';
import { expireEvents } from '../src/server/core/events/partitions.ts';
import { eraseContacts } from '../src/server/core/privacy/erasure.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { loadConfig } from '../src/server/config.ts';

const N = Number(process.env.RETENTION_BENCH_EVENTS ?? 1_000_000);
const CONTACTS = Number(process.env.ERASE_BENCH_CONTACTS ?? 10_000);
const ERASE_ONLY = process.env.ERASE_BENCH_ONLY === '1';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const opened = await openBenchDatabase('postgres', PG_URL, 'bench-retention');
  if (!opened) return;
  const { database, cleanup } = opened;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-bench-retention-'));
  try {
    console.log(`Retention benchmark on PostgreSQL: ${await machineFacts(database)}`);
    const q = database.query.bind(database);
    const keeper = await createAccount(database.db, {
      company: 'Keeper',
      project: 'keeper',
      email: 'owner@keeper.example',
      password: 'bench-password-1',
      activated: true,
    });
    const other = await createAccount(database.db, {
      company: 'Other',
      project: 'other',
      email: 'owner@other.example',
      password: 'bench-password-1',
      activated: true,
    });
    await q(`UPDATE projects SET events_retention_days = 365 WHERE id = $1`, [keeper.projectId]);
    const year = new Date().getUTCFullYear() - 2;
    const months = [`${year}-03-01`, `${year}-04-01`];
    for (const m of months) await q(`SELECT events_ensure_partitions($1::date, $1::date)`, [m]);
    // Old events, as a sender's own (sends, opens, clicks of a blast), spread over each month.
    let t = performance.now();
    for (const m of ERASE_ONLY ? [] : months) {
      for (let from = 0; from < N; from += 250_000) {
        await q(
          `INSERT INTO events (project_id, name, email, emitted_at, is_system, blast_id, json)
           SELECT $1, (ARRAY['email_send_result_success', 'ses_event_open', 'ses_event_click'])[1 + g % 3], 'old' || g || '@example.com',
                  $2::timestamptz + (g % 2592000) * interval '1 second', true, '00000000-0000-4000-8000-000000000001',
                  jsonb_build_object('message_id', '<old' || g || '@bench>')
             FROM generate_series($3::int, $4::int) g`,
          [keeper.projectId, `${m}T00:00:00Z`, from, Math.min(N, from + 250_000) - 1],
        );
      }
    }
    await q(`INSERT INTO events (project_id, name, email, emitted_at, is_system) VALUES ($1, 'visited', 'x@other.example', $2, false)`, [
      other.projectId,
      `${months[1].slice(0, 7)}-10T00:00:00Z`,
    ]);
    console.log(`setup: ${2 * N} old events in ${seconds(performance.now() - t)}`);
    const totals = () =>
      q<{ n: string }>(
        `SELECT coalesce(sum(num), 0)::bigint::text || ' (' || coalesce(sum(num_unique), 0)::bigint::text || ' unique)' AS n FROM report_counts WHERE project_id = $1`,
        [keeper.projectId],
      );
    const storage = openStorage(path.join(dataDir, 'storage'));
    if (!ERASE_ONLY) {
      const before = await totals().catch(() => [{ n: 'n/a' }]);
      t = performance.now();
      const run = await applyRetention({ database, storage });
      const took = performance.now() - t;
      const after = await totals().catch(() => [{ n: 'n/a' }]);
      const [{ left }] = await q<{ left: number }>(`SELECT count(*)::int AS left FROM events WHERE project_id = $1`, [keeper.projectId]);
      console.log(
        `retention run: ${seconds(took)} in all; dropped ${run.partitionsDropped.join(', ') || 'nothing'} (${N} events as one partition), deleted ${run.eventsDeleted} events row by row (the other month, shared with a project that keeps its events); ${left} of the project's events left; report counts ${before[0].n} before, ${after[0].n} after`,
      );
      const dropOnly = await timeDrop(database, keeper.projectId, year);
      console.log(
        `a month of ${N} events dropped alone (a third month, same shape): ${seconds(dropOnly.drop)} (target < 1 s); a whole retention run after it (partitions made and trimmed, ANALYZE events): ${seconds(dropOnly.run)}`,
      );
    }
    // Erasure: CONTACTS contacts with N events between them, now.
    t = performance.now();
    await q(`INSERT INTO contacts (project_id, email, first_name) SELECT $1, 'person' || g || '@erase.example', 'P' || g FROM generate_series(1, $2::int) g`, [
      keeper.projectId,
      CONTACTS,
    ]);
    await q('ANALYZE contacts');
    await q(
      `INSERT INTO outbox (project_id, contact_id, email, sender_persona_id, send_at, status, message_id, sent_at)
       SELECT c.project_id, c.id, c.email, NULL, now(), 'sent', '<' || c.id || '@bench>', now() FROM contacts c WHERE c.project_id = $1 AND c.email LIKE '%@erase.example'`,
      [keeper.projectId],
    );
    for (let from = 0; from < N; from += 250_000) {
      await q(
        `WITH c AS (SELECT id, email, row_number() OVER (ORDER BY id) - 1 AS k FROM contacts WHERE project_id = $1 AND email LIKE '%@erase.example')
         INSERT INTO events (project_id, name, email, user_id, emitted_at, is_system, json)
         SELECT $1, (ARRAY['email_send_result_success', 'ses_event_open', 'ses_event_click'])[1 + g % 3], c.email, c.id, now() - (g % 86400) * interval '1 second', true,
                jsonb_build_object('message_id', '<' || c.id || '@bench>')
           FROM generate_series($2::int, $3::int) g JOIN c ON c.k = g % $4`,
        [keeper.projectId, from, Math.min(N, from + 250_000) - 1, CONTACTS],
      );
    }
    console.log(`setup: ${CONTACTS} contacts, ${CONTACTS} emails, ${N} events in ${seconds(performance.now() - t)}`);
    const ids = (await q<{ id: string }>(`SELECT id FROM contacts WHERE project_id = $1 AND email LIKE '%@erase.example'`, [keeper.projectId])).map(
      (r) => r.id,
    );
    await q('VACUUM ANALYZE events, contacts, outbox');
    await q('CHECKPOINT');
    const config = { ...loadConfig({}), dataDir, erasureKey: 'bench-erasure-key' };
    const counts0 = await totals().catch(() => [{ n: 'n/a' }]);
    t = performance.now();
    const erased = await eraseContacts({ database, storage, config }, keeper.projectId, { ids }, 'bench');
    const eraseMs = performance.now() - t;
    const [{ named }] = await q<{ named: number }>(`SELECT count(*)::int AS named FROM events WHERE project_id = $1 AND email LIKE '%@erase.example'`, [
      keeper.projectId,
    ]);
    const counts1 = await totals().catch(() => [{ n: 'n/a' }]);
    console.log(
      `erasure: ${erased.contacts} contacts and ${erased.addresses} addresses with ${N} events in ${seconds(eraseMs)} (target < 30 s); events still naming them: ${named}; report counts ${counts0[0].n} before, ${counts1[0].n} after`,
    );
  } finally {
    await cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * timeDrop fills a third old month with N events of project `projectId` only, then times the events' part of a
 * retention run that drops it (expireEvents) and the whole run (which also refreshes the table's statistics, ANALYZE
 * events over every month still there); ms.
 */
async function timeDrop(database: Database, projectId: string, year: number): Promise<{ drop: number; run: number }> {
  const q = database.query.bind(database);
  const m = `${year}-05-01`;
  await q(`SELECT events_ensure_partitions($1::date, $1::date)`, [m]);
  for (let from = 0; from < N; from += 250_000) {
    await q(
      `INSERT INTO events (project_id, name, email, emitted_at, is_system, json)
       SELECT $1, 'ses_event_open', 'old' || g || '@example.com', $2::timestamptz + (g % 2592000) * interval '1 second', true, jsonb_build_object('message_id', '<m' || g || '@bench>')
         FROM generate_series($3::int, $4::int) g`,
      [projectId, `${m}T00:00:00Z`, from, Math.min(N, from + 250_000) - 1],
    );
  }
  // Settled, as a nightly run finds the table: a month a year old analysed long ago, and the previous night's
  // deletes (the first run's, above) vacuumed, so reading a month skips no dead index entries.
  await q(`VACUUM ANALYZE events`);
  let t = performance.now();
  await expireEvents(database, new Map([[projectId, new Date(Date.now() - 365 * 86_400_000)]]));
  const drop = performance.now() - t;
  t = performance.now();
  await applyRetention({ database, storage: openStorage(os.tmpdir()) });
  return { drop, run: performance.now() - t };
}

await main().catch((err) => {
  console.error(err);
  process.exit(1);
});
