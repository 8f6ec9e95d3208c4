/**
 * Sender-side blocks: bounces whose receiver refused the sender, not the recipient (a blocklist such as Spamhaus,
 * "blocked", spam detected, policy, authentication; class 'sender' of domain/bounces.ts). They never suppress the
 * recipient; they are counted per sending domain (the From's domain) and relay from the raw bounce events, shown on
 * the domains page (blocksByDomain), and a spike raises a notification (raiseBlockAlert): more than BLOCK_ALERT_RATE
 * (default 2 %) of a domain's sends in the last hour were blocked → one JOB_BLOCK_ALERT job-log entry per domain and
 * hour, naming the domain, the counts, the relays and the receiver's last words.
 *
 * The counts read the events recordFeedback writes: ses_event_bounce with json.bounce.class = 'sender' and
 * json.sending_domain, json.relay; sends are email_send_result_success events with json.sending_domain (the sender
 * writes it).
 */
import type { QueryFn } from '../../db/client.ts';
import { EVENT } from '../../../domain/events.ts';

/** The job-log entry of a block spike (a notification). */
export const JOB_BLOCK_ALERT = 'JOB_BLOCK_ALERT';

/** The default BLOCK_ALERT_RATE: the share of a domain's sends in an hour blocked by receivers that raises the alert. */
export const DEFAULT_BLOCK_ALERT_RATE = 0.02;

/** A sending domain's blocks in the last 24 hours. */
export interface DomainBlocks {
  count: number;
  by_relay: Array<{ relay: string; count: number }>;
  /** The latest block: the receiver's words and when (ISO 8601 UTC). */
  last: { diagnostic: string; at: string } | null;
}

/**
 * BLOCKS_24H: project $1's sender-side bounces of the last 24 hours per sending domain and relay ('' when unknown),
 * with the latest one's words and time per group. The events index (project_id, name, emitted_at) serves the range.
 */
const BLOCKS_24H = `SELECT json->>'sending_domain' AS domain, coalesce(json->>'relay', '') AS relay, count(*)::int AS n,
       (array_agg(json->'bounce'->'bouncedRecipients'->0->>'diagnosticCode' ORDER BY emitted_at DESC))[1] AS last_diagnostic,
       max(emitted_at) AS last_at
  FROM events
 WHERE project_id = $1 AND name = '${EVENT.bounce}' AND emitted_at > now() - interval '24 hours'
   AND json->'bounce'->>'class' = 'sender' AND json->>'sending_domain' IS NOT NULL
 GROUP BY 1, 2`;

/** blocksByDomain: project `projectId`'s sender-side blocks of the last 24 hours, by sending domain (lower case). */
export async function blocksByDomain(query: QueryFn, projectId: string): Promise<Map<string, DomainBlocks>> {
  const rows = await query<{ domain: string; relay: string; n: number; last_diagnostic: string | null; last_at: Date | string }>(BLOCKS_24H, [projectId]);
  const out = new Map<string, DomainBlocks & { lastAt: number }>();
  for (const r of rows) {
    const d = out.get(r.domain) ?? { count: 0, by_relay: [], last: null, lastAt: 0 };
    d.count += r.n;
    if (r.relay) d.by_relay.push({ relay: r.relay, count: r.n });
    const at = new Date(r.last_at).getTime();
    if (at > d.lastAt) {
      d.lastAt = at;
      d.last = { diagnostic: (r.last_diagnostic ?? '').replace(/^smtp;\s*/i, ''), at: new Date(at).toISOString() };
    }
    out.set(r.domain, d);
  }
  return new Map([...out].map(([k, { lastAt: _lastAt, ...v }]) => [k, { ...v, by_relay: v.by_relay.sort((a, b) => b.count - a.count) }]));
}

/**
 * BLOCK_ALERT: logs JOB_BLOCK_ALERT for project $1's sending domain $2 when its sender-side bounces of the last hour
 * are more than $3 (a fraction) of its sends of the last hour, and no alert for it was logged in the last hour.
 * Returns the entry's id, or no row.
 */
const BLOCK_ALERT = `WITH blocks AS (
      SELECT count(*)::int AS n,
             (array_agg(json->'bounce'->'bouncedRecipients'->0->>'diagnosticCode' ORDER BY emitted_at DESC))[1] AS last_diagnostic,
             coalesce(jsonb_agg(DISTINCT json->>'relay') FILTER (WHERE json->>'relay' IS NOT NULL), '[]'::jsonb) AS relays
        FROM events
       WHERE project_id = $1 AND name = '${EVENT.bounce}' AND emitted_at > now() - interval '1 hour'
         AND json->'bounce'->>'class' = 'sender' AND json->>'sending_domain' = $2
         AND NOT EXISTS (SELECT 1 FROM job_log j WHERE j.project_id = $1 AND j.job_name = '${JOB_BLOCK_ALERT}'
                            AND j.start_details->>'domain' = $2 AND j.started_at > now() - interval '1 hour')),
    sends AS (
      SELECT count(*)::int AS n FROM events
       WHERE (SELECT n FROM blocks) > 0 AND project_id = $1 AND name = '${EVENT.sendSuccess}' AND emitted_at > now() - interval '1 hour' AND is_system
         AND json->>'sending_domain' = $2),
    alert AS (
      SELECT jsonb_build_object('name', $2::text, 'domain', $2::text, 'blocks', b.n, 'sends', s.n,
                                'rate', round((b.n::numeric / greatest(s.n, 1)), 4), 'relays', b.relays, 'last_diagnostic', b.last_diagnostic) AS details
        FROM blocks b, sends s
       WHERE b.n > 0 AND b.n::float8 / greatest(s.n, 1) > $3)
  INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
  SELECT $1, '${JOB_BLOCK_ALERT}', now(), now(), true, details, details FROM alert RETURNING id`;

/** How often one process looks at one domain's blocks (ms): a burst of blocks is one look, not one per bounce. */
const CHECK_EVERY_MS = 10_000;
const lastLook = new Map<string, number>();

/**
 * raiseBlockAlert checks sending domain `domain` of the project after a sender-side bounce (see the module's comment)
 * and logs the alert when its share of blocks in the last hour is above `rate` (a fraction); at most once per
 * CHECK_EVERY_MS per domain and process. Returns true when it logged one now.
 */
export async function raiseBlockAlert(query: QueryFn, projectId: string, domain: string, rate: number): Promise<boolean> {
  // Each look counts an hour of the domain's sends: a process looks at a domain at most once per CHECK_EVERY_MS.
  const key = `${projectId} ${domain}`;
  const now = Date.now();
  if ((lastLook.get(key) ?? -Infinity) > now - CHECK_EVERY_MS) return false;
  if (lastLook.size > 10_000) lastLook.clear();
  lastLook.set(key, now);
  const rows = await query(BLOCK_ALERT, [projectId, domain, rate]);
  if (rows.length) console.warn(`feedback: receivers are blocking mail from ${domain} (project ${projectId}); notification logged`);
  return rows.length > 0;
}
