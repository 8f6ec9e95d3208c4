/**
 * The reputation circuit-breaker: a project whose hard-bounce or complaint rate over the last 24 hours crosses its
 * threshold (with at least PAUSE_MIN_SENDS sends in the window) has its marketing sending paused — blasts and workflow
 * emails are no longer claimed (core/sending/queries.ts CLAIM_DUE) nor handed to the relay; test emails and single
 * sends go on — with a JOB_PAUSE_SENDING job-log entry giving the rates, until an admin resumes it
 * (POST {scheduler}/sending_status/resume). After a resume the rates are counted from the resume on. Mailbox
 * providers judge a sender by these rates (Gmail asks bulk senders to stay under 0.3 % complaints).
 *
 * The rates are looked at whenever feedback arrives (core/feedback recordFeedback) and as sends accumulate
 * (ReputationWatch, which the sender feeds): complaints that arrive before the window has PAUSE_MIN_SENDS sends pause
 * the project as soon as it has them. Only events the product recorded itself count (is_system): the
 * sender's sends and the feedback it took in, never events a customer posted under those names.
 */
import type { QueryFn } from '../../db/client.ts';
import { EVENT } from '../../../domain/events.ts';
import { formatRatePrecise, rate } from '../../../domain/reports.ts';
import type { Config } from '../../config.ts';
import type { components } from '../../../../generated/types/scheduler.gen.ts';
import { RELAY_STATES } from './pacing.ts';
import { capKey, DAILY_SENT, utcDay } from './dailyCaps.ts';

type SendingStatus = components['schemas']['SendingStatus'];

/** The thresholds (Config: PAUSE_MIN_SENDS, PAUSE_BOUNCE_RATE, PAUSE_COMPLAINT_RATE; rates are fractions, 0.05 = 5 %). */
export interface ReputationLimits {
  minSends: number;
  bounceRate: number;
  complaintRate: number;
}

/** A project's sending state and its window's figures (rates are fractions; null with no sends). */
export interface SendingState {
  paused: boolean;
  reason: string | null;
  pausedAt: Date | null;
  sends: number;
  bounceRate: number | null;
  complaintRate: number | null;
}

/** The start of project p's window: the later of 24 hours ago and its last resume. */
const WINDOW_START = `greatest(now() - interval '24 hours', coalesce(p.sending_resumed_at, '-infinity')) AS since`;

/** Project p's hard (Permanent) bounces and complaints the product recorded since w.since. */
const FEEDBACK_COUNTS = `(SELECT count(*) FROM events e WHERE e.project_id = p.id AND e.name = '${EVENT.bounce}' AND e.emitted_at >= w.since AND e.is_system
           AND e.json->'bounce'->>'bounceType' = 'Permanent')::int AS bounces,
        (SELECT count(*) FROM events e WHERE e.project_id = p.id AND e.name = '${EVENT.complaint}' AND e.emitted_at >= w.since AND e.is_system)::int AS complaints`;

/**
 * WINDOW_FEEDBACK: project $1's pause state, its window's start, and its hard bounces and complaints in the window —
 * the cheap first half of checkReputation (feedback is rare; sends are not).
 */
const WINDOW_FEEDBACK = `SELECT p.sending_paused_at AS paused_at, w.since, ${FEEDBACK_COUNTS}
   FROM projects p CROSS JOIN LATERAL (SELECT ${WINDOW_START}) w
  WHERE p.id = $1`;

/**
 * SENDS_UP_TO: project $1's sends the product recorded since $2, counted up to $3 at most: checkReputation needs the
 * exact count only while it is small enough for a rate to reach a threshold, so a busy project's check reads at most
 * that many index entries instead of a day's sends.
 */
const SENDS_UP_TO = `SELECT count(*)::int AS n FROM (SELECT 1 FROM events e WHERE e.project_id = $1 AND e.name = '${EVENT.sendSuccess}'
      AND e.emitted_at >= $2 AND e.is_system LIMIT $3) s`;

/**
 * WINDOW_COUNTS: project $1's sends, hard (Permanent) bounces and complaints since the later of 24 hours ago and the last resume,
 * with its pause state. The events index (project_id, name, emitted_at) serves each count.
 */
const WINDOW_COUNTS = `SELECT p.sending_paused_at AS paused_at, p.sending_pause_reason AS reason,
        (SELECT count(*) FROM events e WHERE e.project_id = p.id AND e.name = '${EVENT.sendSuccess}' AND e.emitted_at >= w.since AND e.is_system)::int AS sends,
        ${FEEDBACK_COUNTS}
   FROM projects p CROSS JOIN LATERAL (SELECT ${WINDOW_START}) w
  WHERE p.id = $1`;

/** PAUSE: pauses project $1's marketing sending with reason $2 and logs JOB_PAUSE_SENDING with details $3 (once: no row when paused already). */
const PAUSE = `WITH paused AS (
     UPDATE projects SET sending_paused_at = now(), sending_pause_reason = $2 WHERE id = $1 AND sending_paused_at IS NULL RETURNING id)
   INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
   SELECT id, 'JOB_PAUSE_SENDING', now(), now(), true, $3::jsonb, $3::jsonb FROM paused RETURNING id`;

/** RESUME: resumes project $1's sending (no row when it was not paused). */
const RESUME = `UPDATE projects SET sending_paused_at = NULL, sending_pause_reason = NULL, sending_resumed_at = now()
   WHERE id = $1 AND sending_paused_at IS NOT NULL RETURNING id`;

/** PAUSED_PROJECTS: the projects whose marketing sending is paused. */
export const PAUSED_PROJECTS = 'SELECT id FROM projects WHERE sending_paused_at IS NOT NULL';

/** sendingState reads a project's pause state and its window's sends and rates. */
export async function sendingState(query: QueryFn, projectId: string): Promise<SendingState> {
  const [r] = await query<{ paused_at: Date | null; reason: string | null; sends: number; bounces: number; complaints: number }>(WINDOW_COUNTS, [projectId]);
  const sends = r?.sends ?? 0;
  return {
    paused: !!r?.paused_at,
    reason: r?.reason ?? null,
    pausedAt: r?.paused_at ? new Date(r.paused_at) : null,
    sends,
    bounceRate: rate(r?.bounces ?? 0, sends),
    complaintRate: rate(r?.complaints ?? 0, sends),
  };
}

/**
 * checkReputation pauses the project's marketing sending when its window has at least `minSends` sends and a bounce
 * or complaint rate at or over its threshold. Returns the reason when this call paused it, else undefined. Two cheap
 * statements in the usual case: the window's feedback, and its sends counted only up to the most for which a rate can
 * still reach its threshold (none when there is no feedback); a third writes the pause.
 */
export async function checkReputation(query: QueryFn, projectId: string, limits: ReputationLimits): Promise<string | undefined> {
  const [w] = await query<{ paused_at: Date | null; since: Date; bounces: number; complaints: number }>(WINDOW_FEEDBACK, [projectId]);
  if (!w || w.paused_at || (!w.bounces && !w.complaints)) return undefined;
  // A rate b / sends reaches r only while sends ≤ b / r: beyond that many sends (or minSends) none can pause. The bound
  // is rounded up (b / r in floating point may fall just under a whole number); the comparisons below decide exactly.
  const most = Math.max(limits.minSends, Math.ceil(w.bounces / limits.bounceRate), Math.ceil(w.complaints / limits.complaintRate));
  const [{ n: sends }] = await query<{ n: number }>(SENDS_UP_TO, [projectId, w.since, most + 1]);
  if (sends < limits.minSends || sends > most) return undefined;
  const bounceRate = rate(w.bounces, sends) ?? 0;
  const complaintRate = rate(w.complaints, sends) ?? 0;
  const over: string[] = [];
  if (bounceRate >= limits.bounceRate) over.push(`hard-bounce rate ${formatRatePrecise(bounceRate)} (limit ${formatRatePrecise(limits.bounceRate)})`);
  if (complaintRate >= limits.complaintRate) over.push(`complaint rate ${formatRatePrecise(complaintRate)} (limit ${formatRatePrecise(limits.complaintRate)})`);
  if (!over.length) return undefined;
  const reason = `Marketing sending paused: ${over.join(' and ')} over the last ${sends} sends in 24 hours. Check the list you sent to, then resume.`;
  const details = JSON.stringify({ reason, sends_24h: sends, bounce_rate: bounceRate, complaint_rate: complaintRate, limits });
  const logged = await query(PAUSE, [projectId, reason, details]);
  return logged.length ? reason : undefined;
}

/** How often (ms) ReputationWatch looks at the projects that sent since its last look. */
export const REPUTATION_CHECK_MS = 1000;

/**
 * ReputationWatch evaluates the circuit-breaker as sends accumulate: the sender notes each project
 * whose send it recorded, and every REPUTATION_CHECK_MS the watch runs checkReputation for each project noted since,
 * so a project whose window reaches PAUSE_MIN_SENDS with a rate over its threshold pauses within a second or two of
 * the send that made it so (feedback that arrived earlier, when the window was still too small, included).
 * `onPause` hears each project this watch paused. Checks never reject (a failure is logged; the next send notes the
 * project again).
 */
export class ReputationWatch {
  private noted = new Set<string>();
  private timer?: ReturnType<typeof setInterval>;
  private checking?: Promise<void>;

  constructor(
    private readonly query: QueryFn,
    private readonly limits: ReputationLimits,
    private readonly onPause: (projectId: string, reason: string) => void,
    private readonly everyMs = REPUTATION_CHECK_MS,
  ) {}

  /** sent notes that a send of `projectId` was recorded (or feedback about one: the inbound receiver notes those too). */
  sent(projectId: string): void {
    this.noted.add(projectId);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.everyMs);
      this.timer.unref?.();
    }
  }

  /** check looks at every project noted since the last check (one check at a time). */
  check(): Promise<void> {
    this.checking ??= (async () => {
      const projects = [...this.noted];
      this.noted = new Set();
      if (!projects.length) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
      for (const projectId of projects) {
        try {
          const reason = await checkReputation(this.query, projectId, this.limits);
          if (reason) this.onPause(projectId, reason);
        } catch (err) {
          console.error(`sender: checking the reputation of project ${projectId} failed:`, (err as Error).message);
        }
      }
    })().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** stop makes a last check of what was noted and ends the timer. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
    await this.check();
  }
}

/** resumeSending resumes a paused project's marketing sending; false when it was not paused. */
export async function resumeSending(query: QueryFn, projectId: string): Promise<boolean> {
  return (await query(RESUME, [projectId])).length > 0;
}

/** DEFERRED_COUNT: project $1's emails the relay deferred that wait to be tried again. */
const DEFERRED_COUNT = "SELECT count(*)::int AS n FROM outbox WHERE project_id = $1 AND status = 'pending' AND last_error IS NOT NULL";

/** sendingStatus answers GET {scheduler}/sending_status: the pause state, the window's rates, the deferred emails, the relays. */
export async function sendingStatus(query: QueryFn, projectId: string, config: Config): Promise<SendingStatus> {
  const s = await sendingState(query, projectId);
  const [{ n }] = await query<{ n: number }>(DEFERRED_COUNT, [projectId]);
  const relays = await relayStates(query, config);
  return {
    paused: s.paused,
    reason: s.reason,
    paused_at: s.pausedAt?.toISOString() ?? null,
    bounce_rate: s.bounceRate,
    complaint_rate: s.complaintRate,
    sends_24h: s.sends,
    deferred: n,
    relays,
  };
}

/**
 * relayStates answers the relays of SMTP_URL for sending_status, in order of priority: `down` when a sender took it for
 * down (it refused connections; until down_until), `quota_reached` when today's daily_quota is used up, else `up`;
 * its pace now (messages/s: max_rate, or less after throttling), and today's count when it has a daily cap (the
 * count runs only then: null otherwise). Two statements.
 */
export async function relayStates(query: QueryFn, config: Config): Promise<SendingStatus['relays']> {
  if (!config.relayName) return [];
  const list = [
    { name: config.relayName, maxRate: config.relayMaxRate, dailyQuota: config.relayDailyQuota, warmup: config.relayWarmup },
    ...config.backupRelays,
  ];
  const names = list.map((r) => r.name);
  const [rows, sent] = await Promise.all([
    query<{ relay: string; rate: number | null; down_until: Date | null; down_reason: string | null; down: boolean | null }>(RELAY_STATES, [names]),
    query<{ key: string; sent: number }>(DAILY_SENT, [names.map(capKey.relay), utcDay(Date.now())]),
  ]);
  const byName = new Map(rows.map((r) => [r.relay, r]));
  const sentBy = new Map(sent.map((r) => [r.key, Number(r.sent)]));
  return list.map((r) => {
    const st = byName.get(r.name);
    const counted = !!(r.dailyQuota || r.warmup);
    const sentToday = counted ? (sentBy.get(capKey.relay(r.name)) ?? 0) : null;
    const down = !!st?.down;
    return {
      name: r.name,
      state: down ? 'down' : r.dailyQuota && sentToday !== null && sentToday >= r.dailyQuota ? 'quota_reached' : 'up',
      rate: st?.rate ?? r.maxRate ?? null,
      max_rate: r.maxRate ?? null,
      sent_today: sentToday,
      daily_quota: r.dailyQuota ?? null,
      down_until: down && st?.down_until ? new Date(st.down_until).toISOString() : null,
      down_reason: down ? (st?.down_reason ?? null) : null,
    };
  });
}
