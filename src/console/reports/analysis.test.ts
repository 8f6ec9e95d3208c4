import { describe, expect, it } from 'vitest';
import { analysisRow, sortAnalysis, type CampaignMetrics } from './analysis.ts';

const base: CampaignMetrics = {
  id: 'c',
  name: 'C',
  type: 'scheduled_email_group',
  sends: 0,
  opens: 0,
  clicks: 0,
  unsubscribes: 0,
  bounces: 0,
  unsuccessful_sends: 0,
  created_at: '2026-01-01T00:00:00Z',
};

describe('campaign analysis rates', () => {
  it('divides by sends, clicks by opens and failures by attempts', () => {
    const row = analysisRow({ ...base, sends: 8, opens: 4, clicks: 1, unsubscribes: 2, bounces: 1, unsuccessful_sends: 2 });
    expect(row.openRate).toBe(0.5);
    expect(row.clickRate).toBe(0.125);
    expect(row.clickToOpen).toBe(0.25);
    expect(row.unsubscribeRate).toBe(0.25);
    expect(row.bounceRate).toBe(0.125);
    expect(row.failureRate).toBe(0.2);
  });

  it('answers N/A (null) for every per-send rate without sends', () => {
    const row = analysisRow({ ...base, unsuccessful_sends: 3 });
    expect([row.openRate, row.clickRate, row.clickToOpen, row.unsubscribeRate, row.bounceRate]).toEqual([null, null, null, null, null]);
    expect(row.failureRate).toBe(1);
    expect(analysisRow(base).failureRate).toBeNull();
  });

  it('sorts either way with N/A rows last, and names case-insensitively', () => {
    const rows = [
      analysisRow({ ...base, id: 'a', name: 'alpha', sends: 10, opens: 2 }),
      analysisRow({ ...base, id: 'b', name: 'Beta', sends: 0 }),
      analysisRow({ ...base, id: 'c', name: 'gamma', sends: 10, opens: 5 }),
    ];
    expect(sortAnalysis(rows, 'openRate', 'desc').map((r) => r.id)).toEqual(['c', 'a', 'b']);
    expect(sortAnalysis(rows, 'openRate', 'asc').map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(sortAnalysis(rows, 'name', 'asc').map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(sortAnalysis(rows, 'sends', 'asc').map((r) => r.id)).toEqual(['b', 'a', 'c']);
  });
});
