import { describe, expect, it } from 'vitest';
import { compareVariants, twoProportionTest } from './abTest.ts';

describe('twoProportionTest', () => {
  it('gives the pooled z-test confidence (120/1000 against 150/1000 is just past 95 %)', () => {
    // pooled 0.135, se = √(0.135·0.865·0.002) = 0.015283, z = 1.963, two-sided p = 0.0497.
    const r = twoProportionTest(120, 1000, 150, 1000);
    expect(r.difference).toBeCloseTo(-0.03, 10);
    expect(r.confidence).toBeCloseTo(0.9503, 3);
    expect(twoProportionTest(150, 1000, 120, 1000).confidence).toBeCloseTo(r.confidence!, 10);
    expect(twoProportionTest(100, 1000, 100, 1000).confidence).toBeCloseTo(0, 10);
    expect(twoProportionTest(200, 2000, 300, 2000).confidence!).toBeGreaterThan(0.999);
  });

  it('refuses to call samples that are too small, and says when there is nothing to compare', () => {
    expect(twoProportionTest(3, 10, 8, 10)).toMatchObject({ confidence: null, reason: 'too small' });
    expect(twoProportionTest(1, 100, 2, 100)).toMatchObject({ confidence: null, reason: 'too small' }); // 1.5 % of 100: too few expected opens
    expect(twoProportionTest(0, 500, 0, 500)).toMatchObject({ confidence: null, reason: 'no variation' });
  });
});

describe('compareVariants', () => {
  it('ranks by open rate, marks the best and says plainly how sure each difference is', () => {
    const results = compareVariants([
      { template_id: 'a', sends: 1000, opens: 120, clicks: 30 },
      { template_id: 'b', sends: 1000, opens: 200, clicks: 40 },
      { template_id: 'c', sends: 1000, opens: 190, clicks: 35 },
      { template_id: 'd', sends: 12, opens: 1, clicks: 0 },
    ]);
    expect(results.map((r) => r.template_id)).toEqual(['b', 'c', 'a', 'd']);
    expect(results[0]).toMatchObject({ best: true, openRate: 0.2, verdict: 'Best open rate so far (20.0% of 1000 sent)' });
    expect(results[1].verdict).toMatch(/^No clear difference from the best yet \(1\.0 points lower, \d+\.\d% confidence; 95\.0% is needed to call it\)$/);
    expect(results[2].verdict).toMatch(/^Opened less than the best by 8\.0 points, with >99\.9% confidence$/);
    expect(results[2].vsBest!.click.difference).toBeCloseTo(-0.01, 10);
    expect(results[3].verdict).toMatch(/^Too few emails to call yet/);
  });
});
