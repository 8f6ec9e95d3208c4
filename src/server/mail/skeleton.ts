/**
 * Message skeletons: the raw message of one shape built once by nodemailer's MailComposer with placeholder values,
 * then filled per message. A blast sends one template to many recipients, and an application sends many messages of
 * one shape through the sending API or SMTP; what differs between their messages is the recipients, subject,
 * Message-ID, Date, List-Unsubscribe URL, extra header values and the bodies, all in known places. Each of those is
 * produced by nodemailer's own functions — the header line by MimeNode.encodeHeaderValue and mime-funcs.foldLines,
 * exactly as MailComposer builds it, a base64 body by its encode and wrap, a 7bit body as is — so the bytes are
 * MailComposer's own (src/server/mail/skeleton.test.ts compares them byte for byte), at a fraction of the cost:
 * MailComposer's stream pipeline took about 260 µs of the render thread's 370 µs per message (bench/blast.bench.ts),
 * and a full build with DKIM signing 1,049 µs against 532 µs filled and signed (docs/bench-log.md, 2026-11-29).
 */
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import MimeNode from 'nodemailer/lib/mime-node/index.js';
import { foldLines, hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs/index.js';
import { randomBytes } from 'node:crypto';

/** A mailbox of a header list (To, Cc, Reply-To). */
export interface SkeletonMailbox {
  address: string;
  name?: string;
}

/**
 * What varies per message; `text` only for a skeleton made with a text part, `listUnsubscribe` only with the headers.
 * `lists` and `headers` are a submitted message's header lists (To replaces `to` in the header) and extra fields'
 * values, in the order of the shape's `headerNames`.
 */
export interface SkeletonValues {
  to: string;
  subject: string;
  messageId: string;
  date: Date;
  html: string;
  text?: string;
  listUnsubscribe?: string;
  lists?: { to: SkeletonMailbox[]; cc: SkeletonMailbox[]; replyTo: SkeletonMailbox[] };
  headers?: Array<[string, string]>;
}

/** How MailComposer writes a text body: base64, or as is (7bit) when it is plain ASCII with no line over 76. */
export type BodyEncoding = 'base64' | '7bit';

/**
 * What a skeleton is made for: the sender, whether the message has a text part and List-Unsubscribe headers, the
 * bodies' encodings (base64 unless said), and for a submitted message which header lists it has and its extra
 * fields' names in order.
 */
export interface SkeletonShape {
  from: { email: string; name?: string | null };
  hasText: boolean;
  listUnsubscribe: boolean;
  /** The multipart boundary's shared part (random when omitted); fixed per skeleton. */
  baseBoundary?: string;
  htmlEncoding?: BodyEncoding;
  textEncoding?: BodyEncoding;
  lists?: { to: boolean; cc: boolean; replyTo: boolean };
  headerNames?: string[];
}

const PLACEHOLDER = {
  to: 'mw-to-placeholder@placeholder.invalid',
  subject: 'MW-SUBJECT-PLACEHOLDER',
  messageId: '<mw-message-id-placeholder@placeholder.invalid>',
  date: new Date(Date.UTC(2000, 0, 1)),
  // Not plain ASCII, so MailComposer writes them in base64 (see encodings); the 7bit ones are plain ASCII.
  html: 'MW-HTML-PLACEHOLDER-BODY-é',
  text: 'MW-TEXT-PLACEHOLDER-BODY-é',
  html7bit: 'MW-HTML-PLACEHOLDER-BODY-7BIT',
  text7bit: 'MW-TEXT-PLACEHOLDER-BODY-7BIT',
  listUnsubscribe: 'https://placeholder.invalid/mw-list-unsubscribe-placeholder',
  lists: {
    to: [{ address: 'mw-to-placeholder@placeholder.invalid' }],
    cc: [{ address: 'mw-cc-placeholder@placeholder.invalid' }],
    replyTo: [{ address: 'mw-reply-to-placeholder@placeholder.invalid' }],
  },
  header: (i: number) => `MW-HEADER-${i}-PLACEHOLDER`,
};

/** placeholderValues: the values a skeleton of `shape` is built with. */
function placeholderValues(shape: SkeletonShape): SkeletonValues {
  const l = PLACEHOLDER.lists;
  return {
    to: PLACEHOLDER.to,
    subject: PLACEHOLDER.subject,
    messageId: PLACEHOLDER.messageId,
    date: PLACEHOLDER.date,
    html: shape.htmlEncoding === '7bit' ? PLACEHOLDER.html7bit : PLACEHOLDER.html,
    text: shape.textEncoding === '7bit' ? PLACEHOLDER.text7bit : PLACEHOLDER.text,
    listUnsubscribe: PLACEHOLDER.listUnsubscribe,
    ...(shape.lists ? { lists: { to: shape.lists.to ? l.to : [], cc: shape.lists.cc ? l.cc : [], replyTo: shape.lists.replyTo ? l.replyTo : [] } } : {}),
    ...(shape.headerNames ? { headers: shape.headerNames.map((name, i): [string, string] => [name, PLACEHOLDER.header(i)]) } : {}),
  };
}

/** addressList: a header list as MailComposer takes it (undefined for none, so the header is left out). */
function addressList(l: SkeletonMailbox[]): Array<string | { name: string; address: string }> | undefined {
  return l.length ? l.map((a) => (a.name ? { name: a.name, address: a.address } : a.address)) : undefined;
}

/** composerOptions are the MailComposer options of a message (shared by the skeleton and the full build). */
export function composerOptions(shape: SkeletonShape, v: SkeletonValues): ConstructorParameters<typeof MailComposer>[0] {
  const headers: Array<{ key: string; value: string }> = [];
  if (shape.listUnsubscribe) {
    headers.push({ key: 'List-Unsubscribe', value: `<${v.listUnsubscribe}>` });
    headers.push({ key: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' });
  }
  // A submitted message's extra fields go after the service's own; their names were checked on submission.
  for (const [key, value] of v.headers ?? []) headers.push({ key, value });
  return {
    from: shape.from.name ? { name: shape.from.name, address: shape.from.email } : shape.from.email,
    ...(v.lists ? { to: addressList(v.lists.to), cc: addressList(v.lists.cc), replyTo: addressList(v.lists.replyTo) } : { to: v.to }),
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
function headerLine(key: string, value: string | Date | SkeletonMailbox[]): string {
  if (Array.isArray(value)) {
    const list = addressList(value);
    if (!list) return '';
    value = list as unknown as string;
  }
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

/** body7bit is a 7bit text part's content as MailComposer writes it: the characters as given (plain ASCII). */
function body7bit(content: string): Buffer {
  return Buffer.from(content, 'latin1');
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
    const p = placeholderValues(shape);
    const raw = (await new MailComposer(composerOptions(fixed, p)).compile().build()).toString('latin1');
    const bodySlot = (encoding: BodyEncoding | undefined, content: string, read: (v: SkeletonValues) => string) =>
      encoding === '7bit'
        ? { text: content, slot: (v: SkeletonValues) => body7bit(read(v)) }
        : { text: body(content).toString('latin1'), slot: (v: SkeletonValues) => body(read(v)) };
    const parts: Array<{ text: string; slot: Slot }> = [
      { text: headerLine('Subject', p.subject), slot: (v) => headerLine('Subject', v.subject) },
      { text: headerLine('Message-ID', p.messageId), slot: (v) => headerLine('Message-ID', v.messageId) },
      { text: headerLine('Date', p.date), slot: (v) => headerLine('Date', v.date) },
      bodySlot(shape.htmlEncoding, p.html, (v) => v.html),
    ];
    if (!shape.lists) parts.push({ text: headerLine('To', p.to), slot: (v) => headerLine('To', v.to) });
    const lists = p.lists;
    if (shape.lists?.to) parts.push({ text: headerLine('To', lists!.to), slot: (v) => headerLine('To', v.lists?.to ?? []) });
    if (shape.lists?.cc) parts.push({ text: headerLine('Cc', lists!.cc), slot: (v) => headerLine('Cc', v.lists?.cc ?? []) });
    if (shape.lists?.replyTo) parts.push({ text: headerLine('Reply-To', lists!.replyTo), slot: (v) => headerLine('Reply-To', v.lists?.replyTo ?? []) });
    (shape.headerNames ?? []).forEach((name, i) =>
      parts.push({ text: headerLine(name, PLACEHOLDER.header(i)), slot: (v) => headerLine(name, v.headers?.[i]?.[1] ?? '') }),
    );
    if (shape.hasText) parts.push(bodySlot(shape.textEncoding, p.text!, (v) => v.text ?? ''));
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
   * encodings says how MailComposer would write these bodies — base64, or 7bit for plain ASCII with no line over 76
   * characters — or undefined when a body is empty (MailComposer then writes no encoding and the caller builds in
   * full). A skeleton fits the values whose encodings are its shape's.
   */
  static encodings(v: Pick<SkeletonValues, 'html' | 'text'>, hasText: boolean): { html: BodyEncoding; text?: BodyEncoding } | undefined {
    const of = (content: string | undefined): BodyEncoding | undefined =>
      !content ? undefined : isPlainText(content) && !hasLongerLines(content, 76) ? '7bit' : 'base64';
    const html = of(v.html);
    const text = hasText ? of(v.text) : undefined;
    if (!html || (hasText && !text)) return undefined;
    return { html, ...(text ? { text } : {}) };
  }

  /** fits is true when MailComposer would write these bodies in base64, as a skeleton of the default encodings has them. */
  static fits(v: Pick<SkeletonValues, 'html' | 'text'>, hasText: boolean): boolean {
    const e = MessageSkeleton.encodings(v, hasText);
    return e?.html === 'base64' && (!hasText || e.text === 'base64');
  }

  /** fill returns one message's raw bytes; call it only with values of the skeleton's shape (encodings, lists, field names). */
  fill(v: SkeletonValues): Buffer {
    const chunks: Buffer[] = [this.statics[0]];
    for (let i = 0; i < this.slots.length; i++) {
      const filled = this.slots[i](v);
      chunks.push(typeof filled === 'string' ? Buffer.from(filled, 'latin1') : filled, this.statics[i + 1]);
    }
    return Buffer.concat(chunks);
  }
}
