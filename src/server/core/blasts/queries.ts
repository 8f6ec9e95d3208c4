/**
 * Named SQL of blasts (spec part 2 §2-§5 Email blasts; spec part 1 §6 job log): queuing a blast's recipients and
 * logging its end. Who a blast reaches is core/audience.
 */
import { EVENT } from '../../../domain/events.ts';
import { outboxEventsSql } from '../events/index.ts';
import { audienceCte, policyArgs, sandboxRefusedSql, type PolicyUse } from '../audience/index.ts';
import { atHourSql } from '../audience/policies.ts';
import { insertOutboxSql } from '../sending/outbox.ts';

/**
 * queueAudienceChunkSql: one chunk of a due blast's expansion, in one statement: the audience's contacts
 * with ids in ($6, $7] (core/audience audienceCte; $1-$5 as there) become outbox rows of blast $8 — sender persona $9,
 * template pick_template(contact, $10, $11) (core/blasts/sql), send instant and zone from the table $12 (contact time
 * zones as written, '' for none) → $13 zones, $14 instants, else $15 and $16 (the blast's zone and instant, or UTC's
 * for a contact-local blast), a new Message-ID at domain $17 — and, when $18 (the project is in the sandbox), a recipient not among the allowed $19
 * (core/audience sandboxRefusedSql) gets a failed row with the reason (its address then $20) and its
 * email_send_result_failure event; $21 is the mail's subscription topic or NULL (core/audience AUDIENCE_TOPIC). Rows already there (a resumed expansion) are left as they are and get no second
 * event or Message-ID. Returns the chunk's accounting, counted over the audience whether or not its rows were already
 * there: `found` (live contacts named), left out by reason, `to_send`, `refused`, and `zones` (zone → send instant
 * of the chunk's recipients). No recipient passes through Node.
 *
 * The project's audience policies (core/audience/policies.ts) apply as `policies` says — $22 whether the blast is a
 * re-engagement blast — and with `optimised` (send-time optimisation) each recipient's instant is the first at or
 * after $16 in its best UTC hour (contact_event_counts.best_hour), else in the project's, $23 (an hour or NULL), else $16 itself; its
 * zone is that hour ('14:00 UTC') and send_time_source says which. The 24 instants and their zones are worked out once
 * per statement (`slots`) and each recipient's read by its hour, not one date calculation per recipient.
 */
export const queueAudienceChunkSql = (policies: PolicyUse, optimised: boolean) => `WITH ${policyArgs('$22', '$8')},
  best AS (SELECT $23::int AS project_hour, $15::text AS fallback_zone),
  slots AS (
    SELECT array_agg(${atHourSql('$16::timestamptz', 'h')} ORDER BY h) AS at,
           array_agg(to_char(${atHourSql('$16::timestamptz', 'h')} AT TIME ZONE 'UTC', 'HH24":00 UTC"') ORDER BY h) AS zone,
           to_char($16::timestamptz AT TIME ZONE 'UTC', 'HH24":00 UTC"') AS chosen_zone
      FROM generate_series(0, 23) h),
  ${audienceCte(['$6', '$7'], undefined, undefined, '$21', { ...policies, bestHour: optimised, reEngagement: '$22::boolean', blast: '$8' })},
  hours AS (
    SELECT a.*, ${optimised ? `coalesce(a.best_hour, (SELECT project_hour FROM best))` : 'NULL::int'} AS hour,
           ${optimised ? `CASE WHEN a.best_hour IS NOT NULL THEN 'contact' WHEN (SELECT project_hour FROM best) IS NOT NULL THEN 'project' ELSE 'chosen' END` : 'NULL::text'} AS source
      FROM audience a),
  picked AS (
    SELECT a.id, a.email, a.excluded, a.source,
           ${optimised ? `coalesce((SELECT zone FROM slots)[a.hour + 1], (SELECT chosen_zone FROM slots))` : 'coalesce(z.zone, $15)'} AS zone,
           ${optimised ? 'coalesce((SELECT at FROM slots)[a.hour + 1], $16::timestamptz)' : 'coalesce(z.instant, $16::timestamptz)'} AS send_at,
           a.excluded IS NULL AND $18 AND ${sandboxRefusedSql('a.email', '$19')} AS refused
      FROM hours a LEFT JOIN unnest($12::text[], $13::text[], $14::timestamptz[]) AS z(key, zone, instant) ON z.key = coalesce(a.timezone, '')),
  made AS (${insertOutboxSql(
    {
      project_id: '$1',
      blast_id: '$8',
      contact_id: 'p.id',
      email: 'p.email',
      template_id: 'pick_template(p.id, $10::uuid[], $11::int[])',
      sender_persona_id: '$9',
      zone: 'p.zone',
      send_at: 'p.send_at',
      next_attempt_at: 'p.send_at',
      status: "CASE WHEN p.refused THEN 'failed' ELSE 'pending' END",
      last_error: 'CASE WHEN p.refused THEN p.email || $20 END',
      send_time_source: 'p.source',
    },
    '$17',
    'picked p WHERE p.excluded IS NULL',
    'ON CONFLICT (blast_id, contact_id) DO NOTHING RETURNING project_id, email, contact_id, blast_id, template_id, status, last_error, message_id',
  )}),
  failed AS (${outboxEventsSql(
    `'${EVENT.sendFailure}'`,
    "jsonb_build_object('error_string', last_error, 'blast_id', blast_id, 'message_id', message_id)",
    "made WHERE status = 'failed'",
  )} RETURNING 1)
  SELECT count(*)::int AS found,
         (count(*) FILTER (WHERE excluded = 'bounced'))::int AS bounced,
         (count(*) FILTER (WHERE excluded = 'suppressed'))::int AS suppressed,
         (count(*) FILTER (WHERE excluded = 'unsubscribed'))::int AS unsubscribed,
         (count(*) FILTER (WHERE excluded = 'unconfirmed'))::int AS unconfirmed,
         (count(*) FILTER (WHERE excluded = 'invalid'))::int AS invalid,
         (count(*) FILTER (WHERE excluded = 'sunset'))::int AS sunset,
         (count(*) FILTER (WHERE excluded = 'frequency'))::int AS frequency,
         (count(*) FILTER (WHERE excluded IS NULL))::int AS to_send,
         (count(*) FILTER (WHERE refused))::int AS refused,
         (SELECT coalesce(json_object_agg(zone, send_at), '{}') FROM (SELECT DISTINCT zone, send_at FROM picked WHERE excluded IS NULL) z) AS zones,
         (SELECT count(*) FROM made)::int AS inserted,
         (SELECT count(*) FROM failed)::int AS failed_events
    FROM picked`;

/**
 * FINISHED_BLASTS: of $1 blast ids, those fully expanded whose rows have all settled and whose end is not logged yet
 * (an index probe per blast).
 */
export const FINISHED_BLASTS = `SELECT b.id FROM email_blasts b
      WHERE b.id = ANY($1::uuid[]) AND b.expanded_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.blast_id = b.id AND o.status IN ('pending', 'sending'))
        AND NOT EXISTS (SELECT 1 FROM job_log j WHERE j.job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND j.start_details->>'scheduled_email_group_id' = b.id::text)`;

/** LOG_FINISHED_BLASTS: one JOB_DISTRIBUTE_EMAIL_BLAST entry per blast of $1 with its sent, failed and cancelled counts (once). */
export const LOG_FINISHED_BLASTS = `INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
     SELECT b.project_id, 'JOB_DISTRIBUTE_EMAIL_BLAST', b.due_at, now(), c.failed = 0,
            jsonb_build_object('scheduled_email_group_id', b.id, 'name', b.name),
            jsonb_build_object('num_sent', c.sent, 'num_failed', c.failed, 'num_cancelled', c.cancelled)
       FROM email_blasts b
       JOIN LATERAL (SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status = 'failed')::int AS failed,
                            count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
                       FROM outbox o WHERE o.blast_id = b.id) c ON true
      WHERE b.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM job_log j WHERE j.job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND j.start_details->>'scheduled_email_group_id' = b.id::text)`;

/** BLAST_BY_ID: blast $1, every column. */
export const BLAST_BY_ID = 'SELECT * FROM email_blasts WHERE id = $1';

/** PROJECT_SANDBOX: whether project $1 is out of the sandbox. */
export const PROJECT_SANDBOX = 'SELECT not_in_sandbox FROM projects WHERE id = $1';

/** PERSONA_EMAIL: the address of sender persona $1. */
export const PERSONA_EMAIL = 'SELECT email FROM sender_personas WHERE id = $1';

/** PROJECT_PERSONA_EMAILS: the addresses of project $1's live sender personas (who the sandbox allows). */
export const PROJECT_PERSONA_EMAILS = 'SELECT email FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL';

/** MARK_EXPANDED: blast $1 is expanded, with its per-zone send instants $2 and audience accounting $3 (once: no row when already). */
export const MARK_EXPANDED =
  'UPDATE email_blasts SET expanded_at = now(), sent_at_per_timezone = $2, audience = $3 WHERE id = $1 AND expanded_at IS NULL RETURNING id';

/** LOG_EXPANDED: the JOB_PROCESS_EMAIL_BLAST entry of project $1's expansion, details $2 and $3. */
export const LOG_EXPANDED = `INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
      VALUES ($1, 'JOB_PROCESS_EMAIL_BLAST', now(), now(), true, $2, $3)`;
