/**
 * Reports over a project's events (spec part 1 §2 Insights and reports, §3 Report rows, §7 reporting calls). Counts come from the report aggregates the events triggers keep (docs/architecture.md §14), summed over the
 * campaign's blasts, templates and workflows; the recent lists read the newest events through their indexes. Time
 * buckets are UTC. A campaign that does not exist in the project reports nothing.
 */
import { simpleParser } from 'mailparser';
import type { QueryFn } from '../../db/client.ts';
import type { Storage } from '../../storage/storage.ts';
import { decodeLocation } from '../../../domain/location.ts';
import { splitList } from '../../../domain/validation.ts';
import { ALL_SERIES_COLUMNS, REPORT_EVENT_NAMES, SERIES_COLUMNS, parseCampaignId } from '../../../domain/reports.ts';
import type { components } from '../../../../generated/types/reporting.gen.ts';
import { BadRequest } from '../../errors.ts';
import { campaignScope, type CampaignScope } from '../campaigns/index.ts';
import { EVENT } from '../../../domain/events.ts';

type SendResult = components['schemas']['EmailSendResult'];
type SeriesRow = components['schemas']['SeriesRow'];
type QuickStatRow = components['schemas']['QuickStatRow'];
type LinkRow = components['schemas']['LinkRow'];
type RecentClickRow = components['schemas']['RecentClickRow'];
type SourceRow = components['schemas']['SourceRow'];
type OpenedEmailRow = components['schemas']['OpenedEmailRow'];
type RecentOpenRow = components['schemas']['RecentOpenRow'];

/** What a report covers: the whole project, one campaign's associations, or nothing (an unknown campaign). */
/**
 * monthSendsSql is the SQL expression of one project's emails sent this UTC month (the pricing's month, spec part 1
 * §1 pricing), summed from the report aggregates: `project` is the SQL naming the project's id ($1, p.id …). The one
 * definition, used by the send wizard's cost (core/blasts previewBlast) and the operators' project list (core/operator).
 */
export const monthSendsSql = (project: string) =>
  `(SELECT coalesce(sum(num), 0) FROM report_counts_v WHERE project_id = ${project} AND name = '${EVENT.sendSuccess}'
      AND hour >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

export type ReportScope = { kind: 'all' } | { kind: 'campaign'; campaign: CampaignScope } | { kind: 'none' };

/**
 * reportScope reads a report's campaign_id (src/domain/reports.ts parseCampaignId) and loads the campaign's
 * associations. Throws BadRequest naming campaign_id for a malformed value.
 */
export async function reportScope(query: QueryFn, projectId: string, campaignId: string | undefined): Promise<ReportScope> {
  const parsed = parseCampaignId(campaignId);
  if ('error' in parsed) throw new BadRequest([parsed.error]);
  if (parsed.all) return { kind: 'all' };
  const campaign = await campaignScope(query, projectId, parsed.id);
  return campaign ? { kind: 'campaign', campaign } : { kind: 'none' };
}

/**
 * scopeSql returns the condition that limits aggregate rows (columns blast_id, template_id, workflow_id) to a
 * scope, with its parameters numbered from `first`.
 */
function scopeSql(scope: ReportScope, first: number, prefix = ''): { sql: string; params: unknown[] } {
  if (scope.kind !== 'campaign') return { sql: 'TRUE', params: [] };
  const c = scope.campaign;
  return {
    sql: `(${prefix}blast_id = ANY($${first}::uuid[]) OR ${prefix}template_id = ANY($${first + 1}::uuid[]) OR ${prefix}workflow_id = ANY($${first + 2}::text[]))`,
    params: [c.blastIds, c.templateIds, c.workflowIds],
  };
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
    const address = (a: typeof parsed.from | typeof parsed.to) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));
    send_results.push({
      location,
      mailer_payload: {
        body: typeof parsed.html === 'string' ? parsed.html : (parsed.text ?? ''),
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
export async function emailHistory(
  query: QueryFn,
  storage: Storage,
  projectId: string,
  email: string,
  limit = 10,
  offset = 0,
): Promise<{ send_results: SendResult[]; errors: string[]; total: number }> {
  const where = `FROM events WHERE project_id = $1 AND name = '${EVENT.sendSuccess}' AND lower(email) = lower($2) AND json->>'location' IS NOT NULL`;
  const [rows, [{ n }]] = await Promise.all([
    query<{ location: string }>(`SELECT json->>'location' AS location ${where} ORDER BY emitted_at DESC, id DESC LIMIT $3 OFFSET $4`, [
      projectId,
      email.trim(),
      limit,
      offset,
    ]),
    query<{ n: number }>(`SELECT count(*)::int AS n ${where}`, [projectId, email.trim()]),
  ]);
  if (!rows.length) return { send_results: [], errors: [], total: Number(n) };
  return { ...(await emailSendResults(storage, projectId, rows.map((r) => r.location).join(','))), total: Number(n) };
}

const names = (list: readonly string[]) => list.map((n) => `'${n}'`).join(', ');

/** quickStats returns, for each report event name (zeros included), all time: events and distinct emails, in all and by people. */
export async function quickStats(query: QueryFn, projectId: string, scope: ReportScope): Promise<QuickStatRow[]> {
  const counts = new Map<string, Omit<QuickStatRow, 'name'>>();
  if (scope.kind !== 'none') {
    const where = scopeSql(scope, 2);
    const rows = await query<{ name: string; num: string; num_unique: string; num_human: string; num_unique_human: string }>(
      `SELECT name, sum(num) AS num, sum(num_unique) AS num_unique, sum(num_human) AS num_human, sum(num_unique_human) AS num_unique_human
         FROM report_totals_v
        WHERE project_id = $1 AND name IN (${names(REPORT_EVENT_NAMES)}) AND ${where.sql} GROUP BY name`,
      [projectId, ...where.params],
    );
    for (const r of rows)
      counts.set(r.name, {
        num: Number(r.num),
        num_unique: Number(r.num_unique),
        num_human: Number(r.num_human),
        num_unique_human: Number(r.num_unique_human),
      });
  }
  return REPORT_EVENT_NAMES.map((name) => ({ name, ...(counts.get(name) ?? { num: 0, num_unique: 0, num_human: 0, num_unique_human: 0 }) }));
}

/**
 * series returns one row per UTC hour (the last 24, current hour last) or day (the last 31, today last) with the
 * event count of each report column; buckets without events are zeros. With a campaign the rows name it.
 */
export async function series(query: QueryFn, projectId: string, unit: 'hour' | 'day', scope: ReportScope): Promise<SeriesRow[]> {
  const span = unit === 'hour' ? 23 : 30;
  const where = scopeSql(scope, 2);
  const cols = [
    ...ALL_SERIES_COLUMNS.map((col) => `coalesce(sum(a.n) FILTER (WHERE a.name = '${SERIES_COLUMNS[col]}'), 0)::bigint AS ${col}`),
    `coalesce(sum(a.h) FILTER (WHERE a.name = '${EVENT.open}'), 0)::bigint AS human_opens`,
    `coalesce(sum(a.h) FILTER (WHERE a.name = '${EVENT.click}'), 0)::bigint AS human_clicks`,
  ].join(', ');
  const rows = await query<Record<string, unknown>>(
    `WITH buckets AS (
       SELECT generate_series(date_trunc('${unit}', now() AT TIME ZONE 'UTC') - interval '${span} ${unit}s',
                              date_trunc('${unit}', now() AT TIME ZONE 'UTC'), interval '1 ${unit}') AS b),
     a AS (
       SELECT date_trunc('${unit}', hour AT TIME ZONE 'UTC') AS b, name, sum(num) AS n, sum(num_human) AS h FROM report_counts_v
        WHERE project_id = $1 AND hour >= (SELECT min(b) FROM buckets) AT TIME ZONE 'UTC'
          AND name IN (${names(REPORT_EVENT_NAMES)}) AND ${scope.kind === 'none' ? 'FALSE' : where.sql}
        GROUP BY 1, 2)
     SELECT (buckets.b AT TIME ZONE 'UTC') AS emitted_at_trunc, ${cols}
       FROM buckets LEFT JOIN a ON a.b = buckets.b
      GROUP BY buckets.b ORDER BY buckets.b`,
    [projectId, ...where.params],
  );
  const campaign = scope.kind === 'campaign' ? scope.campaign : undefined;
  return rows.map((r) => {
    const out = { emitted_at_trunc: new Date(r.emitted_at_trunc as string | Date).toISOString() } as SeriesRow;
    for (const col of ALL_SERIES_COLUMNS) out[col] = Number(r[col]);
    out.human_opens = Number(r.human_opens);
    out.human_clicks = Number(r.human_clicks);
    if (campaign) Object.assign(out, { campaign_id: campaign.id, campaign_name: campaign.name });
    return out;
  });
}

/** mostClickedLinks returns the links with the most clicks (all time), with their unique clicks. */
export async function mostClickedLinks(query: QueryFn, projectId: string, scope: ReportScope, limit: number): Promise<LinkRow[]> {
  if (scope.kind === 'none') return [];
  const where = scopeSql(scope, 3);
  const rows = await query<{ link_url: string; num_clicks: string; num_unique_clicks: string; h: string; uh: string }>(
    `SELECT min(link) AS link_url, sum(num) AS num_clicks, sum(num_unique) AS num_unique_clicks, sum(num_human) AS h, sum(num_unique_human) AS uh
       FROM report_links_v
      WHERE project_id = $1 AND ${where.sql}
      GROUP BY link_hash ORDER BY sum(num) DESC, min(link) LIMIT $2`,
    [projectId, limit, ...where.params],
  );
  return rows.map((r) => ({
    link_url: r.link_url,
    num_clicks: Number(r.num_clicks),
    num_unique_clicks: Number(r.num_unique_clicks),
    num_human_clicks: Number(r.h),
    num_unique_human_clicks: Number(r.uh),
  }));
}

/** opensBySource returns opens and clicks (and their unique counts) by user agent or recipient domain, busiest first. */
export async function opensBySource(
  query: QueryFn,
  projectId: string,
  scope: ReportScope,
  by: 'user_agent' | 'to_domain',
  limit: number,
): Promise<SourceRow[]> {
  if (scope.kind === 'none') return [];
  const where = scopeSql(scope, 4);
  const rows = await query<{ value: string } & Record<'o' | 'uo' | 'c' | 'uc' | 'ho' | 'uho' | 'hc' | 'uhc', string>>(
    `SELECT min(value) AS value, sum(num_opens) AS o, sum(num_unique_opens) AS uo, sum(num_clicks) AS c, sum(num_unique_clicks) AS uc,
            sum(num_human_opens) AS ho, sum(num_unique_human_opens) AS uho, sum(num_human_clicks) AS hc, sum(num_unique_human_clicks) AS uhc
       FROM report_sources_v WHERE project_id = $1 AND kind = $2 AND ${where.sql}
      GROUP BY value_hash ORDER BY sum(num_opens) + sum(num_clicks) DESC, min(value) LIMIT $3`,
    [projectId, by, limit, ...where.params],
  );
  return rows.map((r) => ({
    [by]: r.value,
    num_opens: Number(r.o),
    num_unique_opens: Number(r.uo),
    num_clicks: Number(r.c),
    num_unique_clicks: Number(r.uc),
    num_human_opens: Number(r.ho),
    num_unique_human_opens: Number(r.uho),
    num_human_clicks: Number(r.hc),
    num_unique_human_clicks: Number(r.uhc),
  }));
}

/** One group of getSendTimeOptimisation: emails sent at the contact's best hour, or at a fallback hour. */
export interface SendTimeGroup {
  group: 'best_hour' | 'fallback';
  emails: number;
  opened: number;
  open_rate: number;
}

/**
 * SEND_TIME_GROUPS: project $1's sent emails of blasts with send-time optimisation (outbox.send_time_source set;
 * within blasts $2 when $3), by whether each went at the contact's own best hour, with how many a person opened (a
 * raw open event of that blast and contact not marked machine, event_is_human). Within a campaign: its blasts' emails
 * and its templates' ($4), as the other reports scope a campaign (workflows send no optimised email).
 */
const SEND_TIME_GROUPS = `SELECT CASE WHEN o.send_time_source = 'contact' THEN 'best_hour' ELSE 'fallback' END AS grp, count(*)::int AS emails,
         count(*) FILTER (WHERE EXISTS (SELECT 1 FROM events e WHERE e.project_id = $1 AND e.blast_id = o.blast_id AND e.user_id = o.contact_id
                                         AND e.name = '${EVENT.open}' AND event_is_human(e.json)))::int AS opened
    FROM outbox o
   WHERE o.project_id = $1 AND o.status = 'sent' AND o.send_time_source IS NOT NULL AND (NOT $3 OR o.blast_id = ANY($2::uuid[]) OR o.template_id = ANY($4::uuid[]))
   GROUP BY 1 ORDER BY 1`;

/**
 * sendTimeOptimisation compares the opens of emails sent at each contact's best hour with those sent at a fallback
 * hour (the campaign report's send-time optimisation panel), over `scope`'s blasts; counted from the outbox and the
 * raw open events, never from the aggregates. Empty when no optimised email was sent.
 */
export async function sendTimeOptimisation(query: QueryFn, projectId: string, scope: ReportScope): Promise<SendTimeGroup[]> {
  if (scope.kind === 'none') return [];
  const c = scope.kind === 'campaign' ? scope.campaign : { blastIds: [], templateIds: [] };
  const rows = await query<{ grp: SendTimeGroup['group']; emails: number; opened: number }>(SEND_TIME_GROUPS, [
    projectId,
    c.blastIds,
    scope.kind === 'campaign',
    c.templateIds,
  ]);
  return rows.map((r) => ({ group: r.grp, emails: r.emails, opened: r.opened, open_rate: r.emails ? r.opened / r.emails : 0 }));
}

/**
 * mostOpenedEmails returns the templates (or, by email_subject, the subjects) whose emails were opened, most unique
 * opens first, with sends, opens and clicks. Emails sent without a template are left out.
 */
export async function mostOpenedEmails(
  query: QueryFn,
  projectId: string,
  scope: ReportScope,
  by: 'template_id' | 'email_subject',
  limit: number,
): Promise<OpenedEmailRow[]> {
  if (scope.kind === 'none') return [];
  const where = scopeSql(scope, 3, 'r.');
  const group = by === 'template_id' ? 'r.template_id' : 't.subject';
  const rows = await query<
    { template_id: string | null; template_name: string | null; email_subject: string | null } & Record<
      's' | 'o' | 'uo' | 'c' | 'uc' | 'ho' | 'uho' | 'hc' | 'uhc',
      string
    >
  >(
    `SELECT ${by === 'template_id' ? 'r.template_id, min(t.name) AS template_name' : 'NULL::uuid AS template_id, NULL::text AS template_name'},
            min(t.subject) AS email_subject,
            coalesce(sum(r.num) FILTER (WHERE r.name = '${EVENT.sendSuccess}'), 0) AS s,
            coalesce(sum(r.num) FILTER (WHERE r.name = '${EVENT.open}'), 0) AS o,
            coalesce(sum(r.num_unique) FILTER (WHERE r.name = '${EVENT.open}'), 0) AS uo,
            coalesce(sum(r.num) FILTER (WHERE r.name = '${EVENT.click}'), 0) AS c,
            coalesce(sum(r.num_unique) FILTER (WHERE r.name = '${EVENT.click}'), 0) AS uc,
            coalesce(sum(r.num_human) FILTER (WHERE r.name = '${EVENT.open}'), 0) AS ho,
            coalesce(sum(r.num_unique_human) FILTER (WHERE r.name = '${EVENT.open}'), 0) AS uho,
            coalesce(sum(r.num_human) FILTER (WHERE r.name = '${EVENT.click}'), 0) AS hc,
            coalesce(sum(r.num_unique_human) FILTER (WHERE r.name = '${EVENT.click}'), 0) AS uhc
       FROM report_totals_v r JOIN templates t ON t.id = r.template_id AND t.project_id = r.project_id
      WHERE r.project_id = $1 AND r.name IN ('${EVENT.sendSuccess}', '${EVENT.open}', '${EVENT.click}') AND ${where.sql}
      GROUP BY ${group}
     HAVING sum(r.num) FILTER (WHERE r.name = '${EVENT.open}') > 0
      ORDER BY uo DESC, o DESC, min(t.subject) LIMIT $2`,
    [projectId, limit, ...where.params],
  );
  return rows.map((r) => ({
    template_id: r.template_id,
    template_name: r.template_name,
    email_subject: r.email_subject ?? '',
    num_sends: Number(r.s),
    num_opens: Number(r.o),
    num_unique_opens: Number(r.uo),
    num_clicks: Number(r.c),
    num_unique_clicks: Number(r.uc),
    num_human_opens: Number(r.ho),
    num_unique_human_opens: Number(r.uho),
    num_human_clicks: Number(r.hc),
    num_unique_human_clicks: Number(r.uhc),
  }));
}

/**
 * recentEvents returns the newest `limit` events named `name` (opens or clicks) the product recorded (is_system) of the scope, newest first: over the
 * project through (project, name, emitted_at), or for a campaign the newest of each of its blasts, templates and
 * workflows through their recent-engagement indexes, merged.
 */
async function recentEvents<T>(
  query: QueryFn,
  projectId: string,
  scope: ReportScope,
  name: typeof EVENT.open | typeof EVENT.click,
  columns: string,
  limit: number,
): Promise<T[]> {
  if (scope.kind === 'none') return [];
  if (scope.kind === 'all') {
    return query<T>(
      `SELECT ${columns} FROM events e WHERE e.project_id = $1 AND e.name = '${name}' AND e.is_system ORDER BY e.emitted_at DESC, e.id DESC LIMIT $2`,
      [projectId, limit],
    );
  }
  const c = scope.campaign;
  const lateral = (param: string, condition: string) => `
    SELECT x.* FROM unnest(${param}) AS s(key) CROSS JOIN LATERAL (
      SELECT e.id AS event_id, ${columns} FROM events e
       WHERE ${condition} AND e.name = '${name}' AND e.project_id = $1 AND e.is_system
       ORDER BY e.emitted_at DESC LIMIT $2) x`;
  // Only the kinds the campaign has: each part is planned over every monthly partition of events, and planning the
  // parts of an empty list took longer than running the query (docs/bench-log.md, 2026-11-29 reports before and after).
  const params: unknown[] = [projectId, limit];
  const part = (keys: string[], type: string, condition: string) => {
    params.push(keys);
    return lateral(`$${params.length}::${type}[]`, condition);
  };
  const parts = [
    c.blastIds.length ? part(c.blastIds, 'uuid', 'e.blast_id = s.key') : null,
    c.templateIds.length ? part(c.templateIds, 'uuid', 'e.template_id = s.key') : null,
    c.workflowIds.length ? part(c.workflowIds, 'text', "e.json->>'workflow_id' = s.key") : null,
  ].filter((x): x is string => !!x);
  if (!parts.length) return [];
  const rows = await query<T & { event_id?: string }>(
    `SELECT DISTINCT ON (emitted_at, event_id) * FROM (${parts.join(' UNION ALL ')}) u
      ORDER BY emitted_at DESC, event_id DESC LIMIT $2`,
    params,
  );
  for (const r of rows) delete r.event_id;
  return rows;
}

/** recentlyClickedLinks returns the newest clicks: link, recipient, when, template, blast, user agent, and whether a bot made it (and why). */
export async function recentlyClickedLinks(query: QueryFn, projectId: string, scope: ReportScope, limit: number): Promise<RecentClickRow[]> {
  const rows = await recentEvents<Omit<RecentClickRow, 'emitted_at'> & { emitted_at: Date }>(
    query,
    projectId,
    scope,
    EVENT.click,
    `coalesce(e.json->>'link', e.json->'click'->>'link', '') AS link_url, e.email, e.user_id, e.emitted_at, e.template_id, e.blast_id,
     e.json->>'user_agent' AS user_agent, NOT event_is_human(e.json) AS bot,
     CASE WHEN event_is_human(e.json) THEN NULL ELSE coalesce(e.json->>'bot_reason', 'unknown') END AS bot_reason`,
    limit,
  );
  return rows.map((r) => ({ ...r, emitted_at: new Date(r.emitted_at).toISOString() }));
}

/** recentlyOpenedEmails returns the newest opens: recipient, when, template and its subject, user agent, and whether a machine made it (and why). */
export async function recentlyOpenedEmails(query: QueryFn, projectId: string, scope: ReportScope, limit: number): Promise<RecentOpenRow[]> {
  const rows = await recentEvents<Omit<RecentOpenRow, 'emitted_at' | 'email_subject'> & { emitted_at: Date }>(
    query,
    projectId,
    scope,
    EVENT.open,
    `e.email, e.user_id, e.emitted_at, e.template_id, e.json->>'user_agent' AS user_agent, NOT event_is_human(e.json) AS machine,
     CASE WHEN event_is_human(e.json) THEN NULL ELSE coalesce(e.json->>'machine_reason', 'unknown') END AS machine_reason`,
    limit,
  );
  const templateIds = [...new Set(rows.map((r) => r.template_id).filter((t): t is string => !!t))];
  const subjects = new Map(
    (templateIds.length
      ? await query<{ id: string; subject: string }>('SELECT id, subject FROM templates WHERE project_id = $1 AND id = ANY($2::uuid[])', [
          projectId,
          templateIds,
        ])
      : []
    ).map((t) => [t.id, t.subject]),
  );
  return rows.map((r) => ({
    ...r,
    emitted_at: new Date(r.emitted_at).toISOString(),
    email_subject: r.template_id ? (subjects.get(r.template_id) ?? null) : null,
  }));
}

/**
 * ReportCache remembers the sends reports per project, report and campaign for `ttlMs` (0: never), so a dashboard
 * polled by many tabs costs one computation per window. clear empties one report of a project (the console clears
 * both sends reports before it saves a campaign, whose associations change its numbers).
 */
export class ReportCache {
  private readonly entries = new Map<string, { expires: number; value: unknown }>();

  constructor(private readonly ttlMs: number) {}

  /** get answers from the cache, or computes, stores and answers. */
  async get<T>(projectId: string, report: string, campaign: string, compute: () => Promise<T>): Promise<T> {
    const key = `${projectId}\u0000${report}\u0000${campaign}`;
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value as T;
    const value = await compute();
    if (this.ttlMs > 0) {
      if (this.entries.size >= 10_000) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { expires: Date.now() + this.ttlMs, value });
    }
    return value;
  }

  /** clear removes every cached campaign of `report` for the project; returns how many entries it removed. */
  clear(projectId: string, report: string): number {
    const prefix = `${projectId}\u0000${report}\u0000`;
    let n = 0;
    for (const key of [...this.entries.keys()])
      if (key.startsWith(prefix)) {
        this.entries.delete(key);
        n++;
      }
    return n;
  }
}
