/** loadConfig's reading of the deferral settings: defaults, units, and a start refused on a malformed value. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('loadConfig deferral settings', () => {
  it('defaults to a 72-hour queue lifetime and a 30-second first back-off', () => {
    const c = loadConfig({});
    expect(c.deferMaxAgeMs).toBe(72 * 3_600_000);
    expect(c.deferRetryMs).toBe(30_000);
  });
  it('reads DEFER_MAX_AGE with a unit or as seconds, and DEFER_RETRY_MS in ms', () => {
    expect(loadConfig({ DEFER_MAX_AGE: '30m' }).deferMaxAgeMs).toBe(1_800_000);
    expect(loadConfig({ DEFER_MAX_AGE: '90' }).deferMaxAgeMs).toBe(90_000);
    expect(loadConfig({ DEFER_RETRY_MS: '250' }).deferRetryMs).toBe(250);
  });
  it('stops the start on a malformed value, naming the setting', () => {
    expect(() => loadConfig({ DEFER_MAX_AGE: 'three days' })).toThrow(/^DEFER_MAX_AGE must be a duration/);
    expect(() => loadConfig({ DEFER_RETRY_MS: 'soon' })).toThrow(/^DEFER_RETRY_MS must be a non-negative number/);
  });
});
