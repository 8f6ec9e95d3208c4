/**
 * Email providers' feedback webhooks read into one shape: Postmark, Mailgun, SendGrid, Brevo and Resend each post
 * bounces and complaints in their own JSON; this module reads each into ProviderEvent (pure, never throws on a
 * payload of the wrong shape: it reads what it can and skips the rest). What an event means for the address is the
 * one classification's (domain/bounces.ts, providerVerdict); the provider's own label (a "HardBounce", a severity) only
 * decides when the receiver's words and codes say nothing. The signatures are checked before (gateways/event/providers.ts).
 *
 * Formats, as each provider documents them:
 * - Postmark: one record per request, RecordType Bounce (Type HardBounce, SoftBounce, Transient, DnsError, Blocked,
 *   SpamNotification, …) or SpamComplaint; Email, Details / Description, Metadata, ID.
 * - Mailgun: `{ signature, "event-data": { id, event: failed | complained | …, severity: permanent | temporary,
 *   recipient, message.headers["message-id"], "delivery-status": { code, message, description, "enhanced-code" } } }`.
 * - SendGrid: an array of events: bounce (type bounce or blocked), dropped, deferred, spamreport, delivered; email,
 *   status (enhanced code), reason, "smtp-id" (the Message-ID), sg_event_id.
 * - Brevo (transactional): event hard_bounce, soft_bounce, spam (a complaint), …; email, reason, "message-id", id.
 * - Resend: `{ type: email.bounced | email.complained | …, data: { to: [], bounce: { type, subType, message }, headers } }`.
 */
import { classifyBounce, type BounceVerdict } from './bounces.ts';

/** The providers whose webhooks are read. */
export const FEEDBACK_PROVIDERS = ['postmark', 'mailgun', 'sendgrid', 'brevo', 'resend'] as const;
export type FeedbackProvider = (typeof FEEDBACK_PROVIDERS)[number];

/** One provider event about one recipient. */
export interface ProviderEvent {
  /** bounce, complaint, or other (deliveries, opens, delays: read and not applied). */
  type: 'bounce' | 'complaint' | 'other';
  /** The recipient's address. */
  email: string;
  /** The Message-ID of our email (without angle brackets), when the provider passes it back. */
  messageId?: string;
  /** The provider's own label: 'hard' or 'soft' when it says (Postmark's Type, Mailgun's severity, …). */
  providerClass?: 'hard' | 'soft';
  /** The enhanced status code (RFC 3463) and SMTP reply code, when given. */
  status?: string;
  replyCode?: number;
  /** The receiver's words. */
  diagnostic?: string;
  /** The receiving MTA, when named. */
  remoteMta?: string;
  /** Complaints: the feedback type (abuse unless said). */
  feedbackType?: string;
  /** The provider's raw event name (for the log and the event's json). */
  providerEvent: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined);
const bare = (id: string | undefined): string | undefined => id?.trim().replace(/^<|>$/g, '') || undefined;

/** readPostmark: a Postmark Bounce or SpamComplaint webhook record. */
function readPostmark(body: unknown): ProviderEvent[] {
  const b = obj(body);
  const email = str(b.Email);
  if (!email) return [];
  const record = str(b.RecordType) ?? '';
  const type = str(b.Type) ?? '';
  const metadata = obj(b.Metadata);
  const base = { email, messageId: bare(str(metadata.message_id)), providerEvent: `${record}:${type}` };
  if (record === 'SpamComplaint' || type === 'SpamComplaint') return [{ ...base, type: 'complaint', feedbackType: 'abuse' }];
  if (record !== 'Bounce') return [{ ...base, type: 'other' }];
  // Postmark's Types that are not failures to reach the address (a subscription change, an auto-reply, …).
  if (['Unsubscribe', 'Subscribe', 'AutoResponder', 'AddressChange', 'OpenRelayTest', 'SMTPApiError', 'ManuallyDeactivated'].includes(type)) {
    return [{ ...base, type: 'other' }];
  }
  const hard = ['HardBounce', 'BadEmailAddress', 'DnsError'].includes(type);
  return [{ ...base, type: 'bounce', providerClass: hard ? 'hard' : 'soft', diagnostic: str(b.Details) ?? str(b.Description) }];
}

/** readMailgun: a Mailgun webhook (one event, in "event-data"). */
function readMailgun(body: unknown): ProviderEvent[] {
  const e = obj(obj(body)['event-data']);
  const email = str(e.recipient);
  if (!email) return [];
  const event = str(e.event) ?? '';
  const headers = obj(obj(e.message).headers);
  const base = { email, messageId: bare(str(headers['message-id'])), providerEvent: event };
  if (event === 'complained') return [{ ...base, type: 'complaint', feedbackType: 'abuse' }];
  if (event !== 'failed') return [{ ...base, type: 'other' }];
  // Mailgun's own refusals of addresses it already suppressed are not new feedback.
  if (/^suppress-/.test(str(e.reason) ?? '')) return [{ ...base, type: 'other' }];
  const status = obj(e['delivery-status']);
  const code = Number(status.code);
  return [
    {
      ...base,
      type: 'bounce',
      providerClass: str(e.severity) === 'permanent' ? 'hard' : 'soft',
      status: str(status['enhanced-code']),
      replyCode: code >= 400 && code < 600 ? code : undefined,
      diagnostic: [str(status.message), str(status.description)].filter(Boolean).join(' ') || undefined,
      remoteMta: str(status['mx-host']),
    },
  ];
}

/** readSendGrid: a SendGrid Event Webhook batch (an array of events). */
function readSendGrid(body: unknown): ProviderEvent[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((item): ProviderEvent[] => {
    const e = obj(item);
    const email = str(e.email);
    if (!email) return [];
    const event = str(e.event) ?? '';
    const base = { email, messageId: bare(str(e['smtp-id'])), providerEvent: event };
    if (event === 'spamreport') return [{ ...base, type: 'complaint', feedbackType: 'abuse' }];
    if (event !== 'bounce') return [{ ...base, type: 'other' }];
    // type 'blocked' is SendGrid's temporary refusal, 'bounce' a permanent one.
    return [
      {
        ...base,
        type: 'bounce',
        providerClass: str(e.type) === 'blocked' ? 'soft' : 'hard',
        status: str(e.status),
        diagnostic: str(e.reason),
      },
    ];
  });
}

/** readBrevo: a Brevo transactional webhook (one event). */
function readBrevo(body: unknown): ProviderEvent[] {
  const e = obj(body);
  const email = str(e.email);
  if (!email) return [];
  const event = str(e.event) ?? '';
  const base = { email, messageId: bare(str(e['message-id'])), providerEvent: event };
  if (event === 'spam' || event === 'complaint') return [{ ...base, type: 'complaint', feedbackType: 'abuse' }];
  if (event === 'hard_bounce' || event === 'soft_bounce') {
    return [{ ...base, type: 'bounce', providerClass: event === 'hard_bounce' ? 'hard' : 'soft', diagnostic: str(e.reason) }];
  }
  return [{ ...base, type: 'other' }];
}

/** readResend: a Resend webhook (Svix): email.bounced or email.complained, one per recipient in data.to. */
function readResend(body: unknown): ProviderEvent[] {
  const b = obj(body);
  const event = str(b.type) ?? '';
  const data = obj(b.data);
  const to = (Array.isArray(data.to) ? data.to : [data.to]).map(str).filter((s): s is string => !!s);
  const headers = Array.isArray(data.headers) ? data.headers.map(obj) : [];
  const messageId = bare(str(headers.find((h) => str(h.name)?.toLowerCase() === 'message-id')?.value));
  return to.map((email): ProviderEvent => {
    const base = { email, messageId, providerEvent: event };
    if (event === 'email.complained') return { ...base, type: 'complaint', feedbackType: 'abuse' };
    if (event !== 'email.bounced') return { ...base, type: 'other' };
    const bounce = obj(data.bounce);
    const kind = str(bounce.type);
    return {
      ...base,
      type: 'bounce',
      providerClass: kind === 'Permanent' ? 'hard' : kind === 'Transient' ? 'soft' : undefined,
      diagnostic: str(bounce.message),
    };
  });
}

const READERS: Record<FeedbackProvider, (body: unknown) => ProviderEvent[]> = {
  postmark: readPostmark,
  mailgun: readMailgun,
  sendgrid: readSendGrid,
  brevo: readBrevo,
  resend: readResend,
};

/** readProviderEvents reads one provider's (parsed JSON) webhook body into its events; [] for an unreadable one. */
export function readProviderEvents(provider: FeedbackProvider, body: unknown): ProviderEvent[] {
  return READERS[provider](body).slice(0, 1000);
}

/**
 * providerVerdict: what a provider's bounce means (domain/bounces.ts). The receiver's words and codes decide; the
 * provider's label only when they say nothing (undetermined). A provider's "hard bounce" whose words name a blocklist
 * is the sender's problem, and never suppresses the recipient.
 */
export function providerVerdict(e: ProviderEvent): BounceVerdict {
  if (e.type === 'complaint') return { class: 'complaint', reason: 'feedback' };
  const verdict = classifyBounce({ status: e.status, replyCode: e.replyCode, diagnostic: e.diagnostic });
  if (verdict.class !== 'undetermined' || !e.providerClass) return verdict;
  return { class: e.providerClass, reason: 'undefined', status: verdict.status };
}
