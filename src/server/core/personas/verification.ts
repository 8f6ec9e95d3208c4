/**
 * Sender persona verification (spec part 2 §5 Sender persona: "after saving, click the verification link
 * in the email"): every save of an unverified persona emails its address a link; following it (GET shows a confirm
 * button, POST confirms, so a link scanner fetching the page verifies nothing) sets verified_at. Until then the sender
 * refuses to send from the persona and records 'sender not verified' (src/workers/sender.ts). The email is the
 * service's own mail: from SYSTEM_FROM, DKIM-signed when SYSTEM_DKIM_KEY_FILE is set, sent at once through the relay,
 * not tracked, not stored.
 */
import { escapeUTF8 as escapeHtml } from 'entities';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { Db, QueryFn } from '../../db/client.ts';
import { rateLimits } from '../../db/schema.ts';
import { HttpError } from '../../errors.ts';
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { buildRawMessage } from '../../mail/render.ts';
import { personaVerificationLink, type PersonaTarget } from '../../mail/links.ts';

/** The subject of the verification email. */
export function verificationSubject(email: string): string {
  return `Confirm ${email} as a sender`;
}

/**
 * sendPersonaVerifications emails each unverified persona of the project its verification link. A persona whose email
 * could not be sent stays unverified (saving it again resends); returns one message per failure, naming the address.
 */
export async function sendPersonaVerifications(
  ctx: AppContext,
  projectId: string,
  personas: Array<{ id: string; email: string; verified_at: string | null }>,
): Promise<string[]> {
  const pending = personas.filter((p) => !p.verified_at);
  if (!pending.length) return [];
  const [project] = await ctx.database.query<{ link_secret: string; company: string }>(
    'SELECT p.link_secret, c.name AS company FROM projects p JOIN companies c ON c.id = p.company_id WHERE p.id = $1',
    [projectId],
  );
  const from = ctx.config.systemFrom;
  const errors: string[] = [];
  for (const persona of pending) {
    const link = personaVerificationLink(ctx.config.publicUrl, project.link_secret, { projectId, personaId: persona.id, email: persona.email });
    const raw = await buildRawMessage({
      from: { email: from, name: 'Sender verification' },
      to: persona.email,
      subject: verificationSubject(persona.email),
      html: `<p>${escapeHtml(project.company)} wants to send email from <strong>${escapeHtml(persona.email)}</strong>.</p>
<p>If that is you, confirm the address: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
<p>Until it is confirmed, no email is sent from it. If you did not expect this, ignore this email.</p>`,
      text: `${project.company} wants to send email from ${persona.email}.\n\nIf that is you, confirm the address:\n${link}\n\nUntil it is confirmed, no email is sent from it. If you did not expect this, ignore this email.\n`,
      messageId: `<${randomUUID()}@${from.split('@')[1] ?? 'localhost'}>`,
      // Signed for SYSTEM_FROM's domain when the operator configured its key (SYSTEM_DKIM_KEY_FILE).
      dkim: ctx.config.systemDkim,
    });
    // With no relay (SMTP_URL unset) nothing reaches the address: the operator gets the link instead.
    if (!ctx.transport.delivers) {
      console.warn(
        `sender verification: SMTP_URL is not set, so no email reaches ${persona.email}; confirm it at ${link} ` +
          `or with: npm run admin -- verify-persona --email ${persona.email}`,
      );
    }
    try {
      await ctx.transport.send({ from, to: [persona.email] }, raw);
    } catch (err) {
      errors.push(`${persona.email}: the verification email could not be sent (${(err as Error).message}); save the persona again to resend it`);
    }
  }
  return errors;
}

/**
 * verifyPersona marks the persona a genuine token names as verified, if it is live and its address is still the one
 * the link was sent to. Returns the address, or undefined when there is nothing to verify.
 */
export async function verifyPersona(query: QueryFn, target: PersonaTarget): Promise<string | undefined> {
  const [row] = await query<{ email: string }>(
    `UPDATE sender_personas SET verified_at = coalesce(verified_at, now())
      WHERE id = $1 AND project_id = $2 AND lower(email) = $3 AND archived_at IS NULL RETURNING email`,
    [target.personaId, target.projectId, target.email],
  );
  return row?.email;
}

/** personaToVerify returns the persona a genuine token names (live, same address) without changing it, for the confirm page. */
export async function personaToVerify(query: QueryFn, target: PersonaTarget): Promise<{ email: string; verified: boolean } | undefined> {
  const [row] = await query<{ email: string; verified: boolean }>(
    `SELECT email, verified_at IS NOT NULL AS verified FROM sender_personas
      WHERE id = $1 AND project_id = $2 AND lower(email) = $3 AND archived_at IS NULL`,
    [target.personaId, target.projectId, target.email],
  );
  return row;
}

/** How many verification emails one sender persona may be sent by "resend" within RESEND_WINDOW_S. */
export const RESENDS_PER_WINDOW = 3;
/** The resend window, in seconds: an hour. */
export const RESEND_WINDOW_S = 3600;

/**
 * ResendThrottle limits "resend the verification link" to RESENDS_PER_WINDOW a persona per RESEND_WINDOW_S, counted in
 * the database with rate-limiter-flexible's drizzle store (the `rate_limits` table, as the sign-in throttle), so every
 * server process sees one count and a restart does not reset it: a mailbox is never flooded through the console.
 * `take(personaId)` consumes one resend or throws TooManyResends (429 with the wait; the Retry-After seconds on it).
 */
export class ResendThrottle {
  private readonly limiter: RateLimiterDrizzle;
  constructor(db: Db) {
    this.limiter = new RateLimiterDrizzle({
      storeClient: db,
      schema: rateLimits,
      keyPrefix: 'persona-resend',
      points: RESENDS_PER_WINDOW,
      duration: RESEND_WINDOW_S,
    });
  }

  async take(personaId: string, email: string): Promise<void> {
    try {
      await this.limiter.consume(personaId.toLowerCase());
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      throw new TooManyResends(Math.ceil(res.msBeforeNext / 1000), email);
    }
  }
}

/** TooManyResends: 429 naming the address and the wait in minutes; `retryAfterS` for a Retry-After header. */
export class TooManyResends extends HttpError {
  constructor(
    readonly retryAfterS: number,
    email: string,
  ) {
    const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
    super(429, [
      `id: the verification link was sent to ${email} ${RESENDS_PER_WINDOW} times in the last hour; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
    ]);
  }
}
