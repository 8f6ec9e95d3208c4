/**
 * Named SQL of blasts (spec part 2 §2-§5 Email blasts; spec part 1 §6 job log): queuing a blast's recipients and
 * logging its end. Who a blast reaches is core/audience.
 */
import { EVENT } from '../../../domain/events.ts';
import { insertSystemEventsSql } from '../events/index.ts';

/**
 * QUEUE_RECIPIENTS: one chunk of a blast's outbox rows, and for each recipient refused in the sandbox (status
 * 'failed') its email_send_result_failure event, in one statement, so a chunk is in whole or not at all; rows already
 * there (a resumed expansion) are left as they are and get no second event. $1 project, $2 blast, $3 sender persona,
 * $4 contact ids, $5 addresses, $6 template ids, $7 zones, $8 send instants, $9 statuses, $10 errors, $11 Message-IDs.
 */
export const QUEUE_RECIPIENTS = `WITH made AS (
        INSERT INTO outbox (project_id, blast_id, contact_id, email, template_id, sender_persona_id, zone, send_at, next_attempt_at, status, last_error, message_id)
        SELECT $1, $2, u.contact, u.email, u.template, $3, u.zone, u.send_at, u.send_at, u.status, u.error, u.message_id
          FROM unnest($4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::timestamptz[], $9::text[], $10::text[], $11::text[])
            AS u(contact, email, template, zone, send_at, status, error, message_id)
        ON CONFLICT (blast_id, contact_id) DO NOTHING
        RETURNING project_id, email, contact_id, blast_id, template_id, status, last_error, message_id)
      ${insertSystemEventsSql(
        {
          project_id: 'project_id',
          name: `'${EVENT.sendFailure}'`,
          email: 'email',
          user_id: 'contact_id',
          blast_id: 'blast_id',
          template_id: 'template_id',
          json: "jsonb_build_object('error_string', last_error, 'blast_id', blast_id, 'message_id', message_id)",
        },
        "made WHERE status = 'failed'",
      )}`;

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
