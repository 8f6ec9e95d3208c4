/**
 * `npm run bench:audience`: how long the send wizard's preview and the save-time sandbox check take to
 * count a blast's audience, on PostgreSQL. A project of BENCH_AUDIENCE_CONTACTS contacts (default 300,000; realistic
 * domains, 1 % suppressed) all in one segment; the audience counted in the database (audienceCounts, what the preview
 * and the save check now run) and as before this change (the query of 59e2811 read into Node: the baseline), BENCH_AUDIENCE_RUNS times each (default 5) after one warm-up, in the same process and run, with this
 * process's RSS after each. Prints figures; asserts nothing. BENCH_PG_URL names the server.
 */
import { performance } from 'node:perf_hooks';
import { openBenchDatabase } from './databases.ts';
import { emailOf, machineFacts } from './figures.ts';
import { createAccount } from '../src/server/core/accounts/index.ts';
import { audienceCounts } from '../src/server/core/audience/index.ts';
import { checkEmail } from '../src/domain/validation.ts';

/** The baseline: the audience query as it was first written (a per-contact EXISTS over the segments; addresses checked in Node). */
const BEFORE_AUDIENCE = `SELECT c.id, c.email, c.timezone,
            CASE WHEN c.bounced_at IS NOT NULL OR s.reason = 'bounce' THEN 'bounced'
                 WHEN c.complained_at IS NOT NULL OR s.reason <> 'unsubscribed' THEN 'suppressed'
                 WHEN $5 AND (c.unsubscribed_at IS NOT NULL OR s.reason = 'unsubscribed') THEN 'unsubscribed' END AS excluded
       FROM contacts c LEFT JOIN suppressions s ON s.project_id = c.project_id AND s.email = lower(c.email)
      WHERE c.project_id = $1 AND c.archived_at IS NULL
        AND (c.id = ANY($2::uuid[]) OR lower(c.email) = ANY($3::text[])
             OR EXISTS (SELECT 1 FROM segment_members sm JOIN segments s ON s.id = sm.segment_id
                         WHERE sm.contact_id = c.id AND s.project_id = $1 AND sm.segment_id = ANY($4::uuid[])))
      ORDER BY c.id`;

const CONTACTS = Number(process.env.BENCH_AUDIENCE_CONTACTS ?? 300_000);
const RUNS = Number(process.env.BENCH_AUDIENCE_RUNS ?? 5);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const opened = await openBenchDatabase('postgres', PG_URL, 'bench_audience');
if (!opened) {
  console.log(`bench:audience: no PostgreSQL at ${PG_URL}; nothing measured`);
  process.exit(0);
}
const db = opened.database;
const q = db.query.bind(db);
try {
  console.log(await machineFacts(db));
  const { projectId } = await createAccount(db.db, { company: 'Bench', project: 'audience', email: 'bench@audience.example.com', password: 'bench-pass-1' });
  await q(`INSERT INTO contacts (project_id, email) SELECT $1, ${emailOf('g')} FROM generate_series(1, $2::int) g`, [projectId, CONTACTS]);
  await q(
    `INSERT INTO suppressions (project_id, email, reason) SELECT $1, lower(email), 'bounce' FROM contacts WHERE project_id = $1 AND hashtext(email) % 100 = 0`,
    [projectId],
  );
  const [segment] = await q<{ id: string }>(`INSERT INTO segments (project_id, name) VALUES ($1, 'everyone') RETURNING id`, [projectId]);
  await q('INSERT INTO segment_members (segment_id, contact_id) SELECT $1, id FROM contacts WHERE project_id = $2', [segment.id, projectId]);
  await q('VACUUM ANALYZE');
  const audience = { to_segment_ids: [segment.id] };
  const measure = async (label: string, run: () => Promise<string>) => {
    await run();
    const ms: number[] = [];
    let said = '';
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      said = await run();
      ms.push(performance.now() - t);
    }
    console.log(`${label}: ${ms.map((x) => x.toFixed(0)).join(', ')} ms (${said}); RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  };
  console.log(`audience of ${CONTACTS.toLocaleString('en-US')} contacts in one segment:`);
  await measure('counted in the database (audienceCounts: preview, save check)', async () => {
    const c = await audienceCounts(q, projectId, audience, [], { personaEmails: [] });
    return `${c.toSend} to send, ${c.excluded.bounced} bounced, ${c.sandboxRefused} refused in the sandbox`;
  });
  await measure('before (the audience query of 59e2811 read into Node, addresses checked there)', async () => {
    const rows = await q<{ email: string; excluded: string | null }>(BEFORE_AUDIENCE, [projectId, [], [], [segment.id], true]);
    const recipients = rows.filter((r) => !r.excluded && !checkEmail(r.email));
    return `${recipients.length} to send`;
  });
} finally {
  await opened.cleanup();
}
process.exit(0);
