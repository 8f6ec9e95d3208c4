/**
 * `npm run bench:expand`: a 1,000,000-recipient blast to a segment on PostgreSQL. Prints how long the
 * send wizard's preview of it takes (previewBlast, BENCH_EXPAND_PREVIEWS runs after one warm-up), counted exactly and
 * estimated from a sample (counts: estimate, the wizard's first answer), then, for the blast
 * itself, saved due at once with the workers running in this process and the SMTP sink in its own: the time to the
 * first email accepted by the sink, the time until every outbox row is written (the blast marked expanded), and this
 * process's RSS — idle (after a 500-recipient warm-up blast has gone out, nothing to do) and its peak while expanding, sampled every 20 ms. The blast
 * is then cancelled (the benchmark measures the expansion, not a million deliveries). The blast is measured once per
 * variant of BENCH_EXPAND_VARIANTS (default off,on,off,on): `off` without the audience policies, `on` with the sunset
 * policy, frequency capping and send-time optimisation over a history made for them (half the contacts with opens,
 * 2 % past the sunset, 2 % at the cap). Prints figures; asserts nothing.
 *
 * BENCH_EXPAND_CONTACTS sets the size (default 1,000,000: realistic domains, 1 % on the suppression list, 1 %
 * unsubscribed, a third in each of three time zones); BENCH_PG_URL the server. The data takes about a minute to make:
 * BENCH_KEEP=1 keeps the database and prints BENCH_EXPAND_DB_URL for the next run to reuse it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openGeneratedDatabase } from './databases.ts';
import { benchConfig, emailOf, machineFacts } from './figures.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { SmtpTransport } from '../src/server/mail/transport.ts';
import { createAccount, projectByApiKey } from '../src/server/core/accounts/index.ts';
import { savePersonas } from '../src/server/core/personas/index.ts';
import { saveTemplates } from '../src/server/core/templates/index.ts';
import { previewBlast, saveBlast } from '../src/server/core/blasts/index.ts';
import type { QueryFn } from '../src/server/db/client.ts';
import { RemoteSink } from './sinkProcess.ts';

const CONTACTS = Number(process.env.BENCH_EXPAND_CONTACTS ?? 1_000_000);
const PREVIEWS = Number(process.env.BENCH_EXPAND_PREVIEWS ?? 5);
const VARIANTS = (process.env.BENCH_EXPAND_VARIANTS ?? 'off,on,off,on').split(',').map((v) => v.trim()) as Array<'off' | 'on'>;
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

const opened = await openGeneratedDatabase({
  reuseUrl: process.env.BENCH_EXPAND_DB_URL,
  pgUrl: PG_URL,
  prefix: 'bench_expand',
  keep: process.env.BENCH_KEEP === '1',
  keepVariable: 'BENCH_EXPAND_DB_URL',
  what: `${CONTACTS.toLocaleString('en-US')} contacts`,
  async generate(database) {
    const q = database.query.bind(database);
    const { apiKey } = await createAccount(database.db, {
      company: 'Bench',
      project: 'expand',
      email: 'bench@expand.example.com',
      password: 'bench-pass-1',
      activated: true,
    });
    const project = (await projectByApiKey(database.db, apiKey))!;
    const [persona] = await savePersonas(database.db, project.id, [{ email: 'news@expand.example.com', first_name: 'Bench', last_name: 'Sender' }]);
    await q('UPDATE sender_personas SET verified_at = now() WHERE id = $1', [persona.id]);
    await saveTemplates(database.db, project.id, [
      {
        name: 'Expand',
        subject: 'Hello {{user.first_name}}',
        type: 'TEMPLATE_MARKETING',
        enabled: true,
        html_body: '<p>Hi {{user.first_name}}</p><a href="{{unsubscribe_link}}">Unsubscribe</a>',
      },
    ]);
    await q(
      `INSERT INTO contacts (project_id, email, first_name, timezone, unsubscribed_at)
       SELECT $1, ${emailOf('g')}, 'First' || g, (ARRAY['America/New_York', 'Europe/Berlin', 'Asia/Tokyo'])[1 + g % 3],
              CASE WHEN g % 100 = 7 THEN now() END
         FROM generate_series(1, $2::int) g`,
      [project.id, CONTACTS],
    );
    await q(
      `INSERT INTO suppressions (project_id, email, reason) SELECT $1, lower(email), 'bounce' FROM contacts WHERE project_id = $1 AND hashtext(email) % 100 = 0`,
      [project.id],
    );
    const [segment] = await q<{ id: string }>(`INSERT INTO segments (project_id, name) VALUES ($1, 'everyone') RETURNING id`, [project.id]);
    await q('INSERT INTO segment_members (segment_id, contact_id) SELECT $1, id FROM contacts WHERE project_id = $2', [segment.id, project.id]);
    await q('VACUUM ANALYZE');
  },
});
if (!opened) {
  console.log(`bench:expand: no PostgreSQL at ${PG_URL}; nothing measured`);
  process.exit(0);
}
const { database } = opened;
const q = database.query.bind(database) as QueryFn;
let stop = async () => {};
try {
  console.log(await machineFacts(database));
  const [{ id: projectId, api_key: apiKey }] = await q<{ id: string; api_key: string }>("SELECT id, api_key FROM projects WHERE name = 'expand'");
  const project = (await projectByApiKey(database.db, apiKey))!;
  const [persona] = await q<{ id: string }>('SELECT id FROM sender_personas WHERE project_id = $1', [projectId]);
  const [template] = await q<{ id: string }>('SELECT id FROM templates WHERE project_id = $1', [projectId]);
  const [segment] = await q<{ id: string }>('SELECT id FROM segments WHERE project_id = $1', [projectId]);
  await q('UPDATE projects SET sunset_days = NULL, sunset_min_emails = NULL, frequency_cap_emails = NULL, frequency_cap_days = NULL WHERE id = $1', [
    projectId,
  ]);
  // Earlier runs' blasts (a kept database) are cancelled and their rows removed, so each run starts alike.
  await q('DELETE FROM outbox WHERE project_id = $1', [projectId]);
  await q('UPDATE email_blasts SET enabled = false WHERE project_id = $1', [projectId]);
  // The contacts' history the audience policies read, made alike for every run: half the contacts have human opens
  // (each at one of the 24 UTC hours), 2 % are past the sunset policy (6 unopened emails over 200 days), and 2 % already
  // got 3 marketing emails yesterday (over a cap of 3 per 7 days).
  await q(
    `INSERT INTO contact_event_counts (contact_id, project_id, num_sends, sends_since_engaged, unengaged_since, open_hours)
     SELECT id, project_id, 6, CASE WHEN hashtext(email) % 50 = 1 THEN 6 ELSE 0 END,
            CASE WHEN hashtext(email) % 50 = 1 THEN now() - interval '200 days' END,
            CASE WHEN hashtext(email) % 2 = 0 THEN ARRAY(SELECT CASE WHEN i = abs(hashtext(email || 'hour')) % 24 THEN 3 ELSE 0 END FROM generate_series(0, 23) i) END
       FROM contacts WHERE project_id = $1
     ON CONFLICT (contact_id) DO UPDATE SET sends_since_engaged = EXCLUDED.sends_since_engaged, unengaged_since = EXCLUDED.unengaged_since,
            open_hours = EXCLUDED.open_hours`,
    [projectId],
  );
  await q(
    `INSERT INTO outbox (project_id, contact_id, email, template_id, sender_persona_id, send_at, status, sent_at, message_id)
     SELECT c.project_id, c.id, c.email, $2, $3, now() - interval '1 day', 'sent', now() - interval '1 day', '<' || gen_random_uuid() || '@expand.example.com>'
       FROM contacts c, generate_series(1, 3) WHERE c.project_id = $1 AND hashtext(c.email) % 50 = 2`,
    [projectId, template.id, persona.id],
  );
  // The deleted rows' index entries would otherwise slow every claim until autovacuum came by.
  await q('VACUUM ANALYZE outbox');
  await q('ANALYZE contact_event_counts');
  const [{ members }] = await q<{ members: number }>('SELECT count(*)::int AS members FROM segment_members WHERE segment_id = $1', [segment.id]);

  const sink = new RemoteSink();
  const smtpUrl = await sink.start();
  const config = await benchConfig('mw-bench-expand', smtpUrl);
  const runtime = await startRuntime(config, { database, transport: new SmtpTransport(smtpUrl), workers: false });
  const { startWorkers } = await import('../src/workers/index.ts');
  const workers = await startWorkers(runtime.ctx, runtime.queue, runtime.transport);
  stop = async () => {
    await workers.stop();
    await runtime.stop();
    await sink.stop();
  };

  const audience = { template_id: template.id, sender_persona_id: persona.id, to_segment_ids: [segment.id], emails_per_recipient: 1, counts: 'exact' as const };
  console.log(`blast to a segment of ${members.toLocaleString('en-US')} contacts:`);
  const ms: number[] = [];
  let said = '';
  for (let i = 0; i <= PREVIEWS; i++) {
    const t = performance.now();
    const p = await previewBlast(q, project, audience, config);
    if (i) ms.push(performance.now() - t); // the first is a warm-up
    said = `${p.to_send.toLocaleString('en-US')} to send of ${p.targeted.toLocaleString('en-US')} targeted`;
  }
  console.log(`preview (previewBlast), counted exactly: ${ms.map((x) => x.toFixed(0)).join(', ')} ms (${said})`);
  // The wizard's first answer: the same preview estimated from a sample (counts: estimate), then the exact one above.
  const estimateMs: number[] = [];
  for (let i = 0; i <= PREVIEWS; i++) {
    const t = performance.now();
    const p = await previewBlast(q, project, { ...audience, counts: 'estimate' }, config);
    if (i) estimateMs.push(performance.now() - t);
    said = `about ${p.to_send.toLocaleString('en-US')} to send of ${p.targeted.toLocaleString('en-US')} targeted${p.counts_estimated ? '' : ' (counted exactly)'}`;
  }
  console.log(`preview (previewBlast), estimated: ${estimateMs.map((x) => x.toFixed(0)).join(', ')} ms (${said})`);

  // A warm-up blast of 500 recipients first, so "idle" is a process that has sent (render threads started, pools
  // open), as a worker is between blasts.
  const warm = await q<{ id: string }>('SELECT contact_id AS id FROM segment_members WHERE segment_id = $1 ORDER BY contact_id LIMIT 500', [segment.id]);
  await saveBlast(runtime.ctx, project, {
    id: randomUUID(),
    name: `Warm-up ${new Date().toISOString()}`,
    template_id: template.id,
    sender_persona_id: persona.id,
    to_user_ids: warm.map((r) => r.id),
    send_at: new Date().toISOString().slice(0, 16),
    timezone: 'UTC',
    send_in_users_timezone: false,
  });
  await sink.waitFor(() => sink.count >= 450, 120_000);
  await new Promise((r) => setTimeout(r, 2000));
  // Each variant measures one blast of the whole segment: `off` without the audience policies, `on` with the sunset
  // policy (180 days / 5 emails), frequency capping (3 per 7 days) and send-time optimisation; alternated in one run
  // (BENCH_EXPAND_VARIANTS, default off,on,off,on) so both meet the same machine at the same hour.
  for (const variant of VARIANTS) {
    const on = variant === 'on';
    await q('UPDATE projects SET sunset_days = $2, sunset_min_emails = $3, frequency_cap_emails = $4, frequency_cap_days = $5 WHERE id = $1', [
      projectId,
      ...(on ? [180, 5, 3, 7] : [null, null, null, null]),
    ]);
    const before = sink.count;
    global.gc?.();
    const idleUsage = process.memoryUsage();
    const idle = idleUsage.rss;
    let peak = idle;
    let peakUsage = idleUsage;
    const sampler = setInterval(() => {
      const u = process.memoryUsage();
      if (u.rss > peak) [peak, peakUsage] = [u.rss, u];
    }, 20);
    const id = randomUUID();
    const start = performance.now();
    await saveBlast(runtime.ctx, project, {
      id,
      name: `Expand ${variant} ${new Date().toISOString()}`,
      template_id: template.id,
      sender_persona_id: persona.id,
      to_segment_ids: [segment.id],
      send_at: new Date().toISOString().slice(0, 16),
      timezone: 'UTC',
      send_in_users_timezone: false,
      send_time_optimised: on,
    });
    const saved = performance.now() - start;
    // Where the time to the first email goes: until the first outbox row is written (the job picked up, the first
    // chunk), then the sender (claim, render, sign, SMTP).
    let firstRow = 0;
    while (!firstRow) {
      if ((await q('SELECT 1 FROM outbox WHERE blast_id = $1 LIMIT 1', [id])).length) firstRow = performance.now() - start;
      else await new Promise((r) => setTimeout(r, 5));
    }
    await sink.waitFor(() => sink.count > before, 120_000);
    const first = performance.now() - start;
    let expanded: { audience: { queued: number; targeted: number; excluded: Record<string, number> } } | undefined;
    while (!expanded) {
      [expanded] = await q<{ audience: { queued: number; targeted: number; excluded: Record<string, number> } }>(
        'SELECT audience FROM email_blasts WHERE id = $1 AND expanded_at IS NOT NULL',
        [id],
      );
      if (!expanded) await new Promise((r) => setTimeout(r, 50));
    }
    const all = performance.now() - start;
    clearInterval(sampler);
    const [{ rows, due }] = await q<{ rows: number; due: number }>(
      'SELECT count(*)::int AS rows, count(*) FILTER (WHERE send_at <= now())::int AS due FROM outbox WHERE blast_id = $1',
      [id],
    );
    const sent = sink.count - before;
    await q('UPDATE email_blasts SET enabled = false WHERE id = $1', [id]);
    await q("UPDATE outbox SET status = 'cancelled' WHERE blast_id = $1 AND status = 'pending'", [id]);
    console.log(
      `expansion (policies ${variant}): saved in ${saved.toFixed(0)} ms; first outbox row ${(firstRow / 1000).toFixed(2)} s and first email at the sink ${(first / 1000).toFixed(2)} s after the save; every outbox row written after ${(all / 1000).toFixed(1)} s ` +
        `(${rows.toLocaleString('en-US')} rows, ${due.toLocaleString('en-US')} due at once; accounting ${JSON.stringify(expanded.audience)}; ${sent.toLocaleString('en-US')} emails at the sink meanwhile)`,
    );
    console.log(`worker process RSS: idle ${mb(idle)}, peak while expanding ${mb(peak)}, growth ${mb(peak - idle)}`);
    // Where the growth sits: the main thread's V8 heap and the buffers outside it; the rest is the render threads' heaps
    // and native memory.
    console.log(
      `  of which main-thread heap ${mb(peakUsage.heapTotal - idleUsage.heapTotal)}, buffers ${mb(peakUsage.external - idleUsage.external)}, ` +
        `other (render threads, native) ${mb(peak - idle - (peakUsage.heapTotal - idleUsage.heapTotal) - (peakUsage.external - idleUsage.external))}`,
    );
    // The next variant starts alike: this blast's rows gone (none counts against the frequency cap), the table vacuumed.
    await q('DELETE FROM outbox WHERE blast_id = $1', [id]);
    await q('VACUUM ANALYZE outbox');
  }
} finally {
  await stop();
  await opened.cleanup();
}
process.exit(0);
