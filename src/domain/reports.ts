/**
 * Report rules shared by the reporting gateway and the Insights pages (spec part 1 §2 Insights and reports, §3 Report
 * rows, §7 reporting calls, §9 rates): which event feeds which column, how a campaign_id parameter is read, the
 * deselected-columns URL parameters, the quick-stat cards and their rates, and the chart label rules. Pure.
 */
import { UUID_RE } from './validation.ts';

/** The per-day (or per-hour) report columns, in the spec's default order (part 1 §9), and the event each counts. */
export const SERIES_COLUMNS = {
  sends: 'email_send_result_success',
  unsuccessful_sends: 'email_send_result_failure',
  unsubscribes: 'user_unsubscribed',
  opens: 'ses_event_open',
  clicks: 'ses_event_click',
  complaints: 'ses_event_complaint',
  bounces: 'ses_event_bounce',
} as const;

export type SeriesColumn = keyof typeof SERIES_COLUMNS;

/** Every report column, in the spec's default order. */
export const ALL_SERIES_COLUMNS = Object.keys(SERIES_COLUMNS) as SeriesColumn[];

/** The event names the reports count (quickstats has one row for each). */
export const REPORT_EVENT_NAMES: string[] = Object.values(SERIES_COLUMNS);

/** The Issues report's columns (part 1 §2): also the columns the charts hide by default. */
export const ISSUE_COLUMNS: SeriesColumn[] = ['unsuccessful_sends', 'complaints', 'bounces', 'unsubscribes'];

/** A column's label on charts and legends. */
export const COLUMN_LABELS: Record<SeriesColumn, string> = {
  sends: 'Sends',
  unsuccessful_sends: 'Failures',
  unsubscribes: 'Unsubscribes',
  opens: 'Opens',
  clicks: 'Clicks',
  complaints: 'Complaints',
  bounces: 'Bounces',
};

/** How a report's campaign_id parameter reads: every campaign, one campaign, or a malformed value. */
export type CampaignScope = { all: true } | { all: false; id: string } | { error: string };

/**
 * parseCampaignId reads a reporting campaign_id (part 1 §7): blank, 'all', or a placeholder the console may send
 * before a campaign is chosen ('undefined', 'null', '-', '{campaign_id}') means every campaign; a UUID names one
 * campaign (lower-cased); anything else is an error naming the parameter.
 */
export function parseCampaignId(value: string | null | undefined): CampaignScope {
  const v = (value ?? '').trim();
  if (!v || /^(all|undefined|null|none|-)$/i.test(v) || /^\{[^{}]*\}$/.test(v) || /^:\w+$/.test(v)) return { all: true };
  if (UUID_RE.test(v)) return { all: false, id: v.toLowerCase() };
  return { error: `campaign_id: must be a campaign id (a UUID) or 'all', not ${JSON.stringify(v.slice(0, 60))}` };
}

/**
 * parseDeselected reads deselected_columns1/2 from the URL (part 1 §2): absent means the defaults (the four issue
 * columns), 'none' means nothing deselected, else a comma list of known columns (unknown names are ignored).
 */
export function parseDeselected(value: string | null | undefined, defaults: SeriesColumn[] = ISSUE_COLUMNS): SeriesColumn[] {
  if (value === null || value === undefined) return [...defaults];
  const v = value.trim();
  if (v === 'none' || v === '') return [];
  const known = new Set<string>(ALL_SERIES_COLUMNS);
  return [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s): s is SeriesColumn => known.has(s)),
    ),
  ];
}

/** formatDeselected writes a deselected set back to its URL value ('none' when empty), in the spec's column order. */
export function formatDeselected(columns: Iterable<SeriesColumn>): string {
  const set = new Set(columns);
  const ordered = ALL_SERIES_COLUMNS.filter((c) => set.has(c));
  return ordered.length ? ordered.join(',') : 'none';
}

/** toggleColumn returns the deselected set with `column` switched (deselected ↔ shown). */
export function toggleColumn(deselected: SeriesColumn[], column: SeriesColumn): SeriesColumn[] {
  return deselected.includes(column) ? deselected.filter((c) => c !== column) : [...deselected, column];
}

/**
 * One quickstats row (part 1 §3): an event name, how many such events (num) and how many distinct emails had one
 * (num_unique: an email is one message to one recipient, so a recipient who opens one email three times is one unique
 * open, and a recipient of two emails who opens both is two).
 */
export interface QuickStat {
  name: string;
  num: number;
  num_unique: number;
}

/** The quick-stat cards in the spec's order (part 1 §2): label, event name and report column. */
export const QUICK_STAT_CARDS: Array<{ label: string; name: string; column: SeriesColumn }> = [
  { label: 'Sends', name: SERIES_COLUMNS.sends, column: 'sends' },
  { label: 'Opens', name: SERIES_COLUMNS.opens, column: 'opens' },
  { label: 'Clicks', name: SERIES_COLUMNS.clicks, column: 'clicks' },
  { label: 'Unsubscribes', name: SERIES_COLUMNS.unsubscribes, column: 'unsubscribes' },
  { label: 'Complaints', name: SERIES_COLUMNS.complaints, column: 'complaints' },
  { label: 'Bounces', name: SERIES_COLUMNS.bounces, column: 'bounces' },
];

/** rate is numerator / denominator, or null ('N/A') when the denominator is 0 (part 1 §9 Rates). */
export function rate(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/** formatRate renders a rate as a percentage with one decimal, or 'N/A'. */
export function formatRate(r: number | null): string {
  return r === null ? 'N/A' : `${(r * 100).toFixed(1)}%`;
}

/**
 * formatRatePrecise renders a small rate the way the reputation circuit-breaker states it: a percentage with up to
 * two decimals, trailing zeros dropped ('0.3 %', '3.85 %', '100 %'), or 'n/a'. Shared by the pause reason the server
 * writes (src/server/core/sending/reputation.ts) and the console's banner.
 */
export function formatRatePrecise(r: number | null): string {
  return r === null ? 'n/a' : `${(100 * r).toFixed(2).replace(/\.?0+$/, '')} %`;
}

/** The rates a stats page shows from quickstats rows (part 1 §9): each event per unique send, click per open, open per click. */
export interface QuickStatRates {
  /** Per card name (Opens, Clicks, …): unique of that event / unique sends. */
  perSend: Record<string, number | null>;
  /** Unique clicks / unique opens (click-to-open). */
  clickPerOpen: number | null;
  /** Unique opens / unique clicks. */
  openPerClick: number | null;
}

/** quickStatRates computes the stats page's rates from quickstats rows (missing names count as 0). */
export function quickStatRates(rows: QuickStat[]): QuickStatRates {
  const unique = (name: string) => rows.find((r) => r.name === name)?.num_unique ?? 0;
  const sends = unique(SERIES_COLUMNS.sends);
  const perSend: Record<string, number | null> = {};
  for (const card of QUICK_STAT_CARDS) if (card.column !== 'sends') perSend[card.label] = rate(unique(card.name), sends);
  const opens = unique(SERIES_COLUMNS.opens);
  const clicks = unique(SERIES_COLUMNS.clicks);
  return { perSend, clickPerOpen: rate(clicks, opens), openPerClick: rate(opens, clicks) };
}

/** The device groups opens and clicks are shown by (part 1 §2). */
export const DEVICE_GROUPS = ['Desktop / Other', 'Tablet', 'Mobile'] as const;
export type DeviceGroup = (typeof DEVICE_GROUPS)[number];

/**
 * groupByDevice sums by-user-agent rows into the three device groups (every group present, zeros included), naming
 * each agent's group with `deviceOf` (the user-agent library's reading; src/domain/devices.ts).
 */
export function groupByDevice<R extends { user_agent?: string | null; num_opens: number; num_clicks: number }>(
  rows: R[],
  deviceOf: (userAgent: string) => DeviceGroup,
): Array<{ device: DeviceGroup; num_opens: number; num_clicks: number }> {
  const totals = new Map<DeviceGroup, { num_opens: number; num_clicks: number }>(DEVICE_GROUPS.map((d) => [d, { num_opens: 0, num_clicks: 0 }]));
  for (const r of rows) {
    const t = totals.get(deviceOf(r.user_agent ?? ''))!;
    t.num_opens += r.num_opens;
    t.num_clicks += r.num_clicks;
  }
  return DEVICE_GROUPS.map((device) => ({ device, ...totals.get(device)! }));
}

/** Chart names (campaigns, templates in pies) are cut at 20 characters (part 1 §2, part 2 §9). */
export const CHART_NAME_MAX = 20;

/** chartName cuts a name for a chart label or legend. */
export function chartName(name: string): string {
  return name.length > CHART_NAME_MAX ? `${name.slice(0, CHART_NAME_MAX)}…` : name;
}

/**
 * readableSubject shows a subject whose template variables would otherwise show raw ("{{user.first_name}}, your
 * week") as a reader sees what varies: each {{…}} becomes its last name part in brackets, underscores as spaces
 * ("[first name], your week"). Report rows carry the template's subject, not each recipient's.
 */
export function readableSubject(subject: string): string {
  return subject.replace(/\{\{\{?\s*([\w.]+)\s*\}?\}\}/g, (_, path: string) => `[${path.split('.').pop()!.replace(/_/g, ' ')}]`);
}

/** labelEvery is how many x labels apart the charts show one (part 1 §2): every 3rd, 4th on small, 5th on extra-small screens. */
export function labelEvery(screen: 'xs' | 'sm' | 'md'): number {
  return screen === 'xs' ? 5 : screen === 'sm' ? 4 : 3;
}

/** isIntegerTick hides the non-integer ticks of count axes (part 1 §2). */
export function isIntegerTick(value: number): boolean {
  return Number.isInteger(value);
}

/** The report limits of part 1 §9, and the largest limit a report call accepts. */
export const REPORT_LIMITS = {
  mostOpenedEmails: 10,
  recentlyOpenedEmails: 10,
  recentlyClickedLinks: 5,
  mostClickedLinks: 100,
  bySource: 10_000,
  max: 10_000,
} as const;

/**
 * The counters of a report row that have a count of people beside them: total → people. Report rows carry
 * both (num / num_human, opens / human_opens, num_opens / num_human_opens …); the console shows people by default.
 */
export const PEOPLE_FIELDS: Readonly<Record<string, string>> = {
  num: 'num_human',
  num_unique: 'num_unique_human',
  opens: 'human_opens',
  clicks: 'human_clicks',
  num_opens: 'num_human_opens',
  num_unique_opens: 'num_unique_human_opens',
  num_clicks: 'num_human_clicks',
  num_unique_clicks: 'num_unique_human_clicks',
};

/**
 * peopleView returns the row as people made it: each total that has a people's count beside it takes that count
 * (a row without them is returned as it is). Pure; the row is not changed. Used by the report pages unless "Include
 * machine opens" is on, so cards, charts, tables, Analysis and the A/B verdict all count the same events.
 */
export function peopleView<T>(row: T): T {
  if (!row || typeof row !== 'object') return row;
  const r = row as Record<string, unknown>;
  const out: Record<string, unknown> = { ...r };
  for (const [total, people] of Object.entries(PEOPLE_FIELDS)) if (typeof r[total] === 'number' && typeof r[people] === 'number') out[total] = r[people];
  return out as T;
}

/**
 * Words for the reasons of src/domain/engagement.ts (machine_reason, bot_reason), as the console shows them beside an
 * open or click a machine made. Kept here, apart from the rules, so the console does not bundle them.
 */
export const REASON_LABELS: Readonly<Record<string, string>> = {
  apple_mpp: 'Apple Mail Privacy Protection',
  generic_user_agent: 'Generic user agent',
  proxy_refetch: 'Image proxy refetch',
  scanner: 'Security scanner',
  no_user_agent: 'No user agent',
  on_delivery: 'On delivery',
  honeypot: 'Hidden link',
  all_links_at_once: 'Every link at once',
  unknown: 'Machine',
};
