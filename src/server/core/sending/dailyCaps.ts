/**
 * Daily caps of the delivery governor: a sending domain's warm-up and a relay's daily_quota.
 * Both count real emails per UTC day in one `daily_sends` row per key and day; a sender takes one unit per email with
 * one conditional statement (TAKE_DAILY), so every sender process together never exceeds the day's cap. Mail over a
 * cap is never failed: it waits for the next UTC day (the sender holds it, core/sending/queries.ts HOLD_FOR_CAP).
 *
 * Warm-up: a new sending domain's reputation is built by a daily volume that grows, as every mailbox provider's sender
 * guidance asks. Day 1 is the UTC day the domain first sent a real email (sending_domains.warmup_started_on); day N's
 * cap is WARMUP_SCHEDULE's N-th value; after the schedule's last day there is no cap. Only marketing mail (blasts and
 * workflow emails) waits for the cap; test emails and single (transactional) sends always go, and count toward it.
 *
 * Days are UTC, computed from a clock the caller gives (ms since the epoch, UTC), so tests can move through days.
 */
import type { DailyCount } from './sentRecorder.ts';
import type { QueryFn } from '../../db/client.ts';

/**
 * The default warm-up ramp (emails per day on days 1–10, then no cap): the common published ramp for a new domain or
 * IP, e.g. Mailgun's and SparkPost's warm-up tables start at 50–200 a day and double to six figures within two weeks.
 */
export const DEFAULT_WARMUP_SCHEDULE: readonly number[] = [50, 100, 500, 1_000, 5_000, 10_000, 20_000, 40_000, 80_000, 150_000];

/** No cap: the count still runs (for the domains page), against the largest int4. */
const NO_CAP = 2_147_483_647;

/**
 * parseWarmupSchedule reads WARMUP_SCHEDULE: `off` (no warm-up: null), or whole numbers > 0 separated by commas (day 1
 * first). Unset or empty gives DEFAULT_WARMUP_SCHEDULE. Throws an Error naming WARMUP_SCHEDULE and the fault.
 */
export function parseWarmupSchedule(value: string | undefined): number[] | null {
  const raw = value?.trim();
  if (!raw) return [...DEFAULT_WARMUP_SCHEDULE];
  if (/^(off|none|false|0|no)$/i.test(raw)) return null;
  return raw.split(',').map((part, i) => {
    const n = Number(part.trim());
    if (!part.trim() || !Number.isInteger(n) || n <= 0) {
      throw new Error(`WARMUP_SCHEDULE must be "off" or emails per day separated by commas, e.g. 50,100,500; day ${i + 1} is "${part.trim()}"`);
    }
    return n;
  });
}

/** utcDay returns the UTC day (YYYY-MM-DD) of instant `ms` (ms since the epoch). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** msUntilNextUtcDay returns how long (ms, > 0) from instant `ms` until the next UTC midnight. */
export function msUntilNextUtcDay(ms: number): number {
  return 86_400_000 - (ms % 86_400_000);
}

/** warmupDay returns the warm-up day (1-based) on UTC day `today` of a domain whose day 1 was `startedOn` (YYYY-MM-DD). */
export function warmupDay(startedOn: string, today: string): number {
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${startedOn}T00:00:00Z`)) / 86_400_000) + 1;
}

/** warmupCap returns the day's cap (emails) on warm-up day `day`, or undefined when the schedule is over (or off). */
export function warmupCap(schedule: readonly number[] | null, day: number): number | undefined {
  return schedule && day >= 1 ? schedule[day - 1] : undefined;
}

/**
 * TAKE_DAILY: takes one unit of key $1 on UTC day $2 when fewer than $3 were taken; returns the count after, no row
 * when the cap is reached.
 */
export const TAKE_DAILY = `INSERT INTO daily_sends AS d (key, day, sent) VALUES ($1, $2::date, 1)
     ON CONFLICT (key, day) DO UPDATE SET sent = d.sent + 1 WHERE d.sent < $3::int
     RETURNING sent`;

/** START_WARMUP: day 1 of sending domain $1's warm-up is UTC day $2 unless it started before; returns its day 1. */
export const START_WARMUP = `UPDATE sending_domains SET warmup_started_on = coalesce(warmup_started_on, $2::date) WHERE id = $1
     RETURNING warmup_started_on::text AS started_on`;

/** RELAY_STARTED: the first UTC day key $1 was counted (a relay's warm-up day 1), or $2 (today) if never. */
export const RELAY_STARTED = `SELECT coalesce(min(day), $2::date)::text AS started_on FROM daily_sends WHERE key = $1`;

/** DAILY_SENT: the units taken on UTC day $2 of each key in $1. */
export const DAILY_SENT = `SELECT key, sent FROM daily_sends WHERE key = ANY($1::text[]) AND day = $2::date`;

/** The key of a sending domain's warm-up count, and of a relay's daily_quota count. */
export const capKey = {
  domain: (domainId: string) => `domain:${domainId}`,
  relay: (relayName: string) => `relay:${relayName}`,
};

/** Why an email waits for the next UTC day, and how long (ms) until then. */
export interface CapRefusal {
  reason: string;
  waitMs: number;
}

/** A sending domain as the sender knows it: its id and name. */
export interface SendingDomainRef {
  id: string;
  domain: string;
}

/**
 * DailyCaps takes the units of one sender process. It remembers each domain's day 1 (it never changes once set) and
 * which caps are full today, so an email over a full cap costs no statement.
 */
export class DailyCaps {
  private readonly startedOn = new Map<string, string>();
  /** key → the UTC day its cap was found reached. */
  private readonly full = new Map<string, string>();

  /** `schedule`: WARMUP_SCHEDULE (null = off); `now`: the clock (ms since the epoch, UTC). */
  constructor(
    private readonly query: QueryFn,
    private readonly schedule: readonly number[] | null,
    readonly now: () => number = Date.now,
  ) {}

  /**
   * takeWarmup counts one email from sending domain `d` today. With `hold` (marketing mail) during the warm-up it
   * takes one unit of today's cap now (TAKE_DAILY), or refuses when the cap is reached, with the reason and the wait
   * until the next UTC day. Without a cap to enforce (transactional mail, or a domain past its warm-up) it takes
   * nothing now and answers `countWithSend`: the count the send adds one to when it is recorded as sent
   * (SentRecorder, in the same statement as the sent mark), so an established domain's emails cost no statement of
   * their own on one hot daily_sends row. `{}` when nothing is counted (no warm-up schedule, or the domain is gone).
   * Rejects when a statement fails.
   */
  async takeWarmup(d: SendingDomainRef, hold: boolean): Promise<CapRefusal | { countWithSend?: DailyCount }> {
    if (!this.schedule) return {};
    const now = this.now();
    const today = utcDay(now);
    const key = capKey.domain(d.id);
    let started = this.startedOn.get(d.id);
    if (!started) {
      const [row] = await this.query<{ started_on: string }>(START_WARMUP, [d.id, today]);
      if (!row) return {}; // the domain was deleted meanwhile: nothing to warm up
      started = row.started_on;
      this.startedOn.set(d.id, started);
    }
    const day = warmupDay(started, today);
    const cap = warmupCap(this.schedule, day);
    if (!hold || cap === undefined) return { countWithSend: { key, day: today } };
    const refusal = (): CapRefusal => ({
      reason: `warm-up: ${d.domain} is on day ${day} of its ${this.schedule!.length}-day warm-up and today's cap of ${cap} emails is reached; it goes out from the next UTC day`,
      waitMs: msUntilNextUtcDay(now),
    });
    if (this.full.get(key) === today) return refusal();
    const taken = await this.query(TAKE_DAILY, [key, today, cap]);
    if (taken.length) return {};
    this.full.set(key, today);
    return refusal();
  }

  /**
   * takeRelay counts one email through relay `relay` today against its daily_quota and, with `warmup`, against the
   * warm-up cap of the relay's day (day 1 = the first UTC day it was counted). Resolves undefined when the email may
   * go, or the refusal (the caller fails over or holds the email until the next UTC day). No statement for a relay
   * without either limit.
   */
  async takeRelay(relay: string, limits: { dailyQuota?: number; warmup?: boolean }): Promise<CapRefusal | undefined> {
    const warm = !!limits.warmup && !!this.schedule;
    if (!limits.dailyQuota && !warm) return undefined;
    const now = this.now();
    const today = utcDay(now);
    const key = capKey.relay(relay);
    let cap = limits.dailyQuota ?? NO_CAP;
    let why = `its daily_quota of ${cap}`;
    if (warm) {
      let started = this.startedOn.get(key);
      if (!started) {
        const [row] = await this.query<{ started_on: string }>(RELAY_STARTED, [key, today]);
        started = row.started_on;
        this.startedOn.set(key, started);
      }
      const day = warmupDay(started, today);
      const w = warmupCap(this.schedule, day);
      if (w !== undefined && w < cap) {
        cap = w;
        why = `day ${day}'s warm-up cap of ${w}`;
      }
    }
    const refusal = (): CapRefusal => ({
      reason: `daily cap: relay ${relay} sent ${why} emails today; it goes out from the next UTC day`,
      waitMs: msUntilNextUtcDay(now),
    });
    if (this.full.get(key) === today) return refusal();
    const taken = await this.query(TAKE_DAILY, [key, today, cap]);
    if (taken.length) return undefined;
    this.full.set(key, today);
    return refusal();
  }

  /** msUntilNextDay is how long (ms) until the next UTC day by this clock. */
  msUntilNextDay(): number {
    return msUntilNextUtcDay(this.now());
  }
}

/** A sending domain's warm-up as the domains page shows it. */
export interface WarmupState {
  /** Whether the domain is in warm-up today (false before its first send is day 1, or after the schedule). */
  active: boolean;
  /** Today's warm-up day (1-based); null before the domain's first real email. */
  day: number | null;
  /** The schedule's length in days (0 when WARMUP_SCHEDULE=off). */
  days: number;
  /** Today's cap (emails); null when there is none. */
  cap_today: number | null;
  /** Real emails the domain sent today (UTC). */
  sent_today: number;
}

/**
 * warmupStates answers, for each sending domain (id and its warm-up day 1 or null), its warm-up state on the UTC day
 * of `now` (ms). One statement.
 */
export async function warmupStates(
  query: QueryFn,
  domains: Array<{ id: string; warmup_started_on: string | null }>,
  schedule: readonly number[] | null,
  now: number = Date.now(),
): Promise<Map<string, WarmupState>> {
  const today = utcDay(now);
  const rows = domains.length ? await query<{ key: string; sent: number }>(DAILY_SENT, [domains.map((d) => capKey.domain(d.id)), today]) : [];
  const sent = new Map(rows.map((r) => [r.key, Number(r.sent)]));
  return new Map(
    domains.map((d) => {
      const day = d.warmup_started_on ? warmupDay(d.warmup_started_on, today) : null;
      // Before the first email the domain is on day 1 as soon as it sends: its cap is day 1's.
      const cap = warmupCap(schedule, day ?? 1) ?? null;
      return [d.id, { active: !!schedule && cap !== null, day, days: schedule?.length ?? 0, cap_today: cap, sent_today: sent.get(capKey.domain(d.id)) ?? 0 }];
    }),
  );
}
