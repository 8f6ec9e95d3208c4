/**
 * `npx tsx bench/marks.bench.ts`: what one sent-mark statement (src/workers/sender.ts SentRecorder: outbox row → sent
 * plus its email_send_result_success event, with every trigger and index of the migrations) costs the database per
 * statement and per mark, for batches of 1, 12, 36 and 100 marks, on PGlite (BENCH_DB=postgres for the PostgreSQL
 * server at BENCH_PG_URL). It tells how long the recorder's window should be: the fixed part per statement is what a
 * longer window saves. Prints figures; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openBenchDatabase } from './databases.ts';
import { createAccount, projectByApiKey } from '../src/server/core/accounts/index.ts';
import { upsertContacts } from '../src/server/core/contacts/index.ts';
import { SentRecorder } from '../src/server/core/sending/sentRecorder.ts';

const KIND = (process.env.BENCH_DB ?? 'pglite') as 'pglite' | 'postgres';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = 3000;

async function main(): Promise<void> {
  const opened = await openBenchDatabase(KIND, PG_URL, 'marks');
  if (!opened) return;
  const { database, cleanup } = opened;
  const { apiKey } = await createAccount(database.db, {
    company: 'Marks',
    project: 'marks',
    email: 'marks@example.com',
    password: 'bench-password-1',
    activated: true,
  });
  const project = (await projectByApiKey(database.db, apiKey))!;
  const contactIds: string[] = [];
  for (let i = 0; i < ROWS; i += 1000) {
    const batch = Array.from({ length: 1000 }, (_, j) => ({ email: `r${i + j}@marks.example.com`, first_name: `First${i + j}` }));
    contactIds.push(...(await upsertContacts(database.query, project.id, batch)).data.map((c) => c.id));
  }
  const blastId = randomUUID();
  const templateId = randomUUID();

  /** One measurement: ROWS claimed outbox rows recorded as sent in statements of `size` marks. */
  const measure = async (size: number): Promise<{ perMarkUs: number; perStatementMs: number }> => {
    await database.query('DELETE FROM outbox');
    const token = randomUUID();
    const rows = await database.query<{ id: string }>(
      `INSERT INTO outbox (project_id, blast_id, contact_id, email, template_id, send_at, status, claim_token, message_id)
       SELECT $1, $2, c, 'r' || n || '@marks.example.com', $3, now(), 'sending', $4, '<' || gen_random_uuid() || '@marks.example.com>'
         FROM unnest($5::uuid[]) WITH ORDINALITY AS t(c, n) RETURNING id`,
      [project.id, blastId, templateId, token, contactIds],
    );
    const start = performance.now();
    for (let i = 0; i < rows.length; i += size) {
      const batch = rows.slice(i, i + size);
      await database.query(SentRecorder.STATEMENT, [
        batch.map((r) => r.id),
        batch.map(() => token),
        batch.map((r) => `loc-${r.id}`),
        batch.map((r) =>
          JSON.stringify({
            bucket: 'sent-emails',
            key: `${project.id}/2026-11-24/${r.id}.eml`,
            location: `loc-${r.id}`,
            subject: 'Hello First',
            message_id: `<${r.id}@marks.example.com>`,
            blast_id: blastId,
            template_id: templateId,
            is_test_email: false,
            transport: 'smtp',
            response: '250 OK: queued',
          }),
        ),
      ]);
    }
    const ms = performance.now() - start;
    return { perMarkUs: (ms / rows.length) * 1000, perStatementMs: ms / Math.ceil(rows.length / size) };
  };

  await measure(12); // warm-up: plans cached, pages in memory
  console.log(`Sent-mark statements on ${KIND}: ${ROWS} marks per measurement, the median of 3`);
  console.log('| marks per statement | µs per mark | ms per statement |');
  console.log('|---|---|---|');
  for (const size of [1, 12, 36, 100]) {
    const runs = [await measure(size), await measure(size), await measure(size)].sort((a, b) => a.perMarkUs - b.perMarkUs);
    console.log(`| ${size} | ${runs[1].perMarkUs.toFixed(0)} | ${runs[1].perStatementMs.toFixed(2)} |`);
  }
  await database.close();
  await cleanup();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
