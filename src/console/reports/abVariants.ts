/**
 * The A/B results of the Statistics page: an a_b_test campaign's per-template counts (campaign_metrics
 * split by template: sends, opens and clicks as distinct emails) compared by compareVariants, and each variant's cells
 * as the page shows them — open and click rates, the difference against the best with its confidence, and the verdict.
 */
import { compareVariants, type Comparison, type VariantCounts } from '../../domain/abTest';
import type { Schema } from '../data/apiTypes';

/** The fields of one split campaign_metrics row the comparison reads (openapi campaign CampaignWithMetrics with template_id). */
export type SplitRow = Pick<Schema<'campaign', 'CampaignWithMetrics'>, 'template_id' | 'template_name' | 'sends' | 'opens' | 'clicks'>;

/** One variant's line on the page. */
export interface VariantLine {
  templateId: string;
  name: string;
  best: boolean;
  sends: string;
  openRate: string;
  clickRate: string;
  openVsBest: string;
  clickVsBest: string;
  verdict: string;
}

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** comparisonText reads one comparison: the difference in points (signed) and its confidence, or why there is none. */
export function comparisonText(c: Comparison | undefined): string {
  if (!c) return '–';
  const points = `${c.difference > 0 ? '+' : c.difference < 0 ? '−' : '±'}${Math.abs(c.difference * 100).toFixed(1)} points`;
  if (c.confidence === null) return `${points} (${c.reason === 'no variation' ? 'no variation' : 'too few emails to call'})`;
  // 99.97 % is not certainty: above 99.9 % the page says so rather than rounding to 100.0 %.
  return `${points} (${c.confidence >= 0.999 ? '>99.9' : (c.confidence * 100).toFixed(1)}% confidence)`;
}

/** variantLines compares the split rows of one A/B campaign (rows without a template are left out) and formats each variant, best first. */
export function variantLines(rows: SplitRow[]): VariantLine[] {
  const variants: VariantCounts[] = rows
    .filter((r) => r.template_id)
    .map((r) => ({
      template_id: r.template_id as string,
      name: r.template_name,
      sends: r.sends,
      opens: r.opens,
      clicks: r.clicks,
    }));
  return compareVariants(variants).map((v) => ({
    templateId: v.template_id,
    name: v.name ?? v.template_id,
    best: v.best,
    sends: v.sends.toLocaleString('en-US'),
    openRate: `${pct(v.openRate)} (${v.opens.toLocaleString('en-US')})`,
    clickRate: `${pct(v.clickRate)} (${v.clicks.toLocaleString('en-US')})`,
    openVsBest: v.best ? 'best' : comparisonText(v.vsBest?.open),
    clickVsBest: v.best ? 'best' : comparisonText(v.vsBest?.click),
    verdict: v.verdict,
  }));
}
