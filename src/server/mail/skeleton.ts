/**
 * Message skeletons: the raw message of one template version built once by nodemailer's MailComposer with placeholder
 * values, then filled per recipient. A blast sends one template to many recipients; what differs between their
 * messages is the recipient, subject, Message-ID, Date, List-Unsubscribe URL and the bodies, all in known places. Each
 * of those is produced by nodemailer's own functions — the header line by MimeNode.encodeHeaderValue and
 * mime-funcs.foldLines, exactly as MailComposer builds it, the bodies by its base64 encode and wrap — so the bytes are
 * MailComposer's own (src/server/mail/skeleton.test.ts compares them byte for byte), at a fraction of the cost:
 * MailComposer's stream pipeline took about 260 µs of the render thread's 370 µs per message (bench/blast.bench.ts).
 */
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import MimeNode from 'nodemailer/lib/mime-node/index.js';
import { foldLines, hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs/index.js';
import { randomBytes } from 'node:crypto';

/** What varies per message; `text` only for a skeleton made with a text part, `listUnsubscribe` only with the headers. */
export interface SkeletonValues {
  to: string;
  subject: string;
  messageId: string;
  date: Date;
  html: string;
  text?: string;
  listUnsubscribe?: string;
}

/** What a skeleton is made for: the sender, whether the message has a text part and List-Unsubscribe headers. */
export interface SkeletonShape {
  from: { email: string; name?: string | null };
  hasText: boolean;
  listUnsubscribe: boolean;
  /** The multipart boundary's shared part (random when omitted); fixed per skeleton. */
  baseBoundary?: string;
}

const PLACEHOLDER = {
  to: 'mw-to-placeholder@placeholder.invalid',
  subject: 'MW-SUBJECT-PLACEHOLDER',
  messageId: '<mw-message-id-placeholder@placeholder.invalid>',
  date: new Date(Date.UTC(2000, 0, 1)),
  // Not plain ASCII, so MailComposer writes them in base64 (see fits).
  html: 'MW-HTML-PLACEHOLDER-BODY-é',
  text: 'MW-TEXT-PLACEHOLDER-BODY-é',
  listUnsubscribe: 'https://placeholder.invalid/mw-list-unsubscribe-placeholder',
};

/** composerOptions are the MailComposer options of a message (shared by the skeleton and the full build). */
export function composerOptions(shape: SkeletonShape, v: SkeletonValues): ConstructorParameters<typeof MailComposer>[0] {
  const headers: Record<string, string> = {};
  if (shape.listUnsubscribe) {
    headers['List-Unsubscribe'] = `<${v.listUnsubscribe}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    from: shape.from.name ? { name: shape.from.name, address: shape.from.email } : shape.from.email,
    to: v.to,
    subject: v.subject,
    html: v.html,
    text: shape.hasText ? v.text : undefined,
    messageId: v.messageId,
    date: v.date,
    headers,
    // base64 bodies are built natively; quoted-printable costs more CPU per message than the whole SMTP exchange.
    textEncoding: 'base64',
    baseBoundary: shape.baseBoundary,
  } as ConstructorParameters<typeof MailComposer>[0];
}

/**
 * One MimeNode serves every header: its encodeHeaderValue reads only the node's text encoding. The static
 * MimeNode.encodeHeaderValue makes a new node per call, and each new node draws a random multipart boundary: 8
 * random bytes per header, about half a second of a render thread's 10,000-recipient blast (bench/blast.bench.ts).
 */
const headerEncoder = new MimeNode(false, { textEncoding: 'base64', baseBoundary: 'header-encoder' });

/**
 * headerLine is one header exactly as MailComposer writes it (encoded words, angle brackets, folded at 76) with its
 * line break, or '' for a value that encodes to nothing (MailComposer leaves such a header out, e.g. an empty subject).
 */
function headerLine(key: string, value: string | Date): string {
  const encoded = headerEncoder.encodeHeaderValue(key, value);
  return (encoded || '').toString().trim() ? `${foldLines(`${key}: ${encoded}`, 76)}\r\n` : '';
}

/** Line length of base64 bodies (RFC 2045 §6.8: at most 76 characters). */
const BASE64_LINE = 76;

/**
 * body is a text part's content as MailComposer writes it: UTF-8, base64, lines of 76 characters joined by CRLF and
 * no break after the last (nodemailer's base64 wrap, which splits with a regular expression over a string; copying
 * the encoded bytes line by line into one buffer gives the same bytes for a tenth of the cost).
 */
function body(content: string): Buffer {
  const encoded = Buffer.from(Buffer.from(content, 'utf8').toString('base64'), 'latin1');
  const lines = Math.max(1, Math.ceil(encoded.length / BASE64_LINE));
  const out = Buffer.allocUnsafe(encoded.length + 2 * (lines - 1));
  let to = 0;
  for (let from = 0; from < encoded.length; from += BASE64_LINE) {
    if (from > 0) {
      out[to++] = 0x0d;
      out[to++] = 0x0a;
    }
    to += encoded.copy(out, to, from, Math.min(from + BASE64_LINE, encoded.length));
  }
  return out;
}

type Slot = (v: SkeletonValues) => string | Buffer;

/** MessageSkeleton fills one shape's raw message for each recipient (see the module comment). */
export class MessageSkeleton {
  private constructor(
    private readonly statics: Buffer[],
    private readonly slots: Slot[],
  ) {}

  /** build makes the skeleton of `shape` with MailComposer. Throws when a placeholder cannot be found in its output. */
  static async build(shape: SkeletonShape): Promise<MessageSkeleton> {
    const fixed = { ...shape, baseBoundary: shape.baseBoundary ?? randomBytes(8).toString('hex') };
    const raw = (await new MailComposer(composerOptions(fixed, PLACEHOLDER)).compile().build()).toString('latin1');
    const parts: Array<{ text: string; slot: Slot }> = [
      { text: headerLine('To', PLACEHOLDER.to), slot: (v) => headerLine('To', v.to) },
      { text: headerLine('Subject', PLACEHOLDER.subject), slot: (v) => headerLine('Subject', v.subject) },
      { text: headerLine('Message-ID', PLACEHOLDER.messageId), slot: (v) => headerLine('Message-ID', v.messageId) },
      { text: headerLine('Date', PLACEHOLDER.date), slot: (v) => headerLine('Date', v.date) },
      { text: body(PLACEHOLDER.html).toString('latin1'), slot: (v) => body(v.html) },
    ];
    if (shape.hasText) parts.push({ text: body(PLACEHOLDER.text).toString('latin1'), slot: (v) => body(v.text ?? '') });
    if (shape.listUnsubscribe)
      parts.push({
        text: headerLine('List-Unsubscribe', `<${PLACEHOLDER.listUnsubscribe}>`),
        slot: (v) => headerLine('List-Unsubscribe', `<${v.listUnsubscribe}>`),
      });
    const found = parts
      .map((p) => {
        const at = raw.indexOf(p.text);
        if (at < 0 || raw.indexOf(p.text, at + 1) >= 0) throw new Error(`message skeleton: placeholder ${JSON.stringify(p.text.slice(0, 40))} not found once`);
        return { ...p, at };
      })
      .sort((a, b) => a.at - b.at);
    const statics: Buffer[] = [];
    let pos = 0;
    for (const p of found) {
      statics.push(Buffer.from(raw.slice(pos, p.at), 'latin1'));
      pos = p.at + p.text.length;
    }
    statics.push(Buffer.from(raw.slice(pos), 'latin1'));
    return new MessageSkeleton(
      statics,
      found.map((p) => p.slot),
    );
  }

  /**
   * fits is true when MailComposer would write these bodies in base64, as the skeleton has them: it writes a body of
   * plain ASCII with no line over 76 characters as 7bit (and an empty one with no encoding), which the caller then
   * builds in full.
   */
  static fits(v: Pick<SkeletonValues, 'html' | 'text'>, hasText: boolean): boolean {
    const base64 = (content: string | undefined) => !!content && !(isPlainText(content) && !hasLongerLines(content, 76));
    return base64(v.html) && (!hasText || base64(v.text));
  }

  /** fill returns one recipient's raw message; call it only when fits() (otherwise the encodings differ). */
  fill(v: SkeletonValues): Buffer {
    const chunks: Buffer[] = [this.statics[0]];
    for (let i = 0; i < this.slots.length; i++) {
      const filled = this.slots[i](v);
      chunks.push(typeof filled === 'string' ? Buffer.from(filled, 'latin1') : filled, this.statics[i + 1]);
    }
    return Buffer.concat(chunks);
  }
}
