/**
 * Named SQL of sending (docs/architecture.md "Sending a blast, exactly once"): how an outbox row becomes sent,
 * failed, or due again. Every write is fenced by the row's claim token ($2), so a sender that lost its claim changes
 * nothing. The events are written in the same statement (core/events insertSystemEventsSql).
 */
import { EVENT } from '../../../domain/events.ts';
import { insertSystemEventsSql } from '../events/index.ts';

/**
 * MARK_SENT: rows → sent with their stored copy's location, and one email_send_result_success event each, in one
 * statement. $1 outbox ids, $2 their claim tokens, $3 locations, $4 event json, one element per row.
 */
export const MARK_SENT = `WITH input AS (SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::jsonb[]) AS u(id, token, location, json)),
    done AS (
      UPDATE outbox o SET status = 'sent', sent_at = now(), location = i.location, last_error = NULL, claim_token = NULL
        FROM input i WHERE o.id = i.id AND o.claim_token = i.token
      RETURNING o.project_id, o.email, o.contact_id, o.blast_id, o.template_id, i.json)
    ${insertSystemEventsSql({
    project_id: 'project_id', name: `'${EVENT.sendSuccess}'`, email: 'email', user_id: 'contact_id', blast_id: 'blast_id', template_id: 'template_id', json: 'json',
  }, 'done')}`;

/**
 * FAIL_SEND: a row → failed for good with its reason, and its email_send_result_failure event (error_string,
 * attempts, blast, Message-ID, workflow). $1 outbox id, $2 claim token, $3 reason.
 */
export const FAIL_SEND = `WITH done AS (
         UPDATE outbox SET status = 'failed', last_error = $3, claim_token = NULL WHERE id = $1 AND claim_token = $2 RETURNING *)
       ${insertSystemEventsSql({
    project_id: 'project_id', name: `'${EVENT.sendFailure}'`, email: 'email', user_id: 'contact_id', blast_id: 'blast_id', template_id: 'template_id',
    json: `jsonb_strip_nulls(jsonb_build_object('error_string', $3::text, 'attempts', attempts, 'blast_id', blast_id, 'message_id', message_id,
                                                   'workflow_id', workflow_id, 'workflow_hops', workflow_hops))`,
  }, 'done')}`;

/** RETRY_SEND_LATER: a row → pending again after a temporary failure, due after the back-off. $1 id, $2 claim token, $3 reason, $4 delay (ms, text). */
export const RETRY_SEND_LATER = `UPDATE outbox SET status = 'pending', claim_token = NULL, last_error = $3, next_attempt_at = now() + ($4 || ' milliseconds')::interval
          WHERE id = $1 AND claim_token = $2`;
