/**
 * Who a blast reaches (spec part 2 §3-§5 Email blast; the send wizard's review): the one definition of a blast's
 * audience — who its segments, contact ids and addresses name, and who is left out and why. Used by the save-time
 * sandbox check (core/blasts saveBlast), the preview (POST {scheduler}/scheduler/preview) and the expansion
 * (src/server/core/blasts/expand.ts). The SQL is ./queries.ts: AUDIENCE_CTE, read whole by BLAST_AUDIENCE (the
 * expansion) and counted without leaving the database by AUDIENCE_COUNTS (the preview and the save-time sandbox
 * check, which never load the recipients).
 */
import type { QueryFn } from '../../db/client.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox.ts';
import { AUDIENCE_COUNTS, BLAST_AUDIENCE, TEMPLATES_ARE_MARKETING } from './queries.ts';

/** A blast's audience: the contacts it will send to, and how many it leaves out, by reason (issue 5 audience accounting). */
export interface Audience {
  recipients: Array<{ id: string; email: string; timezone: string | null }>;
  excluded: { unsubscribed: number; bounced: number; suppressed: number; invalid: number; not_a_contact: number };
  /** Every contact named (segment members, ids, addresses) plus ids and addresses that name no live contact. */
  targeted: number;
}

/**
 * blastAudience resolves an audience (segments ∪ contacts by id ∪ contacts by address) among the project's live
 * contacts and leaves out, counting each by reason: hard-bounced and complained or otherwise suppressed addresses
 * (all mail), unsubscribed contacts (unsubscribed_at, or an 'unsubscribed' suppression-list entry; only when a
 * template is marketing — an unknown template counts as marketing), invalid addresses, and ids or addresses that name
 * no live contact. Shared by the expansion and the send wizard's preview (POST {scheduler}/scheduler/preview).
 */
export async function blastAudience(
  run: QueryFn,
  projectId: string,
  a: { to_segment_ids?: string[]; to_user_ids?: string[]; to_user_emails?: string[] },
  templateIds: string[],
): Promise<Audience> {
  const userIds = a.to_user_ids ?? [];
  const userEmails = (a.to_user_emails ?? []).map((e) => e.toLowerCase());
  const [{ marketing }] = await run<{ marketing: boolean }>(TEMPLATES_ARE_MARKETING, [templateIds]);
  const audience = await run<{ id: string; email: string; timezone: string | null; excluded: string | null }>(BLAST_AUDIENCE, [
    projectId,
    userIds,
    userEmails,
    a.to_segment_ids ?? [],
    marketing,
  ]);
  const excluded = { unsubscribed: 0, bounced: 0, suppressed: 0, invalid: 0, not_a_contact: 0 };
  const recipients: Audience['recipients'] = [];
  for (const r of audience) {
    const why = r.excluded as keyof typeof excluded | null;
    if (why) excluded[why]++;
    else recipients.push({ id: r.id, email: r.email, timezone: r.timezone });
  }
  // Ids and addresses chosen directly that name no live contact are counted, never silently dropped.
  const foundIds = new Set(audience.map((r) => r.id));
  const foundEmails = new Set(audience.map((r) => r.email.toLowerCase()));
  excluded.not_a_contact = new Set(userIds.filter((id) => !foundIds.has(id))).size + new Set(userEmails.filter((e) => !foundEmails.has(e))).size;
  return { recipients, excluded, targeted: audience.length + excluded.not_a_contact };
}

/** A blast's audience counted in the database (AUDIENCE_COUNTS): what the preview and the save-time sandbox check need. */
export interface AudienceCounts {
  targeted: number;
  excluded: Audience['excluded'];
  /** Recipients the blast would send to (not left out). */
  toSend: number;
  /** Of those, how many the sandbox refuses (0 when `sandbox` was not given), and the first five addresses by contact id. */
  sandboxRefused: number;
  sandboxFirst: string[];
  /** Recipients per lower-case domain (for the governor's estimate: providers' rates). */
  domains: Record<string, number>;
}

/**
 * audienceCounts counts what blastAudience would return, in the database, without reading the recipients into Node
 * (issue 24 §2): targeted, left out by reason, to send, and — when `sandbox` gives the project's sender persona
 * addresses — the recipients the sandbox refuses (only the simulator address and those are allowed).
 */
export async function audienceCounts(
  run: QueryFn,
  projectId: string,
  a: { to_segment_ids?: string[]; to_user_ids?: string[]; to_user_emails?: string[] },
  templateIds: string[],
  sandbox?: { personaEmails: string[] },
): Promise<AudienceCounts> {
  const userIds = a.to_user_ids ?? [];
  const userEmails = (a.to_user_emails ?? []).map((e) => e.toLowerCase());
  const [{ marketing }] = await run<{ marketing: boolean }>(TEMPLATES_ARE_MARKETING, [templateIds]);
  const allowed = [SIMULATOR_SUCCESS_ADDRESS, ...(sandbox?.personaEmails ?? [])].map((e) => e.trim().toLowerCase());
  const [r] = await run<{
    found: number;
    bounced: number;
    suppressed: number;
    unsubscribed: number;
    invalid: number;
    missing_ids: number;
    missing_emails: number;
    to_send: number;
    sandbox_refused: number;
    sandbox_first: string[];
    domains: Record<string, number>;
  }>(AUDIENCE_COUNTS, [projectId, userIds, userEmails, a.to_segment_ids ?? [], marketing, !!sandbox, allowed]);
  const notAContact = r.missing_ids + r.missing_emails;
  return {
    targeted: r.found + notAContact,
    excluded: { unsubscribed: r.unsubscribed, bounced: r.bounced, suppressed: r.suppressed, invalid: r.invalid, not_a_contact: notAContact },
    toSend: r.to_send,
    sandboxRefused: r.sandbox_refused,
    sandboxFirst: r.sandbox_first,
    domains: r.domains,
  };
}
