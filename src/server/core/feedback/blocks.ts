/**
 * Sender-side blocks: bounces whose receiver refused the sender, not the recipient (a blocklist such as Spamhaus,
 * "blocked", spam detected, policy, authentication; class 'sender' of domain/bounces.ts). They never suppress the
 * recipient; they are counted per sending domain (the From's domain) and relay from the raw bounce events, shown on
 * the domains page (blocksByDomain), and a spike raises a notification (BlockWatch, raiseBlockAlert): more than
 * BLOCK_ALERT_RATE (default 2 %) of a domain's sends in the last hour were blocked → one JOB_BLOCK_ALERT job-log entry
 * per domain and hour, naming the domain, the counts, the relays and the receiver's last words.
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
 * are more than $3 (a fraction) of its sends of the last hour (at least as many sends as blocks are counted: a block
 * may be reported after the hour of its send), and no alert for it was logged in the last hour. $4 followed by the
 * database's UTC hour is the domain's key for this hour, claimed in event_batches by the same statement: processes
 * looking at once log one alert (the others wait on the unique index, then claim nothing; one clock, the database's,
 * names the hour). Returns the entry's id, or no row.
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
                                'rate', round((b.n::numeric / greatest(s.n, b.n)), 4), 'relays', b.relays, 'last_diagnostic', b.last_diagnostic) AS details
        FROM blocks b, sends s
       WHERE b.n > 0 AND b.n::float8 / greatest(s.n, b.n) > $3),
    claim AS (
      INSERT INTO event_batches (project_id, idempotency_key, request_hash, response)
      SELECT $1, $4 || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'), NULL, '{}' FROM alert
      ON CONFLICT (project_id, idempotency_key) DO NOTHING RETURNING 1)
  INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
  SELECT $1, '${JOB_BLOCK_ALERT}', now(), now(), true, details, details FROM alert WHERE EXISTS (SELECT 1 FROM claim) RETURNING id`;

/**
 * raiseBlockAlert looks once at sending domain `domain` of the project (see the module's comment) and logs the alert
 * when its share of blocks in the last hour is above `rate` (a fraction). `query` may be the caller's transaction (it
 * then sees the blocks just written). Returns true when it logged one now.
 */
export async function raiseBlockAlert(query: QueryFn, projectId: string, domain: string, rate: number): Promise<boolean> {
  const rows = await query(BLOCK_ALERT, [projectId, domain, rate, `block-alert:${domain}:`]);
  if (rows.length) console.warn(`feedback: receivers are blocking mail from ${domain} (project ${projectId}); notification logged`);
  return rows.length > 0;
}

/** How often one process looks at one domain's blocks (ms): a burst of blocks is two looks, not one per bounce. */
export const BLOCK_CHECK_MS = 10_000;

/** The least wait (ms) before a later look: the transaction that wrote the block it is for must have committed. */
const COMMIT_WAIT_MS = 2_000;

/**
 * BlockWatch decides when to look at a domain's blocks (raiseBlockAlert), one per process (AppContext.blocks): each
 * look counts an hour of the domain's sends, so a burst of blocks must not make one look per bounce, and the burst's
 * end must still be looked at. The first block of a domain not looked at in the last `everyMs` is looked at at once,
 * in the caller's transaction (a failure rejects); the blocks after it within `everyMs` make one more look when that
 * time is up (at least COMMIT_WAIT_MS after the block), with the watch's own `query` (outside any transaction: their
 * events have been committed by then; a failure is logged). After stop() it looks no more.
 */
export class BlockWatch {
  private readonly lastLook = new Map<string, number>();
  private readonly later = new Map<string, { timer: ReturnType<typeof setTimeout>; projectId: string; domain: string }>();
  private readonly running = new Set<Promise<boolean>>();
  private stopped = false;

  /** `query` runs outside any transaction; `rate` is BLOCK_ALERT_RATE (a fraction); `everyMs` the time between looks. */
  constructor(
    private readonly query: QueryFn,
    readonly rate: number,
    private readonly everyMs = BLOCK_CHECK_MS,
  ) {}

  /**
   * blocked notes sender-side blocks of `domain` just written through `run` (the caller's transaction, or the
   * database). Resolves true when it logged the alert now; false otherwise (a later look may log it).
   */
  async blocked(run: QueryFn, projectId: string, domain: string): Promise<boolean> {
    const key = `${projectId} ${domain}`;
    const now = Date.now();
    const last = this.lastLook.get(key) ?? -Infinity;
    if (last <= now - this.everyMs) {
      if (this.lastLook.size > 10_000) this.lastLook.clear();
      this.lastLook.set(key, now);
      // In the caller's transaction a failure must fail it (the transaction is aborted anyway).
      return raiseBlockAlert(run, projectId, domain, this.rate);
    }
    if (!this.later.has(key) && !this.stopped) {
      const timer = setTimeout(
        () => {
          this.later.delete(key);
          this.lastLook.set(key, Date.now());
          void this.look(this.query, projectId, domain);
        },
        Math.max(last + this.everyMs - now, COMMIT_WAIT_MS),
      );
      timer.unref?.();
      this.later.set(key, { timer, projectId, domain });
    }
    return false;
  }

  private look(run: QueryFn, projectId: string, domain: string): Promise<boolean> {
    const looking = raiseBlockAlert(run, projectId, domain, this.rate)
      .catch((err: Error) => {
        console.error(`feedback: looking at the blocks of ${domain} (project ${projectId}) failed:`, err.message);
        return false;
      })
      .finally(() => this.running.delete(looking));
    this.running.add(looking);
    return looking;
  }

  /**
   * stop makes the looks still due now, waits for those under way, and takes no more (call it once nothing records
   * feedback any more: after the workers and the queue, before the database closes).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const due = [...this.later.values()];
    this.later.clear();
    for (const { timer, projectId, domain } of due) {
      clearTimeout(timer);
      await this.look(this.query, projectId, domain);
    }
    await Promise.all([...this.running]);
  }
}
