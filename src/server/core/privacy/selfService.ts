/**
 * A person's own privacy requests from the preference centre (README "Privacy"; GDPR Art. 15, 17 and 20): "Download
 * my data" and "Delete my data". Each is confirmed by a link emailed to the address (privacyLink, valid
 * PRIVACY_LINK_TTL_MS), so only whoever reads that mailbox can act: a GET of the link shows a button and changes
 * nothing (link scanners follow GETs); only its POST downloads (exportContact) or erases (eraseContacts), recorded in
 * the privacy audit as 'the person'. The email goes through the outbox like every other, on the transactional
 * stream, untracked, from the sender persona of the email whose preference-centre link was used.
 */
import { escapeUTF8 as escapeHtml } from 'entities';
import type { QueryFn } from '../../db/client.ts';
import { privacyLink, type LinkTarget, type PrivacyAction, type PrivacyTarget } from '../../mail/links.ts';
import { insertOutboxSql } from '../sending/outbox.ts';

/** How long a privacy confirmation link works (ms): 24 hours. */
export const PRIVACY_LINK_TTL_MS = 24 * 3600_000;

/** At most this many privacy requests per contact a day (each sends an email). */
export const PRIVACY_REQUESTS_PER_DAY = 3;

/** The contact of a preference-centre link, with what the request email needs. */
const REQUESTER = `SELECT c.id, c.email, p.link_secret, co.name AS company, o.sender_persona_id, sp.email AS persona_email,
       (SELECT count(*) FROM privacy_audit a WHERE a.project_id = c.project_id AND a.action = 'request' AND a.details->>'contact_id' = c.id::text
          AND a.at > now() - interval '1 day')::int AS today
  FROM contacts c JOIN projects p ON p.id = c.project_id JOIN companies co ON co.id = p.company_id
  JOIN outbox o ON o.id = $3 AND o.project_id = c.project_id
  JOIN sender_personas sp ON sp.id = o.sender_persona_id
 WHERE c.project_id = $1 AND c.id = $2 AND c.archived_at IS NULL`;

/**
 * requestPrivacyAction emails the contact of preference-centre link `target` a link that confirms `action`, and
 * records the request (no address) in the privacy audit. Returns the address it went to, 'throttled' after
 * PRIVACY_REQUESTS_PER_DAY requests in a day, or undefined when the link names no live contact.
 */
export async function requestPrivacyAction(
  query: QueryFn,
  publicUrl: string,
  target: LinkTarget,
  action: PrivacyAction,
  now = Date.now(),
): Promise<string | 'throttled' | undefined> {
  if (!target.contactId) return undefined;
  const [who] = await query<{
    id: string;
    email: string;
    link_secret: string;
    company: string;
    sender_persona_id: string;
    persona_email: string;
    today: number;
  }>(REQUESTER, [target.projectId, target.contactId, String(target.outboxId)]);
  if (!who) return undefined;
  if (who.today >= PRIVACY_REQUESTS_PER_DAY) return 'throttled';
  const link = privacyLink(publicUrl, who.link_secret, { projectId: target.projectId, contactId: who.id, action, expiresAt: now + PRIVACY_LINK_TTL_MS });
  const subject = action === 'download' ? `Your data at ${who.company}: confirm the download` : `Delete your data at ${who.company}: please confirm`;
  const asked =
    action === 'download'
      ? `You (we hope) asked for a copy of the data ${escapeHtml(who.company)} holds about this address.`
      : `You (we hope) asked ${escapeHtml(who.company)} to delete all the data it holds about this address.`;
  const button = action === 'download' ? 'Download my data' : 'Delete my data';
  const body = `<html><body style="font-family:Arial,sans-serif;color:#1d2129">
<p>${asked}</p>
<p><a data-no-track href="${escapeHtml(link)}" style="display:inline-block;background:#4b2fd0;color:#fff;padding:10px 20px;border-radius:4px;text-decoration:none">${button}</a></p>
<p>The link works for 24 hours. If you did not ask for this, ignore this email: nothing happens.</p>
</body></html>`;
  await query(
    `WITH mail AS (${insertOutboxSql(
      {
        project_id: '$1',
        contact_id: '$2',
        email: '$3',
        sender_persona_id: '$4',
        subject: '$5',
        body: '$6',
        tracking: 'false',
        stream: "'transactional'",
      },
      "split_part($7, '@', 2)",
      '(SELECT 1) AS one',
    )})
     INSERT INTO privacy_audit (project_id, action, actor, contacts, details) VALUES ($1, 'request', 'the person', 1, jsonb_build_object('contact_id', $2::text, 'asked', $8::text))`,
    [target.projectId, who.id, who.email, who.sender_persona_id, subject, body, who.persona_email, action],
  );
  return who.email;
}

/** privacyRequester returns the address of the contact a confirmation link names, or undefined when it is gone (erased already). */
export async function privacyRequester(query: QueryFn, t: PrivacyTarget): Promise<{ email: string } | undefined> {
  const [who] = await query<{ email: string }>(`SELECT email FROM contacts WHERE project_id = $1 AND id = $2`, [t.projectId, t.contactId]);
  return who;
}
