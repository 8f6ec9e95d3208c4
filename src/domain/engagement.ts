/**
 * Machine opens and bot clicks: which recorded opens a machine made (Apple Mail Privacy Protection's
 * prefetch, a security scanner, an image proxy's refetch) and which clicks a link scanner made. Each open event
 * carries json {machine, machine_reason}, each click {bot, bot_reason}; reports, per-contact counts and segment
 * filters count people by default (event_is_human, src/server/core/events/sql/event_is_human.sql). Pure: the caller
 * (src/server/core/feedback) reads the request and the email's earlier engagement and records the verdict.
 *
 * Sources of the request shapes (cited again in engagement.test.ts beside the corpus):
 * - Apple Mail Privacy Protection (support.apple.com/guide/iphone/use-mail-privacy-protection and Apple's
 *   "Prepare your network for iCloud Private Relay / Mail Privacy Protection", which publishes the egress ranges as
 *   https://mask-api.icloud.com/egress-ip-ranges.csv): images are fetched through Apple's proxy when the message is
 *   delivered, with the generic user agent "Mozilla/5.0" and no platform token.
 * - Gmail's image proxy (Google Workspace blog "Images now showing", 2013): "… (via ggpht.com GoogleImageProxy)",
 *   fetched when the recipient opens the email and then cached, so the first fetch is the person's open and a later
 *   one is the cache refreshing. Yahoo's proxy ("YahooMailProxy", help.yahoo.com SLN28749) behaves the same.
 * - Security scanners follow every link of a message on delivery (Microsoft Defender Safe Links, Mimecast URL
 *   Protect, Proofpoint URL Defense, Barracuda): recognised by their user agents (the isbot library plus the list
 *   below), by clicking within seconds of delivery, by following several links within one second, and by following
 *   the hidden honeypot link (src/server/mail/links.ts) that no person can see.
 */
import { isbot } from 'isbot';
import ipaddr from 'ipaddr.js';

/** Why an open is a machine's. */
export type MachineReason = 'apple_mpp' | 'generic_user_agent' | 'scanner' | 'no_user_agent' | 'proxy_refetch' | 'on_delivery';
/** Why a click is a bot's. */
export type BotReason = 'honeypot' | 'scanner' | 'no_user_agent' | 'on_delivery' | 'all_links_at_once';

/** An open's verdict: json.machine and json.machine_reason (null for a person). */
export interface OpenVerdict {
  machine: boolean;
  machine_reason: MachineReason | null;
}
/** A click's verdict: json.bot and json.bot_reason (null for a person). */
export interface ClickVerdict {
  bot: boolean;
  bot_reason: BotReason | null;
}

/** An open fetched within this long of delivery (ms) by Apple's generic user agent is Mail Privacy Protection's prefetch. */
export const APPLE_PREFETCH_WINDOW_MS = 15 * 60_000;
/** An open within this long of delivery (ms) is a prefetch on delivery: nobody reads an email that fast. */
export const OPEN_ON_DELIVERY_MS = 2_000;
/** A click within this long of delivery (ms) is a scanner's: "within a few seconds of delivery". */
export const CLICK_ON_DELIVERY_MS = 10_000;
/** Clicks on two or more different links of one email within this span (ms) are a scanner following every link. */
export const LINK_BURST_MS = 1_000;

/** Email security scanners whose user agents isbot does not know (vendor documentation names them). */
const SCANNER_AGENTS =
  /mimecast|proofpoint|barracuda|messagelabs|symantec|trend ?micro|sophos|ironport|fireeye|forcepoint|zscaler|safelinks|urldefense|cloudmark|vade ?secure|spamtitan|appriver|cisco.*(email|esa)/i;
/** Image proxies that fetch when the person opens and then cache: the first fetch is an open, later ones the cache. */
const OPEN_PROXIES = /GoogleImageProxy|ggpht\.com|YahooMailProxy/i;

/** A parsed list of IP ranges (CIDR), e.g. Apple's published egress ranges (APPLE_PROXY_RANGES_FILE). */
export type IpRanges = Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

/**
 * parseIpRanges reads a list of ranges: one per line, the CIDR in the first comma-separated column (Apple's
 * egress-ip-ranges.csv: `172.224.226.0/27,GB,GB-EN,London,`); blank lines, comments (#) and lines whose first
 * column is not a CIDR (a header) are skipped. Returns the ranges and the count of lines skipped as malformed.
 */
export function parseIpRanges(text: string): { ranges: IpRanges; skipped: number } {
  const ranges: IpRanges = [];
  let skipped = 0;
  for (const line of text.split(/\r?\n/)) {
    const first = line.split(',')[0].trim();
    if (!first || first.startsWith('#')) continue;
    try {
      ranges.push(ipaddr.parseCIDR(first));
    } catch {
      skipped++;
    }
  }
  return { ranges, skipped };
}

/** inRanges says whether `ip` (v4, v6 or v4-mapped v6) lies in one of `ranges`; false for an unparsable address. */
export function inRanges(ip: string | undefined, ranges: IpRanges): boolean {
  if (!ip || !ranges.length) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
}

/** isOpenProxyAgent: an image proxy that fetches when the person opens and then caches (Gmail, Yahoo). */
export const isOpenProxyAgent = (ua: string) => OPEN_PROXIES.test(ua);

/** isGenericAgent: Apple's proxy's user agent, "Mozilla/5.0" with nothing after it. */
const isGenericAgent = (ua: string) => /^Mozilla\/5\.0$/i.test(ua.trim());

/** isScannerAgent: a user agent of a crawler, HTTP library, headless browser or email security scanner. */
export function isScannerAgent(ua: string): boolean {
  return SCANNER_AGENTS.test(ua) || (isbot(ua) && !OPEN_PROXIES.test(ua) && !isGenericAgent(ua));
}

/** What is known of one open request: its user agent, the client's address, how long after delivery (ms), and whether the email had an earlier open through the same kind of image proxy. */
export interface OpenRequest {
  userAgent: string;
  ip?: string;
  /** ms from the relay accepting the email to this request; null when unknown. */
  msSinceDelivery: number | null;
  /** The email was fetched through an image proxy (Google, Yahoo) before. */
  proxyOpenedBefore: boolean;
  /** Apple's egress ranges, when the operator supplied them. */
  appleRanges?: IpRanges;
}

/**
 * classifyOpen decides whether an open is a machine's, first rule that holds: Apple's generic agent from Apple's
 * ranges or within APPLE_PREFETCH_WINDOW_MS of delivery ('apple_mpp'), or later ('generic_user_agent'); an image
 * proxy's second fetch ('proxy_refetch'; its first is the person's open); a scanner's agent ('scanner'); no agent
 * ('no_user_agent'); within OPEN_ON_DELIVERY_MS of delivery ('on_delivery'). Otherwise a person.
 */
export function classifyOpen(r: OpenRequest): OpenVerdict {
  const machine = (reason: MachineReason): OpenVerdict => ({ machine: true, machine_reason: reason });
  const ua = r.userAgent.trim();
  if (isGenericAgent(ua)) {
    const soon = r.msSinceDelivery !== null && r.msSinceDelivery <= APPLE_PREFETCH_WINDOW_MS;
    return machine(inRanges(r.ip, r.appleRanges ?? []) || soon ? 'apple_mpp' : 'generic_user_agent');
  }
  if (OPEN_PROXIES.test(ua)) return r.proxyOpenedBefore ? machine('proxy_refetch') : { machine: false, machine_reason: null };
  if (!ua) return machine('no_user_agent');
  if (isScannerAgent(ua)) return machine('scanner');
  if (r.msSinceDelivery !== null && r.msSinceDelivery < OPEN_ON_DELIVERY_MS) return machine('on_delivery');
  return { machine: false, machine_reason: null };
}

/** What is known of one click request. */
export interface ClickRequest {
  userAgent: string;
  /** ms from the relay accepting the email to this request; null when unknown. */
  msSinceDelivery: number | null;
  /** The hidden honeypot link of the email (src/server/mail/links.ts honeypotUrl). */
  honeypot: boolean;
}

/**
 * classifyClick decides whether a click is a bot's, first rule that holds: the honeypot link ('honeypot'), a
 * scanner's agent ('scanner'), no agent ('no_user_agent'), within CLICK_ON_DELIVERY_MS of delivery ('on_delivery').
 * The burst rule needs the email's other clicks: see linkBurst.
 */
export function classifyClick(r: ClickRequest): ClickVerdict {
  const bot = (reason: BotReason): ClickVerdict => ({ bot: true, bot_reason: reason });
  const ua = r.userAgent.trim();
  if (r.honeypot) return bot('honeypot');
  if (!ua) return bot('no_user_agent');
  if (isScannerAgent(ua) || isGenericAgent(ua)) return bot('scanner');
  if (r.msSinceDelivery !== null && r.msSinceDelivery < CLICK_ON_DELIVERY_MS) return bot('on_delivery');
  return { bot: false, bot_reason: null };
}

/** One recorded click of an email: its event id, link, when (ms, any epoch shared by the list) and whether it counts as a person's. */
export interface RecordedClick {
  id: string;
  link: string | null;
  at: number;
  human: boolean;
}

/**
 * linkBurst returns the ids of the clicks to mark bot ('all_links_at_once') because the email had clicks on two or
 * more different links within LINK_BURST_MS of `click` — a person reads, clicks one link and leaves; a scanner
 * follows every link at once. Only clicks still counted as a person's are returned ([] when there is no burst).
 */
export function linkBurst(click: RecordedClick, clicks: RecordedClick[]): string[] {
  const near = clicks.filter((c) => Math.abs(c.at - click.at) < LINK_BURST_MS && c.link !== null);
  if (!near.some((c) => c.id === click.id) && click.link !== null) near.push(click);
  if (new Set(near.map((c) => c.link)).size < 2) return [];
  return near.filter((c) => c.human).map((c) => c.id);
}
