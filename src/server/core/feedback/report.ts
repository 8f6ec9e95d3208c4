/**
 * Reading a returned email: whatever came back to a message's return path — a delivery status
 * notification (RFC 3464 multipart/report with message/delivery-status), a complaint report (RFC 5965 ARF,
 * message/feedback-report), an auto-reply (RFC 3834), an Amazon SES notification sent as email, or the free-text
 * bounce of an MTA that writes no DSN (qmail, old Exim and Sendmail, Exchange, Gmail's and Yahoo's texts, …) — is
 * turned into one report: its kind, each recipient with the receiver's words and the one classification
 * (domain/bounces.ts), and what identifies the original message (its Message-ID and recipients, from the returned
 * headers). MIME is parsed by mailparser; what a report's parts mean is read here. Used by the inbound SMTP receiver
 * and the bounce mailbox alike.
 */
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { classifyBounce, findCommand, findReplyCode, findStatus, type BounceVerdict } from '../../../domain/bounces.ts';
import { fromSesNotification, type SesNotification } from '../../../domain/feedback.ts';

/** One recipient of a returned email, with what the receiver said and what it means. */
export interface ReportRecipient {
  /** The recipient's address, lower-cased domain, as the report names it. */
  email: string;
  /** The DSN's Action (failed, delayed, delivered, …), when it has one. */
  action?: string;
  /** The enhanced status code (RFC 3463). */
  status?: string;
  /** The SMTP reply code. */
  replyCode?: number;
  /** The receiver's words (Diagnostic-Code, or the text about this recipient). */
  diagnostic?: string;
  /** The receiving MTA (Remote-MTA), when named. */
  remoteMta?: string;
  verdict: BounceVerdict;
}

/** What a returned email says (see the module's comment). */
export interface FeedbackReport {
  kind: 'dsn' | 'arf' | 'auto_reply' | 'ses' | 'text' | 'unknown';
  recipients: ReportRecipient[];
  /** ARF: the Feedback-Type (abuse, fraud, opt-out, auth-failure, …). */
  feedbackType?: string;
  /** The MTA that wrote the report (Reporting-MTA), when named. */
  reportingMta?: string;
  /** What is known of the original message: its Message-ID (without angle brackets) and recipients. */
  original: { messageId?: string; to: string[] };
}

/**
 * How much of a report's words are read (characters): a returned email's own words are a few kB, and every step over
 * them is linear or bounded by MAX_ADDRESSES and MAX_RECIPIENTS, so a hostile 10 MB message costs milliseconds.
 */
const MAX_TEXT = 64 * 1024;
/** At most this many addresses are taken from a free-text bounce, and recipients from a DSN. */
const MAX_ADDRESSES = 20;
const MAX_RECIPIENTS = 100;

/** bounded: the first MAX_TEXT characters of `text`, CRLF as LF, runs of dashes shortened to three (linear regexes). */
function bounded(text: string, max = MAX_TEXT): string {
  return text.slice(0, max).replace(/\r\n/g, '\n').replace(/-{4,}/g, '---');
}

/** Content types that carry the original message or its headers. */
const ORIGINAL_TYPES = new Set([
  'message/rfc822',
  'text/rfc822-headers',
  'text/rfc822-header',
  'message/rfc822-headers',
  'message/global',
  'message/global-headers',
]);

/** Lines that begin the copy of the original message in a free-text bounce. */
const ORIGINAL_MARKER =
  /^\s*(-{2,}.*(original message|below this line|copy of the message|returned message|message headers?|undelivered message|original-message|message follows|this is a copy)|-{3,}\s*(original|returned) |original message follows|\s*-+ ?(begin|start) (of )?(returned|original|forwarded) message|------ This is a copy of the message|-{2,} ?headers? of (the )?original)/im;

/** The subject and words of a delay warning: the receiver's MTA is still trying (never a bounce). */
const DELAY_SUBJECT = /^\s*(warning: message .* delayed|delivery status notification \(delay\)|delayed mail|delivery delayed)/i;
const DELAY_TEXT =
  /\b(has not yet been delivered|will (continue|keep) (trying|to try)|still (be )?(trying|retried|being retried)|delivery attempts will continue|no action is required on your part)\b/i;

/** A mail address in text (the local part may be quoted). */
const ADDRESS = /(?:"[^"\r\n]{1,64}"|[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64})@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}/g;

/**
 * parseFeedbackReport reads one returned email (raw RFC 5322 bytes; a leading mbox "From " line is skipped). Never
 * throws on malformed input: a message it cannot read is kind 'unknown' with no recipients. `ourAddresses` are
 * addresses that are never a failed recipient (the return path the report was sent to, the persona's address).
 */
export async function parseFeedbackReport(raw: Buffer | string, ourAddresses: string[] = []): Promise<FeedbackReport> {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  let mail: ParsedMail;
  try {
    mail = await simpleParser(skipMboxLine(bytes), { keepDeliveryStatus: true, skipImageLinks: true, skipTextLinks: true });
  } catch {
    return { kind: 'unknown', recipients: [], original: { to: [] } };
  }
  const original = originalMessage(mail, bytes);
  const text = humanText(mail);
  const exclude = new Set([...ourAddresses, ...addressesOf(mail.from), ...addressesOf(mail.to)].map((a) => a.toLowerCase()));

  const feedback = mail.attachments.find((a) => a.contentType.toLowerCase() === 'message/feedback-report');
  if (feedback) return arfReport(feedback.content.toString('utf8'), original);

  const ses = sesReport(mail, original);
  if (ses) return ses;

  const status = mail.attachments.find((a) => a.contentType.toLowerCase() === 'message/delivery-status');
  if (status) {
    const report = dsnReport(bounded(status.content.subarray(0, 4 * MAX_TEXT).toString('utf8'), 4 * MAX_TEXT), original, text);
    if (report.recipients.length) return report;
  }

  if (isAutoReply(mail)) {
    const from = addressesOf(mail.from)[0];
    return {
      kind: 'auto_reply',
      recipients: from ? [{ email: from, diagnostic: mail.subject, verdict: { class: 'auto_reply', reason: 'vacation' } }] : [],
      original,
    };
  }

  let recipients = textRecipients(text, exclude, original.to);
  // MIME some MTAs break (a boundary parameter on an unfolded line) leaves no text part: read the raw body instead.
  if (!recipients.length) recipients = textRecipients(rawBody(bytes), exclude, original.to);
  // A free-text delay warning ("has not yet been delivered", Exim's "Warning: message … delayed") is not a bounce.
  if (DELAY_SUBJECT.test(mail.subject ?? '') || DELAY_TEXT.test(cutOriginal(text))) recipients = recipients.map((r) => ({ ...r, action: 'delayed' }));
  return { kind: recipients.length ? 'text' : 'unknown', recipients, original };
}

/** rawBody: the message's bytes after its header (as Latin-1), without MIME part headers or boundaries. */
function rawBody(bytes: Buffer): string {
  const text = bounded(
    skipMboxLine(bytes)
      .subarray(0, 4 * MAX_TEXT)
      .toString('latin1'),
  );
  const at = text.indexOf('\n\n');
  return (at < 0 ? '' : text.slice(at + 2))
    .split('\n')
    .filter((l) => !/^--\S+$/.test(l.trim()) && !/^content-(type|transfer-encoding|disposition):/i.test(l) && !/^boundary=/i.test(l))
    .join('\n');
}

/** skipMboxLine drops an mbox "From " separator line before the headers. */
function skipMboxLine(bytes: Buffer): Buffer {
  if (bytes.subarray(0, 5).toString('latin1') !== 'From ') return bytes;
  const nl = bytes.indexOf(0x0a);
  return nl < 0 ? bytes : bytes.subarray(nl + 1);
}

/** The addresses of a parsed address header. */
function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((f) => f.value.flatMap((v) => [v.address, ...(v.group ?? []).map((g) => g.address)])).filter((a): a is string => !!a);
}

/** The report's human-readable text: the text part, or the HTML's text when it has only HTML. */
function humanText(mail: ParsedMail): string {
  return bounded(mail.text ?? (typeof mail.html === 'string' ? mail.html.slice(0, 4 * MAX_TEXT).replace(/<[^>]+>/g, ' ') : '') ?? '');
}

/**
 * The original message's Message-ID and recipients: from a returned copy or its headers, else from the copy below a
 * free-text bounce's marker, else from the report's body (where a returned message/rfc822 part was read inline).
 */
function originalMessage(mail: ParsedMail, bytes: Buffer): FeedbackReport['original'] {
  const part = mail.attachments.find((a) => ORIGINAL_TYPES.has(a.contentType.toLowerCase()));
  let headersText = part ? bounded(part.content.subarray(0, MAX_TEXT).toString('utf8')) : undefined;
  if (!headersText) {
    const text = humanText(mail);
    const at = text.search(ORIGINAL_MARKER);
    headersText = at >= 0 ? text.slice(at).replace(/^.*\n/, '') : rawBody(bytes);
  }
  if (!headersText) return { to: [] };
  const messageId = /^message-id:\s*<?([^>\s]+)>?/im.exec(headersText)?.[1];
  const toLine = /^to:\s*((?:.*)(?:\n[ \t].*)*)/im.exec(headersText)?.[1] ?? '';
  return { messageId, to: [...new Set((toLine.match(ADDRESS) ?? []).map((a) => a.toLowerCase()))] };
}

/** One field of a DSN or ARF block: its lower-cased name and its unfolded value. */
type Field = [name: string, value: string];

/** parseFieldBlocks reads RFC 822-style field blocks (a DSN, an ARF report), in order: unfolded, split at blank lines. */
export function parseFieldBlocks(text: string): Field[][] {
  const blocks: Field[][] = [];
  let block: Field[] = [];
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    if (!line.trim()) {
      if (block.length) blocks.push(block);
      block = [];
      continue;
    }
    if (/^[ \t]/.test(line) && block.length) {
      block[block.length - 1][1] += ` ${line.trim()}`;
      continue;
    }
    const m = /^([A-Za-z0-9-]+)\s*:\s*(.*)$/.exec(line);
    if (m) block.push([m[1].toLowerCase(), m[2].trim()]);
  }
  if (block.length) blocks.push(block);
  return blocks;
}

/** fieldMap gathers fields by name (values in order). */
function fieldMap(fields: Field[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [name, value] of fields) map.set(name, [...(map.get(name) ?? []), value]);
  return map;
}

/** The address of a DSN or ARF address field ('rfc822; a@b', '<a@b>'). */
function fieldAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const v = value.replace(/^[a-z0-9-]+\s*;\s*/i, '').trim();
  return (v.match(ADDRESS)?.[0] ?? (v.includes('@') ? v.replace(/[<>]/g, '') : undefined))?.trim();
}

/** The text of a DSN field value without its type ('smtp; 550 …' → '550 …'). */
const fieldText = (value: string | undefined) => value?.replace(/^[a-z0-9-]+\s*;\s*/i, '').trim();

/** arfReport reads an ARF feedback report: each Original-Rcpt-To (else the original's To) complained. */
function arfReport(content: string, original: FeedbackReport['original']): FeedbackReport {
  const fields = fieldMap(parseFieldBlocks(bounded(content)).flat());
  const feedbackType = fields.get('feedback-type')?.[0]?.toLowerCase() ?? 'abuse';
  // Original-Rcpt-To (RFC 5965), or Removal-Recipient (the opt-out drafts of ARF's early version 0.1).
  const named = [...(fields.get('original-rcpt-to') ?? []), ...(fields.get('removal-recipient') ?? [])].map(fieldAddress).filter((a): a is string => !!a);
  const emails = named.length ? named : original.to;
  const messageId = original.messageId ?? /<?([^<>\s]+@[^<>\s]+)>?/.exec(fields.get('original-message-id')?.[0] ?? '')?.[1];
  return {
    kind: 'arf',
    feedbackType,
    reportingMta: fieldText(fields.get('reporting-mta')?.[0]),
    recipients: emails.map((email) => ({ email, verdict: { class: 'complaint', reason: 'feedback' } })),
    original: { ...original, messageId },
  };
}

/**
 * dsnRecipientBlocks groups a DSN's fields into its per-message fields and one map per recipient. A recipient's fields
 * begin at its Final-Recipient (or an Original-Recipient not followed by one); some MTAs leave out the blank lines
 * between the blocks, so a second Final-Recipient also begins a new one.
 */
function dsnRecipientBlocks(content: string): { perMessage: Map<string, string[]>; recipients: Array<Map<string, string[]>> } {
  const perMessage = new Map<string, string[]>();
  const recipients: Array<Map<string, string[]>> = [];
  let current: Map<string, string[]> | undefined;
  for (const block of parseFieldBlocks(content)) {
    for (const [name, value] of block) {
      const isRecipient = name === 'final-recipient' || name === 'original-recipient';
      // A recipient field begins a new recipient unless it completes the current one (its other half).
      if (isRecipient && (!current || current.has(name))) {
        if (recipients.length >= MAX_RECIPIENTS) return { perMessage, recipients };
        current = new Map();
        recipients.push(current);
      }
      const target = current ?? perMessage;
      target.set(name, [...(target.get(name) ?? []), value]);
    }
    current = undefined;
  }
  return { perMessage, recipients };
}

/** dsnReport reads a delivery status notification's per-recipient fields; a recipient without words borrows the text's. */
function dsnReport(content: string, original: FeedbackReport['original'], text: string): FeedbackReport {
  const { perMessage, recipients: blocks } = dsnRecipientBlocks(content);
  const human = cutOriginal(text);
  const recipients: ReportRecipient[] = [];
  const emails = blocks.map((b) => fieldAddress(b.get('final-recipient')?.[0]) ?? fieldAddress(b.get('original-recipient')?.[0]) ?? '');
  for (const b of blocks) {
    const email = fieldAddress(b.get('final-recipient')?.[0]) ?? fieldAddress(b.get('original-recipient')?.[0]);
    if (!email) continue;
    const action = b.get('action')?.[0]?.toLowerCase();
    let diagnostic = fieldText(b.get('diagnostic-code')?.[0]);
    const paragraph = paragraphAbout(human, email, emails);
    if (!diagnostic || !/[a-z]{3}/i.test(diagnostic.replace(/\b\d[\d.]*\b/g, ''))) diagnostic = [diagnostic, paragraph].filter(Boolean).join(' ') || undefined;
    const status = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(b.get('status')?.[0] ?? '')?.[1];
    const command = findCommand(`${diagnostic ?? ''}\n${paragraph ?? ''}`) ?? findCommand(human);
    let verdict = classifyBounce({ status, diagnostic, action, command });
    // Words that say nothing (a bare "550 5.0.0"): the text around the recipient may.
    if ((verdict.class === 'undetermined' || verdict.reason === 'undefined') && paragraph && paragraph !== diagnostic) {
      const again = classifyBounce({ status, diagnostic: `${diagnostic ?? ''} ${paragraph}`, action, command });
      if (again.reason !== 'undefined') verdict = again;
    }
    recipients.push({
      email,
      action,
      status: verdict.status ?? status,
      replyCode: findReplyCode(diagnostic),
      diagnostic,
      remoteMta: fieldText(b.get('remote-mta')?.[0]),
      verdict,
    });
  }
  return { kind: 'dsn', recipients, reportingMta: fieldText(perMessage.get('reporting-mta')?.[0]), original };
}

/** sesReport reads an Amazon SES notification sent as an email (its JSON is the body). */
function sesReport(mail: ParsedMail, original: FeedbackReport['original']): FeedbackReport | undefined {
  const text = (mail.text ?? '').trim();
  if (!text.startsWith('{') || !text.includes('notificationType')) return undefined;
  // The JSON, without SNS's footer; a long line broken by an MTA's line-length limit ("!" + CRLF + space) is joined.
  const body = text.slice(0, text.lastIndexOf('}') + 1).replace(/!\r?\n /g, '');
  let n: SesNotification;
  try {
    n = JSON.parse(body) as SesNotification;
  } catch {
    return undefined;
  }
  const items = fromSesNotification(n);
  const type = n.notificationType ?? n.eventType;
  if (type === 'Delivery') {
    const delivered = (n as { delivery?: { recipients?: string[] } }).delivery?.recipients ?? [];
    return { kind: 'ses', recipients: delivered.map((email) => ({ email, verdict: { class: 'delivered', reason: 'delivered' } })), original };
  }
  if (!items.length) return undefined;
  return {
    kind: 'ses',
    feedbackType: items[0].feedbackType,
    recipients: items.map((f) => ({
      email: f.email,
      diagnostic: f.diagnosticCode,
      verdict:
        f.kind === 'complaint'
          ? { class: 'complaint', reason: 'feedback' }
          : f.bounceType === 'Permanent' && f.bounceSubType && /noemail|general|suppressed|onaccountsuppressionlist/i.test(f.bounceSubType)
            ? {
                ...classifyBounce({ diagnostic: f.diagnosticCode }),
                ...(f.bounceSubType === 'NoEmail' ? { class: 'hard' as const, reason: 'userunknown' } : {}),
              }
            : classifyBounce({ diagnostic: f.diagnosticCode, status: findStatus(f.diagnosticCode) }),
    })),
    original: { ...original, messageId: original.messageId ?? items[0].messageId },
  };
}

/** isAutoReply: an RFC 3834 auto-reply (or a common vacation reply), never a report from a mailer daemon. */
function isAutoReply(mail: ParsedMail): boolean {
  const header = (name: string) => String(mail.headers.get(name) ?? '').toLowerCase();
  const from = (addressesOf(mail.from)[0] ?? mail.from?.text ?? '').toLowerCase();
  if (/^\W*(mailer-daemon|postmaster|mail-daemon|mailer|mail\.daemon)\b/.test(from)) return false;
  if (/^multipart\/report/i.test(String((mail.headers.get('content-type') as { value?: string } | undefined)?.value ?? ''))) return false;
  const subject = mail.subject ?? '';
  if (
    /(undeliver|not (be )?delivered|deliver(y|ing) (status|failure|notification|problem)|returned mail|failure|mail delivery|error|non-?delivery|rejected)/i.test(
      subject,
    )
  )
    return false;
  return (
    header('auto-submitted') === 'auto-replied' ||
    !!mail.headers.get('x-autoreply') ||
    !!mail.headers.get('x-autorespond') ||
    header('precedence') === 'auto_reply' ||
    /^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|vacation|abwesend|absence|away from)/i.test(subject)
  );
}

/** cutOriginal keeps a free-text bounce's own words, dropping the copy of the original message below them. */
function cutOriginal(text: string): string {
  const at = text.search(ORIGINAL_MARKER);
  return at >= 0 ? text.slice(0, at) : text;
}

/**
 * paragraphAbout: the lines of `text` from the one naming `email` to the next blank line, or to a line naming another
 * of the report's recipients (`all`) and not this one.
 */
function paragraphAbout(text: string, email: string, all: string[] = []): string | undefined {
  const lines = text.split('\n');
  const needle = email.toLowerCase();
  const others = all.map((a) => a.toLowerCase()).filter((a) => a && a !== needle);
  const i = lines.findIndex((l) => l.toLowerCase().includes(needle));
  if (i < 0) return undefined;
  const out = [lines[i]];
  // A Sendmail transcript names the recipient after the conversation that failed ("While talking to …: >>> MAIL
  // From … <<< 501 …"): that conversation belongs to it, unless another recipient is named in between.
  for (let j = i - 1; j >= 0 && j >= i - 4 && lines[j].trim(); j--) {
    const lower = lines[j].toLowerCase();
    if (others.some((o) => lower.includes(o))) break;
    if (/^\s*(while talking to|>>>|<<<)/i.test(lines[j])) out.unshift(lines[j]);
    else break;
  }
  for (let j = i + 1; j < lines.length && out.length < 12; j++) {
    const lower = lines[j].toLowerCase();
    if (!lines[j].trim()) {
      if (out.length > 1) break;
      continue;
    }
    if (!lower.includes(needle) && others.some((o) => lower.includes(o))) break;
    out.push(lines[j]);
  }
  return out.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * textRecipients reads a free-text bounce: each address its own words name (not ours, not the report's sender or
 * addressee, not a postmaster) failed, with the paragraph about it as the receiver's words; with none named, the
 * original message's recipients failed, with the whole text as the words.
 */
function textRecipients(text: string, exclude: Set<string>, originalTo: string[]): ReportRecipient[] {
  const own = cutOriginal(text);
  const found: string[] = [];
  const seen = new Set<string>();
  // Addresses in the original's sender fields, quoted in the report, are not recipients.
  const senderLines = /^\s*(from|mail from|sender|reply-to|return-path|envelope-from|x-envelope-from)\s*:.*$/gim;
  for (const m of own
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(senderLines, ' ')
    .matchAll(ADDRESS)) {
    const a = m[0].replace(/^[.]+|[.]+$/g, '');
    const lower = a.toLowerCase();
    if (exclude.has(lower) || /^(postmaster|mailer-daemon|mail-daemon|abuse|hostmaster|root|noreply|no-reply)@/i.test(a)) continue;
    if (seen.has(lower)) continue;
    seen.add(lower);
    found.push(a);
    if (found.length >= MAX_ADDRESSES) break;
  }
  const named = found.length ? found : originalTo;
  const whole = own.replace(/\s+/g, ' ').trim();
  return named.map((email) => {
    const paragraph = paragraphAbout(own, email, named);
    let diagnostic = paragraph ?? whole;
    const command = findCommand(paragraph) ?? findCommand(own);
    let verdict = classifyBounce({ diagnostic, command });
    if (verdict.class === 'undetermined' && paragraph && named.length === 1) {
      diagnostic = `${paragraph} ${whole}`;
      verdict = classifyBounce({ diagnostic, command });
    }
    return { email, status: verdict.status ?? findStatus(diagnostic), replyCode: findReplyCode(diagnostic), diagnostic, verdict };
  });
}
