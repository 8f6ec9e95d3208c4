/**
 * Whether an email may still be sent at the moment it leaves (spec part 2 §3-§5; docs/architecture.md "Who a blast
 * reaches"): the recipient may have bounced, complained or unsubscribed since the email was queued. The rule is the
 * audience's own (core/audience/exclusion.ts exclusionSql), read per claimed batch by SEND_TIME_EXCLUSIONS; sendRefusal
 * turns its answer, and the sender persona and template checks, into the reason the email fails.
 */
import { exclusionSql, type Exclusion } from '../audience/exclusion.ts';
import { marketingEmailSql, overCapAtSendSql, policyJoins, sunsetSql } from '../audience/policies.ts';
import { PermanentError } from './outcomes.ts';

/**
 * OPT_OUTS_APPLY: whether unsubscribes, topic opt-outs, pending confirmations and the audience policies stop outbox
 * row `o`: it is marketing mail (core/audience/policies.ts marketingEmailSql — a broadcast stream, a marketing
 * template or an API/SMTP message, not a test email). Transactional streams never apply them; bounces and complaints
 * stop every stream.
 */
const OPT_OUTS_APPLY = marketingEmailSql('o');

/**
 * SEND_TIME_EXCLUSIONS: for outbox rows $1 (ids), why each may not be sent now (`excluded`, NULL when it may), the
 * reason its address is on the suppression list (`listed`, NULL when not) and whether its contact left the email's
 * topic (`left_topic`), and whether the opt-outs apply (`marketing`, OPT_OUTS_APPLY); the topic is the blast's, else
 * the template's. The project's sunset policy (not for a re-engagement blast's email, which the expansion let through)
 * and frequency cap apply to marketing (core/audience/policies.ts).
 */
export const SEND_TIME_EXCLUSIONS = `SELECT o.id::text AS id,
         ${exclusionSql({
           contact: 'c',
           suppression: 's',
           email: 'o.email',
           marketing: OPT_OUTS_APPLY,
           topic: 'coalesce(b.topic_id, t.topic_id)',
           sunset: `(NOT coalesce(b.re_engagement, false) AND ${sunsetSql('o.contact_id')})`,
           overCap: overCapAtSendSql('o'),
         })} AS excluded, ${OPT_OUTS_APPLY} AS marketing,
         s.reason AS listed, coalesce(coalesce(b.topic_id, t.topic_id) = ANY(c.unsubscribed_topic_ids), false) AS left_topic
    FROM outbox o
    LEFT JOIN contacts c ON c.id = o.contact_id
    LEFT JOIN suppressions s ON s.project_id = o.project_id AND s.email = lower(btrim(o.email))
    LEFT JOIN templates t ON t.id = o.template_id
    LEFT JOIN email_blasts b ON b.id = o.blast_id
${policyJoins('o.project_id', 'o.contact_id')}
   WHERE o.id = ANY($1::bigint[])`;

/** One row of SEND_TIME_EXCLUSIONS. */
export interface SendExclusion {
  id: string;
  excluded: Exclusion | null;
  listed: string | null;
  left_topic: boolean;
  /** Whether opt-outs apply to it (OPT_OUTS_APPLY): it is marketing mail, and carries List-Unsubscribe. */
  marketing?: boolean;
}

/**
 * sendRefusal: why the email to `email` must not be sent (a PermanentError, its `kind` the failed-emails metric's
 * class), or undefined when it may: its sender persona is missing or unverified, its template (when it names one) is
 * missing, or its recipient is excluded (`exclusion`, SEND_TIME_EXCLUSIONS' row for it).
 */
export function sendRefusal(
  email: string,
  persona: { email: string; verified_at: Date | null } | undefined,
  template: { missing: boolean },
  exclusion: SendExclusion | undefined,
): PermanentError | undefined {
  if (!persona) return new PermanentError('sender persona not found', 'sender');
  if (!persona.verified_at) {
    return new PermanentError(
      `sender not verified: ${persona.email} has not confirmed the verification email sent to it; follow its link, then send again`,
      'sender',
    );
  }
  if (template.missing) return new PermanentError('template not found', 'template');
  const { excluded, listed, left_topic } = exclusion ?? { excluded: null, listed: null, left_topic: false };
  if (!excluded) return undefined;
  const onList = listed && (excluded === 'unsubscribed' ? listed === 'unsubscribed' : listed !== 'unsubscribed');
  if (onList) return new PermanentError(`suppressed: ${email} is on the suppression list (${listed})`, 'suppressed');
  switch (excluded) {
    case 'bounced':
    case 'suppressed':
      return new PermanentError(`suppressed: ${email} is marked ${excluded === 'bounced' ? 'bounced' : 'complained'} on its contact`, 'suppressed');
    case 'unsubscribed':
      return new PermanentError(`unsubscribed: ${email} unsubscribed from ${left_topic ? "this email's topic" : 'marketing email'}`, 'unsubscribed');
    case 'unconfirmed':
      return new PermanentError(`unconfirmed: ${email} has not confirmed the subscription yet (double opt-in)`, 'unsubscribed');
    case 'invalid':
      return new PermanentError(`invalid: ${email} is not a valid email address`, 'other');
    case 'sunset':
      return new PermanentError(`sunset: ${email} has not opened or clicked for longer than the project's sunset policy allows`, 'policy');
    case 'frequency':
      return new PermanentError(`frequency: ${email} already got as many marketing emails as the project's frequency cap allows`, 'policy');
  }
}
