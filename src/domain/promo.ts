/**
 * Promo sources (spec part 1 §2 /deal-mirror and /signup, §3 "source_info holds the acquisition source (promo
 * marker)"): the marker a promo landing page stores, and the promo code sign-up shows read-only and the server records
 * on the new company. Shared by the console and the server so they never disagree.
 */

/** The marker /deal-mirror stores in source_info (the spec leaves its value open). */
export const DEAL_MIRROR_SOURCE = 'deal-mirror-promo';

/** The promo code a Deal Mirror visitor signs up with. */
export const DEAL_MIRROR_PROMO_CODE = 'DEALMIRROR';

/** promoCodeFor returns the promo code a stored source carries (it contains a promo marker), or undefined. */
export function promoCodeFor(source: string | null | undefined): string | undefined {
  return source?.includes(DEAL_MIRROR_SOURCE) ? DEAL_MIRROR_PROMO_CODE : undefined;
}
