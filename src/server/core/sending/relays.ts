/**
 * The relay setting (SMTP_URL): an smtp:// or smtps:// URL whose query may carry the delivery governor's parameters
 * besides nodemailer's own (tls_reject_unauthorized, ignore_tls): `max_rate`, messages per second over all sender
 * processes together (core/sending/pacing.ts). One relay for now: a comma-separated list is refused.
 */

/** A parsed relay: the URL nodemailer gets (governor parameters removed), its name (no credentials), its limits. */
export interface RelaySetting {
  url: string;
  name: string;
  maxRate?: number;
}

/** The governor's parameters, read and removed from the URL. */
const GOVERNOR_PARAMS = ['max_rate'] as const;

/**
 * parseRelayUrl reads SMTP_URL. Throws an Error naming SMTP_URL and the fault when it is not one smtp(s):// URL or
 * `max_rate` is not a number > 0.
 */
export function parseRelayUrl(value: string): RelaySetting {
  if (value.includes(',')) throw new Error('SMTP_URL: one relay URL is supported; a comma-separated list of relays is not (yet)');
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must be an smtp:// or smtps:// URL, got ${u.protocol}//`);
  let maxRate: number | undefined;
  const raw = u.searchParams.get('max_rate');
  if (raw !== null) {
    maxRate = Number(raw);
    if (!Number.isFinite(maxRate) || maxRate <= 0) throw new Error(`SMTP_URL: max_rate must be a number of messages per second > 0, got "${raw}"`);
  }
  for (const p of GOVERNOR_PARAMS) u.searchParams.delete(p);
  const name = `${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'smtps:' ? 465 : 25)}`;
  return { url: u.toString(), name, maxRate };
}
