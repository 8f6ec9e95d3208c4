/**
 * The stored copies retention lets go (core/privacy/retention.ts): the outbox's part, kept with its other writes.
 */

/** EXPIRED_COPIES: up to $3 of project $1's sent emails with a stored copy, sent before $2; their id and location. */
export const EXPIRED_COPIES = `SELECT id, location FROM outbox
  WHERE project_id = $1 AND location IS NOT NULL AND sent_at < $2 ORDER BY id LIMIT $3`;

/** FORGET_COPIES: emails $2 of project $1 no longer have a stored copy (deleted from storage by the caller). */
export const FORGET_COPIES = `UPDATE outbox SET location = NULL WHERE project_id = $1 AND id = ANY($2::bigint[])`;
