/**
 * The outbox's writes: the only `INSERT INTO outbox`. Every path that queues an email — a blast's expansion
 * (core/blasts queueAudienceChunkSql), a workflow's Send step (core/workflows/nodes.ts), a single send
 * (singleEmail.ts) and a double opt-in confirmation (core/subscriptions) — builds its statement with insertOutboxSql,
 * so the column list, the defaults and the Message-ID's form live here. The sender then claims, sends and marks the
 * rows (queries.ts); cancelBlastRows takes back a disabled blast's rows that have not gone yet.
 */

import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { outbox } from '../../db/schema.ts';

/** A column of an outbox row that a writer sets (message_id is always made here). */
export type OutboxColumn =
  | 'project_id'
  | 'blast_id'
  | 'contact_id'
  | 'email'
  | 'template_id'
  | 'sender_persona_id'
  | 'zone'
  | 'send_at'
  | 'next_attempt_at'
  | 'status'
  | 'last_error'
  | 'subject'
  | 'body'
  | 'is_test'
  | 'tracking'
  | 'workflow_id'
  | 'workflow_step_id'
  | 'workflow_hops'
  | 'event'
  | 'stream'
  | 'submission_id'
  | 'send_time_source';

/**
 * messageIdSql: a new Message-ID (RFC 5322 §3.6.4) as an SQL expression, `<uuid@domain>`, where `domain` is an SQL
 * expression (the sender persona's domain): unique without coordination between processes. The uuid is a version-7
 * one (core/contacts/sql/uuid_v7.sql): ids made later sort later, so the outbox's message_id index grows at its end
 * rather than at a random page per row (up to a third of a large expansion's time with random ids: docs/bench-log.md).
 */
export function messageIdSql(domain: string): string {
  return `'<' || uuid_v7() || '@' || ${domain} || '>'`;
}

/**
 * insertOutboxSql returns `INSERT INTO outbox (…, message_id) SELECT …, <new Message-ID> FROM <from> <tail>`: one
 * row per row of `from`. `values` maps each column to an SQL expression over `from` (project_id, email and
 * sender_persona_id are required; send_at and next_attempt_at default to now(), status to 'pending', tracking to
 * true, the rest to NULL); `messageDomain` is the SQL expression of the Message-ID's domain (messageIdSql); `tail`
 * an ON CONFLICT and/or RETURNING clause. Expressions are SQL text written by the caller, never user input.
 */
export function insertOutboxSql(
  values: Partial<Record<OutboxColumn, string>> & { project_id: string; email: string; sender_persona_id: string },
  messageDomain: string,
  from: string,
  tail = '',
): string {
  const row: Partial<Record<OutboxColumn, string>> = { send_at: 'now()', next_attempt_at: 'now()', ...values };
  const cols = Object.keys(row) as OutboxColumn[];
  return `INSERT INTO outbox (${cols.join(', ')}, message_id)
    SELECT ${cols.map((c) => row[c]).join(', ')}, ${messageIdSql(messageDomain)}
      FROM ${from}
    ${tail}`;
}

/**
 * cancelBlastRows marks the still-pending rows of blasts `blastIds` cancelled ('blast disabled'), in the caller's
 * transaction `tx`: the sender never claims them. Rows being sent or already sent are left as they are.
 */
export async function cancelBlastRows(tx: Pick<Db, 'update'>, blastIds: string[]): Promise<void> {
  if (!blastIds.length) return;
  await tx
    .update(outbox)
    .set({ status: 'cancelled', lastError: 'blast disabled' })
    .where(and(inArray(outbox.blastId, blastIds), eq(outbox.status, 'pending')));
}
