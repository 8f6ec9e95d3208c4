/**
 * The relay setting (SMTP_URL): an smtp:// or smtps:// URL whose query may carry the delivery governor's parameters
 * besides nodemailer's own (tls_reject_unauthorized, ignore_tls): `max_rate`, messages per second over all sender
 * processes together (core/sending/pacing.ts); `max_connections`, concurrent SMTP connections over all processes
 * (core/sending/connections.ts); `daily_quota`, messages per UTC day over all processes; `warmup=1`, the
 * relay's daily volume follows WARMUP_SCHEDULE from the first day it sent (both core/sending/dailyCaps.ts);
 * `priority`, lower is used first (default: the list's order); `weight`, the share of the mail among relays of equal
 * priority that are up (default 1); `return_path=persona`, mail through the relay keeps the sender persona's address as
 * envelope sender instead of the per-message return path (mail/returnPath.ts) — for relays that require it to be
 * the signed-in mailbox (Microsoft 365's SMTP AUTH answers SendAsDenied); their bounces then come back by the
 * relay's own route (a provider webhook, or the persona's inbox); `stream=<name>`, the relay carries only that message
 * stream's mail (core/sending/streams.ts; a stream with relays of its own uses only those). SMTP_URL
 * may list several relays separated by commas: the sender uses the first by priority that is up and fails over to the
 * next when one refuses connections (src/workers/sender.ts).
 */

/** A parsed relay: the URL nodemailer gets (governor parameters removed), its name (no credentials), its limits. */
export interface RelaySetting {
  url: string;
  name: string;
  maxRate?: number;
  /** Concurrent SMTP connections over all processes (`max_connections`; core/sending/connections.ts). */
  maxConnections?: number;
  /** Messages per UTC day over all processes (`daily_quota`). */
  dailyQuota?: number;
  /** Whether the relay's daily volume follows WARMUP_SCHEDULE (`warmup=1`). */
  warmup?: boolean;
  /** Lower is used first; parseRelayUrls sets it for every relay (the list's order where none is given). */
  priority?: number;
  /** The share among relays of equal priority (`weight`, default 1). */
  weight?: number;
  /** `return_path=persona`: the persona's address is the envelope sender through this relay (no per-message return path). */
  returnPath?: 'persona';
  /** `stream=<name>`: the relay carries only that message stream's mail. */
  stream?: string;
}

/** Our parameters (the governor's and return_path), read and removed from the URL. */
const GOVERNOR_PARAMS = ['max_rate', 'max_connections', 'daily_quota', 'warmup', 'priority', 'weight', 'return_path', 'stream'] as const;

/**
 * parseRelayUrl reads SMTP_URL. Throws an Error naming SMTP_URL and the fault when it is not one smtp(s):// URL,
 * `max_rate` or `weight` is not a number > 0, `max_connections` or `daily_quota` not a whole number > 0, `warmup` not 0 or 1, `priority`
 * not whole, or `return_path` not persona or message.
 */
export function parseRelayUrl(value: string): RelaySetting {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must be an smtp:// or smtps:// URL, got ${u.protocol}//`);
  let maxRate: number | undefined;
  const raw = u.searchParams.get('max_rate');
  if (raw !== null) {
    maxRate = Number(raw);
    if (!Number.isFinite(maxRate) || maxRate <= 0) throw new Error(`SMTP_URL: max_rate must be a number of messages per second > 0, got "${raw}"`);
  }
  let priority: number | undefined;
  const rawPriority = u.searchParams.get('priority');
  if (rawPriority !== null) {
    priority = Number(rawPriority);
    if (!Number.isInteger(priority)) throw new Error(`SMTP_URL: priority must be a whole number, got "${rawPriority}"`);
  }
  let maxConnections: number | undefined;
  const rawConnections = u.searchParams.get('max_connections');
  if (rawConnections !== null) {
    maxConnections = Number(rawConnections);
    if (!Number.isInteger(maxConnections) || maxConnections <= 0) {
      throw new Error(`SMTP_URL: max_connections must be a whole number of connections > 0, got "${rawConnections}"`);
    }
  }
  let dailyQuota: number | undefined;
  const rawQuota = u.searchParams.get('daily_quota');
  if (rawQuota !== null) {
    dailyQuota = Number(rawQuota);
    if (!Number.isInteger(dailyQuota) || dailyQuota <= 0)
      throw new Error(`SMTP_URL: daily_quota must be a whole number of messages per day > 0, got "${rawQuota}"`);
  }
  let weight: number | undefined;
  const rawWeight = u.searchParams.get('weight');
  if (rawWeight !== null) {
    weight = Number(rawWeight);
    if (!Number.isFinite(weight) || weight <= 0) throw new Error(`SMTP_URL: weight must be a number > 0, got "${rawWeight}"`);
  }
  const rawWarmup = u.searchParams.get('warmup');
  if (rawWarmup !== null && !/^(0|1|true|false)$/.test(rawWarmup)) throw new Error(`SMTP_URL: warmup must be 1 or 0, got "${rawWarmup}"`);
  const warmup = rawWarmup === '1' || rawWarmup === 'true';
  const rawReturnPath = u.searchParams.get('return_path');
  if (rawReturnPath !== null && !/^(persona|message)$/.test(rawReturnPath))
    throw new Error(`SMTP_URL: return_path must be persona (the persona's address as envelope sender) or message (the default), got "${rawReturnPath}"`);
  const stream = u.searchParams.get('stream');
  if (stream !== null && !/^[a-z0-9][a-z0-9-]{0,39}$/.test(stream))
    throw new Error(`SMTP_URL: stream must be a message stream's name (lower-case letters, digits, hyphens), got "${stream}"`);
  for (const p of GOVERNOR_PARAMS) u.searchParams.delete(p);
  const name = `${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? 465 : 25)}`;
  return {
    url: u.toString(),
    name,
    maxRate,
    ...(maxConnections === undefined ? {} : { maxConnections }),
    ...(dailyQuota === undefined ? {} : { dailyQuota }),
    ...(warmup ? { warmup } : {}),
    ...(priority === undefined ? {} : { priority }),
    ...(weight === undefined ? {} : { weight }),
    ...(rawReturnPath === 'persona' ? { returnPath: 'persona' as const } : {}),
    ...(stream ? { stream } : {}),
  };
}

/**
 * parseRelayUrls reads SMTP_URL as one relay or a comma-separated list, in order of priority (lower first; a relay
 * without one takes its place in the list, counted from 0, as its priority). Throws like parseRelayUrl, naming the relay's place when there are several.
 */
export function parseRelayUrls(value: string): RelaySetting[] {
  const parts = value.split(',').map((p) => p.trim());
  const relays = parts.map((p, i) => {
    try {
      return { relay: parseRelayUrl(p), place: i };
    } catch (err) {
      throw new Error(parts.length > 1 ? `${(err as Error).message} (relay ${i + 1} of ${parts.length})` : (err as Error).message);
    }
  });
  return relays
    .sort((a, b) => (a.relay.priority ?? a.place) - (b.relay.priority ?? b.place) || a.place - b.place)
    .map((r) => ({ ...r.relay, priority: r.relay.priority ?? r.place }));
}
