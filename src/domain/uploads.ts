/**
 * File uploads (spec part 2 §7 Templates: image upload; §7 Contacts and Segments: file upload): which images are
 * accepted, how large, and the name an upload is stored under ("the original name plus the date and a short random
 * suffix"). Pure functions: the server's PUT handler and the console's checks share them.
 */

/** Image types a template image may have, by MIME type, with the extension the stored name gets. SVG is refused: it can carry script. */
export const IMAGE_UPLOAD_TYPES: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** The largest template image accepted, in bytes (5 MB). */
export const MAX_IMAGE_UPLOAD_BYTES = 5 * 1024 * 1024;

/** How long an upload URL stays valid, in ms (15 minutes). */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;

/**
 * checkImageUpload returns why an image of this name, MIME type and size (bytes; omitted when not yet known) cannot be
 * uploaded, or undefined when it can.
 */
export function checkImageUpload(filename: string, type: string, size?: number): string | undefined {
  if (!filename.trim()) return 'Required field';
  if (!IMAGE_UPLOAD_TYPES[type.toLowerCase()]) return `${filename} is not a PNG, JPEG, GIF or WebP image`;
  if (size !== undefined && size === 0) return `${filename} is empty`;
  if (size !== undefined && size > MAX_IMAGE_UPLOAD_BYTES) return `${filename} is larger than 5 MB`;
  return undefined;
}

/**
 * storedUploadName returns the name an upload is stored under: the original name's base (characters other than
 * letters, digits, '.', '_' and '-' become '-', at most 80 of them), then `-YYYY-MM-DD` (UTC date of `now`), then
 * `-{suffix}`, then the extension (the given `ext`, or the original's, lower-cased). Example:
 * storedUploadName('Hero banner.PNG', 2026-11-23, 'k3j9x2') = 'Hero-banner-2026-11-23-k3j9x2.png'.
 */
export function storedUploadName(filename: string, now: Date, suffix: string, ext?: string): string {
  const leaf = filename.split(/[\\/]/).pop() ?? '';
  const dot = leaf.lastIndexOf('.');
  const base =
    (dot > 0 ? leaf.slice(0, dot) : leaf)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 80) || 'file';
  const extension = (ext ?? (dot > 0 ? leaf.slice(dot + 1) : '')).toLowerCase().replace(/[^a-z0-9]/g, '');
  return `${base}-${now.toISOString().slice(0, 10)}-${suffix}${extension ? `.${extension}` : ''}`;
}
