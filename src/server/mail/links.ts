/**
 * Signed links placed in emails. The unsubscribe token names the project, contact and outbox row and is signed with
 * HMAC-SHA256 under the project's api key (a per-tenant secret that never appears in mail), so it cannot be forged or
 * moved to another tenant. The /u/ page that reads it comes with the delivery-feedback issue.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 32);
}

/** unsubscribeLink returns `{publicUrl}/u/{payload}.{signature}` for one recipient row. */
export function unsubscribeLink(publicUrl: string, secret: string, projectId: string, contactId: string | null, outboxId: number): string {
  const payload = Buffer.from(`${projectId}:${contactId ?? ''}:${outboxId}`).toString('base64url');
  return `${publicUrl}/u/${payload}.${sign(secret, payload)}`;
}

/** verifyUnsubscribeToken returns the parts of a token signed with `secret`, or undefined when it is not genuine. */
export function verifyUnsubscribeToken(token: string, secret: string): { projectId: string; contactId: string | null; outboxId: number } | undefined {
  const [payload, sig] = token.split('.');
  if (!payload || !sig) return undefined;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const [projectId, contactId, outboxId] = Buffer.from(payload, 'base64url').toString().split(':');
  return { projectId, contactId: contactId || null, outboxId: Number(outboxId) };
}
