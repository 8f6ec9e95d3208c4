/**
 * The brand: one colour and the mark (an envelope whose flap is a W), drawn on a 64-unit square. The header's inline
 * mark (PublicLayout) and the files scripts/brandIcons.ts writes (public/brand/*.svg, the favicons, the touch and
 * manifest icons) are all drawn from here, so they cannot drift apart.
 */

/** The brand colour: a violet-indigo, 8.0:1 against white (buttons, links, the mark). */
export const BRAND_COLOR = '#4b2fd0';
/** The brand colour darkened, for hover and pressed states (10.4:1 against white). */
export const BRAND_COLOR_DARK = '#3a22a8';
/** The text colour of the site and the wordmark: a near-black with a violet cast. */
export const INK = '#17132e';

/** The mark's square's corner radius, in units of the 64-unit square. */
export const MARK_RADIUS = 14;
/** The envelope's body: a white rounded rectangle. */
export const MARK_ENVELOPE = { x: 12, y: 18, width: 40, height: 28, rx: 4 } as const;
/** The flap, drawn as a W across the envelope's top, in the brand colour. */
export const MARK_FLAP = '12,20 22,33 32,24 42,33 52,20';
/** The flap's stroke width. */
export const MARK_FLAP_WIDTH = 4.5;

/**
 * markSvg is the mark as a standalone SVG document. `bleed`: the colour fills the whole square (no rounded corners)
 * and the envelope shrinks by `inset` (0 to 1, a share of the square) so it stays inside a platform's mask (Apple's
 * touch icon, a maskable manifest icon).
 */
export function markSvg(options: { bleed?: boolean; inset?: number } = {}): string {
  const scale = 1 - (options.inset ?? 0);
  const offset = (64 * (1 - scale)) / 2;
  const e = MARK_ENVELOPE;
  const square = options.bleed
    ? `<rect width="64" height="64" fill="${BRAND_COLOR}"/>`
    : `<rect width="64" height="64" rx="${MARK_RADIUS}" fill="${BRAND_COLOR}"/>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">`,
    square,
    `<g transform="translate(${offset} ${offset}) scale(${scale})">`,
    `<rect x="${e.x}" y="${e.y}" width="${e.width}" height="${e.height}" rx="${e.rx}" fill="#fff"/>`,
    `<polyline points="${MARK_FLAP}" fill="none" stroke="${BRAND_COLOR}" stroke-width="${MARK_FLAP_WIDTH}" stroke-linecap="round" stroke-linejoin="round"/>`,
    `</g></svg>`,
  ].join('');
}

/**
 * wordmarkSvg is the mark followed by the name, 240 × 64 units. The name is text in the system's sans-serif (no font
 * file is shipped or fetched), stretched to a fixed length so the drawing keeps its width whatever font renders it.
 */
export function wordmarkSvg(): string {
  const e = MARK_ENVELOPE;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 64" width="240" height="64" role="img" aria-label="Mailwright">`,
    `<rect x="4" y="8" width="48" height="48" rx="${(MARK_RADIUS * 48) / 64}" fill="${BRAND_COLOR}"/>`,
    `<g transform="translate(4 8) scale(0.75)">`,
    `<rect x="${e.x}" y="${e.y}" width="${e.width}" height="${e.height}" rx="${e.rx}" fill="#fff"/>`,
    `<polyline points="${MARK_FLAP}" fill="none" stroke="${BRAND_COLOR}" stroke-width="${MARK_FLAP_WIDTH}" stroke-linecap="round" stroke-linejoin="round"/>`,
    `</g>`,
    `<text x="64" y="43" textLength="170" lengthAdjust="spacingAndGlyphs" fill="${INK}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif" font-size="30" font-weight="700">Mailwright</text>`,
    `</svg>`,
  ].join('');
}
