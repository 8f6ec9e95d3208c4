/**
 * The blog's post list (spec part 1 §2 /blog: "index of six posts, newest first", the slugs, "A serverless post also
 * exists"). The expected slugs and order are written out here, not read from postMeta.ts.
 */
import { describe, expect, it } from 'vitest';
import { findPostMeta, formatPostDate, INDEX_POSTS, UNLISTED_POSTS } from './postMeta';

describe('blog catalogue', () => {
  it('lists six posts with the spec’s slugs, newest first', () => {
    expect(INDEX_POSTS.map((p) => p.slug)).toEqual([
      'api-documentation',
      'make-integration',
      'how-to-send-an-email-campaign',
      'send-event-based-transactional-or-drip-campaign-emails',
      'timezone-based-email-delivery',
      'other-esps-guess',
    ]);
    const dates = INDEX_POSTS.map((p) => p.date);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('has /blog/serverless and the Make API-spec post, off the index', () => {
    for (const slug of ['serverless', 'make-integration-api-spec']) {
      expect(findPostMeta(slug)?.slug).toBe(slug);
      expect(INDEX_POSTS.some((p) => p.slug === slug)).toBe(false);
    }
    expect(UNLISTED_POSTS.map((p) => p.slug).sort()).toEqual(['make-integration-api-spec', 'serverless']);
    expect(findPostMeta('no-such-post')).toBeUndefined();
    expect(findPostMeta(undefined)).toBeUndefined();
  });

  it('gives every post a distinct real date in 2025-2026, a title and a summary', () => {
    const all = [...INDEX_POSTS, ...UNLISTED_POSTS];
    expect(new Set(all.map((p) => p.date)).size).toBe(all.length);
    expect(new Set(all.map((p) => p.slug)).size).toBe(all.length);
    for (const p of all) {
      expect(p.date, p.slug).toMatch(/^202[56]-\d{2}-\d{2}$/);
      expect(new Date(`${p.date}T00:00:00Z`).toISOString().slice(0, 10), p.slug).toBe(p.date);
      expect(p.title.length, p.slug).toBeGreaterThan(5);
      expect(p.summary.length, p.slug).toBeGreaterThan(40);
    }
  });

  it('writes dates as the same day in every time zone', () => {
    expect(formatPostDate('2026-01-01')).toBe('January 1, 2026');
    expect(formatPostDate('2025-12-31')).toBe('December 31, 2025');
  });
});
