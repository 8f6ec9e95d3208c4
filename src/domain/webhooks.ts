/**
 * Webhook event types: what a project's endpoints may listen to, each with its label for the console and
 * the event it reports (src/domain/events.ts EVENT; null for contact changes, which come from the contacts table).
 * The database's webhook_event_type (core/webhooks/sql/webhooks.sql) maps the same events to the same types.
 */
import { EVENT } from './events.ts';

export interface WebhookEventType {
  type: string;
  label: string;
  /** The recorded event it reports; null for contact.created / contact.updated and email.deferred (not events). */
  event: string | null;
}

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  { type: 'email.sent', label: 'Email sent (accepted by the relay)', event: EVENT.sendSuccess },
  { type: 'email.deferred', label: 'Email deferred (the relay asked to try later)', event: null },
  { type: 'email.failed', label: 'Email failed (will not be sent)', event: EVENT.sendFailure },
  { type: 'email.bounced', label: 'Email bounced', event: EVENT.bounce },
  { type: 'email.complained', label: 'Complaint (marked as spam)', event: EVENT.complaint },
  { type: 'email.opened', label: 'Email opened', event: EVENT.open },
  { type: 'email.clicked', label: 'Link clicked', event: EVENT.click },
  { type: 'contact.unsubscribed', label: 'Contact unsubscribed (from everything or a topic)', event: EVENT.unsubscribed },
  { type: 'contact.created', label: 'Contact created', event: null },
  { type: 'contact.updated', label: 'Contact updated', event: null },
  { type: 'workflow.completed', label: 'Workflow completed', event: EVENT.workflowCompleted },
];

/** The type of the test message the console's "Send test event" sends (whatever the endpoint listens to). */
export const WEBHOOK_TEST_TYPE = 'webhook.test';

/**
 * The job-log name of the entry an endpoint's revealed signing secret leaves in the project's notifications
 * (core/webhooks revealSecret; the console's label in account/jobLog.ts).
 */
export const JOB_WEBHOOK_SECRET_REVEALED = 'JOB_WEBHOOK_SECRET_REVEALED';

/** secretHint is what lists show of a signing secret: whsec_, an ellipsis and its last 4 characters (`last4`). */
export function secretHint(last4: string): string {
  return `whsec_…${last4}`;
}

/** isWebhookEventType is true for a type endpoints may listen to. */
export function isWebhookEventType(type: string): boolean {
  return WEBHOOK_EVENT_TYPES.some((t) => t.type === type);
}

/**
 * retryWaitS is how long to wait before attempt `attempt` + 1 after `attempt` attempts failed (1-based), in seconds:
 * the schedule's entry, the last one repeating (Standard Webhooks' recommendation of growing waits).
 */
export function retryWaitS(schedule: readonly number[], attempt: number): number {
  if (!schedule.length) return 60;
  return schedule[Math.min(attempt, schedule.length) - 1];
}
