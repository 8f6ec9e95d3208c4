/**
 * Message activity (openapi/messages.yaml; docs/architecture.md "Transactional sending"): every recipient's copy of
 * every email — an outbox row, whatever queued it — with where its delivery stands and what happened to it after,
 * read from the outbox, the attempts the outbox trigger recorded (message_attempts), the events that carry its
 * Message-ID and the webhook deliveries about it. Nothing here counts or stores anything of its own.
 */
import { simpleParser } from 'mailparser';
import type { QueryFn } from '../../db/client.ts';
import type { Storage } from '../../storage/storage.ts';
import { decodeLocation } from '../../../domain/location.ts';
import { EVENT } from '../../../domain/events.ts';
import { NotFound } from '../../errors.ts';

/** A message as lists show it. */
export interface MessageOut {
  id: string;
  message_id: string;
  email: string;
  stream: string;
  status: 'queued' | 'deferred' | 'sending' | 'sent' | 'failed' | 'suppressed' | 'cancelled';
  subject: string | null;
  from: string | null;
  source: 'blast' | 'workflow' | 'single_send' | 'api' | 'smtp';
  blast_id: string | null;
  workflow_id: string | null;
  template_id: string | null;
  tags: string[];
  metadata: Record<string, string>;
  created_at: string;
  sent_at: string | null;
  last_error: string | null;
  opened: boolean;
  clicked: boolean;
  bounced: boolean;
  complained: boolean;
}

/** One step of a message's life. */
export interface TimelineEntry {
  at: string;
  type: 'queued' | 'deferred' | 'failed' | 'sent' | 'bounced' | 'complained' | 'opened' | 'clicked' | 'unsubscribed' | 'webhook';
  detail: string;
  relay?: string | null;
  machine?: boolean;
}

/** The filters of the list (openapi/messages.yaml listMessages). */
export interface MessageFilters {
  recipient?: string;
  subject?: string;
  message_id?: string;
  tag?: string;
  stream?: string;
  status?: string;
  since?: string;
  until?: string;
  cursor?: string;
  limit?: number;
}

/** isoSql: a timestamptz as ISO 8601 text in UTC with milliseconds (NULL stays NULL). */
const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * SENT_EVENT: the send event of outbox row `o` (sent): written by the sent mark's own statement, so its emitted_at is
 * the row's sent_at (both now()), found through events_project_name_idx rather than a scan for its Message-ID.
 */
const SENT_EVENT = (o: string) => `SELECT e.json, e.emitted_at, e.name FROM events e
   WHERE e.project_id = ${o}.project_id AND e.name = '${EVENT.sendSuccess}' AND e.emitted_at = ${o}.sent_at AND e.json->>'message_id' = ${o}.message_id`;

/** An event of the message, by name, as a boolean column: people only for opens and clicks. */
const had = (name: string, people = false) =>
  `EXISTS (SELECT 1 FROM events e WHERE e.project_id = o.project_id AND e.json->>'message_id' = o.message_id AND e.name = '${name}'${
    people ? ` AND NOT coalesce((e.json->>'machine')::boolean, false) AND NOT coalesce((e.json->>'bot')::boolean, false)` : ''
  })`;

/**
 * MESSAGE_COLUMNS: a message's columns over outbox row `o`, its submission `sub`, its template `t`, its persona `p`
 * and its send event `sent` (LEFT JOINs of the callers). The status: pending with a reason after an attempt is
 * deferred. The subject: the one sent, else the submission's, the single send's or the template's.
 */
const MESSAGE_COLUMNS = `o.id::text AS id, o.message_id, o.email, o.stream,
    CASE WHEN o.status = 'pending' AND o.last_error IS NOT NULL THEN 'deferred' WHEN o.status = 'pending' THEN 'queued' ELSE o.status END AS status,
    coalesce(sent.json->>'subject', sub.content->>'subject', o.subject, t.subject) AS subject,
    coalesce(sub.content->'from'->>'address', p.email) AS "from",
    CASE WHEN o.blast_id IS NOT NULL THEN 'blast' WHEN o.workflow_id IS NOT NULL THEN 'workflow' WHEN sub.source IS NOT NULL THEN sub.source
         ELSE 'single_send' END AS source,
    o.blast_id, o.workflow_id, o.template_id, coalesce(sub.tags, '{}') AS tags, coalesce(sub.metadata, '{}'::jsonb) AS metadata,
    ${isoSql('o.created_at')} AS created_at, ${isoSql('o.sent_at')} AS sent_at, o.last_error,
    ${had(EVENT.open, true)} AS opened, ${had(EVENT.click, true)} AS clicked, ${had(EVENT.bounce)} AS bounced, ${had(EVENT.complaint)} AS complained`;

const MESSAGE_FROM = `FROM outbox o
    LEFT JOIN submissions sub ON sub.id = o.submission_id
    LEFT JOIN templates t ON t.id = o.template_id
    LEFT JOIN sender_personas p ON p.id = o.sender_persona_id
    LEFT JOIN LATERAL (${SENT_EVENT('o')} LIMIT 1) sent ON o.status = 'sent'`;

/** The delivery statuses as outbox conditions; the rest are events the message had. */
const STATUS_WHERE: Record<string, string> = {
  queued: "o.status = 'pending' AND o.last_error IS NULL",
  deferred: "o.status = 'pending' AND o.last_error IS NOT NULL",
  sending: "o.status = 'sending'",
  sent: "o.status = 'sent'",
  failed: "o.status = 'failed'",
  suppressed: "o.status = 'suppressed'",
  cancelled: "o.status = 'cancelled'",
  bounced: had(EVENT.bounce),
  complained: had(EVENT.complaint),
  opened: had(EVENT.open, true),
  clicked: had(EVENT.click, true),
};

/**
 * listMessages returns a page of the project's messages, newest first, matching `f` (all given filters hold), and the
 * cursor of the next page (the last id; null on the last page). `limit` defaults to 50.
 */
export async function listMessages(query: QueryFn, projectId: string, f: MessageFilters): Promise<{ data: MessageOut[]; next_cursor: string | null }> {
  const params: unknown[] = [projectId];
  const where = ['o.project_id = $1'];
  const param = (v: unknown) => `$${params.push(v)}`;
  if (f.recipient) where.push(`lower(o.email) = lower(${param(f.recipient.trim())})`);
  if (f.message_id) where.push(`o.message_id = ${param(`<${f.message_id.trim().replace(/^<|>$/g, '')}>`)}`);
  if (f.stream) where.push(`o.stream = ${param(f.stream)}`);
  if (f.tag) where.push(`sub.tags @> ARRAY[${param(f.tag)}]::text[]`);
  if (f.status) where.push(STATUS_WHERE[f.status]);
  if (f.since) where.push(`o.created_at >= ${param(f.since)}::timestamptz`);
  if (f.until) where.push(`o.created_at < ${param(f.until)}::timestamptz`);
  if (f.cursor) where.push(`o.id < ${param(f.cursor)}::bigint`);
  if (f.subject)
    where.push(`coalesce(sent.json->>'subject', sub.content->>'subject', o.subject, t.subject) ILIKE ${param(`%${f.subject.replace(/[\\%_]/g, '\\$&')}%`)}`);
  const limit = f.limit ?? 50;
  const rows = await query<MessageOut>(
    `SELECT ${MESSAGE_COLUMNS} ${MESSAGE_FROM} WHERE ${where.join(' AND ')} ORDER BY o.id DESC LIMIT ${param(limit + 1)}`,
    params,
  );
  const more = rows.length > limit;
  const data = rows.slice(0, limit);
  return { data, next_cursor: more ? data[data.length - 1].id : null };
}

/**
 * TIMELINE: what happened to outbox row $2 of project $1, in order: queued, each deferral (with the relay's or the
 * governor's reason), its events (failed with the reason, (sent with the relay and its answer, bounces and complaints with the
 * receiver's words, opens and clicks with the machine verdict, unsubscribes) and the webhook messages about it.
 */
const TIMELINE = `WITH m AS (SELECT * FROM outbox WHERE project_id = $1 AND id = $2)
  SELECT ${isoSql('m.created_at')} AS at, 'queued' AS type, 'Queued on the ' || m.stream || ' stream' AS detail, NULL AS relay, NULL::boolean AS machine, 0 AS ord FROM m
  UNION ALL
  SELECT ${isoSql('a.at')}, a.outcome, coalesce(a.detail, ''), NULL, NULL, 1 FROM message_attempts a, m WHERE a.outbox_id = m.id
  UNION ALL
  SELECT ${isoSql('e.emitted_at')},
         CASE e.name WHEN '${EVENT.sendSuccess}' THEN 'sent' WHEN '${EVENT.sendFailure}' THEN 'failed' WHEN '${EVENT.bounce}' THEN 'bounced'
                     WHEN '${EVENT.complaint}' THEN 'complained' WHEN '${EVENT.open}' THEN 'opened' WHEN '${EVENT.click}' THEN 'clicked' ELSE 'unsubscribed' END,
         CASE e.name WHEN '${EVENT.sendSuccess}' THEN coalesce(e.json->>'response', '')
                     WHEN '${EVENT.sendFailure}' THEN coalesce(e.json->>'error_string', '')
                     WHEN '${EVENT.click}' THEN coalesce(e.json->>'link', '') || coalesce(' (' || (e.json->>'bot_reason') || ')', '')
                     WHEN '${EVENT.open}' THEN coalesce(e.json->>'user_agent', '') || coalesce(' (' || (e.json->>'machine_reason') || ')', '')
                     WHEN '${EVENT.unsubscribed}' THEN 'Unsubscribed' || coalesce(' from ' || (e.json->>'topic'), '') || coalesce(' via ' || (e.json->>'via'), '')
                     ELSE concat_ws(': ', e.json->>'bounce_type', e.json->>'diagnostic', e.json->>'feedback_type', e.json->>'error_string') END,
         e.json->>'relay',
         CASE WHEN e.name IN ('${EVENT.open}', '${EVENT.click}') THEN coalesce((e.json->>'machine')::boolean, (e.json->>'bot')::boolean, false) END,
         2
    FROM (
      -- Each kind of event through its index: opens and clicks, bounces and complaints by Message-ID; the send at the
      -- row's sent_at; failures and unsubscribes (rare) among the project's since the row was queued.
      SELECT e.name, e.json, e.emitted_at FROM events e, m
       WHERE e.json->>'message_id' = m.message_id AND e.name IN ('${EVENT.open}', '${EVENT.click}') AND e.project_id = m.project_id
      UNION ALL
      SELECT e.name, e.json, e.emitted_at FROM events e, m
       WHERE e.json->>'message_id' = m.message_id AND e.name IN ('${EVENT.bounce}', '${EVENT.complaint}') AND e.project_id = m.project_id
      UNION ALL
      SELECT s.name, s.json, s.emitted_at FROM m, LATERAL (${SENT_EVENT('m')}) s
      UNION ALL
      SELECT e.name, e.json, e.emitted_at FROM events e, m
       WHERE e.project_id = m.project_id AND e.name IN ('${EVENT.sendFailure}', '${EVENT.unsubscribed}') AND e.emitted_at >= m.created_at
         AND e.json->>'message_id' = m.message_id
    ) e
  UNION ALL
  SELECT ${isoSql('coalesce(d.last_attempt_at, d.created_at)')}, 'webhook',
         d.event_type || ' to ' || w.url || ': ' || CASE d.status WHEN 'delivered' THEN 'delivered' || coalesce(' (' || d.last_status_code || ')', '')
                                                      WHEN 'failed' THEN 'failed' || coalesce(' (' || d.last_status_code || ')', '')
                                                      ELSE 'pending' || coalesce(', last answer ' || d.last_status_code, '') END,
         NULL, NULL, 3
    FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id, m
   WHERE d.project_id = m.project_id AND d.payload->'data'->>'message_id' = m.message_id
  ORDER BY at, ord`;

/**
 * getMessage returns message `id` (its id or its Message-ID) of the project with its timeline and its stored copy
 * (null until sent, or when the copy is gone). Throws NotFound for another project's or an unknown message.
 */
export async function getMessage(query: QueryFn, storage: Storage, projectId: string, id: string) {
  const byId = /^[0-9]{1,18}$/.test(id);
  const [row] = await query<MessageOut & { location: string | null }>(
    `SELECT ${MESSAGE_COLUMNS}, o.location ${MESSAGE_FROM}
      WHERE o.project_id = $1 AND ${byId ? 'o.id = $2::bigint' : 'o.message_id = $2'}`,
    [projectId, byId ? id : `<${id.trim().replace(/^<|>$/g, '')}>`],
  );
  if (!row) throw new NotFound(['id: no such message in this project']);
  const timeline = await query<TimelineEntry & { ord: number }>(TIMELINE, [projectId, row.id]);
  const { location, ...message } = row;
  return {
    ...message,
    timeline: timeline.map(({ ord: _ord, relay, machine, ...t }) => ({
      ...t,
      ...(relay ? { relay } : {}),
      ...(machine === null || machine === undefined ? {} : { machine }),
    })),
    copy: location ? await storedCopy(storage, projectId, location) : null,
  };
}

/** storedCopy reads a stored copy's HTML and text parts (null when it is gone or not the project's). */
async function storedCopy(storage: Storage, projectId: string, location: string) {
  const loc = decodeLocation(location);
  if (!loc || !loc.key.startsWith(`${projectId}/`)) return null;
  const raw = await storage.get(loc.bucket, loc.key);
  if (!raw) return null;
  const parsed = await simpleParser(raw);
  return { location, html: typeof parsed.html === 'string' ? parsed.html : null, text: parsed.text ?? null, raw_size: raw.length };
}
