/**
 * Named SQL of sending (docs/architecture.md "Sending a blast, exactly once"): how an outbox row becomes sent,
 * failed, or due again. Every write is fenced by the row's claim token ($2), so a sender that lost its claim changes
 * nothing. The events are written in the same statement (core/events insertSystemEventsSql).
 */
import { EVENT } from '../../../domain/events.ts';
import { outboxEventsSql } from '../events/index.ts';

/**
 * MARK_SENT: rows → sent with their stored copy's location, and one email_send_result_success event each, in one
 * statement. $1 outbox ids, $2 their claim tokens, $3 locations, $4 event json, $5 the daily_sends key each send counts
 * toward (NULL: none) and $6 its UTC day, one element per row: a sending domain past its warm-up counts its sends here,
 * a group at a time, instead of one statement per email on one hot row (core/sending/dailyCaps.ts takeWarmup).
 */
export const MARK_SENT = `WITH input AS (SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::jsonb[], $5::text[], $6::date[]) AS u(id, token, location, json, daily_key, daily_day)),
    done AS (
      UPDATE outbox o SET status = 'sent', sent_at = now(), location = i.location, relay = i.json->>'relay', last_error = NULL, claim_token = NULL
        FROM input i WHERE o.id = i.id AND o.claim_token = i.token
      RETURNING o.id, o.project_id, o.email, o.contact_id, o.blast_id, o.template_id, i.json, i.daily_key, i.daily_day),
    counted AS (
      INSERT INTO daily_sends AS d (key, day, sent)
      SELECT daily_key, daily_day, count(*) FROM done WHERE daily_key IS NOT NULL GROUP BY 1, 2
      ON CONFLICT (key, day) DO UPDATE SET sent = d.sent + excluded.sent)
    ${outboxEventsSql(`'${EVENT.sendSuccess}'`, 'json', 'done')}`;

/**
 * FAIL_SEND: a row → failed for good with its reason, and its email_send_result_failure event (error_string,
 * attempts, blast, Message-ID, workflow). $1 outbox id, $2 claim token, $3 reason.
 */
export const FAIL_SEND = `WITH done AS (
         UPDATE outbox SET status = 'failed', last_error = $3, claim_token = NULL WHERE id = $1 AND claim_token = $2 RETURNING *)
       ${outboxEventsSql(
         `'${EVENT.sendFailure}'`,
         `jsonb_strip_nulls(jsonb_build_object('error_string', $3::text, 'attempts', attempts, 'blast_id', blast_id, 'message_id', message_id,
                                                   'workflow_id', workflow_id, 'workflow_hops', workflow_hops))`,
         'done',
       )}`;

/** RETRY_SEND_LATER: a row → pending again after a temporary failure, due after the back-off. $1 id, $2 claim token, $3 reason, $4 delay (ms, text). */
export const RETRY_SEND_LATER = `UPDATE outbox SET status = 'pending', claim_token = NULL, last_error = $3, next_attempt_at = now() + ($4 || ' milliseconds')::interval
          WHERE id = $1 AND claim_token = $2`;

/** What a claim may take of a project: not its blasts' and workflows' emails while the circuit-breaker paused it, nothing while an operator suspended it. */
const CLAIMABLE_PROJECT = `-- The circuit-breaker (core/sending/reputation.ts): a paused project's blasts and workflow emails wait.
                      AND NOT ((blast_id IS NOT NULL OR workflow_id IS NOT NULL)
                               AND project_id IN (SELECT id FROM projects WHERE sending_paused_at IS NOT NULL))
                      -- An operator's suspension (core/operator): none of the project's emails, not even test emails.
                      AND project_id NOT IN (SELECT id FROM projects WHERE sending_suspended_at IS NOT NULL)`;

/** The claim itself and what it returns, over the ids of `selection` (a SELECT … FOR UPDATE SKIP LOCKED). */
const claimRows = (
  selection: string,
) => `UPDATE outbox SET status = 'sending', claim_token = $1, lease_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
        WHERE id IN (${selection})
        RETURNING id, project_id, blast_id, contact_id, email, template_id, sender_persona_id, subject, body, attempts, send_at, message_id, is_test,
                  tracking, workflow_id, workflow_hops, event, stream, submission_id`;

/**
 * CLAIM_DUE: takes up to $3 due rows under claim token $1 for $2 ms (text): pending rows whose send instant and next
 * attempt have come, and rows still `sending` whose lease lapsed under a token that is not one of $4 (the claiming
 * sender's own live tokens: a sender never takes over its own rows); none of a project whose marketing sending the
 * circuit-breaker paused, but its test emails and single sends; none at all of a project an operator suspended. SKIP LOCKED, so senders never wait on each other.
 */
export const CLAIM_DUE = claimRows(`SELECT id FROM outbox
                      WHERE ((status = 'pending' AND send_at <= now() AND next_attempt_at <= now())
                         OR (status = 'sending' AND lease_until < now() AND claim_token <> ALL($4::uuid[])))
                      ${CLAIMABLE_PROJECT}
                      LIMIT $3 FOR UPDATE SKIP LOCKED`);

/**
 * CLAIM_DUE_FOR_DOMAINS: as CLAIM_DUE, but only pending due rows to recipients at domains $4 (lower case: a
 * rate-limited mailbox provider's group, core/sending/providers.ts), by the index outbox_due_domain_idx (* a provider's rows otherwise waited behind every other pending row, since a row that steps aside for its provider is
 * due again later than rows queued before it).
 */
export const CLAIM_DUE_FOR_DOMAINS = claimRows(`SELECT id FROM outbox
                      WHERE status = 'pending' AND lower(split_part(email, '@', -1)) = ANY($4::text[])
                        AND next_attempt_at <= now() AND send_at <= now()
                      ${CLAIMABLE_PROJECT}
                      LIMIT $3 FOR UPDATE SKIP LOCKED`);

/** RENEW_LEASE: extends by $2 ms (text) the lease of the rows still held under token $1; returns their ids. */
export const RENEW_LEASE = `UPDATE outbox SET lease_until = now() + ($2 || ' milliseconds')::interval WHERE claim_token = $1 AND status = 'sending' RETURNING id`;

/** CANCEL_DISABLED: a row of a disabled blast → cancelled, under claim token $2. $1 outbox id. */
export const CANCEL_DISABLED = `UPDATE outbox SET status = 'cancelled', last_error = 'blast disabled', claim_token = NULL WHERE id = $1 AND claim_token = $2`;

/** LOOKUP: what sending a claimed batch needs, each by $1 ids (core/sending/claims.ts loadBatchData). */
export const LOOKUP = {
  contacts: 'SELECT * FROM contacts WHERE id = ANY($1::uuid[])',
  personas: 'SELECT * FROM sender_personas WHERE id = ANY($1::uuid[])',
  templates: 'SELECT id, version, subject, html_body, plain_text_body, type, topic_id FROM templates WHERE id = ANY($1::uuid[])',
  projects: 'SELECT id, link_secret FROM projects WHERE id = ANY($1::uuid[])',
  blasts: 'SELECT id, enabled, topic_id FROM email_blasts WHERE id = ANY($1::uuid[])',
  submissions: 'SELECT id, content, tags, metadata FROM submissions WHERE id = ANY($1::uuid[])',
} as const;

/**
 * HOLD_FOR_CAP: a claimed row over a daily cap (warm-up, daily_quota; core/sending/dailyCaps.ts) goes back to pending
 * until $4 ms (text) from now, with the reason $3 (so it shows as deferred), its attempt not counted. It is due from
 * then (send_at moves too), so a relay's deferrals later count DEFER_MAX_AGE from then, not from the days it was
 * held. $1 id, $2 token.
 */
export const HOLD_FOR_CAP = `UPDATE outbox SET status = 'pending', claim_token = NULL, attempts = greatest(attempts - 1, 0), last_error = $3,
          next_attempt_at = now() + ($4 || ' milliseconds')::interval, send_at = now() + ($4 || ' milliseconds')::interval
          WHERE id = $1 AND claim_token = $2`;

/**
 * WAIT_FOR_PROVIDER: a claimed row whose provider has no free connection or send slot now (core/sending/providers.ts)
 * goes back to pending for $3 ms (text), its attempt not counted and nothing recorded. $1 id, $2 claim token.
 */
export const WAIT_FOR_PROVIDER = `UPDATE outbox SET status = 'pending', claim_token = NULL, attempts = greatest(attempts - 1, 0),
          next_attempt_at = now() + ($3 || ' milliseconds')::interval
          WHERE id = $1 AND claim_token = $2`;

/**
 * HAND_BACK: claimed rows a stopping sender did not hand to the relay go back to pending, due at once and their attempt
 * not counted, so another sender (or this one after its restart) takes them without waiting for the lease to lapse
 *. $1 outbox ids, $2 their claim token. Returns the ids handed back.
 */
export const HAND_BACK = `UPDATE outbox SET status = 'pending', claim_token = NULL, lease_until = NULL, attempts = greatest(attempts - 1, 0)
          WHERE id = ANY($1::bigint[]) AND claim_token = $2 AND status = 'sending' RETURNING id`;

/** RELEASE_PAUSED: a claimed row of a project paused meanwhile goes back to pending, its attempt not counted. $1 id, $2 claim token. */
export const RELEASE_PAUSED = `UPDATE outbox SET status = 'pending', claim_token = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND claim_token = $2`;
