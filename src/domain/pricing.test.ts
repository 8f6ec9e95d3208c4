import { describe, expect, it } from 'vitest';
import { COMPARISON_VOLUMES, DEFAULT_PLAN, FREE_EMAILS_PER_MONTH, PLANS, PRICING_TIERS, quote, sendCost, tierMonthlyCost } from './pricing.ts';

describe('pricing (spec part 1 §9)', () => {
  it('has the free allowance, the three tiers and the plan volumes of the spec', () => {
    expect(FREE_EMAILS_PER_MONTH).toBe(10_000);
    expect(PRICING_TIERS).toEqual([
      { perMonthDollars: 0, perThousandEmailsCents: 51 },
      { perMonthDollars: 9, perThousandEmailsCents: 39 },
      { perMonthDollars: 26, perThousandEmailsCents: 36 },
    ]);
    expect(PLANS.map((p) => [p.name, p.emailsPerMonth])).toEqual([
      ['Starter', 10_000],
      ['Professional', 100_000],
      ['Enterprise', 1_000_000],
    ]);
    expect(DEFAULT_PLAN).toBe('Professional');
    expect(COMPARISON_VOLUMES).toEqual([2_500, 50_000, 100_000, 500_000, 1_000_000, 10_000_000]);
  });

  it('costs base + rate × (emails − 10,000) / 1,000 per tier, never below 0', () => {
    expect(tierMonthlyCost(PRICING_TIERS[0], 100_000)).toBe(45.9);
    expect(tierMonthlyCost(PRICING_TIERS[1], 100_000)).toBe(44.1);
    expect(tierMonthlyCost(PRICING_TIERS[2], 100_000)).toBe(58.4);
    // Under the free allowance: the pay-as-you-go tier is free, the others keep what is left of their base fee.
    expect(tierMonthlyCost(PRICING_TIERS[0], 2_500)).toBe(0);
    expect(tierMonthlyCost(PRICING_TIERS[1], 2_500)).toBe(6.075);
    expect(tierMonthlyCost(PRICING_TIERS[1], 0)).toBe(5.1);
    expect(tierMonthlyCost(PRICING_TIERS[0], FREE_EMAILS_PER_MONTH)).toBe(0);
    expect(tierMonthlyCost(PRICING_TIERS[0], 10_001)).toBe(0.00051);
  });

  it('quotes the cheapest tier and rounds the card price up to whole dollars', () => {
    expect(quote(10_000)).toEqual({ emails: 10_000, costs: [0, 9, 26], cheapestTier: 0, monthlyDollars: 0 });
    expect(quote(100_000)).toMatchObject({ cheapestTier: 1, monthlyDollars: 45 }); // 44.10 → 45
    expect(quote(1_000_000)).toMatchObject({ costs: [504.9, 395.1, 382.4], cheapestTier: 2, monthlyDollars: 383 });
    expect(quote(50_000)).toMatchObject({ costs: [20.4, 24.6, 40.4], cheapestTier: 0, monthlyDollars: 21 });
    expect(quote(10_000_000)).toMatchObject({ cheapestTier: 2, monthlyDollars: 3623 }); // 26 + 0.36 × 9,990 = 3,622.40
    expect(quote(10_001).monthlyDollars).toBe(1); // a fraction of a cent still rounds up to a dollar
  });

  it('refuses a negative or fractional volume', () => {
    expect(() => quote(-1)).toThrow(RangeError);
    expect(() => quote(1.5)).toThrow(RangeError);
  });
});

describe('sendCost', () => {
  it("is free within the monthly allowance and the cheapest calculation's increase beyond it", () => {
    expect(sendCost(0, 5000)).toEqual({ before: 0, after: 0, dollars: 0, emailsAfter: 5000, freeLeft: 10_000 });
    // 9,000 sent; 2,000 more: 1,000 over the allowance at 51¢ per 1,000 (the $0 tier is cheapest there).
    expect(sendCost(9000, 2000)).toMatchObject({ before: 0, after: 0.51, dollars: 0.51, freeLeft: 1000 });
    // 100,000 sent; 10,000 more: the $9 + 39¢ tier is cheapest before and after: 10 × 39¢.
    const c = sendCost(100_000, 10_000);
    expect(c.before).toBeCloseTo(9 + 0.39 * 90, 10);
    expect(c.dollars).toBeCloseTo(3.9, 10);
    expect(() => sendCost(-1, 5)).toThrow(RangeError);
  });
});
