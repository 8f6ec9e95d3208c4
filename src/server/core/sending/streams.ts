/**
 * Message streams (openapi/email.yaml; docs/architecture.md "Transactional sending"): every email goes out on one.
 * Every project has `transactional` (opens and clicks not tracked; unsubscribes and topic opt-outs do not stop it) and
 * `broadcast` (tracked; blasts and workflows send on it; opt-outs stop it); a project may add streams of either kind.
 * A stream's kind is the one fact the send-time rule reads (core/sending/eligibility.ts STREAM_KIND_SQL); a relay given
 * `?stream=<name>` in SMTP_URL carries only that stream's mail (core/sending/relayChoice.ts). A hard bounce or a
 * complaint suppresses the address on every stream (core/audience/exclusion.ts).
 */
import type { QueryFn } from '../../db/client.ts';
import { BadRequest, NotFound } from '../../errors.ts';
import { EVENT } from '../../../domain/events.ts';

export type StreamKind = 'transactional' | 'broadcast';

/** A stream as the API shows it. */
export interface StreamOut {
  name: string;
  kind: StreamKind;
  tracking: boolean;
  description: string;
  built_in: boolean;
  counts: { sent: number; bounced: number; complained: number; opened: number };
}

/** The two streams every project has, with their defaults (a message_streams row of the same name overrides them). */
export const BUILT_IN_STREAMS: Record<StreamKind, { tracking: boolean; description: string }> = {
  transactional: { tracking: false, description: 'Password resets, receipts, notifications: one person asked for each.' },
  broadcast: { tracking: true, description: 'Blasts, workflows and newsletters: unsubscribes stop them.' },
};

/** The stream a single send, API message or SMTP message uses when it names none. */
export const DEFAULT_STREAM = 'transactional';

/**
 * STREAM_SETTINGS: a project's streams: the built-ins (with any row that overrides them) and the added ones. $1
 * project. Columns name, kind, tracking, description, built_in.
 */
const STREAM_SETTINGS = `SELECT b.name, b.name AS kind, coalesce(s.tracking, b.tracking) AS tracking, coalesce(s.description, b.description) AS description, true AS built_in
    FROM (VALUES ('transactional', false, $2::text), ('broadcast', true, $3::text)) AS b(name, tracking, description)
    LEFT JOIN message_streams s ON s.project_id = $1 AND s.name = b.name
  UNION ALL
  SELECT s.name, s.kind, s.tracking, s.description, false FROM message_streams s
   WHERE s.project_id = $1 AND s.name NOT IN ('transactional', 'broadcast')`;

/** The settings of one stream (undefined when the project has none of that name). */
export interface StreamSettings {
  name: string;
  kind: StreamKind;
  tracking: boolean;
}

async function settings(query: QueryFn, projectId: string) {
  return query<Omit<StreamOut, 'counts'>>(`${STREAM_SETTINGS} ORDER BY built_in DESC, name`, [
    projectId,
    BUILT_IN_STREAMS.transactional.description,
    BUILT_IN_STREAMS.broadcast.description,
  ]);
}

/** streamSettings returns the project's stream `name`, or undefined when it has none of that name. */
export async function streamSettings(query: QueryFn, projectId: string, name: string): Promise<StreamSettings | undefined> {
  const found = (await settings(query, projectId)).find((s) => s.name === name);
  return found && { name: found.name, kind: found.kind, tracking: found.tracking };
}

/**
 * STREAM_COUNTS: per stream of project $1, over the last 30 days, the emails sent (a send event), bounced, complained
 * and opened by a person (machine opens left out), each email counted once: the events joined to their outbox row by
 * Message-ID.
 */
const STREAM_COUNTS = `SELECT o.stream,
         count(DISTINCT o.id) FILTER (WHERE e.name = '${EVENT.sendSuccess}')::int AS sent,
         count(DISTINCT o.id) FILTER (WHERE e.name = '${EVENT.bounce}')::int AS bounced,
         count(DISTINCT o.id) FILTER (WHERE e.name = '${EVENT.complaint}')::int AS complained,
         count(DISTINCT o.id) FILTER (WHERE e.name = '${EVENT.open}' AND coalesce((e.json->>'machine')::boolean, false) = false)::int AS opened
    FROM events e
    JOIN outbox o ON o.message_id = e.json->>'message_id' AND o.project_id = e.project_id
   WHERE e.project_id = $1 AND e.is_system AND e.emitted_at > now() - interval '30 days'
     AND e.name IN ('${EVENT.sendSuccess}', '${EVENT.bounce}', '${EVENT.complaint}', '${EVENT.open}')
   GROUP BY o.stream`;

/** listStreams returns the project's streams, built-ins first, each with its last 30 days' counts. */
export async function listStreams(query: QueryFn, projectId: string): Promise<StreamOut[]> {
  const [rows, counts] = await Promise.all([
    settings(query, projectId),
    query<{ stream: string; sent: number; bounced: number; complained: number; opened: number }>(STREAM_COUNTS, [projectId]),
  ]);
  const byStream = new Map(counts.map((c) => [c.stream, c]));
  return rows.map((r) => {
    const c = byStream.get(r.name);
    return { ...r, counts: { sent: c?.sent ?? 0, bounced: c?.bounced ?? 0, complained: c?.complained ?? 0, opened: c?.opened ?? 0 } };
  });
}

/**
 * createStream adds a stream of `kind`; tracking defaults to the kind's built-in. Throws BadRequest ('name: …') when
 * the project already has a stream of that name (the built-ins included).
 */
export async function createStream(
  query: QueryFn,
  projectId: string,
  input: { name: string; kind: StreamKind; tracking?: boolean; description?: string },
): Promise<StreamOut> {
  if (input.name === 'transactional' || input.name === 'broadcast') throw new BadRequest([`name: ${input.name} is a built-in stream; choose another name`]);
  const inserted = await query(
    `INSERT INTO message_streams (project_id, name, kind, tracking, description) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, name) DO NOTHING RETURNING name`,
    [projectId, input.name, input.kind, input.tracking ?? BUILT_IN_STREAMS[input.kind].tracking, input.description ?? ''],
  );
  if (!inserted.length) throw new BadRequest([`name: the stream ${input.name} already exists`]);
  return (await listStreams(query, projectId)).find((s) => s.name === input.name)!;
}

/** updateStream changes a stream's tracking or description (a built-in's row is made on its first change). Throws NotFound for a name the project has no stream of. */
export async function updateStream(query: QueryFn, projectId: string, name: string, input: { tracking?: boolean; description?: string }): Promise<StreamOut> {
  const current = (await settings(query, projectId)).find((s) => s.name === name);
  if (!current) throw new NotFound([`name: no stream ${name} in this project`]);
  await query(
    `INSERT INTO message_streams (project_id, name, kind, tracking, description) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, name) DO UPDATE SET tracking = EXCLUDED.tracking, description = EXCLUDED.description`,
    [projectId, name, current.kind, input.tracking ?? current.tracking, input.description ?? current.description],
  );
  return (await listStreams(query, projectId)).find((s) => s.name === name)!;
}
