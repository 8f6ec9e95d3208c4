/**
 * Reports over a project's events (spec part 1 §2 Insights and reports, §3 Report rows, §7 reporting calls). Time
 * buckets are UTC. campaign_id blank, a placeholder or 'all' means every campaign.
 */
import { simpleParser } from 'mailparser';
import type { QueryFn } from '../../db/client.ts';
import type { Storage } from '../../storage/storage.ts';
import { decodeLocation } from '../../../domain/location.ts';
import { splitList } from '../../../domain/validation.ts';
import type { components } from '../../../../generated/types/reporting.gen.ts';

type SendResult = components['schemas']['EmailSendResult'];
type SeriesRow = components['schemas']['SeriesRow'];

/** Which event name feeds which report column. */
export const SERIES_COLUMNS: Record<keyof Omit<SeriesRow, 'emitted_at_trunc'>, string> = {
  sends: 'email_send_result_success',
  opens: 'ses_event_open',
  clicks: 'ses_event_click',
  bounces: 'ses_event_bounce',
  complaints: 'ses_event_complaint',
  unsubscribes: 'user_unsubscribed',
  unsuccessful_sends: 'email_send_result_failure',
};

/** campaignFilter returns the campaign id to filter on, or undefined for "all campaigns". */
export function campaignFilter(campaignId: string | undefined): string | undefined {
  const v = campaignId?.trim();
  if (!v || v === 'all' || v === 'undefined' || v === 'null' || v.startsWith('{') || v === '-') return undefined;
  return v;
}

/**
 * emailSendResults reads the stored copies named by `locations` (comma-separated). A location that is malformed,
 * belongs to another project or has no object is reported in errors; the others are returned with the HTML body.
 */
export async function emailSendResults(storage: Storage, projectId: string, locations: string): Promise<{ send_results: SendResult[]; errors: string[] }> {
  const send_results: SendResult[] = [];
  const errors: string[] = [];
  for (const location of splitList(locations)) {
    const loc = decodeLocation(location);
    if (!loc || !loc.key.startsWith(`${projectId}/`)) {
      errors.push(`locations: no email found at ${location}`);
      continue;
    }
    const raw = await storage.get(loc.bucket, loc.key);
    if (!raw) {
      errors.push(`locations: no email found at ${location}`);
      continue;
    }
    const parsed = await simpleParser(raw);
    const address = (a: typeof parsed.from | typeof parsed.to) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : a?.text ?? '');
    send_results.push({
      location,
      mailer_payload: {
        body: typeof parsed.html === 'string' ? parsed.html : parsed.text ?? '',
        text: parsed.text ?? null,
        subject: parsed.subject ?? '',
        from: address(parsed.from),
        to: address(parsed.to),
        message_id: parsed.messageId ?? null,
        sent_at: parsed.date ? parsed.date.toISOString() : null,
      },
    });
  }
  return { send_results, errors };
}

/**
 * emailHistory answers email_send_results?email=: the stored copies of the emails successfully sent to `email`
 * (case-insensitive) in the project, newest first, `limit` (default 10) from `offset`, with the total. The copies are
 * found through the email_send_result_success events' json.location.
 */
export async function emailHistory(query: QueryFn, storage: Storage, projectId: string, email: string, limit = 10, offset = 0):
Promise<{ send_results: SendResult[]; errors: string[]; total: number }> {
  const where = `FROM events WHERE project_id = $1 AND name = 'email_send_result_success' AND lower(email) = lower($2) AND json->>'location' IS NOT NULL`;
  const [rows, [{ n }]] = await Promise.all([
    query<{ location: string }>(`SELECT json->>'location' AS location ${where} ORDER BY emitted_at DESC, id DESC LIMIT $3 OFFSET $4`, [projectId, email.trim(), limit, offset]),
    query<{ n: number }>(`SELECT count(*)::int AS n ${where}`, [projectId, email.trim()]),
  ]);
  if (!rows.length) return { send_results: [], errors: [], total: Number(n) };
  return { ...(await emailSendResults(storage, projectId, rows.map((r) => r.location).join(','))), total: Number(n) };
}

/** quickStats returns, per event name over the last 31 days, the total and the number of distinct contacts. */
export async function quickStats(query: QueryFn, projectId: string, campaignId?: string) {
  const rows = await query<{ name: string; num: number; num_unique: number }>(
    `SELECT name, count(*)::int AS num, count(DISTINCT coalesce(user_id::text, email))::int AS num_unique
       FROM events WHERE project_id = $1 AND emitted_at >= now() - interval '31 days'
        AND ($2::text IS NULL OR json->>'campaign_id' = $2)
      GROUP BY name ORDER BY name`, [projectId, campaignFilter(campaignId) ?? null]);
  return rows.map((r) => ({ name: r.name, num: Number(r.num), num_unique: Number(r.num_unique) }));
}

/**
 * series returns one row per UTC hour (last 24 hours) or day (last 31 days), oldest first, with a count per report
 * column; buckets without events are zeros.
 */
export async function series(query: QueryFn, projectId: string, unit: 'hour' | 'day', campaignId?: string): Promise<SeriesRow[]> {
  const span = unit === 'hour' ? 23 : 30;
  const cols = Object.entries(SERIES_COLUMNS)
    .map(([col, name], i) => `(count(e.id) FILTER (WHERE e.name = $${i + 3}))::int AS ${col}`).join(', ');
  const rows = await query<Record<string, unknown>>(
    `WITH buckets AS (
       SELECT generate_series(date_trunc('${unit}', now() AT TIME ZONE 'UTC') - interval '${span} ${unit}s',
                              date_trunc('${unit}', now() AT TIME ZONE 'UTC'), interval '1 ${unit}') AS b)
     SELECT (buckets.b AT TIME ZONE 'UTC') AS emitted_at_trunc, ${cols}
       FROM buckets
       LEFT JOIN events e ON e.project_id = $1 AND date_trunc('${unit}', e.emitted_at AT TIME ZONE 'UTC') = buckets.b
            AND ($2::text IS NULL OR e.json->>'campaign_id' = $2)
      GROUP BY buckets.b ORDER BY buckets.b`,
    [projectId, campaignFilter(campaignId) ?? null, ...Object.values(SERIES_COLUMNS)]);
  return rows.map((r) => {
    const out = { emitted_at_trunc: new Date(r.emitted_at_trunc as string | Date).toISOString() } as SeriesRow;
    for (const col of Object.keys(SERIES_COLUMNS) as Array<keyof typeof SERIES_COLUMNS>) out[col] = Number(r[col]);
    return out;
  });
}
