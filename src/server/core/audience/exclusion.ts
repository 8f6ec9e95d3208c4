/**
 * Who may not receive an email, and why (spec part 2 §3-§5 Email blast; the sending rules of docs/architecture.md
 * "Who a blast reaches"): the one definition of the exclusion rule, read by a blast's audience at expansion and in
 * the preview (./queries.ts audienceCte) and again by the sender for every email it is about to send
 * (core/sending/eligibility.ts SEND_TIME_EXCLUSIONS), since a recipient may bounce, complain or unsubscribe between
 * the two.
 */

/** Why an address is left out: the `excluded` column of the audience and of the send-time check. */
export type Exclusion = 'bounced' | 'suppressed' | 'unsubscribed' | 'unconfirmed' | 'invalid' | 'sunset' | 'frequency';

/** The SQL expressions exclusionSql reads (each a column, placeholder or expression of the caller's query). */
export interface ExclusionInputs {
  /** Alias of the recipient's row of `contacts` (its columns may be NULL: a recipient that is no contact). */
  contact: string;
  /** Alias of its `suppressions` row (project, lower-case address), LEFT JOINed: NULL when not listed. */
  suppression: string;
  /** The address as sent to (text). */
  email: string;
  /** Whether the opt-outs apply (boolean): the email is marketing, and not an operator's test email. */
  marketing: string;
  /** The email's subscription topic (a uuid), when it has one. */
  topic?: string;
  /** Whether the contact is past the project's sunset policy (./policies.ts sunsetSql), when the policy is read. */
  sunset?: string;
  /** Whether the contact is over the project's frequency cap (./policies.ts overCap…Sql), when the cap is read. */
  overCap?: string;
}

/**
 * exclusionSql: a CASE giving the Exclusion of one recipient, or NULL when it may be sent to. In order:
 * 'bounced' (its contact hard-bounced, or a 'bounce' suppression) and 'suppressed' (complained, or any other
 * suppression but 'unsubscribed') stop all mail; when `marketing`, 'unsubscribed' (unsubscribed_at, an 'unsubscribed'
 * suppression, or left `topic`) and 'unconfirmed' (double opt-in pending); else 'invalid' for an address checkEmail
 * would refuse (email_is_valid, ./sql); then, for marketing, the project's policies: 'sunset' and 'frequency'.
 */
export function exclusionSql({ contact: c, suppression: s, email, marketing, topic, sunset, overCap }: ExclusionInputs): string {
  const leftTopic = topic ? ` OR ${topic}::uuid = ANY(${c}.unsubscribed_topic_ids)` : '';
  const policies =
    (sunset ? `\n              WHEN ${marketing} AND ${sunset} THEN 'sunset'` : '') +
    (overCap ? `\n              WHEN ${marketing} AND ${overCap} THEN 'frequency'` : '');
  return `CASE WHEN ${c}.bounced_at IS NOT NULL OR ${s}.reason = 'bounce' THEN 'bounced'
              WHEN ${c}.complained_at IS NOT NULL OR ${s}.reason <> 'unsubscribed' THEN 'suppressed'
              WHEN ${marketing} AND (${c}.unsubscribed_at IS NOT NULL OR ${s}.reason = 'unsubscribed'${leftTopic}) THEN 'unsubscribed'
              WHEN ${marketing} AND ${c}.confirmation_pending_at IS NOT NULL THEN 'unconfirmed'
              WHEN NOT email_is_valid(${email}) THEN 'invalid'${policies} END`;
}
