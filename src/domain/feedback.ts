/**
 * Delivery feedback (spec part 1 §3 Event): what a bounce, a complaint or a simulator address means for a
 * recipient. Pure logic shared by the sender, the SES/SNS endpoint and the JSON feedback endpoint:
 * - the mailbox simulator (like Amazon SES's): addresses that produce a given outcome without reaching a mailbox;
 * - SMTP failures at send time classified as hard or soft bounces;
 * - Amazon SES notifications (Bounce, Complaint, Delivery) normalised to one shape.
 * A hard (Permanent) bounce or a complaint puts the address on the project's suppression list; a soft (Transient)
 * bounce does not.
 */
import { SIMULATOR_SUCCESS_ADDRESS } from './sandbox.ts';
import { classifyBounce, type BounceVerdict } from './bounces.ts';

/** The simulator's domain; every address in it is handled by the product itself, never by a real mailbox. */
export const SIMULATOR_DOMAIN = 'simulator.mailwright.test';

/** The simulator's addresses, by outcome (SES: success@, bounce@, complaint@, ooto@, suppressionlist@). */
export const SIMULATOR_ADDRESSES = {
  success: SIMULATOR_SUCCESS_ADDRESS,
  bounce: `bounce@${SIMULATOR_DOMAIN}`,
  complaint: `complaint@${SIMULATOR_DOMAIN}`,
  ooto: `ooto@${SIMULATOR_DOMAIN}`,
  suppressionlist: `suppressionlist@${SIMULATOR_DOMAIN}`,
} as const;

/** One piece of feedback about one recipient, in the product's terms. */
export interface Feedback {
  kind: 'bounce' | 'complaint';
  email: string;
  /** Bounces: 'Permanent' (hard: suppress), 'Transient' (soft) or 'Undetermined'. */
  bounceType?: 'Permanent' | 'Transient' | 'Undetermined';
  bounceSubType?: string;
  /** The receiving server's answer, e.g. 'smtp; 550 5.1.1 user unknown'. */
  diagnosticCode?: string;
  /** Complaints: the feedback report's type (abuse, fraud, ...). */
  feedbackType?: string;
  /** The Message-ID of the email this is about, when known (ties it to an outbox row). */
  messageId?: string;
  /** When the receiving side reported it (ISO 8601 UTC); now when absent. */
  timestamp?: string;
  /**
   * The one classification (domain/bounces.ts), when the source gave the receiver's words: class
   * (hard, soft, sender, undetermined), the rule's reason, the enhanced status code, and the MTA that reported it.
   */
  classification?: { class: string; reason: string; status?: string; reportingMta?: string; remoteMta?: string };
  /** The relay that refused or sent the email, when the source knows it (the sender's own relays). */
  relay?: string;
}

/** suppresses tells whether feedback puts the address on the suppression list (hard bounces and complaints). */
export function suppresses(f: Pick<Feedback, 'kind' | 'bounceType'>): boolean {
  return f.kind === 'complaint' || f.bounceType === 'Permanent';
}

/**
 * simulatorFeedback returns the feedback a simulator address produces once its email is sent, or undefined for
 * the success address and for every address outside the simulator. Any other address in the simulator's domain is a
 * hard bounce ('user unknown'), as bounce@ is.
 */
export function simulatorFeedback(email: string): Feedback | undefined {
  const address = email.trim().toLowerCase();
  if (!address.endsWith(`@${SIMULATOR_DOMAIN}`) || address === SIMULATOR_ADDRESSES.success) return undefined;
  switch (address) {
    case SIMULATOR_ADDRESSES.complaint:
      return { kind: 'complaint', email, feedbackType: 'abuse' };
    case SIMULATOR_ADDRESSES.ooto:
      // SES answers with an out-of-office auto-reply; here it is a soft bounce, which never suppresses.
      return { kind: 'bounce', email, bounceType: 'Transient', bounceSubType: 'General', diagnosticCode: 'smtp; 250 2.0.0 auto-reply: out of the office' };
    case SIMULATOR_ADDRESSES.suppressionlist:
      return {
        kind: 'bounce',
        email,
        bounceType: 'Permanent',
        bounceSubType: 'OnSuppressionList',
        diagnosticCode: 'Amazon SES did not send the message to this address because it is on the suppression list for your account.',
      };
    default:
      return { kind: 'bounce', email, bounceType: 'Permanent', bounceSubType: 'General', diagnosticCode: 'smtp; 550 5.1.1 user unknown' };
  }
}

/** isSimulatorAddress tells whether the product itself answers for `email` (nothing is delivered to it). */
export function isSimulatorAddress(email: string): boolean {
  const address = email.trim().toLowerCase();
  return address.endsWith(`@${SIMULATOR_DOMAIN}`) && address !== SIMULATOR_ADDRESSES.success;
}

/** What a relay's refusal carries (nodemailer's error fields): the SMTP code, its text, and the command refused. */
export interface SmtpRefusal {
  responseCode?: number;
  response?: string;
  command?: string;
}

/**
 * smtpBounce classifies a relay's refusal at send time (its synchronous 5xx answer at RCPT or DATA) with the one classification (domain/bounces.ts): a 5xx is a bounce, Permanent when the classification is hard (the address itself is bad) and
 * Transient otherwise (a passing trouble, or a refusal of the sender: a blocklist, policy, content, authentication).
 * It suppresses the address only when the relay refused the recipient at RCPT TO and the classification is hard: a
 * refusal after RCPT TO says nothing reliable about the address. A 4xx is not a bounce (the sender retries it):
 * returns undefined for anything but 5xx.
 */
export function smtpBounce(email: string, refusal: SmtpRefusal): (Feedback & { suppress: boolean }) | undefined {
  const code = refusal.responseCode;
  if (!code || code < 500 || code > 599) return undefined;
  const text = (refusal.response ?? '').trim();
  const atRcpt = /^RCPT\b/i.test(refusal.command ?? '');
  const verdict = classifyBounce({ diagnostic: text, replyCode: code, command: atRcpt ? 'RCPT' : (refusal.command ?? '').split(/\s/)[0] });
  const hard = verdict.class === 'hard';
  return {
    kind: 'bounce',
    email,
    bounceType: hard ? 'Permanent' : 'Transient',
    bounceSubType: bounceSubType(verdict),
    diagnosticCode: `smtp; ${text || `${code}`}`,
    suppress: hard && atRcpt,
    classification: { class: verdict.class, reason: verdict.reason, status: verdict.status },
  };
}

/** bounceSubType: the SES-style subtype of a classification (NoEmail, MailboxFull, MessageTooLarge, ContentRejected, General). */
export function bounceSubType(v: BounceVerdict): string {
  if (v.class === 'hard') return ['userunknown', 'hostunknown', 'hasmoved', 'notaccept'].includes(v.reason) ? 'NoEmail' : 'General';
  if (v.reason === 'mailboxfull') return 'MailboxFull';
  if (v.reason === 'mesgtoobig' || v.reason === 'exceedlimit') return 'MessageTooLarge';
  if (v.class === 'sender' && ['spamdetected', 'virusdetected', 'contenterror'].includes(v.reason)) return 'ContentRejected';
  return 'General';
}

/** SesNotification is the JSON Amazon SES publishes (through SNS: the `Message` field, parsed). */
export interface SesNotification {
  notificationType?: string;
  eventType?: string;
  mail?: { messageId?: string; headers?: Array<{ name: string; value: string }>; commonHeaders?: { messageId?: string } };
  bounce?: { bounceType?: string; bounceSubType?: string; timestamp?: string; bouncedRecipients?: Array<{ emailAddress: string; diagnosticCode?: string }> };
  complaint?: { complaintFeedbackType?: string; timestamp?: string; complainedRecipients?: Array<{ emailAddress: string }> };
}

/** The recipients of a notification that name an address (a malformed entry is skipped, not an error). */
function recipients<T extends { emailAddress: string }>(list: T[] | undefined): T[] {
  return Array.isArray(list) ? list.filter((r) => r && typeof r.emailAddress === 'string' && r.emailAddress.trim() !== '') : [];
}

/**
 * fromSesNotification turns one SES notification into feedback items (one per recipient). Delivery and other types
 * give none, and so do recipient entries without an emailAddress string. The Message-ID is ours (from the mail's headers), not SES's own id. Throws on a notification that is not
 * an object.
 */
export function fromSesNotification(n: SesNotification): Feedback[] {
  if (!n || typeof n !== 'object') throw new Error('not an SES notification');
  const type = n.notificationType ?? n.eventType;
  const header = n.mail?.headers?.find((h) => h.name.toLowerCase() === 'message-id')?.value ?? n.mail?.commonHeaders?.messageId;
  if (type === 'Bounce' && n.bounce) {
    const bounceType = (['Permanent', 'Transient', 'Undetermined'] as const).find((t) => t === n.bounce?.bounceType) ?? 'Undetermined';
    return recipients(n.bounce.bouncedRecipients).map((r) => ({
      kind: 'bounce',
      email: r.emailAddress,
      bounceType,
      bounceSubType: n.bounce?.bounceSubType,
      diagnosticCode: r.diagnosticCode,
      messageId: header,
      timestamp: n.bounce?.timestamp,
    }));
  }
  if (type === 'Complaint' && n.complaint) {
    return recipients(n.complaint.complainedRecipients).map((r) => ({
      kind: 'complaint',
      email: r.emailAddress,
      feedbackType: n.complaint?.complaintFeedbackType,
      messageId: header,
      timestamp: n.complaint?.timestamp,
    }));
  }
  return [];
}

/** eventJson is the json stored on a ses_event_bounce / ses_event_complaint event, in SES's own field names. */
export function eventJson(f: Feedback): Record<string, unknown> {
  if (f.kind === 'complaint') {
    return { complaint: { complaintFeedbackType: f.feedbackType ?? null, complainedRecipients: [{ emailAddress: f.email }] }, message_id: f.messageId ?? null };
  }
  const c = f.classification;
  return {
    bounce: {
      bounceType: f.bounceType ?? 'Undetermined',
      bounceSubType: f.bounceSubType ?? null,
      bouncedRecipients: [{ emailAddress: f.email, diagnosticCode: f.diagnosticCode ?? null, ...(c?.status ? { status: c.status } : {}) }],
      ...(c ? { class: c.class, reason: c.reason, reportingMTA: c.reportingMta ?? null, remoteMtaIp: c.remoteMta ?? null } : {}),
    },
    message_id: f.messageId ?? null,
  };
}
