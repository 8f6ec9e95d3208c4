/**
 * Signed links placed in emails (DESIGN.md §1: /u/… unsubscribe, /t/o/… open pixel, /t/c/… click redirect).
 * Every token names the project and the outbox row it was made for and is signed with HMAC-SHA256 under the project's
 * link secret (projects.link_secret: server-side randomness, never shown, unrelated to the api key), so it cannot be
 * forged, altered or moved to another tenant. A click token also carries the destination URL inside the signed payload: the redirect can only go to a
 * link that was in that email.
 *
 * Token format: `{base64url(payload)}.{signature}`; payload fields are joined with '\n' (URLs never contain one raw).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeHTMLAttribute } from 'entities';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 32);
}

function makeToken(secret: string, fields: string[]): string {
  const payload = Buffer.from(fields.join('\n')).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** projectOfToken reads the project id from a token without trusting it (to find the key that verifies it). */
export function projectOfToken(token: string): string | undefined {
  const [payload] = token.split('.');
  if (!payload) return undefined;
  const first = Buffer.from(payload, 'base64url').toString().split('\n')[1];
  return UUID.test(first ?? '') ? first : undefined;
}

function verify(token: string, secret: string, kind: string): string[] | undefined {
  const [payload, sig] = token.split('.');
  if (!payload || !sig || token.split('.').length !== 2) return undefined;
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const fields = Buffer.from(payload, 'base64url').toString().split('\n');
  return fields[0] === kind ? fields : undefined;
}

/** The parts every token names: the project, the contact (null for a recipient who is not a contact), the outbox row. */
export interface LinkTarget {
  projectId: string;
  contactId: string | null;
  outboxId: number;
}

/** unsubscribeLink returns `{publicUrl}/u/{token}` for one recipient row. */
export function unsubscribeLink(publicUrl: string, secret: string, projectId: string, contactId: string | null, outboxId: number): string {
  return `${publicUrl}/u/${makeToken(secret, ['u', projectId, contactId ?? '', String(outboxId)])}`;
}

/** verifyUnsubscribeToken returns the parts of an unsubscribe token signed with `secret`, or undefined when it is not genuine. */
export function verifyUnsubscribeToken(token: string, secret: string): LinkTarget | undefined {
  const f = verify(token, secret, 'u');
  return f && { projectId: f[1], contactId: f[2] || null, outboxId: Number(f[3]) };
}

/** What a person's own privacy request asks for (core/privacy/selfService.ts). */
export type PrivacyAction = 'download' | 'delete';

/** A privacy request's confirmation: the project, the contact, what it asks, and its expiry (ms since the epoch, UTC). */
export interface PrivacyTarget {
  projectId: string;
  contactId: string;
  action: PrivacyAction;
  expiresAt: number;
}

/** privacyLink returns `{publicUrl}/p/{token}`, the link a person confirms a download or deletion of their data with. */
export function privacyLink(publicUrl: string, secret: string, t: PrivacyTarget): string {
  return `${publicUrl}/p/${makeToken(secret, ['p', t.projectId, t.contactId, t.action, String(t.expiresAt)])}`;
}

/** verifyPrivacyToken returns what a privacy confirmation token asks, or undefined when it is not genuine (expiry not checked). */
export function verifyPrivacyToken(token: string, secret: string): PrivacyTarget | undefined {
  const f = verify(token, secret, 'p');
  if (!f || f.length !== 5 || (f[3] !== 'download' && f[3] !== 'delete')) return undefined;
  return { projectId: f[1], contactId: f[2], action: f[3], expiresAt: Number(f[4]) };
}

/** openPixelUrl returns `{publicUrl}/t/o/{token}.gif` for one recipient row. */
export function openPixelUrl(publicUrl: string, secret: string, target: LinkTarget): string {
  return `${publicUrl}/t/o/${makeToken(secret, ['o', target.projectId, target.contactId ?? '', String(target.outboxId)])}.gif`;
}

/** verifyOpenToken checks an open token (without its .gif suffix). */
export function verifyOpenToken(token: string, secret: string): LinkTarget | undefined {
  const f = verify(token.replace(/\.gif$/, ''), secret, 'o');
  return f && { projectId: f[1], contactId: f[2] || null, outboxId: Number(f[3]) };
}

/** clickUrl returns `{publicUrl}/t/c/{token}` redirecting to `url` for one recipient row. */
export function clickUrl(publicUrl: string, secret: string, target: LinkTarget, url: string): string {
  return `${publicUrl}/t/c/${makeToken(secret, ['c', target.projectId, target.contactId ?? '', String(target.outboxId), url])}`;
}

/** verifyClickToken checks a click token and returns its target and destination URL (always http: or https:). */
export function verifyClickToken(token: string, secret: string): (LinkTarget & { url: string }) | undefined {
  const f = verify(token, secret, 'c');
  if (!f || f.length < 5) return undefined;
  const url = f.slice(4).join('\n');
  return /^https?:\/\//i.test(url) ? { projectId: f[1], contactId: f[2] || null, outboxId: Number(f[3]), url } : undefined;
}

/**
 * honeypotUrl returns `{publicUrl}/t/h/{token}`, the hidden link of a tracked email: no person sees it,
 * so whoever follows it is a scanner following every link; its click is recorded as a bot's.
 */
export function honeypotUrl(publicUrl: string, secret: string, target: LinkTarget): string {
  return `${publicUrl}/t/h/${makeToken(secret, ['h', target.projectId, target.contactId ?? '', String(target.outboxId)])}`;
}

/** verifyHoneypotToken checks a honeypot link's token. */
export function verifyHoneypotToken(token: string, secret: string): LinkTarget | undefined {
  const f = verify(token, secret, 'h');
  return f && { projectId: f[1], contactId: f[2] || null, outboxId: Number(f[3]) };
}

/** A sender persona's verification: whose, in which project, for which address. */
export interface PersonaTarget {
  projectId: string;
  personaId: string;
  email: string;
}

/**
 * personaVerificationLink returns `{publicUrl}/v/{token}`, the link of a persona's verification email. The token
 * carries the address (lower case), so a link sent before the email changed verifies nothing.
 */
export function personaVerificationLink(publicUrl: string, secret: string, t: PersonaTarget): string {
  return `${publicUrl}/v/${makeToken(secret, ['v', t.projectId, t.personaId, t.email.toLowerCase()])}`;
}

/** verifyPersonaToken returns the persona a verification token names, or undefined when it is not genuine. */
export function verifyPersonaToken(token: string, secret: string): PersonaTarget | undefined {
  const f = verify(token, secret, 'v');
  return f && f.length === 4 ? { projectId: f[1], personaId: f[2], email: f[3] } : undefined;
}

/** confirmationLink returns `{publicUrl}/s/c/{token}`, the link of a subscribe form's confirmation email, naming one consent record. */
export function confirmationLink(publicUrl: string, secret: string, projectId: string, consentId: string): string {
  return `${publicUrl}/s/c/${makeToken(secret, ['c', projectId, consentId])}`;
}

/** verifyConfirmationToken returns the consent a confirmation token names, or undefined when it is not genuine. */
export function verifyConfirmationToken(token: string, secret: string): { projectId: string; consentId: string } | undefined {
  const f = verify(token, secret, 'c');
  return f && f.length === 3 && UUID.test(f[2]) ? { projectId: f[1], consentId: f[2] } : undefined;
}

/** What the renderer needs to add tracking to one email (computed on the main thread, applied where it renders). */
export interface TrackingContext extends LinkTarget {
  publicUrl: string;
  secret: string;
  /** The recipient's unsubscribe link: left as it is, never wrapped in a click redirect. */
  unsubscribeLink?: string;
}

/** An anchor's href attribute (not data-href or other attributes ending in "href"), quoted with ' or ". */
const ANCHOR_HREF = /(<a\b[^>]*?\shref\s*=\s*)(["'])(.*?)\2/gis;

/**
 * addTracking rewrites every http(s) link of an email's HTML into a signed click redirect and appends the hidden
 * honeypot link and a 1×1 open pixel before `</body>` (or at the end). Left alone: mailto:, tel:, anchors (#…), other schemes, the unsubscribe
 * link, links already pointing at this product's /t/ or /u/ paths, and anchors marked `data-no-track`. Returns the
 * new HTML; the input is not changed.
 */
export function addTracking(html: string, t: TrackingContext): string {
  const own = `${t.publicUrl}/`;
  const rewritten = html.replace(ANCHOR_HREF, (whole, head: string, quote: string, rawHref: string) => {
    // The attribute as a browser reads it: every HTML entity decoded (Handlebars writes = as &#x3D;, & as &amp;).
    const href = decodeHTMLAttribute(rawHref.trim());
    if (!/^https?:\/\//i.test(href) || /\bdata-no-track\b/i.test(head)) return whole;
    if (href === t.unsubscribeLink || href.startsWith(`${own}t/`) || href.startsWith(`${own}u/`)) return whole;
    return `${head}${quote}${clickUrl(t.publicUrl, t.secret, t, href).replace(/&/g, '&amp;')}${quote}`;
  });
  // The honeypot: an empty link hidden from people (display:none, mso-hide for Outlook, out of the tab
  // order and the accessibility tree) that scanners following every href still follow.
  const honeypot = `<a href="${honeypotUrl(t.publicUrl, t.secret, t)}" style="display:none!important;mso-hide:all;font-size:0;line-height:0;max-height:0;overflow:hidden" aria-hidden="true" tabindex="-1"></a>`;
  const pixel = `${honeypot}<img src="${openPixelUrl(t.publicUrl, t.secret, t)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`;
  const close = rewritten.search(/<\/body\s*>/i);
  return close >= 0 ? `${rewritten.slice(0, close)}${pixel}${rewritten.slice(close)}` : `${rewritten}${pixel}`;
}

/** What an upload URL lets its holder PUT: one object of one MIME type under one storage key, until `expiresAt`. */
export interface UploadTarget {
  projectId: string;
  /** The storage bucket, e.g. 'template-images'. */
  bucket: string;
  /** The storage key inside the bucket: `{projectId}/{stored name}`. */
  key: string;
  /** The MIME type the PUT must carry. */
  type: string;
  /** Expiry, ms since the epoch (UTC). */
  expiresAt: number;
  /** The file's original name, when it matters after the upload (a segment made from a file is named after it). */
  name?: string;
  /** A contact file's column mapping as JSON: header name → target; only with `name`. */
  columns?: string;
  /**
   * A contact import's statement that its people gave consent again, and who ran it (core/contacts/import.ts records
   * a consent per contact); only with `name`.
   */
  consent?: { text: string; by: string };
}

/**
 * uploadLink returns `{publicUrl}/uploads/{token}`, a pre-signed URL to PUT one file to (spec part 2 §7: "GET
 * …/upload_url … response data is a string URL. Then PUT the file with its content type to that URL"), like an S3
 * pre-signed PUT: the token carries and signs everything the PUT may do.
 */
export function uploadLink(publicUrl: string, secret: string, t: UploadTarget): string {
  const fields = ['up', t.projectId, t.bucket, t.key, t.type, String(t.expiresAt)];
  if (t.name !== undefined) fields.push(t.name.replace(/[\r\n]+/g, ' '));
  if (t.name !== undefined && (t.columns !== undefined || t.consent)) fields.push(t.columns ?? '');
  if (t.name !== undefined && t.consent) fields.push(JSON.stringify(t.consent));
  return `${publicUrl}/uploads/${makeToken(secret, fields)}`;
}

/** verifyUploadToken returns what an upload token allows, or undefined when it is not genuine (expiry is not checked here). */
export function verifyUploadToken(token: string, secret: string): UploadTarget | undefined {
  const f = verify(token, secret, 'up');
  if (!f || f.length < 6 || f.length > 9) return undefined;
  return {
    projectId: f[1],
    bucket: f[2],
    key: f[3],
    type: f[4],
    expiresAt: Number(f[5]),
    ...(f.length >= 7 ? { name: f[6] } : {}),
    ...(f.length >= 8 && f[7] !== '' ? { columns: f[7] } : {}),
    ...(f.length === 9 ? { consent: JSON.parse(f[8]) as { text: string; by: string } } : {}),
  };
}
