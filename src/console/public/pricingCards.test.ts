import { describe, expect, it } from 'vitest';
import { FREE_EMAILS_PER_MONTH, PLANS, PRICING_TIERS, tierMonthlyCost } from '../../domain/pricing.ts';
import { dollars, lowestRateCents, planCards, tierName } from './pricingCards.ts';

/** The formula of spec part 1 §9, written out again from the tiers' own fields: base + rate × (emails − free) / 1,000, at least 0. */
const formula = (tier: (typeof PRICING_TIERS)[number], emails: number) =>
  Math.max(0, tier.perMonthDollars + (tier.perThousandEmailsCents / 100) * ((emails - FREE_EMAILS_PER_MONTH) / 1000));

describe('the plan cards', () => {
  const cards = planCards();

  it('are the plans, in order, with their volumes', () => {
    expect(cards.map((c) => [c.name, c.emails])).toEqual(PLANS.map((p) => [p.name, p.emailsPerMonth]));
  });

  it.each(PLANS.map((p) => p.name))('%s: every figure is the formula’s, for each tier', (name) => {
    const card = cards.find((c) => c.name === name)!;
    const costs = PRICING_TIERS.map((t) => formula(t, card.emails));
    // The domain's own tier cost agrees with the formula written out here, tier by tier.
    PRICING_TIERS.forEach((t, i) => expect(tierMonthlyCost(t, card.emails)).toBeCloseTo(costs[i], 9));
    const cheapest = costs.indexOf(Math.min(...costs));
    expect(card.tier).toBe(cheapest);
    expect(card.tierName).toBe(`$${PRICING_TIERS[cheapest].perMonthDollars} + ${PRICING_TIERS[cheapest].perThousandEmailsCents}¢ per 1,000`);
    expect(card.monthlyDollars).toBe(Math.ceil(Number(costs[cheapest].toFixed(6)))); // toFixed: no float noise crosses a dollar
    expect(card.exactCost).toBe(dollars(costs[cheapest]));
    // No other tier is cheaper than the one the card names.
    for (const c of costs) expect(c).toBeGreaterThanOrEqual(costs[cheapest]);
  });

  it('say the figures of spec part 1 §9 (worked out by hand)', () => {
    expect(cards.map((c) => [c.name, c.monthlyDollars, c.exactCost, c.tierName])).toEqual([
      ['Starter', 0, '$0.00', '$0 + 51¢ per 1,000'],
      ['Professional', 45, '$44.10', '$9 + 39¢ per 1,000'],
      ['Enterprise', 383, '$382.40', '$26 + 36¢ per 1,000'],
    ]);
    expect(cards[0].volume).toBe('Free up to 10,000 emails a month');
    expect(cards[1].volume).toBe('Up to 100,000 emails a month');
  });

  it('names each tier by its terms, and the lowest rate', () => {
    expect(PRICING_TIERS.map((_t, i) => tierName(i))).toEqual(['$0 + 51¢ per 1,000', '$9 + 39¢ per 1,000', '$26 + 36¢ per 1,000']);
    expect(lowestRateCents()).toBe(36);
  });

  it('writes money in cents, rounding half a cent up', () => {
    expect(dollars(6.075)).toBe('$6.08');
    expect(dollars(3622.4)).toBe('$3,622.40');
    expect(dollars(0)).toBe('$0.00');
  });
});
