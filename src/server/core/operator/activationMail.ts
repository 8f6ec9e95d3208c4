/**
 * The activation email: when an operator takes a project out of the sandbox, each of its admins is told
 * "Your account is active: you can now send to anyone", with a link to the console. The service's own mail, as the
 * sender verification email (core/personas/verification.ts): from SYSTEM_FROM, DKIM-signed when SYSTEM_DKIM_KEY_FILE
 * is set, sent at once through the relay, not tracked, not stored.
 */
import { escapeUTF8 as escapeHtml } from 'entities';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { buildRawMessage } from '../../mail/render.ts';
import { ACTIVATED_NOTICE, type ActivationMailer } from './index.ts';

/** The activation email's subject. */
export const ACTIVATION_SUBJECT = 'Your Mailwright account is active';

/**
 * activationMailer returns the mailer setProjectActive calls: it emails every admin of the project. Throws the
 * transport's error for the first address the relay refused (the caller logs it; the activation stands).
 */
export function activationMailer(ctx: Pick<AppContext, 'config' | 'database' | 'transport'>): ActivationMailer {
  return async (projectId) => {
    const admins = await ctx.database.query<{ email: string; first_name: string | null; company: string; project: string }>(
      `SELECT u.email, u.first_name, c.name AS company, p.name AS project
         FROM company_users u JOIN projects p ON p.id = u.project_id JOIN companies c ON c.id = p.company_id
        WHERE u.project_id = $1 ORDER BY u.created_at`,
      [projectId],
    );
    const from = ctx.config.systemFrom;
    const consoleUrl = `${ctx.config.publicUrl}/insights`;
    for (const a of admins) {
      const hello = a.first_name ? `Hello ${a.first_name},` : 'Hello,';
      const raw = await buildRawMessage({
        from: { email: from, name: 'Mailwright' },
        to: a.email,
        subject: ACTIVATION_SUBJECT,
        html: `<p>${escapeHtml(hello)}</p>
<p><strong>${escapeHtml(ACTIVATED_NOTICE)}.</strong> ${escapeHtml(a.company)} / ${escapeHtml(a.project)} is out of the sandbox.</p>
<p>Send your first campaign: <a href="${escapeHtml(consoleUrl)}">${escapeHtml(consoleUrl)}</a></p>`,
        text: `${hello}\n\n${ACTIVATED_NOTICE}. ${a.company} / ${a.project} is out of the sandbox.\n\nSend your first campaign: ${consoleUrl}\n`,
        messageId: `<${randomUUID()}@${from.split('@')[1] ?? 'localhost'}>`,
        dkim: ctx.config.systemDkim,
      });
      await ctx.transport.send({ from, to: [a.email] }, raw);
    }
  };
}
