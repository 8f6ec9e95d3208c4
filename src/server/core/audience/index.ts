/**
 * Who a blast reaches (spec part 2 §3-§5 Email blast; the send wizard's review): the one definition of a blast's
 * audience — who its segments, contact ids and addresses name, and who is left out and why. Used by the save-time
 * sandbox check (core/blasts saveBlast), the preview (POST {scheduler}/scheduler/preview) and the expansion
 * (src/server/core/blasts/expand.ts). The SQL is ./queries.ts: audienceCte, counted without leaving the database by
 * audienceCountsSql (the preview and the save-time sandbox check) and written a chunk at a time into the outbox by the
 * expansion (core/blasts queueAudienceChunkSql). No recipient list passes through Node.
 */
import type { QueryFn } from '../../db/client.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox.ts';
import { ESTIMATE_SAMPLE_CONTACTS, sampleScale } from '../contacts/index.ts';
import { AUDIENCE_MISSING, AUDIENCE_TOPIC, TEMPLATES_ARE_MARKETING, audienceCountsSql, audienceSandboxFirstSql, audienceShape } from './queries.ts';
import { policyUse, readPolicies } from './policies.ts';

export { policyUse, readPolicies, PROJECT_BEST_HOUR, type PolicyUse } from './policies.ts';

export {
  audienceCte,
  audienceShape,
  sandboxRefusedSql,
  AUDIENCE_MISSING,
  AUDIENCE_TOPIC,
  AUDIENCE_SPAN,
  PROJECT_TIMEZONES,
  TEMPLATES_ARE_MARKETING,
  NO_POLICIES,
  policyArgs,
  type AudiencePolicyOptions,
} from './queries.ts';

/** Contacts an audience names but leaves out, by reason. */
export interface Excluded {
  unsubscribed: number;
  /** Double opt-in not confirmed yet: marketing mail waits for the click. */
  unconfirmed: number;
  bounced: number;
  suppressed: number;
  invalid: number;
  not_a_contact: number;
  /** Past the project's sunset policy (core/audience/policies.ts): no human open or click for too long. */
  sunset: number;
  /** Over the project's frequency cap: enough marketing emails in its window already. */
  frequency: number;
}

/** noneExcluded: an Excluded of zeros. */
export function noneExcluded(): Excluded {
  return { unsubscribed: 0, unconfirmed: 0, bounced: 0, suppressed: 0, invalid: 0, not_a_contact: 0, sunset: 0, frequency: 0 };
}

/** A blast's audience counted in the database (audienceCountsSql): what the preview and the save-time sandbox check need. */
export interface AudienceCounts {
  targeted: number;
  excluded: Excluded;
  /** Recipients the blast would send to (not left out). */
  toSend: number;
  /** Of those, how many the sandbox refuses (0 when `sandbox` was not given), and the first five addresses by contact id. */
  sandboxRefused: number;
  sandboxFirst: string[];
  /** Recipients per lower-case domain (for the governor's estimate: providers' rates). */
  domains: Record<string, number>;
}

/**
 * audienceCounts counts a blast's audience in the database, without reading the recipients into Node,
 * exactly as the expansion (core/blasts/expand.ts) will find it — or, with `sampleShare` < 1 (contactSampleShare),
 * estimated from that share of the contacts table's pages, every count scaled up (sampleScale: a ratio estimate over
 * the project's contacts on those pages; ids and addresses that name no
 * contact are still counted exactly; no sandbox addresses are listed): targeted, left out by reason, to send, and — when `sandbox` gives the project's sender persona
 * addresses — the recipients the sandbox refuses (only the simulator address and those are allowed). The project's
 * sunset and frequency policies apply (core/audience/policies.ts) as the expansion applies them: `blast` says whether
 * it is a re-engagement blast, and may name the blast when it is saved (its own emails never count against the cap;
 * the wizard previews blasts not saved yet, so no caller names one today).
 */
export async function audienceCounts(
  run: QueryFn,
  projectId: string,
  a: { to_segment_ids?: string[]; to_user_ids?: string[]; to_user_emails?: string[] },
  templateIds: string[],
  sandbox?: { personaEmails: string[] },
  sampleShare = 1,
  topicId: string | null = null,
  blast: { id?: string | null; reEngagement?: boolean } = {},
): Promise<AudienceCounts> {
  const userIds = a.to_user_ids ?? [];
  const userEmails = (a.to_user_emails ?? []).map((e) => e.toLowerCase());
  const shape = audienceShape(a);
  const [{ marketing }] = await run<{ marketing: boolean }>(TEMPLATES_ARE_MARKETING, [templateIds]);
  const allowed = [SIMULATOR_SUCCESS_ADDRESS, ...(sandbox?.personaEmails ?? [])].map((e) => e.trim().toLowerCase());
  const args = [projectId, userIds, userEmails, a.to_segment_ids ?? [], marketing];
  const topic = await audienceTopic(run, topicId, templateIds);
  const estimate = sampleShare < 1;
  const scale = estimate ? await sampleScale(run, projectId, sampleShare) : 1;
  const policies = policyUse(await readPolicies(run, projectId));
  const blastArgs = [!!blast.reEngagement, blast.id ?? null];
  const groups = await run<{ domain: string; excluded: keyof Excluded | null; refused: boolean; n: number }>(
    audienceCountsSql(shape, estimate ? sampleShare * 100 : undefined, policies),
    [...args, !!sandbox, allowed, topic, ...blastArgs],
  );
  const excluded = noneExcluded();
  const domains: Record<string, number> = {};
  let found = 0;
  let toSend = 0;
  let sandboxRefused = 0;
  for (const g of groups) {
    if (estimate) g.n = Math.round(g.n * scale);
    found += g.n;
    if (g.excluded) {
      excluded[g.excluded] += g.n;
      continue;
    }
    toSend += g.n;
    if (g.refused) sandboxRefused += g.n;
    const domain = g.domain.trim().toLowerCase();
    domains[domain] = (domains[domain] ?? 0) + g.n;
  }
  const [missing] = await run<{ missing_ids: number; missing_emails: number }>(AUDIENCE_MISSING, [projectId, userIds, userEmails]);
  excluded.not_a_contact = missing.missing_ids + missing.missing_emails;
  const sandboxFirst =
    sandboxRefused && !estimate
      ? (await run<{ email: string }>(audienceSandboxFirstSql(shape, policies), [...args, allowed, topic, ...blastArgs])).map((r) => r.email)
      : [];
  return { targeted: found + excluded.not_a_contact, excluded, toSend, sandboxRefused, sandboxFirst, domains };
}

/** audienceTopic is the subscription topic of a blast's mail (AUDIENCE_TOPIC): its own `topicId`, else its templates' common one; null for none. */
export async function audienceTopic(run: QueryFn, topicId: string | null | undefined, templateIds: string[]): Promise<string | null> {
  const [{ topic_id }] = await run<{ topic_id: string | null }>(AUDIENCE_TOPIC, [topicId ?? null, templateIds.filter(Boolean)]);
  return topic_id;
}

/**
 * audienceSampleShare is the share of the contacts table's pages a preview's estimate reads (audienceCounts'
 * `sampleShare`) so that about ESTIMATE_SAMPLE_CONTACTS of the audience's contacts are in it: from the planner's
 * statistics of the segments' members (EXPLAIN: no scan) plus the ids and addresses named; 1 — count exactly — when
 * the audience is about that small or smaller. At least 0.1 %.
 */
export async function audienceSampleShare(run: QueryFn, a: { to_segment_ids?: string[]; to_user_ids?: string[]; to_user_emails?: string[] }): Promise<number> {
  let members = (a.to_user_ids?.length ?? 0) + (a.to_user_emails?.length ?? 0);
  if (a.to_segment_ids?.length) {
    const [plan] = await run<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
      'EXPLAIN (FORMAT JSON) SELECT 1 FROM segment_members WHERE segment_id = ANY($1::uuid[])',
      [a.to_segment_ids],
    );
    members += plan['QUERY PLAN'][0].Plan['Plan Rows'];
  }
  return members <= ESTIMATE_SAMPLE_CONTACTS ? 1 : Math.max(0.001, ESTIMATE_SAMPLE_CONTACTS / members);
}
