/**
 * What the plan cards of /pricing and the home page's price figures say, worked out from src/domain/pricing.ts (the
 * formula of spec part 1 §9) and nowhere written by hand: each plan's card price (the cheapest tier at its volume,
 * rounded up to whole dollars), that exact monthly cost in cents and the tier it comes from, and each tier's terms.
 */
import { FREE_EMAILS_PER_MONTH, PLANS, PRICING_TIERS, quote, type PlanName } from '../../domain/pricing';

/** count writes a whole number the way the site does: 100,000. */
export const count = (n: number) => n.toLocaleString('en-US');

/**
 * dollars writes an amount in cents, as an invoice shows money ("$6.075" reads as a mistake). A tier's cost can end in
 * half a cent; it is rounded up to the cent, never down, so the site never promises less than the bill.
 */
export const dollars = (n: number) =>
  `$${(Math.ceil(Math.round(n * 1000) / 10) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** tierName is a tier's terms in words: "$9 + 39¢ per 1,000". */
export function tierName(i: number): string {
  const t = PRICING_TIERS[i];
  return `$${t.perMonthDollars} + ${t.perThousandEmailsCents}¢ per 1,000`;
}

/** One plan card. */
export interface PlanCard {
  name: PlanName;
  emails: number;
  /** The card's price: the month's cost at `emails` under the cheapest tier, rounded up to whole dollars. */
  monthlyDollars: number;
  /** That cost exactly, in cents ("$44.10"). */
  exactCost: string;
  /** The index of that tier in PRICING_TIERS, and its terms in words. */
  tier: number;
  tierName: string;
  /** "Free up to 10,000 emails a month" or "Up to 100,000 emails a month". */
  volume: string;
}

/** planCards answers the plan cards, in PLANS' order. */
export function planCards(): PlanCard[] {
  return PLANS.map((p) => {
    const q = quote(p.emailsPerMonth);
    return {
      name: p.name,
      emails: p.emailsPerMonth,
      monthlyDollars: q.monthlyDollars,
      exactCost: dollars(q.costs[q.cheapestTier]),
      tier: q.cheapestTier,
      tierName: tierName(q.cheapestTier),
      volume:
        p.emailsPerMonth === FREE_EMAILS_PER_MONTH ? `Free up to ${count(p.emailsPerMonth)} emails a month` : `Up to ${count(p.emailsPerMonth)} emails a month`,
    };
  });
}

/** lowestRateCents is the lowest per-1,000 rate of the tiers (the rate a large sender ends up paying). */
export function lowestRateCents(): number {
  return Math.min(...PRICING_TIERS.map((t) => t.perThousandEmailsCents));
}
