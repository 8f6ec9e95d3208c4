/**
 * How much mail waits in the outbox (read by /metrics at scrape time): one statement over the rows the
 * sender has not finished, counted with the partial index outbox_due_idx (status IN ('pending', 'sending')), so its
 * cost follows the mail in the queue, not the outbox's history.
 */
import type { QueryFn } from '../../db/client.ts';

/**
 * OUTBOX_DEPTHS: pending rows (waiting for any reason), due rows (pending whose send instant and next attempt have
 * come: what the sender claims next), deferred rows (pending after a failed attempt, as sending_status counts them)
 * and rows a sender holds now (sending).
 */
export const OUTBOX_DEPTHS = `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
         count(*) FILTER (WHERE status = 'pending' AND send_at <= now() AND next_attempt_at <= now())::int AS due,
         count(*) FILTER (WHERE status = 'pending' AND last_error IS NOT NULL)::int AS deferred,
         count(*) FILTER (WHERE status = 'sending')::int AS sending
    FROM outbox WHERE status IN ('pending', 'sending')`;

/** The outbox's waiting mail by state, as counts of rows (emails), over every project. */
export interface OutboxDepths {
  pending: number;
  due: number;
  deferred: number;
  sending: number;
}

/** outboxDepths counts the outbox's unfinished rows by state (OUTBOX_DEPTHS). Rejects when the database does. */
export async function outboxDepths(query: QueryFn): Promise<OutboxDepths> {
  const [row] = await query<OutboxDepths>(OUTBOX_DEPTHS);
  return { pending: Number(row.pending), due: Number(row.due), deferred: Number(row.deferred), sending: Number(row.sending) };
}
