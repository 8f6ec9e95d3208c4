/** Pure helpers of the contact page's bounces and complaints (ContactFeedback): what each event means, in words. */

export const BOUNCE = 'ses_event_bounce';
export const COMPLAINT = 'ses_event_complaint';

/** A bounce or complaint event as GET {event}/all_events lists it (the fields read here). */
export interface FeedbackEvent {
  id: string;
  name: string;
  email: string | null;
  emitted_at: string;
  json?: Record<string, unknown> | null;
}

export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** What an event means, in words, and the chip colour. */
export function feedbackKind(e: Pick<FeedbackEvent, 'name' | 'json'>): { label: string; color: 'error' | 'warning' | 'default' } {
  if (e.name === COMPLAINT) return { label: 'Complaint', color: 'error' };
  const bounce = obj(obj(e.json).bounce);
  if (bounce.class === 'sender') return { label: 'Blocked (sender’s side)', color: 'warning' };
  if (bounce.bounceType === 'Permanent') return { label: 'Hard bounce', color: 'error' };
  return { label: 'Soft bounce', color: 'default' };
}

/** The receiver's words of a bounce (its diagnostic code without the `smtp;` type), or the complaint's feedback type. */
export function receiverWords(e: Pick<FeedbackEvent, 'name' | 'json'>): string {
  const json = obj(e.json);
  if (e.name === COMPLAINT) {
    const type = obj(json.complaint).complaintFeedbackType;
    return typeof type === 'string' && type ? `Feedback type: ${type}` : '';
  }
  const first = obj((obj(json.bounce).bouncedRecipients as unknown[] | undefined)?.[0]);
  return typeof first.diagnosticCode === 'string' ? first.diagnosticCode.replace(/^smtp;\s*/i, '') : '';
}

/** Where feedback came from (the event's json.source), in words. */
export const SOURCES: Record<string, string> = {
  smtp: 'returned by email',
  mailbox: 'bounce mailbox',
  sns: 'Amazon SES',
  json: 'feedback API',
  simulator: 'simulator',
  postmark: 'Postmark',
  mailgun: 'Mailgun',
  sendgrid: 'SendGrid',
  brevo: 'Brevo',
  resend: 'Resend',
};
