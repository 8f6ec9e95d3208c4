/**
 * Event names the product itself records (spec part 1 §3 "Event names"; workflow_started and workflow_completed are
 * the workflow engine's, spec part 2 §5 filter attributes date_workflow_started / date_workflow_completed). Every
 * module — server, workers, console, tests — names these events through EVENT, never as bare strings, so a rename
 * or a search finds every use.
 */
export const EVENT = {
  /** An email the relay accepted (one per sent email). */
  sendSuccess: 'email_send_result_success',
  /** An email that will not be sent: refused in the sandbox, permanent relay refusal, or out of attempts. */
  sendFailure: 'email_send_result_failure',
  /** The tracking pixel was fetched (spec part 1 §3). */
  open: 'ses_event_open',
  /** A tracked link was followed. */
  click: 'ses_event_click',
  /** A bounce report (SNS, JSON feedback, SMTP 5xx at send time, or the mailbox simulator). */
  bounce: 'ses_event_bounce',
  /** A complaint (feedback loop) report. */
  complaint: 'ses_event_complaint',
  /** The recipient stopped marketing mail: the /u/ page, RFC 8058 one-click, or a workflow's unsubscriber node. */
  unsubscribed: 'user_unsubscribed',
  /** A contact entered a workflow (its trigger step ran). */
  workflowStarted: 'workflow_started',
  /** A workflow run finished every branch. */
  workflowCompleted: 'workflow_completed',
} as const;

/** The name of an event the product records itself. */
export type SystemEventName = (typeof EVENT)[keyof typeof EVENT];

/** The workflow trigger type that enters contacts created or updated (spec part 2 §5 node types). */
export const USER_UPSERTED_TRIGGER = 'user_upserted';
