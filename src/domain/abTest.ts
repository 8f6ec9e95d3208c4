/**
 * A/B test results: each variant (template) of an A/B campaign against the best one, by open rate and by
 * click rate, with the confidence of a standard two-proportion z-test (pooled), and a plain verdict — including "too
 * small to call" when the samples are too small for the test's normal approximation. Rates are per email sent: unique
 * opens / unique sends, unique clicks / unique sends. Pure; the normal distribution comes from simple-statistics.
 */
import { errorFunction } from 'simple-statistics';

/** The standard normal distribution function Φ(z), from simple-statistics' error function (no table rounding). */
const normalCdf = (z: number) => 0.5 * (1 + errorFunction(z / Math.SQRT2));

/** One variant's counts: distinct emails sent, opened and clicked (campaign_metrics split by template). */
export interface VariantCounts {
  template_id: string;
  name?: string | null;
  sends: number;
  opens: number;
  clicks: number;
}

/** The smallest sample the test is called on: each variant needs this many sends… */
export const MIN_SENDS_PER_VARIANT = 30;
/** …and, for the rate compared, at least this many expected successes and failures under the pooled rate. */
export const MIN_EXPECTED = 5;

/** The confidence at which a difference is called. */
export const CONFIDENCE_LEVEL = 0.95;

/** A two-proportion comparison: the difference (variant − best, as a fraction), the confidence that it is real, or why there is none. */
export interface Comparison {
  /** variant rate − best rate (e.g. −0.031 for 3.1 points lower). */
  difference: number;
  /** 1 − the two-sided p-value of the z-test (0…1), or null when the test cannot be called. */
  confidence: number | null;
  /** Why there is no confidence: 'too small' (not enough emails) or 'no variation' (both rates 0 % or both 100 %). */
  reason?: 'too small' | 'no variation';
}

/**
 * twoProportionTest compares x1/n1 with x2/n2 by the pooled two-proportion z-test: confidence = 1 − 2·(1 − Φ(|z|)).
 * Returns reason 'too small' when either n is below MIN_SENDS_PER_VARIANT or an expected count under the pooled rate
 * is below MIN_EXPECTED, and 'no variation' when the pooled rate is 0 or 1.
 */
export function twoProportionTest(x1: number, n1: number, x2: number, n2: number): Comparison {
  const p1 = n1 ? x1 / n1 : 0;
  const p2 = n2 ? x2 / n2 : 0;
  const difference = p1 - p2;
  if (n1 < MIN_SENDS_PER_VARIANT || n2 < MIN_SENDS_PER_VARIANT) return { difference, confidence: null, reason: 'too small' };
  const pooled = (x1 + x2) / (n1 + n2);
  if (pooled === 0 || pooled === 1) return { difference, confidence: null, reason: 'no variation' };
  if (Math.min(n1, n2) * Math.min(pooled, 1 - pooled) < MIN_EXPECTED) return { difference, confidence: null, reason: 'too small' };
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = Math.abs(difference) / se;
  const confidence = Math.max(0, Math.min(1, 1 - 2 * (1 - normalCdf(z))));
  return { difference, confidence };
}

/** One variant's result against the best variant. */
export interface VariantResult extends VariantCounts {
  openRate: number | null;
  clickRate: number | null;
  best: boolean;
  opens: number;
  vsBest?: { open: Comparison; click: Comparison };
  /** A plain sentence on the open-rate comparison (the clicks' is in vsBest.click). */
  verdict: string;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
/** A confidence as a percentage; one that would round to 100 % says '>99.9%' (a test is never certain). */
const confidencePct = (x: number) => (x > 0.999 ? '>99.9%' : pct(x));
const points = (x: number) => `${Math.abs(x * 100).toFixed(1)} points`;

/**
 * compareVariants ranks an A/B test's variants by open rate (ties: more sends first), marks the best, and compares
 * every other one with it on open and click rates, saying plainly whether the difference is real at 95 % confidence,
 * not (yet) clear, or too small a sample to call.
 */
export function compareVariants(variants: VariantCounts[]): VariantResult[] {
  const rate = (x: number, n: number) => (n > 0 ? x / n : null);
  const ranked = [...variants].sort((a, b) => (rate(b.opens, b.sends) ?? -1) - (rate(a.opens, a.sends) ?? -1) || b.sends - a.sends);
  const best = ranked[0];
  return ranked.map((v) => {
    const base = { ...v, openRate: rate(v.opens, v.sends), clickRate: rate(v.clicks, v.sends) };
    if (v === best) {
      const verdict = v.sends ? `Best open rate so far (${pct(base.openRate ?? 0)} of ${v.sends} sent)` : 'Nothing sent yet';
      return { ...base, best: true, verdict };
    }
    const open = twoProportionTest(v.opens, v.sends, best.opens, best.sends);
    const click = twoProportionTest(v.clicks, v.sends, best.clicks, best.sends);
    let verdict: string;
    if (open.reason === 'too small')
      verdict = `Too few emails to call yet (at least ${MIN_SENDS_PER_VARIANT} sent and ${MIN_EXPECTED} opens expected per variant are needed)`;
    else if (open.reason === 'no variation') verdict = 'No difference: neither variant has opens (or every email was opened)';
    else if ((open.confidence ?? 0) >= CONFIDENCE_LEVEL)
      verdict = `Opened less than the best by ${points(open.difference)}, with ${confidencePct(open.confidence!)} confidence`;
    else
      verdict = `No clear difference from the best yet (${points(open.difference)} lower, ${confidencePct(open.confidence ?? 0)} confidence; ${pct(CONFIDENCE_LEVEL)} is needed to call it)`;
    return { ...base, best: false, vsBest: { open, click }, verdict };
  });
}
