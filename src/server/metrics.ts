/**
 * The process's own metrics: what the sender counts as it records each attempt's outcome, and Node's
 * default metrics (event-loop lag, heap, CPU, handles). One registry per process, as Prometheus expects: each process
 * is scraped on its own and the sums are taken over instances. What depends on an app (HTTP durations) or is read from
 * the database at scrape time (queue depths, relay states) lives in plugins/metrics.ts, which serves both at /metrics.
 *
 * Labels stay few and fixed: a reason is a short class (the stage an attempt failed at, or why it waits), never an
 * error's text, so a relay's varied replies cannot grow the number of series.
 */
import { FEEDBACK_PROVIDERS } from '../domain/providerFeedback.ts';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The registry of this process's counters and of Node's default metrics. */
export const processRegistry = new Registry();

/**
 * Why an email was deferred (tried again later): the stage that failed (`store`: its copy could not be written;
 * `deliver`: a 4xx reply or a dropped connection), `throttled` (the relay asked to slow down), `relay_down` (the relay
 * refused the connection, or every relay is taken for down) or `daily_cap` (a warm-up or daily_quota is reached; the
 * email waits for the next UTC day).
 */
export const DEFERRAL_REASONS = ['store', 'deliver', 'throttled', 'relay_down', 'daily_cap', 'other'] as const;
export type DeferralReason = (typeof DEFERRAL_REASONS)[number];

/**
 * Why an email failed for good: the stage (`render`: its template does not render; `store`; `deliver`: a 5xx reply),
 * `expired` (deferred for longer than DEFER_MAX_AGE), or a check at send time (`suppressed`, `unsubscribed`, `sender`:
 * its persona is missing or unverified, `template`: its template is missing, `policy`: the project's sunset policy or
 * frequency cap holds it).
 */
export const FAILURE_REASONS = ['render', 'store', 'deliver', 'expired', 'suppressed', 'unsubscribed', 'sender', 'template', 'policy', 'other'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** How a sent email left: over SMTP, into the capture transport (SMTP_URL unset), or answered by the mailbox simulator. */
export const SENT_TRANSPORTS = ['smtp', 'capture', 'simulator'] as const;
export type SentTransport = (typeof SENT_TRANSPORTS)[number];

/** The sender's counters (src/workers/sender.ts increments them when an outcome is recorded in the outbox). */
export const sendMetrics = {
  /** Emails recorded as sent (the relay's 250 and the sent mark written), by transport. */
  sent: new Counter({
    name: 'mailwright_emails_sent_total',
    help: 'Emails recorded as sent (accepted by the relay), by transport',
    labelNames: ['transport'] as const,
    registers: [processRegistry],
  }),
  /** Attempts that put an email back to pending for a later attempt, by reason class. */
  deferred: new Counter({
    name: 'mailwright_emails_deferred_total',
    help: 'Send attempts deferred (the email is tried again later), by reason class',
    labelNames: ['reason'] as const,
    registers: [processRegistry],
  }),
  /** Emails that failed for good, by reason class. */
  failed: new Counter({
    name: 'mailwright_emails_failed_total',
    help: 'Emails failed for good, by reason class',
    labelNames: ['reason'] as const,
    registers: [processRegistry],
  }),
  /** Seconds from when an email was due (its send_at) to the relay's acceptance; deferrals and waits included. */
  latency: new Histogram({
    name: 'mailwright_send_latency_seconds',
    help: 'Seconds from when an email was due to when the relay accepted it',
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400],
    registers: [processRegistry],
  }),
};

/**
 * What the inbound receiver and the bounce mailbox did with each returned email: `applied` with its class
 * (hard, soft, sender, undetermined, complaint), or ignored with why (no_email: it names no email of ours;
 * forged_token; unknown_recipient: a recipient we never mailed; auto_reply; delivered; delayed: a delay warning;
 * duplicate: the same email reported again; unreadable), or refused at the
 * SMTP level (relay: an address outside our bounce domains; too_big; rate: the client sent too many). DMARC aggregate
 * reports to dmarc@ (core/domains/dmarc.ts): dmarc_stored, duplicate (that report was stored before), dmarc_refused.
 */
export const INBOUND_RESULTS = [
  'hard',
  'soft',
  'sender',
  'undetermined',
  'complaint',
  'no_email',
  'forged_token',
  'unknown_recipient',
  'auto_reply',
  'delivered',
  'delayed',
  'duplicate',
  'unreadable',
  'relay',
  'too_big',
  'rate',
  'error',
  'not_feedback',
  'unauthorized',
  'dmarc_stored',
  'dmarc_refused',
] as const;
export type InboundResult = (typeof INBOUND_RESULTS)[number];

/** The inbound feedback counter, by source (smtp, mailbox, or a provider's webhook: postmark, mailgun, …) and result. */
export const inboundMetrics = {
  messages: new Counter({
    name: 'mailwright_inbound_messages_total',
    help: 'Returned emails (bounces, complaint reports, auto-replies) and provider webhook events received, by source and result',
    labelNames: ['source', 'result'] as const,
    registers: [processRegistry],
  }),
};
for (const result of INBOUND_RESULTS) for (const source of ['smtp', 'mailbox', ...FEEDBACK_PROVIDERS]) inboundMetrics.messages.inc({ source, result }, 0);

// Every series exists from the start at 0, so a rate over the first increment is right and dashboards show zeros.
for (const transport of SENT_TRANSPORTS) sendMetrics.sent.inc({ transport }, 0);
for (const reason of DEFERRAL_REASONS) sendMetrics.deferred.inc({ reason }, 0);
for (const reason of FAILURE_REASONS) sendMetrics.failed.inc({ reason }, 0);

/** stageClass maps a failed attempt's stage to its label, so an unexpected stage cannot add a series. */
export function stageClass(stage: string): 'render' | 'store' | 'deliver' | 'other' {
  return stage === 'render' || stage === 'store' || stage === 'deliver' ? stage : 'other';
}

let defaultsStarted = false;

/**
 * startProcessMetrics starts Node's default metrics on processRegistry (event-loop lag as
 * nodejs_eventloop_lag_seconds and its percentiles, heap, GC, CPU, open handles), once per process; later calls do
 * nothing. Called when an app registers /metrics, so a script that only sends starts no event-loop monitor.
 */
export function startProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ register: processRegistry });
}
