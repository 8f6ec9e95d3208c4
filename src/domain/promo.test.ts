/** Promo sources (spec part 1 §2 /deal-mirror, /signup). */
import { describe, expect, it } from 'vitest';
import { DEAL_MIRROR_PROMO_CODE, DEAL_MIRROR_SOURCE, promoCodeFor } from './promo';

describe('promoCodeFor', () => {
  it('gives the Deal Mirror code while the source contains its marker', () => {
    expect(promoCodeFor(DEAL_MIRROR_SOURCE)).toBe(DEAL_MIRROR_PROMO_CODE);
    expect(promoCodeFor(`newsletter,${DEAL_MIRROR_SOURCE}`)).toBe(DEAL_MIRROR_PROMO_CODE);
  });
  it('gives nothing for other or missing sources', () => {
    expect(promoCodeFor('newsletter')).toBeUndefined();
    expect(promoCodeFor('')).toBeUndefined();
    expect(promoCodeFor(null)).toBeUndefined();
    expect(promoCodeFor(undefined)).toBeUndefined();
  });
});
