/**
 * How long a launch takes to go out under the delivery governor's limits that apply now: the relay's
 * rate (SMTP_URL max_rate), each recipient provider's rate (DOMAIN_LIMITS; core/sending/providers.ts) and the sending
 * domain's warm-up caps (core/sending/dailyCaps.ts). The send wizard's review and POST {scheduler}/scheduler/preview
 * show it. Pure: the caller gives the counts and the clock.
 */
import { msUntilNextUtcDay } from './dailyCaps.ts';

/** What the estimate is taken over. */
export interface EstimateInput {
  /** Emails the launch sends. */
  emails: number;
  /** The relay's rate limit (messages/s); undefined for none. */
  relayRate?: number;
  /** Emails per recipient provider group that has a rate limit (messages/s). */
  providers: Array<{ name: string; emails: number; maxRate: number }>;
  /**
   * The sending domain's warm-up when one applies: today's cap and use, the warm-up day (null before its first email:
   * it starts on day 1 today) and the schedule (emails per day from day 1).
   */
  warmup?: { domain: string; day: number | null; capToday: number; sentToday: number; schedule: readonly number[] };
  /** Now (ms since the epoch, UTC). */
  now: number;
}

/** The estimate: seconds until the last email goes (null when no limit applies: as fast as the relay takes them), and what sets it, in words. */
export interface Estimate {
  seconds: number | null;
  limitedBy: string | null;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * estimateSendDuration returns how long the emails take: the slowest of the relay's rate over all of them and each
 * provider's rate over its own; with a warm-up whose remaining cap today is smaller than the launch, the rest goes out
 * on the following UTC days at each day's cap, so the estimate runs to the day the last one can go.
 */
export function estimateSendDuration(input: EstimateInput): Estimate {
  const { emails, relayRate, providers, warmup, now } = input;
  let rateSeconds = relayRate ? emails / relayRate : 0;
  let limitedBy: string | null = relayRate ? `the relay's limit of ${fmt(relayRate)} emails/s` : null;
  for (const p of providers) {
    const s = p.emails / p.maxRate;
    if (s > rateSeconds) {
      rateSeconds = s;
      limitedBy = `${p.name}'s limit of ${fmt(p.maxRate)} emails/s for ${fmt(p.emails)} of them`;
    }
  }
  const perEmail = emails > 0 ? rateSeconds / emails : 0;
  if (warmup) {
    const leftToday = Math.max(0, warmup.capToday - warmup.sentToday);
    if (emails > leftToday) {
      let remaining = emails - leftToday;
      let day = (warmup.day ?? 1) + 1;
      let daysLater = 1;
      for (;;) {
        const cap = warmup.schedule[day - 1];
        if (cap === undefined || remaining <= cap) break;
        remaining -= cap;
        day++;
        daysLater++;
      }
      const seconds = msUntilNextUtcDay(now) / 1000 + (daysLater - 1) * 86_400 + remaining * perEmail;
      return {
        seconds: Math.ceil(Math.max(seconds, rateSeconds)),
        limitedBy: `the warm-up of ${warmup.domain}: ${fmt(leftToday)} more today, the rest over the next ${daysLater === 1 ? 'UTC day' : `${daysLater} UTC days`}`,
      };
    }
  }
  return limitedBy ? { seconds: Math.ceil(rateSeconds), limitedBy } : { seconds: null, limitedBy: null };
}
