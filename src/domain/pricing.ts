/**
 * Usage-based pricing (spec part 1 §1 "Pricing is usage-based", §2 /pricing, §3 Pricing, §9 Pricing): the
 * one place the free allowance, the three tiers and the cost formula live, shared by the pricing page and anything
 * that quotes a price.
 *
 * Monthly cost of a tier = base + rate × (emails − FREE_EMAILS_PER_MONTH) / 1,000, never below 0 (§9, applied to the
 * whole sum: under the free allowance the discount of a tier with a base fee can not go past $0). A quote is the
 * lowest of the three tiers; a plan card shows it rounded up to whole dollars. All arithmetic is done in integer
 * thousandths of a cent, so no amount is off by a floating-point rounding.
 */

/** Emails a month that cost nothing (§9: 10,000). */
export const FREE_EMAILS_PER_MONTH = 10_000;

/** One price tier (§3 Pricing): a monthly base fee in dollars and a rate in cents per 1,000 emails above the free allowance. */
export interface PricingTier {
  perMonthDollars: number;
  perThousandEmailsCents: number;
}

/** The three tiers of §9, in their order: $0 + 51¢, $9 + 39¢, $26 + 36¢ per 1,000 emails. */
export const PRICING_TIERS: readonly PricingTier[] = [
  { perMonthDollars: 0, perThousandEmailsCents: 51 },
  { perMonthDollars: 9, perThousandEmailsCents: 39 },
  { perMonthDollars: 26, perThousandEmailsCents: 36 },
];

/** The plan cards of /pricing (§2): each card's monthly email volume. The default plan is Professional. */
export const PLANS = [
  { name: 'Starter', emailsPerMonth: FREE_EMAILS_PER_MONTH },
  { name: 'Professional', emailsPerMonth: 100_000 },
  { name: 'Enterprise', emailsPerMonth: 1_000_000 },
] as const;

export type PlanName = (typeof PLANS)[number]['name'];
export const DEFAULT_PLAN: PlanName = 'Professional';

/** The volumes of the comparison table (§9). */
export const COMPARISON_VOLUMES: readonly number[] = [2_500, 50_000, 100_000, 500_000, 1_000_000, 10_000_000];

/** tierCostMillicents is a tier's monthly cost for `emails` in thousandths of a cent (exact). Throws on a negative or non-integer volume. */
function tierCostMillicents(tier: PricingTier, emails: number): number {
  if (!Number.isInteger(emails) || emails < 0) throw new RangeError(`emails must be a whole number ≥ 0 (got ${emails})`);
  const cost = tier.perMonthDollars * 100_000 + tier.perThousandEmailsCents * (emails - FREE_EMAILS_PER_MONTH);
  return Math.max(0, cost);
}

/** tierMonthlyCost is a tier's monthly cost for `emails` a month, in dollars (not rounded; e.g. 44.1). */
export function tierMonthlyCost(tier: PricingTier, emails: number): number {
  return tierCostMillicents(tier, emails) / 100_000;
}

/** A quote at one volume: every tier's cost (dollars), which tier is cheapest, and the card price (whole dollars, rounded up). */
export interface Quote {
  emails: number;
  costs: number[];
  cheapestTier: number;
  monthlyDollars: number;
}

/**
 * quote prices `emails` a month: the cost under each tier, the index of the cheapest (the first on a tie), and that
 * cost rounded up to whole dollars, as a plan card shows it. Throws RangeError on a negative or non-integer volume.
 */
export function quote(emails: number): Quote {
  const exact = PRICING_TIERS.map((t) => tierCostMillicents(t, emails));
  let cheapestTier = 0;
  exact.forEach((c, i) => {
    if (c < exact[cheapestTier]) cheapestTier = i;
  });
  return {
    emails,
    costs: exact.map((c) => c / 100_000),
    cheapestTier,
    monthlyDollars: Math.ceil(exact[cheapestTier] / 100_000),
  };
}

/** What one send adds to a month's bill: the bill before and after it and the difference, in dollars (exact, unrounded). */
export interface SendCost {
  before: number;
  after: number;
  dollars: number;
  emailsAfter: number;
  freeLeft: number;
}

/**
 * sendCost is what sending `count` more emails adds to this month's bill when `monthSoFar` were sent already this
 * month: the cheapest tier's cost at monthSoFar + count minus that at monthSoFar (the month is billed at its cheapest
 * calculation, and the first FREE_EMAILS_PER_MONTH are free). Throws RangeError on a negative or non-integer volume.
 */
export function sendCost(monthSoFar: number, count: number): SendCost {
  const cheapest = (emails: number) => Math.min(...PRICING_TIERS.map((t) => tierCostMillicents(t, emails)));
  const before = cheapest(monthSoFar);
  const after = cheapest(monthSoFar + count);
  return {
    before: before / 100_000,
    after: after / 100_000,
    dollars: (after - before) / 100_000,
    emailsAfter: monthSoFar + count,
    freeLeft: Math.max(0, FREE_EMAILS_PER_MONTH - monthSoFar),
  };
}
