/**
 * The project's audience-health policies (docs/architecture.md "Who a blast reaches"): the sunset policy, frequency
 * capping and send-time optimisation. Each is a rule over one contact's history, written here once as SQL and read by
 * the audience (./queries.ts audienceCte: the preview and the expansion) and by the sender for every marketing email
 * it is about to send (core/sending/eligibility.ts SEND_TIME_EXCLUSIONS), through ./exclusion.ts exclusionSql.
 *
 * - Sunset: a contact with no human open or click for `sunset_days` days, while at least `sunset_min_emails` emails
 *   reached it, gets no more marketing mail (`excluded.sunset`); a re-engagement blast lets each such contact through
 *   once (once since its last engagement). The clock is contact_event_counts (core/contacts/sql): last_engaged_at,
 *   sends_since_engaged and unengaged_since, kept by the event triggers, so the rule reads one row per contact.
 * - Frequency capping: at most `frequency_cap_emails` marketing emails per contact in `frequency_cap_days` days, over
 *   blasts, workflows and the sending API's broadcast stream (transactional streams and test emails exempt;
 *   `excluded.frequency`). At expansion the emails counted are those already queued or sent within that many days of
 *   now either side (so two blasts of the same day see each other); at send time, those sent in the past
 *   `frequency_cap_days` days and those claimed ahead of it.
 * - Send-time optimisation: a blast's email goes to each contact at the first instant at or after the blast's whose
 *   UTC hour is the contact's best hour (the hour most of its human opens fell in), else the project's best hour, else
 *   the blast's instant: within 24 h of it.
 */
import type { QueryFn } from '../../db/client.ts';
import { BadRequest } from '../../errors.ts';
import { EVENT } from '../../../domain/events.ts';

/** The policy settings of a project; a policy is off while any of its numbers is null. */
export interface AudiencePolicies {
  sunset_days: number | null;
  sunset_min_emails: number | null;
  frequency_cap_emails: number | null;
  frequency_cap_days: number | null;
}

/** The accepted ranges (inclusive) of each setting: a value outside is a 400 naming the field. */
export const POLICY_LIMITS: Record<keyof AudiencePolicies, [min: number, max: number]> = {
  sunset_days: [7, 3650],
  sunset_min_emails: [1, 1000],
  frequency_cap_emails: [1, 1000],
  frequency_cap_days: [1, 365],
};

/** The values the console suggests when a policy is switched on. */
export const SUGGESTED_POLICIES = { sunset_days: 180, sunset_min_emails: 5, frequency_cap_emails: 3, frequency_cap_days: 7 } as const;

const READ_POLICIES = 'SELECT sunset_days, sunset_min_emails, frequency_cap_emails, frequency_cap_days FROM projects WHERE id = $1';
const WRITE_POLICIES = `UPDATE projects SET sunset_days = $2, sunset_min_emails = $3, frequency_cap_emails = $4, frequency_cap_days = $5
   WHERE id = $1 RETURNING sunset_days, sunset_min_emails, frequency_cap_emails, frequency_cap_days`;

/** readPolicies: project `projectId`'s settings (all null when it has none, or no such project). */
export async function readPolicies(run: QueryFn, projectId: string): Promise<AudiencePolicies> {
  const [row] = await run<AudiencePolicies>(READ_POLICIES, [projectId]);
  return row ?? { sunset_days: null, sunset_min_emails: null, frequency_cap_emails: null, frequency_cap_days: null };
}

/** A field of a policy the caller got wrong and why (the gateway's 400 `errors`). */
export interface PolicyError {
  field: keyof AudiencePolicies;
  message: string;
}

/**
 * policyErrors: what is wrong with `p` — a number outside POLICY_LIMITS, or a policy given half (its days without its
 * count, or the other way round). Empty when it may be saved.
 */
export function policyErrors(p: AudiencePolicies): PolicyError[] {
  const errors: PolicyError[] = [];
  for (const [field, [min, max]] of Object.entries(POLICY_LIMITS) as Array<[keyof AudiencePolicies, [number, number]]>) {
    const v = p[field];
    if (v !== null && (!Number.isInteger(v) || v < min || v > max))
      errors.push({ field, message: `${field} must be a whole number from ${min} to ${max}, or null for off` });
  }
  const pairs: Array<[keyof AudiencePolicies, keyof AudiencePolicies]> = [
    ['sunset_days', 'sunset_min_emails'],
    ['frequency_cap_emails', 'frequency_cap_days'],
  ];
  for (const [a, b] of pairs)
    if ((p[a] === null) !== (p[b] === null)) {
      const missing = p[a] === null ? a : b;
      errors.push({ field: missing, message: `${missing} must be given with ${missing === a ? b : a} (both null turns the policy off)` });
    }
  return errors;
}

/**
 * writePolicies saves `p` for project `projectId` and returns what is stored. Throws BadRequest (400), changing
 * nothing, with one message per field policyErrors finds wrong.
 */
export async function writePolicies(run: QueryFn, projectId: string, p: AudiencePolicies): Promise<AudiencePolicies> {
  const errors = policyErrors(p);
  if (errors.length) throw new BadRequest(errors.map((e) => `${e.field}: ${e.message}`));
  const [row] = await run<AudiencePolicies>(WRITE_POLICIES, [projectId, p.sunset_days, p.sunset_min_emails, p.frequency_cap_emails, p.frequency_cap_days]);
  await refreshSunsetSegment(run, projectId);
  return row;
}

/** Which policies a query must apply: the SQL of a policy that is off is left out (it costs nothing then). */
export interface PolicyUse {
  sunset: boolean;
  frequency: boolean;
}

/** policyUse: which of `p`'s exclusions are on. */
export function policyUse(p: AudiencePolicies): PolicyUse {
  return {
    sunset: p.sunset_days !== null && p.sunset_min_emails !== null,
    frequency: p.frequency_cap_emails !== null && p.frequency_cap_days !== null,
  };
}

/**
 * policyJoins: the rows the policy expressions read, joined to a query over contacts: `pol`, the settings of project
 * `project` (an expression), and `k`, contact `contact`'s row of contact_event_counts (LEFT: none yet).
 */
export const policyJoins = (project: string, contact: string) => `
    JOIN projects pol ON pol.id = ${project}
    LEFT JOIN contact_event_counts k ON k.contact_id = ${contact}`;

/**
 * marketingEmailSql: whether outbox row `o` (an alias) is marketing mail, the mail opt-outs and the audience policies
 * apply to: it goes out on a stream of kind broadcast (the built-in `broadcast` or a project's own), from a marketing
 * template or handed in through the sending API or SMTP, and is not an operator's test email. The one definition, read
 * by the send-time check (core/sending/eligibility.ts) and by the frequency cap's count.
 */
export const marketingEmailSql = (o: string) =>
  `(coalesce((SELECT ms.kind FROM message_streams ms WHERE ms.project_id = ${o}.project_id AND ms.name = ${o}.stream), ${o}.stream) = 'broadcast'
     AND coalesce((SELECT t2.type = 'TEMPLATE_MARKETING' FROM templates t2 WHERE t2.id = ${o}.template_id), ${o}.submission_id IS NOT NULL) AND NOT ${o}.is_test)`;

/**
 * sunsetSql: whether contact `contact` is past the sunset policy (needs policyJoins): at least sunset_min_emails
 * emails since its last human open or click, the first of them sunset_days or more ago. With `reEngagement` (an SQL
 * boolean: the email is a re-engagement blast's) and `blast` (its id), a contact not yet sent a re-engagement email
 * since its last engagement (another blast's, queued or sent) is let through.
 */
export function sunsetSql(contact: string, reEngagement = 'false', blast = 'NULL'): string {
  return `(k.sends_since_engaged >= pol.sunset_min_emails AND k.unengaged_since <= now() - make_interval(days => pol.sunset_days)
      AND NOT (${reEngagement} AND NOT EXISTS (SELECT 1 FROM outbox r JOIN email_blasts rb ON rb.id = r.blast_id AND rb.re_engagement
            WHERE r.contact_id = ${contact} AND NOT r.is_test AND r.status IN ('pending', 'sending', 'sent')
              AND r.send_at > coalesce(k.last_engaged_at, '-infinity') AND r.blast_id IS DISTINCT FROM ${blast}::uuid)))`;
}

/**
 * The emails counted against contact `contact`'s cap at expansion: its marketing emails (marketingEmailSql) queued or sent
 * within frequency_cap_days days of now, either side (so two blasts of the same day see each other), other than blast
 * `blast`'s own; `f` is the outbox's alias (needs `pol`, policyJoins).
 */
const COUNTED_AT_EXPANSION = (f: string, blast: string) =>
  `NOT ${f}.is_test AND ${f}.status IN ('pending', 'sending', 'sent')
        AND ${f}.send_at > now() - make_interval(days => pol.frequency_cap_days) AND ${f}.send_at < now() + make_interval(days => pol.frequency_cap_days)
        AND ${f}.blast_id IS DISTINCT FROM ${blast}::uuid AND ${marketingEmailSql(f)}`;

/**
 * overCapAtExpansionSql: whether contact `contact` already has frequency_cap_emails emails counted at expansion
 * (COUNTED_AT_EXPANSION): an index range per contact (outbox_contact_sends_idx). The preview's form; an expansion
 * chunk joins overCapInRangeSql instead.
 */
export function overCapAtExpansionSql(contact: string, blast = 'NULL'): string {
  return `(pol.frequency_cap_emails IS NOT NULL AND (SELECT count(*) FROM outbox f
      WHERE f.contact_id = ${contact} AND ${COUNTED_AT_EXPANSION('f', blast)}) >= pol.frequency_cap_emails)`;
}

/**
 * overCapInRangeSql: the contacts with ids in (lo, hi] (placeholders) of project `project` over the cap at expansion
 * (`contact_id`), as a table to LEFT JOIN: one range of outbox_contact_sends_idx per chunk instead of a probe per
 * contact (the same rule as overCapAtExpansionSql).
 */
export function overCapInRangeSql(project: string, lo: string, hi: string, blast = 'NULL'): string {
  return `(SELECT f.contact_id FROM outbox f JOIN projects pol ON pol.id = ${project}
      WHERE pol.frequency_cap_emails IS NOT NULL AND f.project_id = ${project} AND f.contact_id > ${lo}::uuid AND f.contact_id <= ${hi}::uuid
        AND ${COUNTED_AT_EXPANSION('f', blast)}
      GROUP BY f.contact_id HAVING count(*) >= min(pol.frequency_cap_emails))`;
}

/**
 * overCapAtSendSql: whether outbox row `row` (an alias) would exceed its contact's cap if sent now: its contact's
 * marketing emails sent in the past frequency_cap_days days, plus those being sent (status sending) under another
 * claim, or in its own claimed batch with a lower id, reach frequency_cap_emails (needs policyJoins). Two senders
 * that claim the same contact's emails at once may then both hold them back: the cap errs towards fewer emails.
 */
export function overCapAtSendSql(row: string): string {
  return `(pol.frequency_cap_emails IS NOT NULL AND ${row}.contact_id IS NOT NULL AND (SELECT count(*) FROM outbox f
      WHERE f.contact_id = ${row}.contact_id AND f.id <> ${row}.id AND NOT f.is_test
        AND ((f.status = 'sent' AND f.sent_at > now() - make_interval(days => pol.frequency_cap_days)) OR (f.status = 'sending' AND (f.claim_token IS DISTINCT FROM ${row}.claim_token OR f.id < ${row}.id)))
        AND ${marketingEmailSql('f')}) >= pol.frequency_cap_emails)`;
}

/**
 * PROJECT_BEST_HOUR: the UTC hour (0-23) most human opens of project $1 fell in, all time, from the report
 * aggregates (report_counts_v, the Insights' opens by hour); NULL when none is counted. Send-time optimisation's
 * fallback for a contact with no opens of its own; a few rows per hour of the project's history.
 */
export const PROJECT_BEST_HOUR = `SELECT (SELECT extract(hour FROM hour AT TIME ZONE 'UTC')::int FROM report_counts_v
     WHERE project_id = $1 AND name = '${EVENT.open}' GROUP BY 1 HAVING sum(num_human) > 0 ORDER BY sum(num_human) DESC, 1 LIMIT 1) AS hour`;

/**
 * atHourSql: the first instant at or after `instant` (timestamptz) whose UTC hour is `hour` (0-23): `instant` itself
 * when it is in that hour; within 24 h of it.
 */
export const atHourSql = (instant: string, hour: string) =>
  `(CASE WHEN ${hour} = extract(hour FROM ${instant} AT TIME ZONE 'UTC')::int THEN ${instant}
        ELSE date_trunc('hour', ${instant} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
             + make_interval(hours => ((${hour})::int - extract(hour FROM ${instant} AT TIME ZONE 'UTC')::int + 24) % 24) END)`;

/** The name of the built-in segment of the contacts past the sunset policy. */
export const SUNSET_SEGMENT_NAME = 'Sunset: no opens or clicks';

/**
 * REFRESH_SUNSET_SEGMENT: makes project $1's built-in 'sunset' segment hold exactly its live contacts past the sunset
 * policy (sunsetSql) — made when missing, shown again when the policy is back on; with the policy off it is archived
 * and emptied. One statement: the segment row, the members that left, the members that came.
 */
const REFRESH_SUNSET_SEGMENT = `WITH pol AS (SELECT id, sunset_days IS NOT NULL AND sunset_min_emails IS NOT NULL AS on_ FROM projects WHERE id = $1),
  seg AS (
    INSERT INTO segments (project_id, name, built_in) SELECT $1, $2, 'sunset' FROM pol WHERE on_
    ON CONFLICT (project_id, built_in) DO UPDATE SET archived_at = NULL RETURNING id),
  off AS (UPDATE segments SET archived_at = now() WHERE project_id = $1 AND built_in = 'sunset' AND archived_at IS NULL AND NOT (SELECT on_ FROM pol) RETURNING id),
  past AS (
    SELECT c.id FROM contacts c${policyJoins('$1', 'c.id')}
     WHERE c.project_id = $1 AND c.archived_at IS NULL AND ${sunsetSql('c.id')}),
  gone AS (
    DELETE FROM segment_members sm USING segments g
     WHERE g.id = sm.segment_id AND g.project_id = $1 AND g.built_in = 'sunset'
       AND ((SELECT count(*) FROM off) > 0 OR NOT EXISTS (SELECT 1 FROM past p WHERE p.id = sm.contact_id))
    RETURNING 1),
  came AS (
    INSERT INTO segment_members (segment_id, contact_id) SELECT seg.id, p.id FROM seg, past p
    ON CONFLICT DO NOTHING RETURNING 1)
  SELECT (SELECT id FROM seg) AS id, (SELECT count(*) FROM came)::int AS added, (SELECT count(*) FROM gone)::int AS removed`;

/**
 * refreshSunsetSegment brings project `projectId`'s built-in sunset segment up to date (REFRESH_SUNSET_SEGMENT): after
 * its policy changes and nightly (the sunset-segments job), since contacts cross the line as days pass. Resolves the
 * segment's id (null while the policy is off) and how many members came and left.
 */
export async function refreshSunsetSegment(run: QueryFn, projectId: string): Promise<{ id: string | null; added: number; removed: number }> {
  const [r] = await run<{ id: string | null; added: number; removed: number }>(REFRESH_SUNSET_SEGMENT, [projectId, SUNSET_SEGMENT_NAME]);
  return r;
}

/** refreshSunsetSegments refreshes the built-in sunset segment of every project that has the policy on or still shows one (the nightly job). */
export async function refreshSunsetSegments(run: QueryFn): Promise<number> {
  const projects = await run<{ id: string }>(
    `SELECT id FROM projects WHERE sunset_days IS NOT NULL AND sunset_min_emails IS NOT NULL
     UNION SELECT project_id FROM segments WHERE built_in = 'sunset' AND archived_at IS NULL`,
  );
  for (const p of projects) await refreshSunsetSegment(run, p.id);
  return projects.length;
}
