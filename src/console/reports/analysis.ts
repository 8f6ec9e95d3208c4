/**
 * The campaign comparison of /insights/analysis (the spec names the route only; its design is
 * described here): one row per campaign from campaign_metrics (distinct emails, all time) with its rates,
 * each a fraction or null (shown 'N/A', spec part 1 §9 Rates): open, click, unsubscribe and bounce rates per send,
 * click-to-open (clicks / opens), and the failure rate (unsuccessful sends / attempted sends, i.e. sends + failures).
 * Sorting keeps N/A rows last in both directions. Pure.
 */
import { rate } from '../../domain/reports';
import type { Schema } from '../data/apiTypes';

/** The metrics of one campaign the comparison reads (fields of a campaign_metrics row, openapi campaign CampaignWithMetrics). */
export type CampaignMetrics = Pick<
  Schema<'campaign', 'CampaignWithMetrics'>,
  'id' | 'name' | 'type' | 'sends' | 'opens' | 'clicks' | 'unsubscribes' | 'bounces' | 'unsuccessful_sends' | 'created_at'
>;

/** One row of the comparison: the campaign and its rates. */
export interface AnalysisRow extends CampaignMetrics {
  openRate: number | null;
  clickRate: number | null;
  clickToOpen: number | null;
  unsubscribeRate: number | null;
  bounceRate: number | null;
  failureRate: number | null;
}

/** The sortable columns of the comparison, in table order, with their headers. */
export const ANALYSIS_COLUMNS = [
  { key: 'name', label: 'Campaign' },
  { key: 'type', label: 'Type' },
  { key: 'sends', label: 'Sends' },
  { key: 'openRate', label: 'Open rate' },
  { key: 'clickRate', label: 'Click rate' },
  { key: 'clickToOpen', label: 'Click-to-open' },
  { key: 'unsubscribeRate', label: 'Unsubscribe rate' },
  { key: 'bounceRate', label: 'Bounce rate' },
  { key: 'failureRate', label: 'Failure rate' },
  { key: 'created_at', label: 'Added' },
] as const satisfies ReadonlyArray<{ key: keyof AnalysisRow; label: string }>;

/** A sortable column of the comparison. */
export type AnalysisKey = (typeof ANALYSIS_COLUMNS)[number]['key'];

/** analysisRow computes a campaign's rates; every per-send rate is null when it has no sends. */
export function analysisRow(c: CampaignMetrics): AnalysisRow {
  return {
    ...c,
    openRate: rate(c.opens, c.sends),
    clickRate: rate(c.clicks, c.sends),
    clickToOpen: rate(c.clicks, c.opens),
    unsubscribeRate: rate(c.unsubscribes, c.sends),
    bounceRate: rate(c.bounces, c.sends),
    failureRate: rate(c.unsuccessful_sends, c.sends + c.unsuccessful_sends),
  };
}

/**
 * sortAnalysis returns `rows` sorted by `key` (names case-insensitively, types by their value, dates as instants), ties by name; rows whose
 * value is null (N/A) come last whatever the order.
 */
export function sortAnalysis(rows: AnalysisRow[], key: AnalysisKey, order: 'asc' | 'desc'): AnalysisRow[] {
  const sign = order === 'asc' ? 1 : -1;
  const value = (r: AnalysisRow): number | string | null =>
    key === 'name' ? r.name.toLowerCase() : key === 'type' ? r.type : key === 'created_at' ? Date.parse(r.created_at) : r[key];
  return [...rows].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null || vb === null) {
      if (va === vb) return a.name.localeCompare(b.name);
      return va === null ? 1 : -1;
    }
    const cmp = va < vb ? -1 : va > vb ? 1 : 0;
    return cmp !== 0 ? sign * cmp : a.name.localeCompare(b.name);
  });
}
