/**
 * Sending domains (spec part 2 §2 /account/domains, §3 Domain settings): the host-name check, the DKIM,
 * SPF and DMARC TXT records a domain must publish, and whether what DNS answers matches them. Pure: the DNS lookups
 * are the server's (src/server/core/domains/index.ts).
 */
import { checkDomain } from './validation.ts';

/** Record verification status: Success (published as given), Failed (not found or different), Pending (not checked). */
export type VerificationStatus = 'Success' | 'Failed' | 'Pending';

/** The text the console shows for a Failed DKIM status (spec part 2 §5). */
export const DKIM_FAILED_TEXT = 'DNS settings not found';

/** A DNS label: letters, digits and inner hyphens, 1-63 characters. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * sendingDomainError returns the message for a domain that cannot be registered, or undefined: the spec's domain check
 * ('Required field', 'Must contain dot'), then a host name of at most 253 characters in dot-separated DNS labels with a
 * top-level label that is not all digits. Compare in lower case (normalizeDomain).
 */
export function sendingDomainError(value: unknown): string | undefined {
  const basic = checkDomain(value);
  if (basic) return basic;
  const domain = normalizeDomain(String(value));
  const labels = domain.split('.');
  if (domain.length > 253 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1])) {
    return 'Must be a domain name such as mail.example.com';
  }
  return undefined;
}

/** normalizeDomain trims, lower-cases and drops one trailing dot (the DNS root). */
export function normalizeDomain(value: string): string {
  return value.trim().toLowerCase().replace(/\.$/, '');
}

/** One TXT record to publish. */
export interface TxtRecord {
  type: 'TXT';
  name: string;
  value: string;
}

/**
 * domainRecords returns the three TXT records of a sending domain:
 * - DKIM at `{selector}._domainkey.{domain}`: `v=DKIM1; k=rsa; p={publicKey}` (publicKey is base64 DER);
 * - SPF at the domain: `spf` (Config.spfRecord, e.g. 'v=spf1 a mx ~all' or one with the relay's include);
 * - DMARC at `_dmarc.{domain}`: start at p=none with aggregate reports (RFC 7489 §7.2) to dmarc@ at the bounce
 *   subdomain `bounceDomain` (default bounces.{domain}), whose MX is the inbound receiver that stores them; being below
 *   the domain, it needs no external-destination record (RFC 7489 §7.1). Then move to quarantine and reject once
 *   reports show nearly all mail passing (domain/dmarc.ts dmarcNextStep; the console gives that progression).
 */
export function domainRecords(
  domain: string,
  selector: string,
  publicKey: string,
  spf: string,
  bounceDomain: string = bounceDomainOf(domain, null),
): { dkim: TxtRecord; spf: TxtRecord; dmarc: TxtRecord } {
  return {
    dkim: { type: 'TXT', name: `${selector}._domainkey.${domain}`, value: `v=DKIM1; k=rsa; p=${publicKey}` },
    spf: { type: 'TXT', name: domain, value: spf },
    dmarc: { type: 'TXT', name: `_dmarc.${domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc@${bounceDomain}` },
  };
}

/** One MX record to publish. */
export interface MxRecord {
  type: 'MX';
  name: string;
  /** The mail exchanger's host name. */
  value: string;
  priority: number;
}

/** bounceDomainOf: a sending domain's bounce subdomain: the one set, else bounces.<domain>. */
export function bounceDomainOf(domain: string, custom: string | null | undefined): string {
  return custom?.trim().toLowerCase() || `bounces.${domain}`;
}

/**
 * bounceRecords returns the two records of a bounce subdomain: MX 10 to the operator's inbound host
 * (INBOUND_MX_HOST), so that bounces and complaint reports sent to each email's return path reach the inbound
 * receiver; and SPF (`spf`, the same record as the sending domain's), because receivers check SPF against the return
 * path's domain: a subdomain of the From domain passes DMARC's relaxed SPF alignment (RFC 7489 §3.1.2).
 */
export function bounceRecords(bounceDomain: string, mxHost: string, spf: string): { mx: MxRecord; spf: TxtRecord } {
  return { mx: { type: 'MX', name: bounceDomain, value: mxHost, priority: 10 }, spf: { type: 'TXT', name: bounceDomain, value: spf } };
}

/** mxStatus: Success when one MX answer's exchange is `mxHost` (any case, a trailing dot ignored); Failed otherwise. */
export function mxStatus(exchanges: string[], mxHost: string): VerificationStatus {
  const want = mxHost.toLowerCase().replace(/\.$/, '');
  return exchanges.some((e) => e.toLowerCase().replace(/\.$/, '') === want) ? 'Success' : 'Failed';
}

/**
 * bounceDomainError says what is wrong with a bounce subdomain chosen for `domain`, or undefined: it must be a valid
 * host name below the sending domain (so that SPF aligns with the From under DMARC's relaxed alignment).
 */
export function bounceDomainError(value: string, domain: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (sendingDomainError(v)) return 'must be a domain name such as bounces.example.com';
  if (!v.endsWith(`.${domain}`)) return `must be a subdomain of ${domain}, such as bounces.${domain}`;
  return undefined;
}

/** parseTags reads a DKIM/DMARC tag list ('v=DKIM1; k=rsa; p=...') into lower-case tag names and their values (whitespace removed). */
export function parseTags(txt: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of txt.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/**
 * dkimStatus: Success when one TXT answer at the DKIM name is a DKIM1 record (or has no v=) whose p= is our public key;
 * Failed otherwise. `answers` are the TXT strings at that name, each already joined from its chunks.
 */
export function dkimStatus(answers: string[], publicKey: string): VerificationStatus {
  const ok = answers.some((txt) => {
    const tags = parseTags(txt);
    return (!tags.has('v') || tags.get('v') === 'DKIM1') && tags.get('p') === publicKey;
  });
  return ok ? 'Success' : 'Failed';
}

/** isSpfRecord: a TXT string that is an SPF record (starts with the version "v=spf1", RFC 7208 §4.5). */
export function isSpfRecord(txt: string): boolean {
  return /^v=spf1(\s|$)/i.test(txt.trim());
}

/** spfStatus: Success when exactly one TXT answer at the domain is an SPF record (v=spf1; two make SPF fail, RFC 7208 §4.5). */
export function spfStatus(answers: string[]): VerificationStatus {
  return answers.filter(isSpfRecord).length === 1 ? 'Success' : 'Failed';
}

/** dmarcStatus: Success when exactly one TXT answer at _dmarc.{domain} is a DMARC record (v=DMARC1) with a p= policy. */
export function dmarcStatus(answers: string[]): VerificationStatus {
  const records = answers.map(parseTags).filter((t) => t.get('v') === 'DMARC1');
  return records.length === 1 && /^(none|quarantine|reject)$/i.test(records[0].get('p') ?? '') ? 'Success' : 'Failed';
}

/**
 * registeredCasing returns `email` with its domain written as the registered domain it equals but for letter case
 * (spec part 2 §5 Sender persona), and the two spellings when it was rewritten; otherwise the email unchanged.
 * `registered` are the project's sending domains as stored.
 */
export function registeredCasing(email: string, registered: string[]): { email: string; provided?: string; registered?: string } {
  const at = email.lastIndexOf('@');
  if (at < 0) return { email };
  const provided = email.slice(at + 1);
  const match = registered.find((d) => d.toLowerCase() === provided.toLowerCase());
  if (!match || match === provided) return { email };
  return { email: `${email.slice(0, at + 1)}${match}`, provided, registered: match };
}

/** The notice shown for 30 seconds after such a rewrite (spec part 2 §5 Sender persona). */
export function casingNotice(provided: string, registered: string): string {
  return `You provided a domain of ${provided} but have registered ${registered}. We've matched up the upper and lowercase characters in your sender persona for you, to help avoid any issues with domain-ownership verification.`;
}

/** The most characters one TXT character-string may hold (RFC 1035 §3.3; RFC 7208 §3.3 for SPF). */
export const TXT_STRING_MAX = 255;

/**
 * txtStrings writes a TXT value as quoted character-strings of at most `max` characters each ('"v=DKIM1; …" "…"'),
 * the form DNS consoles and zone files take for values over 255 characters (a 2048-bit DKIM key is about 400);
 * resolvers join the strings back into the value. A value with a double quote or backslash has it escaped.
 */
export function txtStrings(value: string, max = TXT_STRING_MAX): string {
  const chunks: string[] = [];
  for (let i = 0; i < value.length; i += max) chunks.push(value.slice(i, i + max));
  return (chunks.length ? chunks : ['']).map((c) => `"${c.replace(/[\\"]/g, (m) => `\\${m}`)}"`).join(' ');
}

/** An SPF record's terms after "v=spf1" (RFC 7208 §4.6.1), in order. */
function spfTerms(record: string): string[] {
  return record.trim().split(/\s+/).slice(1).filter(Boolean);
}

/** isAllTerm: the "all" mechanism with any qualifier (+all, -all, ~all, ?all). */
const isAllTerm = (term: string) => /^[+\-~?]?all$/i.test(term);

/**
 * mergeSpf returns the one SPF record to publish at a domain that already has `found` (its v=spf1 records as DNS
 * answers them): every term of the records found, then each of `ours`' terms they lack, then one "all" — the first
 * found record's qualifier (the domain owner's policy), else ours. Terms compare case-insensitively. A redirect=X
 * becomes include:X, so the hosts it authorised stay authorised once the merged record has an "all" (a redirect is
 * ignored when "all" is present, RFC 7208 §6.1). With nothing
 * found, `ours` as it is. Receivers fail SPF when a domain publishes two records (RFC 7208 §4.5), so the console asks
 * for this one value to replace them all.
 */
export function mergeSpf(found: string[], ours: string): string {
  const records = found.filter(isSpfRecord);
  if (!records.length) return ours;
  const terms: string[] = [];
  const seen = new Set<string>();
  let all: string | undefined;
  for (const written of [...records.flatMap(spfTerms), ...spfTerms(ours)]) {
    if (isAllTerm(written)) {
      all ??= written;
      continue;
    }
    const term = written.replace(/^redirect=/i, 'include:');
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(term);
  }
  return ['v=spf1', ...terms, ...(all ? [all] : [])].join(' ');
}
