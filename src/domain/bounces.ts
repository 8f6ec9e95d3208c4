/**
 * One classification of delivery failures, used by every source of feedback: the synchronous answers
 * of a relay at RCPT and DATA, asynchronous delivery status notifications (RFC 3464) and the free-text bounces of MTAs
 * that write none, ARF complaint reports (RFC 5965), auto-replies (RFC 3834) and providers' webhooks. Pure: it reads
 * an enhanced status code (RFC 3463), an SMTP reply code and the receiver's words, and says what the failure means
 * for the recipient's address:
 * - `hard`: the address itself is bad (no such user, no such domain, moved, a null MX): suppress at the first;
 * - `soft`: a passing trouble at the recipient's side (mailbox full, over quota, too large, expired in queue,
 *   greylisting, most 4.x.x): counted, the address suppressed after SOFT_BOUNCE_LIMIT of them in a row;
 * - `sender`: the receiver refused the sender, not the recipient (a blocklist, "blocked", spam or virus detected,
 *   policy, authentication (SPF, DKIM, DMARC), reputation, PTR, rate, relaying denied, 5.7.x): never suppresses the
 *   recipient; counted per sending domain and relay;
 * - `complaint`: a feedback report (abuse, fraud, opt-out, …): suppresses and unsubscribes from all marketing;
 * - `auto_reply` and `delivered`: recorded, never a bounce;
 * - `undetermined`: a failure whose cause could not be read: counted like a soft bounce.
 * The rules read the receiver's words before the codes, because the words are more specific than the codes MTAs
 * pick (a "550 5.1.1 … blocked using Spamhaus" refuses the sender; "5.0.0" says nothing), then the enhanced status
 * code, then the reply code. `reason` names the rule that decided, in sisimai's vocabulary (userunknown, mailboxfull,
 * blocked, …) so that figures can be compared with that decoder's.
 */

/** What a failure means for the recipient's address (see the module's comment). */
export type BounceClass = 'hard' | 'soft' | 'sender' | 'complaint' | 'auto_reply' | 'delivered' | 'undetermined';

/** What is known of one recipient's failure: any of them may be missing. */
export interface BounceFacts {
  /** The enhanced status code (RFC 3463), e.g. '5.1.1'. */
  status?: string;
  /** The SMTP reply code, e.g. 550. */
  replyCode?: number;
  /** The receiver's words (a DSN's Diagnostic-Code, an SMTP answer, or the text of a non-standard bounce). */
  diagnostic?: string;
  /** A DSN's Action (failed, delayed, delivered, relayed, expanded). */
  action?: string;
  /** The SMTP command the receiver refused, when known ('RCPT', 'DATA', 'MAIL', …; see findCommand). */
  command?: string;
}

/** The classification: its class, the rule's reason (sisimai's names), and the status code it read or implied. */
export interface BounceVerdict {
  class: BounceClass;
  reason: string;
  status?: string;
}

/** One rule over the receiver's words. */
interface TextRule {
  reason: string;
  class: BounceClass;
  pattern: RegExp;
  /** The words decide even over a specific status code (a receiver's own wording for its own code). */
  decisive?: boolean;
}

/**
 * Rules over the receiver's words, first match wins: the sender-side ones first (a blocklist named beside "user
 * unknown" is still the sender's problem), then the address's, then passing troubles. The phrases are those of the
 * major MTAs and providers (Postfix, Sendmail, Exim, qmail, Exchange, Gmail, Yahoo, Outlook, iCloud, …).
 */
const TEXT_RULES: TextRule[] = [
  // A few receivers' wordings for a recipient that does not exist read like a refusal of the sender: named first.
  {
    reason: 'userunknown',
    class: 'hard',
    decisive: true,
    pattern:
      /\b(5\.4\.1 recipient address rejected|recipient address rejected: access denied|not listed in (the )?(public )?(name & address book|domino directory)|recipient not found by smtp address lookup)\b/i,
  },
  // The sender's side: blocklists, reputation, authentication, content, policy, rate, relaying.
  {
    reason: 'blocked',
    class: 'sender',
    pattern:
      /\b(spamhaus|spamcop|sorbs|barracuda ?(central|reputation)|uceprotect|abuseat|dnsbl|rbl|black ?list(ed)?|block ?list(ed)?|(?<!not )listed (at|in|on|by)|blocked using|client host .{0,80} blocked|ip .{0,40}(blocked|blacklisted|block ?listed)|(connection|service|access) (refused|denied|blocked)|your ip|sender ip|open relay|no access from|poor reputation|bad reputation|low reputation|reputation|blocked by|has been blocked|temporarily (deferred|blocked)|not allowed to send|banned)\b/i,
  },
  {
    reason: 'authfailure',
    class: 'sender',
    pattern:
      /\b(spf|dkim|dmarc)\b|\b(not|un) ?authenticated\b|authentication (failed|failure|required)|sender (is )?not authorized|5\.7\.(1|2)[0-9]\b|5\.7\.26|5\.7\.25/i,
  },
  {
    reason: 'requireptr',
    class: 'sender',
    pattern: /\b(ptr|reverse (dns|lookup)|rdns|no ptr|does not resolve to|hostname .{0,40}(does not|doesn't) (match|resolve))\b/i,
  },
  {
    reason: 'spamdetected',
    class: 'sender',
    pattern: /\b(spam|junk mail|unsolicited|bulk mail|message (was )?(considered|classified|identified|detected) as|content (rejected|filter)|phish)/i,
  },
  { reason: 'virusdetected', class: 'sender', pattern: /\b(virus|malware|infected|dangerous content)\b/i },
  {
    reason: 'norelaying',
    class: 'sender',
    pattern: /\b(relay(ing)? (access )?(denied|not permitted|prohibited)|not permitted to relay|unable to relay|we do not relay)\b/i,
  },
  {
    reason: 'speeding',
    class: 'sender',
    pattern: /\b(rate limit(ed)?|too many (messages|connections|recipients|mails)|sending rate|throttl|try again later)\b/i,
  },
  { reason: 'failedstarttls', class: 'sender', pattern: /\b(starttls|tls (is )?required|must issue a starttls)\b/i },
  {
    reason: 'rejected',
    class: 'sender',
    pattern:
      /\b(sender (address )?(rejected|refused|denied|verify failed)|domain of sender address .{0,80} does not exist|sender domain|mail from .{0,40}(rejected|refused)|return path|envelope sender)\b/i,
  },
  { reason: 'policyviolation', class: 'sender', pattern: /\b(policy|not accepted by the recipient'?s? (organization|domain)|prohibited|administratively)\b/i },
  // The recipient's own filtering refused it: says nothing about the address.
  {
    reason: 'filtered',
    class: 'soft',
    pattern:
      /\b(recipient('s)? preferences|refused due to recipient|filtered|domain filter|rejected by (the )?(recipient|user)|receiving mail from .{0,40} (is )?(not allowed|denied))\b/i,
  },
  // The address itself (a domain that takes no mail: no MX, a null MX as RFC 7505 has it).
  { reason: 'notaccept', class: 'hard', pattern: /\b(no mx (record )?found|null mx|does not accept (e-?)?mail|accepts no (e-?)?mail)\b/i },
  { reason: 'hasmoved', class: 'hard', pattern: /\b(has moved|address (has )?changed|no longer (available|valid) at this address)\b/i },
  {
    reason: 'hostunknown',
    class: 'hard',
    pattern:
      /\b(host (or domain name )?(not found|unknown)|unknown host|domain is not reachable|domain (not found|does not exist|doesn't exist|unknown)|no such domain|name or service not known|nxdomain|unrout(e)?able (mail )?domain|unrouteable address|no mx|null mx|does not accept mail|accepts no mail|domain .{0,60} (is not|isn't) (a valid|accepting))\b/i,
  },
  {
    reason: 'userunknown',
    class: 'hard',
    pattern:
      /\b(user(name)? (unknown|not found|does not exist|doesn't exist)|unknown (user|recipient|mailbox|address|local[- ]part)|no such (user|mailbox|recipient|address|account|person)|(mailbox|recipient|address|account|user) (does not exist|doesn't exist|not found|unavailable|invalid|unknown)|invalid (recipient|mailbox|address|user)|(recipient|address) rejected|not a valid (mailbox|recipient|user)|mailbox (not present|disabled|inactive)|no mailbox|is not a known user|not listed in|couldn't find any host named|undeliverable address|bad destination mailbox|unknown or illegal alias|there is no one at this address|(doesn't|does not) have an? .{1,60} account|address (is )?not (valid|recogni[sz]ed))\b/i,
  },
  // Passing troubles at the recipient's side.
  {
    reason: 'mailboxfull',
    class: 'soft',
    pattern:
      /\b(mailbox (is )?full|over ?quota|quota (exceeded|full)|exceed(s|ed)? (the |his |her |its )?(storage|quota)|insufficient (storage|disk)|mailbox size limit|full mailbox|out of (storage|space))\b/i,
  },
  {
    reason: 'mesgtoobig',
    class: 'soft',
    pattern: /\b(message (is )?too (large|big)|size (limit|exceeds)|exceeds (the )?(maximum )?(message )?size|message size)\b/i,
  },
  { reason: 'suspend', class: 'soft', pattern: /\b(suspended|disabled|deactivated|inactive|locked|frozen|account (has been )?(closed|expired))\b/i },
  {
    reason: 'expired',
    class: 'soft',
    pattern:
      /\b(expired|retry time(out)? (exceeded|reached)|delivery time|could not be delivered (for|within)|too long in (the )?queue|gave up|giving up|queue(d)? too long|timed? ?out)\b/i,
  },
  { reason: 'greylisted', class: 'soft', pattern: /\b(grey ?list|gray ?list|try again|temporar(y|ily))\b/i },
  {
    reason: 'networkerror',
    class: 'soft',
    pattern: /\b(network|connection (timed out|lost|reset|refused)|no route|loop(s)? (back|detected)|mail loop|dns (error|failure)|lookup failure)\b/i,
  },
];

/** Enhanced status codes (RFC 3463) that decide alone when the words did not. */
const STATUS_RULES: Array<[RegExp, BounceClass, string]> = [
  [/^5\.6\.\d+$/, 'sender', 'contenterror'],
  [/^5\.1\.(1|3|10)$/, 'hard', 'userunknown'],
  [/^5\.1\.2$/, 'hard', 'hostunknown'],
  [/^5\.1\.6$/, 'hard', 'hasmoved'],
  [/^5\.4\.4$/, 'hard', 'hostunknown'],
  [/^5\.1\.(7|8)$/, 'sender', 'rejected'],
  [/^5\.7\.\d+$/, 'sender', 'securityerror'],
  [/^[45]\.2\.2$/, 'soft', 'mailboxfull'],
  [/^[45]\.2\.1$/, 'soft', 'suspend'],
  [/^[45]\.3\.4$/, 'soft', 'mesgtoobig'],
  [/^[45]\.2\.3$/, 'soft', 'exceedlimit'],
  [/^[45]\.4\.7$/, 'soft', 'expired'],
  [/^[45]\.4\.\d+$/, 'soft', 'networkerror'],
  [/^[45]\.3\.\d+$/, 'soft', 'systemerror'],
  [/^4\.\d+\.\d+$/, 'soft', 'undefined'],
];

/** The first enhanced status code (RFC 3463: class.subject.detail) in a text, or undefined. */
export function findStatus(text: string | undefined): string | undefined {
  return /(?:^|[^\d.])([245]\.\d{1,3}\.\d{1,3})(?![\d.]*\d)/.exec(text ?? '')?.[1];
}

/**
 * The first SMTP failure reply code (RFC 5321: 4xx, 5xx) in a text: at its start or a line's, after "said:",
 * "smtp;", "with:", "<<<" or "(reason:", or just before an enhanced status code. A number elsewhere (a size, a
 * queue id) is not one.
 */
export function findReplyCode(text: string | undefined): number | undefined {
  const t = text ?? '';
  const m =
    /(?:^|\n|\bsaid:?|\bsmtp;|\bwith:|<<<|\(reason:|\berror:|\bresponse was:)\s*([45][0-5]\d)(?=[\s-:]|$)/i.exec(t) ??
    /\b([45][0-5]\d)[\s-]+[45]\.\d{1,3}\.\d{1,3}\b/.exec(t);
  return m ? Number(m[1]) : undefined;
}

/**
 * classifyBounce classifies one recipient's failure (see the module's comment). A status or reply code in the words
 * is read when the facts give none. Never throws.
 */
export function classifyBounce(facts: BounceFacts): BounceVerdict {
  const text = (facts.diagnostic ?? '').replace(/\s+/g, ' ').trim();
  // The receiver's own code (in its words) before the reporting MTA's summary of it (a DSN's Status field).
  const status = findStatus(text) ?? normaliseStatus(facts.status);
  const replyCode = facts.replyCode ?? findReplyCode(text);
  const action = facts.action?.trim().toLowerCase();
  if (action === 'delivered' || action === 'relayed' || action === 'expanded' || status?.startsWith('2.')) {
    return { class: 'delivered', reason: 'delivered', status };
  }
  const temporary = action === 'delayed' || status?.startsWith('4.') || (!status && replyCode !== undefined && replyCode < 500);
  const afterData = /^DATA/i.test(facts.command ?? '');
  // A specific status code (x.y.z with y and z not 0, any x.6.z or x.7.z; x.2.1 "mailbox disabled" is given for
  // unknown users too often to count) is chosen with care by the receiver: it outranks the words and the command.
  const specific = !!status && /^\d\.[67]\.\d+$|^\d\.[1-9]\d*\.[1-9]\d*$/.test(status) && !/^\d\.2\.1$/.test(status);
  const verdict = (cls: BounceClass, reason: string): BounceVerdict => {
    // A temporary failure never condemns the address, whatever its words say; nor does an unknown user the receiver
    // named only after it had the message (DATA): that is its filtering (as smtpBounce has it for relays' answers).
    if (cls === 'hard' && temporary) return { class: 'soft', reason, status };
    if (cls === 'hard' && afterData && reason === 'userunknown' && !specific) return { class: 'soft', reason: 'filtered', status };
    return { class: cls, reason, status };
  };
  const rule = TEXT_RULES.find((r) => r.pattern.test(text));
  // The sender's side and the recipient's filtering are read first: their words are the most specific.
  if (rule && (rule.class === 'sender' || rule.decisive)) return verdict(rule.class, rule.reason);
  if (rule?.reason === 'filtered') return verdict(rule.class, rule.reason);
  // Then a specific status code (x.y.z with y and z not 0, or any 5.7.z), which MTAs choose with care.
  const byStatus = status ? STATUS_RULES.find(([re]) => re.test(status)) : undefined;
  if (byStatus && specific) return verdict(byStatus[1], byStatus[2]);
  if (rule) return verdict(rule.class, rule.reason);
  if (byStatus) return verdict(byStatus[1], byStatus[2]);
  if (temporary) return { class: 'soft', reason: 'undefined', status };
  if (replyCode === 553 || replyCode === 551) return verdict('hard', 'userunknown');
  return { class: 'undetermined', reason: 'undefined', status };
}

/**
 * findCommand names the SMTP command a receiver's words say it refused: 'DATA' for "after end of data", "in reply to
 * end of DATA command", a ">>> DATA" transcript line; 'RCPT' for "after RCPT TO", "in reply to RCPT TO command";
 * 'MAIL' likewise; else undefined.
 */
export function findCommand(text: string | undefined): string | undefined {
  const t = text ?? '';
  if (/after (end of )?data\b|in reply to (end of )?data\b|end of data command|^\s*>>>\s*data\b|^\s*data\s*$/im.test(t)) return 'DATA';
  if (/after rcpt to|in reply to rcpt to|did not like our rcpt to|^\s*>>>\s*rcpt to/im.test(t)) return 'RCPT';
  if (/after mail from|in reply to mail from|^\s*>>>\s*mail from/im.test(t)) return 'MAIL';
  return undefined;
}

/** normaliseStatus takes a DSN Status field ('5.1.1 (bad destination mailbox)') to its code, or undefined. */
function normaliseStatus(status: string | undefined): string | undefined {
  return /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(status ?? '')?.[1];
}

/**
 * complaintClass classifies an ARF report by its Feedback-Type (RFC 5965 §7.3): abuse, fraud, opt-out, virus and other
 * are the recipient's complaint; auth-failure and not-spam report on the sender's authentication or a false
 * positive, not on the recipient's will, and never suppress.
 */
export function complaintClass(feedbackType: string | undefined): { suppresses: boolean } {
  const t = (feedbackType ?? 'abuse').trim().toLowerCase();
  return { suppresses: !['auth-failure', 'not-spam', 'dkim', 'auth'].includes(t) };
}

/** isHard: a verdict that suppresses the address at the first (hard bounces and complaints). */
export function isHard(v: BounceVerdict): boolean {
  return v.class === 'hard';
}
