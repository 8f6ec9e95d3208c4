/**
 * Rendering of one recipient's email: template variables through Handlebars (spec part 2 §3 Template variables; a
 * missing value renders blank), then a raw RFC 5322 message through nodemailer's MailComposer, which is exactly what is
 * delivered and stored. Marketing mail carries List-Unsubscribe and List-Unsubscribe-Post (RFC 8058).
 */
import Handlebars from 'handlebars';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import DKIM from 'nodemailer/lib/dkim/index.js';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { RenderContext } from '../../domain/templateVariables.ts';
import type { Storage } from '../storage/storage.ts';
import { addTracking, type TrackingContext } from './links.ts';
import { stripActiveContent, textFromHtml } from '../../domain/emailHtml.ts';
import { composerOptions, MessageSkeleton, type SkeletonShape, type SkeletonValues } from './skeleton.ts';

type Compiled = (ctx: RenderContext) => string;
const hb = Handlebars.create();

/** A compiled template: subject, HTML and optional text. Compile once per template version, render per recipient. */
export interface CompiledTemplate {
  subject: Compiled;
  html: Compiled;
  text?: Compiled;
}

/**
 * compileTemplate compiles a template's parts: the HTML without active content, and the text part — the
 * plain_text_body when there is one (the template editor fills it from the HTML on every save), else one made here
 * from the HTML with html-to-text (textFromHtml), so a template saved through the API without text still goes out
 * multipart/alternative. This runs once per template version. Subject and text are not HTML-escaped;
 * HTML values are. Throws a Handlebars parse error (with its line) for malformed variables.
 */
export function compileTemplate(t: { subject: string; html_body: string; plain_text_body?: string | null }): CompiledTemplate {
  // What is sent never carries scripts or event handlers (src/domain/emailHtml.ts); stripped here, once per version.
  const html = stripActiveContent(t.html_body);
  const text = t.plain_text_body?.trim() ? t.plain_text_body : textFromHtml(html);
  return {
    subject: hb.compile(t.subject, { noEscape: true, strict: false }),
    html: hb.compile(html, { strict: false }),
    text: text.trim() ? hb.compile(text, { noEscape: true, strict: false }) : undefined,
  };
}

/**
 * The header fields a DKIM signature covers (h=): nodemailer's list (RFC 6376 §5.4.1's recommendations) plus
 * List-Unsubscribe-Post, which RFC 8058 §4 requires to be signed together with List-Unsubscribe, or receivers should
 * not offer one-click unsubscribe (Gmail and Yahoo require it of bulk senders). A field the message lacks is left out.
 */
export const DKIM_SIGNED_HEADERS = [
  'From',
  'Sender',
  'Reply-To',
  'Subject',
  'Date',
  'Message-ID',
  'To',
  'Cc',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-ID',
  'Content-Description',
  'Resent-Date',
  'Resent-From',
  'Resent-Sender',
  'Resent-To',
  'Resent-Cc',
  'Resent-Message-ID',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
].join(':');

/** A DKIM signing key (relaxed/relaxed, rsa-sha256): the d= domain, the s= selector and the PEM private key. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** Parsed signing keys by PEM text, oldest first (at most SIGNING_KEYS_KEPT; a render thread signs for few domains). */
const signingKeys = new Map<string, KeyObject>();
const SIGNING_KEYS_KEPT = 1000;

/**
 * signingKey parses a PEM private key once and keeps the KeyObject: signing with the PEM text makes OpenSSL parse it
 * on every signature, 0.9 ms per RSA-2048 signature against 0.3 ms with the parsed key (measured on this machine,
 * docs/bench-log.md 2026-11-27).
 */
function signingKey(pem: string): KeyObject {
  let key = signingKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    if (signingKeys.size >= SIGNING_KEYS_KEPT) signingKeys.delete(signingKeys.keys().next().value as string);
    signingKeys.set(pem, key);
  }
  return key;
}

/** dkimSigner returns nodemailer's signer for `key` (its PEM parsed once: signingKey), covering DKIM_SIGNED_HEADERS. */
function dkimSigner(key: DkimKey): DKIM {
  // nodemailer hands privateKey to crypto's Sign.sign, which takes a KeyObject as well as PEM text.
  return new DKIM({ ...key, privateKey: signingKey(key.privateKey) as unknown as string, headerFieldNames: DKIM_SIGNED_HEADERS });
}

/** What a message handed in through the sending API or SMTP carries besides a template's email (core/sending/submission.ts). */
export interface MessageExtras {
  /** The To and Cc header lists as the sender wrote them (the envelope recipient may be a Bcc, named nowhere). */
  to: Array<{ address: string; name?: string }>;
  cc: Array<{ address: string; name?: string }>;
  replyTo: Array<{ address: string; name?: string }>;
  /** Extra header fields in order (checked: tokens for names, one-line values). */
  headers: Array<[string, string]>;
  /** Attachments, content in base64. */
  attachments: Array<{ filename: string; content: string; contentType?: string; cid?: string }>;
}

export interface MessageInput {
  from: { email: string; name?: string | null };
  to: string;
  subject: string;
  /** The HTML part; a message handed in with text only has none. */
  html?: string;
  text?: string;
  messageId: string;
  /** One-click unsubscribe URL for marketing mail (adds List-Unsubscribe headers); omit for transactional mail. */
  listUnsubscribe?: string;
  date?: Date;
  /** Sign with this domain's DKIM key (relaxed/relaxed, rsa-sha256, DKIM_SIGNED_HEADERS); omit for unsigned mail. */
  dkim?: DkimKey;
  /** A submitted message's header lists, extra fields and attachments (the header To becomes `extra.to`). */
  extra?: MessageExtras;
}

/** attachmentOptions: MailComposer's attachments for a submitted message's (content in base64). */
function attachmentOptions(x: MessageExtras): Partial<ConstructorParameters<typeof MailComposer>[0]> {
  return {
    attachments: x.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      encoding: 'base64',
      ...(a.contentType ? { contentType: a.contentType } : {}),
      ...(a.cid ? { cid: a.cid } : {}),
    })),
  };
}

/** buildRawMessage returns the exact bytes to deliver and store for one email (DKIM-signed when `dkim` is given). */
export async function buildRawMessage(m: MessageInput): Promise<Buffer> {
  const options = composerOptions(shapeOf(m), valuesOf(m))!;
  if (m.extra) Object.assign(options, attachmentOptions(m.extra));
  const message = new MailComposer(options).compile();
  // The signature is part of the bytes, so the stored copy is exactly what the relay receives.
  if (m.dkim) {
    const signer = dkimSigner(m.dkim);
    message.processFunc((input) => signer.sign(input));
  }
  return message.build();
}

function shapeOf(m: MessageInput): SkeletonShape {
  return {
    from: m.from,
    hasText: m.text !== undefined,
    listUnsubscribe: !!m.listUnsubscribe,
    ...(m.extra
      ? {
          lists: { to: m.extra.to.length > 0, cc: m.extra.cc.length > 0, replyTo: m.extra.replyTo.length > 0 },
          headerNames: m.extra.headers.map(([name]) => name),
        }
      : {}),
  };
}

function valuesOf(m: MessageInput): SkeletonValues {
  return {
    to: m.to,
    subject: m.subject,
    messageId: m.messageId,
    date: m.date ?? new Date(),
    html: m.html as string,
    text: m.text,
    listUnsubscribe: m.listUnsubscribe,
    ...(m.extra ? { lists: { to: m.extra.to, cc: m.extra.cc, replyTo: m.extra.replyTo }, headers: m.extra.headers } : {}),
  };
}

const skeletons = new Map<string, Promise<MessageSkeleton>>();

/**
 * composeMessage returns the same bytes as buildRawMessage, filling the skeleton of its shape (cached by
 * `templateKey`, sender, body encodings, header lists and extra fields' names; src/server/mail/skeleton.ts) when the
 * message has an HTML part, non-empty bodies and no attachments, else building in full. DKIM-signs the result when
 * asked. `templateKey` is the template version, or one key for a project's literal messages (their shape is in the key).
 */
export async function composeMessage(m: MessageInput, templateKey: string): Promise<Buffer> {
  const values = valuesOf(m);
  const encodings = m.html === undefined || m.extra?.attachments.length ? undefined : MessageSkeleton.encodings(values, m.text !== undefined);
  if (!encodings) return buildRawMessage(m);
  const shape: SkeletonShape = { ...shapeOf(m), htmlEncoding: encodings.html, textEncoding: encodings.text };
  const key = [
    templateKey,
    m.from.email,
    m.from.name ?? '',
    shape.hasText,
    shape.listUnsubscribe,
    encodings.html,
    encodings.text ?? '',
    shape.lists ? `${shape.lists.to}/${shape.lists.cc}/${shape.lists.replyTo}` : '',
    (shape.headerNames ?? []).join('\u0001'),
  ].join('\u0000');
  let skeleton = skeletons.get(key);
  if (!skeleton) {
    if (skeletons.size >= 500) skeletons.delete(skeletons.keys().next().value as string);
    skeleton = MessageSkeleton.build(shape);
    skeletons.set(key, skeleton);
    skeleton.catch(() => skeletons.delete(key));
  }
  let raw: Buffer;
  try {
    raw = (await skeleton).fill(values);
  } catch {
    // A shape whose placeholders MailComposer did not write once each (an unusual header field): built in full.
    return buildRawMessage(m);
  }
  if (!m.dkim) return raw;
  const chunks: Buffer[] = [];
  for await (const chunk of dkimSigner(m.dkim).sign(raw)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** One recipient's email to render: the template (cached by `templateKey`, e.g. id:version), variables and envelope. */
export interface RenderRequest {
  templateKey: string;
  /** The template's text; may be left out when the renderer has compiled `templateKey` already (TemplateNotCompiled otherwise). */
  template?: { subject: string; html_body: string; plain_text_body?: string | null };
  vars: RenderContext;
  message: Omit<MessageInput, 'subject' | 'html' | 'text'>;
  /** Where the exact copy goes (written by whoever renders, so the bytes never cross threads twice). */
  store: { bucket: string; key: string };
  /** Open pixel and click redirects to add to the rendered HTML; omitted for untracked mail. */
  tracking?: TrackingContext;
  /**
   * A submitted message's own content, used as given (no template variables; scripts still stripped from the HTML,
   * a text part made from the HTML when it has none); `template` is then not read.
   */
  literal?: { subject: string; html?: string; text?: string };
}

const compiledCache = new Map<string, CompiledTemplate>();

/** The skeleton key of messages used as given (their sender and shape complete the key: composeMessage). */
const LITERAL_KEY = 'literal';

/** TemplateNotCompiled: a request without its template text named a template this renderer has not compiled (or dropped). */
export class TemplateNotCompiled extends Error {
  constructor(readonly templateKey: string) {
    super(`template ${templateKey} is not compiled here`);
  }
}

/**
 * renderMessage renders one RenderRequest — variables through the template (compiled once per templateKey, at most
 * 500 kept), tracking links when asked, then the raw message — and stores the exact copy. Throws a Handlebars error for a template that does not
 * render, or an error with stage 'store' when the copy cannot be written.
 */
export async function renderMessage(req: RenderRequest, storage: Storage): Promise<{ subject: string; raw: Buffer }> {
  if (req.literal) return storeCopy(req, req.literal.subject, await composeMessage({ ...req.message, ...literalParts(req) }, LITERAL_KEY), storage);
  let compiled = compiledCache.get(req.templateKey);
  if (!compiled) {
    if (!req.template) throw new TemplateNotCompiled(req.templateKey);
    compiled = compileTemplate(req.template);
    if (compiledCache.size >= 500) compiledCache.delete(compiledCache.keys().next().value as string);
    compiledCache.set(req.templateKey, compiled);
  }
  const subject = compiled.subject(req.vars);
  const body = compiled.html(req.vars);
  const html = req.tracking ? addTracking(body, req.tracking) : body;
  const raw = await composeMessage({ ...req.message, subject, html, text: compiled.text?.(req.vars) }, req.templateKey);
  return storeCopy(req, subject, raw, storage);
}

/** literalParts: a literal request's subject, HTML (active content stripped, tracking added when asked) and text. */
function literalParts(req: RenderRequest): { subject: string; html?: string; text?: string } {
  const l = req.literal!;
  const clean = l.html !== undefined && l.html.trim() ? stripActiveContent(l.html) : undefined;
  const html = clean !== undefined && req.tracking ? addTracking(clean, req.tracking) : clean;
  const text = l.text ?? (clean !== undefined ? textFromHtml(clean) : undefined);
  return { subject: l.subject, html, text };
}

/** storeCopy writes the exact bytes of `req`'s email where it asks, before delivery; a failure has stage 'store'. */
async function storeCopy(req: RenderRequest, subject: string, raw: Buffer, storage: Storage): Promise<{ subject: string; raw: Buffer }> {
  try {
    // Nobody knows this key before the email is delivered and recorded (the sender records its location then).
    await storage.put(req.store.bucket, req.store.key, raw, { unseen: true });
  } catch (err) {
    throw Object.assign(err as Error, { stage: 'store' });
  }
  return { subject, raw };
}
