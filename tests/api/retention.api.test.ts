/**
 * Retention end to end on a real database (core/privacy/retention.ts, core/events/partitions.ts): the settings'
 * range; the events table partitioned by month; a retention run drops an old month of events as a partition and
 * leaves every report's figures as they were; stored copies, unconfirmed sign-ups and finished job-log entries older
 * than the project keeps them go.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { reportFigures } from '../helpers/reportFigures.ts';
import { decodeLocation } from '../../src/domain/location.ts';
import { applyRetention } from '../../src/server/core/privacy/retention.ts';
import { PARTITION_MONTHS_AHEAD } from '../../src/server/core/events/partitions.ts';

let h: Harness;
let t: Tenant;
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const DAY = 86_400_000;

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const api = (method: string, url: string, body?: unknown) => h.call(method, url, { key: t.apiKey, body });
const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.runtime.database.query<T>(text, params);

/**
 * Every report figure a customer reads. (The lists of single recent events, recentlyopenedemails and
 * recentlyclickedlinks, list the raw events still kept: they are not figures.)
 */
const reports = () => reportFigures(api);

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  expect(
    (await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@keep.example.com', first_name: 'News' }] })).status,
  ).toBe(200);
  await h.confirmPersonas();
});
afterAll(async () => {
  await h?.close();
});

describe(`retention settings (${API_DB})`, () => {
  it('are unset (kept for ever) until set, and refuse less than a day or more than ten years, naming the field', async () => {
    expect((await api('GET', '/api/companyauthwrapper/retention')).body.data).toEqual({
      events_days: null,
      copies_days: null,
      unconfirmed_days: null,
      job_log_days: null,
    });
    for (const [field, value] of [
      ['events_days', 0],
      ['copies_days', 3651],
      ['job_log_days', 1.5],
    ] as const) {
      const res = await api('PUT', '/api/companyauthwrapper/retention', {
        events_days: null,
        copies_days: null,
        unconfirmed_days: null,
        job_log_days: null,
        [field]: value,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors.join(' ')).toContain(field);
    }
    const set = await api('PUT', '/api/companyauthwrapper/retention', { events_days: 365, copies_days: 30, unconfirmed_days: 7, job_log_days: 90 });
    expect(set.status).toBe(200);
    expect((await api('GET', '/api/companyauthwrapper/retention')).body.data).toEqual({
      events_days: 365,
      copies_days: 30,
      unconfirmed_days: 7,
      job_log_days: 90,
    });
  });
});

describe(`a retention run (${API_DB})`, () => {
  const old = new Date(Date.UTC(new Date().getUTCFullYear() - 2, 3, 15, 12));
  const partition = `events_y${old.getUTCFullYear()}m04`;

  const monthName = (d: Date, ahead = 0) => {
    const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + ahead, 1));
    return `events_y${m.getUTCFullYear()}m${String(m.getUTCMonth() + 1).padStart(2, '0')}`;
  };
  const partitions = async () =>
    (await q<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass`)).map(
      (r) => r.name,
    );

  it('the events table is partitioned by month; a run keeps the coming months and drops empty ones further ahead', async () => {
    const now = new Date();
    expect(await partitions()).toEqual(expect.arrayContaining(['events_default', monthName(now), monthName(now, PARTITION_MONTHS_AHEAD)]));
    // An event dated six months ahead keeps its month; the empty months beyond the coming ones go.
    const future = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 6, 10));
    await q(`SELECT events_ensure_partitions($1::date, $2::date)`, [now.toISOString().slice(0, 10), future.toISOString().slice(0, 10)]);
    await q(`INSERT INTO events (project_id, name, email, emitted_at) VALUES ($1, 'planned_visit', 'f@keep.example.com', $2)`, [
      t.projectId,
      future.toISOString(),
    ]);
    const run = await applyRetention(h.runtime.ctx);
    const after = await partitions();
    for (let ahead = 0; ahead <= PARTITION_MONTHS_AHEAD; ahead++) expect(after).toContain(monthName(now, ahead));
    expect(after).toContain(monthName(now, 6));
    for (const ahead of [3, 4, 5, 7]) expect(after).not.toContain(monthName(now, ahead));
    expect(run.partitionsTrimmed).toEqual(expect.arrayContaining([monthName(now, 3), monthName(now, 5), monthName(now, 7)]));
    expect(run.partitionsTrimmed).not.toContain(monthName(now, 6));
    await q(`DELETE FROM events WHERE project_id = $1 AND name = 'planned_visit'`, [t.projectId]);
  });

  it("drops an old month's partition and leaves every report's figures unchanged", async () => {
    // History: emails sent, opened and clicked, then dated back two years (an install with a past).
    for (const to of ['a@keep.example.com', 'b@keep.example.com']) {
      const res = await api('POST', '/api/email', {
        from: 'news@keep.example.com',
        to,
        subject: `Old news for ${to}`,
        html: '<p>Read <a href="https://keep.example.com/news">the news</a></p>',
        stream: 'broadcast',
      });
      expect(res.status).toBe(200);
    }
    await until(
      'two emails',
      async () => h.sink.messages.filter((m) => m.envelopeTo.some((x) => x.endsWith('@keep.example.com') && x !== 'news@keep.example.com')).length === 2,
    );
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(h.sink.messages.find((m) => m.envelopeTo.includes('a@keep.example.com'))!.raw);
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(String(mail.html))![1];
    await new Promise((r) => setTimeout(r, 1500));
    expect((await h.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': BROWSER } })).statusCode).toBe(200);
    await until('the sends and the open', async () => {
      const [{ n }] = await q<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ('email_send_result_success', 'ses_event_open')`,
        [t.projectId],
      );
      return n === 3;
    });
    await q(`SELECT events_ensure_partitions($1::date, $1::date)`, [old.toISOString().slice(0, 10)]);
    await q(`UPDATE events SET emitted_at = $2 WHERE project_id = $1`, [t.projectId, old.toISOString()]);
    const [{ n: inMonth }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM "${partition}"`);
    expect(inMonth).toBeGreaterThanOrEqual(3);
    // A newer event stays.
    const recent = await api('POST', '/api/event/events', { events: [{ name: 'visited_pricing', email: 'a@keep.example.com' }] });
    expect(recent.status).toBe(200);
    const before = await reports();

    const run = await applyRetention(h.runtime.ctx);
    expect(run.partitionsDropped).toEqual([partition]);
    expect((await q<{ r: string | null }>(`SELECT to_regclass($1)::text AS r`, [partition]))[0].r).toBeNull();
    const [{ n: left }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND emitted_at < now() - interval '1 year'`, [
      t.projectId,
    ]);
    expect(left).toBe(0);
    const [{ n: kept }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name = 'visited_pricing'`, [t.projectId]);
    expect(kept).toBe(1);
    expect(await reports()).toEqual(before);
  });

  it('deletes stored copies, unconfirmed sign-ups and finished job-log entries older than the project keeps them', async () => {
    const [row] = await q<{ id: string; location: string }>(
      `SELECT id, location FROM outbox WHERE project_id = $1 AND location IS NOT NULL ORDER BY id LIMIT 1`,
      [t.projectId],
    );
    const at = decodeLocation(row.location)!;
    const file = path.join(h.config.storageUrl, at.bucket, at.key);
    expect(existsSync(file)).toBe(true);
    await q(`UPDATE outbox SET sent_at = $2 WHERE id = $1`, [row.id, new Date(Date.now() - 31 * DAY).toISOString()]);
    const [pending] = await q<{ id: string }>(
      `INSERT INTO contacts (project_id, email, confirmation_pending_at, created_at) VALUES ($1, 'pending@keep.example.com', now(), $2) RETURNING id`,
      [t.projectId, new Date(Date.now() - 8 * DAY).toISOString()],
    );
    await q(`INSERT INTO job_log (project_id, job_name, started_at, ended_at) VALUES ($1, 'JOB_OLD', $2, $2), ($1, 'JOB_RUNNING', $2, NULL)`, [
      t.projectId,
      new Date(Date.now() - 91 * DAY).toISOString(),
    ]);
    const run = await applyRetention(h.runtime.ctx);
    expect(run).toMatchObject({ copiesDeleted: 1, unconfirmedDeleted: 1, jobLogDeleted: 1 });
    expect(existsSync(file)).toBe(false);
    expect((await q<{ location: string | null }>(`SELECT location FROM outbox WHERE id = $1`, [row.id]))[0].location).toBeNull();
    expect(await q(`SELECT id FROM contacts WHERE id = $1`, [pending.id])).toEqual([]);
    expect(
      (
        await q<{ job_name: string }>(
          `SELECT job_name FROM job_log WHERE project_id = $1 AND job_name LIKE 'JOB_%' AND started_at < now() - interval '90 days'`,
          [t.projectId],
        )
      ).map((r) => r.job_name),
    ).toEqual(['JOB_RUNNING']);
    // The other copies are kept.
    const [{ n }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE project_id = $1 AND location IS NOT NULL`, [t.projectId]);
    expect(n).toBe(1);
  });
});
