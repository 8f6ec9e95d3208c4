/**
 * The per-message return path (VERP): each email's envelope sender is `b-{id}-{signature}@{bounce
 * subdomain}`, where `id` is its outbox row in base 36 and `signature` the first 16 hex digits (64 bits) of
 * HMAC-SHA256("verp\n" + id) under its project's link secret (projects.link_secret, as the links in the email, see
 * mail/links.ts). Whatever comes back to that address — a bounce, a complaint report, an auto-reply — names its
 * message and recipient, even when the returned text does not (a forwarded address, a DSN without the original).
 * Only lower-case letters, digits and hyphens: some MTAs fold local parts to lower case, and a folded token still
 * verifies. A forged or altered token does not (constant-time comparison); the receiver then falls back to the
 * Message-ID in the returned headers.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A return path's local part: b-<outbox id, base 36>-<16 hex digits>. */
const LOCAL_PART = /^b-([0-9a-z]{1,13})-([0-9a-f]{16})$/;

function signature(secret: string, outboxId: number): string {
  return createHmac('sha256', secret).update(`verp\n${outboxId}`).digest('hex').slice(0, 16);
}

/** returnPath gives the envelope sender of outbox row `outboxId`'s email at `bounceDomain`, signed with `secret`. */
export function returnPath(outboxId: number, secret: string, bounceDomain: string): string {
  return `b-${outboxId.toString(36)}-${signature(secret, outboxId)}@${bounceDomain}`;
}

/**
 * parseReturnPath reads the outbox row an address claims to be the return path of, without trusting it (the project's
 * secret, found through the row, verifies it: verifyReturnPath). Undefined when it is not one of ours in form.
 */
export function parseReturnPath(address: string): { outboxId: number; signature: string; domain: string } | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0) return undefined;
  const m = LOCAL_PART.exec(address.slice(0, at).toLowerCase());
  if (!m) return undefined;
  const outboxId = parseInt(m[1], 36);
  if (!Number.isSafeInteger(outboxId) || outboxId <= 0) return undefined;
  return { outboxId, signature: m[2], domain: address.slice(at + 1).toLowerCase() };
}

/** verifyReturnPath tells whether `sig` is outbox row `outboxId`'s signature under `secret` (constant time). */
export function verifyReturnPath(outboxId: number, sig: string, secret: string): boolean {
  const expected = Buffer.from(signature(secret, outboxId));
  const given = Buffer.from(sig.toLowerCase());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
