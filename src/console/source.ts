/**
 * The acquisition source (spec part 1 §3 Session "A second cookie source_info holds the acquisition source (promo
 * marker)", §9 "Cookie source_info lasts 12 hours", same-site strict; §2 /deal-mirror and /signup). A promo landing
 * page stores its marker; sign-up shows the promo code read-only while the stored source contains it.
 */
import { DEAL_MIRROR_SOURCE, promoCodeFor } from '../domain/promo';

export { DEAL_MIRROR_SOURCE };

const COOKIE = 'source_info';
/** 12 hours, in seconds (spec part 1 §9). */
export const SOURCE_INFO_MAX_AGE_S = 12 * 60 * 60;
/** The message /deal-mirror shows (spec part 1 §2). */
export const DEAL_MIRROR_TOAST = 'Your Deal Mirror Promo code has been applied!';

/** setSourceInfo stores `source` in the source_info cookie for 12 hours (SameSite=Strict). */
export function setSourceInfo(source: string): void {
  document.cookie = `${COOKIE}=${encodeURIComponent(source)}; Max-Age=${SOURCE_INFO_MAX_AGE_S}; Path=/; SameSite=Strict`;
}

/** getSourceInfo returns the stored acquisition source, or null when there is none (or it has expired). */
export function getSourceInfo(): string | null {
  const entry = document.cookie.split('; ').find((c) => c.startsWith(`${COOKIE}=`));
  return entry ? decodeURIComponent(entry.slice(COOKIE.length + 1)) : null;
}

/** storedPromoCode is the promo code sign-up shows read-only while the stored source holds a promo marker, else undefined. */
export function storedPromoCode(): string | undefined {
  return promoCodeFor(getSourceInfo());
}
