/**
 * Email-viewer locations (spec part 1 §2 /email/{location}, §7): the base64 (URL-safe alphabet, RFC 4648 §5, no
 * padding) of `bucket/key`, so it fits in one URL path segment.
 */

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** encodeLocation returns the location of a stored object. */
export function encodeLocation(bucket: string, key: string): string {
  return toBase64Url(new TextEncoder().encode(`${bucket}/${key}`));
}

/** decodeLocation returns {bucket, key}, or undefined for a location that is not base64 of `bucket/key`. */
export function decodeLocation(location: string): { bucket: string; key: string } | undefined {
  try {
    const b64 = location.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    const slash = text.indexOf('/');
    if (slash <= 0 || slash === text.length - 1) return undefined;
    const bucket = text.slice(0, slash);
    const key = text.slice(slash + 1);
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(bucket) || key.split('/').some((p) => p === '..' || p === '')) return undefined;
    return { bucket, key };
  } catch {
    return undefined;
  }
}
