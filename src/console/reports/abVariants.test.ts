import { describe, expect, it } from 'vitest';
import { comparisonText, variantLines } from './abVariants.ts';

describe('A/B results on the Statistics page', () => {
  it('marks the best open rate and compares the other with its confidence', () => {
    const lines = variantLines([
      { template_id: 'b', template_name: 'Spring B', sends: 500, opens: 100, clicks: 20 },
      { template_id: 'a', template_name: 'Spring A', sends: 500, opens: 150, clicks: 40 },
      { template_id: null, template_name: null, sends: 3, opens: 0, clicks: 0 },
    ]);
    expect(lines.map((l) => [l.name, l.best])).toEqual([
      ['Spring A', true],
      ['Spring B', false],
    ]);
    expect(lines[0]).toMatchObject({ openRate: '30.0% (150)', clickRate: '8.0% (40)', openVsBest: 'best', sends: '500' });
    expect(lines[1].openVsBest).toBe('−10.0 points (>99.9% confidence)');
    expect(lines[1].verdict).toMatch(/^Opened less than the best by 10\.0 points, with >99\.9% confidence$/);
    // A smaller gap on fewer emails is not called.
    const close = variantLines([
      { template_id: 'a', template_name: 'A', sends: 100, opens: 30, clicks: 5 },
      { template_id: 'b', template_name: 'B', sends: 100, opens: 26, clicks: 5 },
    ]);
    expect(close[1].openVsBest).toMatch(/^−4\.0 points \(4\d\.\d% confidence\)$/);
    expect(close[1].verdict).toMatch(/^No clear difference from the best yet/);
  });

  it('says plainly when there are too few emails to call', () => {
    const lines = variantLines([
      { template_id: 'a', template_name: 'A', sends: 10, opens: 3, clicks: 0 },
      { template_id: 'b', template_name: 'B', sends: 10, opens: 1, clicks: 0 },
    ]);
    expect(lines[1].verdict).toMatch(/^Too few emails to call yet/);
    expect(lines[1].openVsBest).toBe('−20.0 points (too few emails to call)');
    expect(comparisonText(undefined)).toBe('–');
  });
});
