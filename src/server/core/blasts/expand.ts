/**
 * Blast expansion (DESIGN.md §6): when a blast is due, turn its audience (core/audience: segments ∪
 * contacts, minus unsubscribed, bounced, complained and suppressed addresses) into one outbox row per recipient with
 * its own send instant (the contact's zone when asked), and record the audience accounting (targeted, queued,
 * excluded by reason) on the blast.
 *
 * The rows are written by the database: each chunk is one INSERT … SELECT from the audience query over a range of
 * contact ids (queueAudienceChunkSql), so no recipient list passes through Node and memory stays flat whatever the
 * audience. The send instants are a small table computed here with Luxon (domain/sendTime.ts: one per distinct time
 * zone the project's contacts have, DST-correct), joined in SQL; templates (A/B) are pick_template, Message-IDs
 * gen_random_uuid, the sandbox rule sandboxRefusedSql, the accounting counted in the same statement.
 *
 * Each chunk is its own statement, so the sender starts on the first (small) chunk while the rest is written, and a
 * large blast never holds one long transaction (on PGlite, with its single connection, that would stall every other
 * request). Each chunk inserts with ON CONFLICT (blast_id, contact_id) DO NOTHING, so a retried, resumed or duplicated
 * expansion adds only what is missing and never a second row, Message-ID or failure event for anyone. The blast
 * counts as expanded (expanded_at, accounting, the JOB_PROCESS_EMAIL_BLAST entry) only once every chunk is in, in one
 * transaction guarded by expanded_at IS NULL; until then the blast is never reported as distributed.
 */
import type { AppContext } from '../../context.ts';
import { FALLBACK_TIMEZONE, recipientSendInstant } from '../../../domain/sendTime.ts';
import { SANDBOX_REFUSAL, SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox.ts';
import { logFinishedBlasts } from './finished.ts';
import { BLAST_BY_ID, LOG_EXPANDED, MARK_EXPANDED, PERSONA_EMAIL, PROJECT_PERSONA_EMAILS, PROJECT_SANDBOX, queueAudienceChunkSql } from './queries.ts';
import {
  AUDIENCE_MISSING,
  AUDIENCE_SPAN,
  PROJECT_BEST_HOUR,
  PROJECT_TIMEZONES,
  TEMPLATES_ARE_MARKETING,
  audienceTopic,
  noneExcluded,
  policyUse,
  readPolicies,
} from '../audience/index.ts';
import type { QueryFn } from '../../db/client.ts';

/** Segment members per chunk: the first chunk small (so sending starts at once), the later ones larger (fewer statements). */
const FIRST_CHUNK = 500;
const CHUNK = 10_000;

/** Contact ids below and above every real one: a chunk is the ids in (lo, hi]. */
const NO_ID = '00000000-0000-0000-0000-000000000000';
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

interface BlastRow {
  id: string;
  project_id: string;
  enabled: boolean;
  expanded_at: Date | null;
  template_id: string | null;
  template_ids_with_weights: Array<{ template_id: string; weight: number }>;
  sender_persona_id: string;
  to_segment_ids: string[];
  to_user_ids: string[];
  to_user_emails: string[];
  send_at: string;
  timezone: string;
  send_in_users_timezone: boolean;
  name: string;
  topic_id: string | null;
  re_engagement: boolean;
  send_time_optimised: boolean;
}

/**
 * templateChoice gives pick_template's arguments (core/blasts/sql/pick_template.sql) for a blast: its templates and
 * the running totals of their weights from 0 — {T} and {0, 1} for a blast with one template.
 */
export function templateChoice(blast: Pick<BlastRow, 'template_id' | 'template_ids_with_weights'>): { templates: string[]; bounds: number[] } {
  const weights = (blast.template_ids_with_weights ?? []).filter((w) => w.weight > 0);
  if (!weights.length) return { templates: [blast.template_id as string], bounds: [0, 1] };
  const bounds = [0];
  for (const w of weights) bounds.push(bounds[bounds.length - 1] + w.weight);
  return { templates: weights.map((w) => w.template_id), bounds };
}

/**
 * expandBlast expands one due blast into outbox rows and logs a JOB_PROCESS_EMAIL_BLAST entry; `onQueued` is called
 * after each chunk of rows is written (the sender is woken with it). A disabled or already expanded blast is left
 * alone. In a sandboxed project a recipient that is not allowed gets a failed row with the sandbox reason (and an
 * unsuccessful-send event); nothing is sent to it. Returns the number of recipients queued, or 0 when this call did
 * not finish the expansion (disabled, already expanded, or finished first by a concurrent call).
 */
export async function expandBlast(ctx: AppContext, blastId: string, onQueued: () => void = () => undefined): Promise<number> {
  const run = ctx.database.query.bind(ctx.database) as QueryFn;
  const [blast] = await run<BlastRow>(BLAST_BY_ID, [blastId]);
  if (!blast || !blast.enabled || blast.expanded_at) return 0;
  const [project] = await run<{ not_in_sandbox: boolean }>(PROJECT_SANDBOX, [blast.project_id]);
  const [persona] = await run<{ email: string }>(PERSONA_EMAIL, [blast.sender_persona_id]);
  const allowed = project.not_in_sandbox
    ? []
    : [SIMULATOR_SUCCESS_ADDRESS, ...(await run<{ email: string }>(PROJECT_PERSONA_EMAILS, [blast.project_id])).map((r) => r.email)].map((e) =>
        e.trim().toLowerCase(),
      );
  const domain = persona?.email.split('@')[1] ?? 'localhost';
  const { templates, bounds } = templateChoice(blast);
  const [{ marketing }] = await run<{ marketing: boolean }>(TEMPLATES_ARE_MARKETING, [templates.filter(Boolean)]);
  const userIds = blast.to_user_ids ?? [];
  const userEmails = (blast.to_user_emails ?? []).map((e) => e.toLowerCase());
  const segmentIds = blast.to_segment_ids ?? [];
  const topic = await audienceTopic(run, blast.topic_id, templates);

  // The send instants: one per distinct zone the project's contacts have (a contact-local blast), else the blast's.
  const fallback = recipientSendInstant(blast, blast.send_in_users_timezone ? FALLBACK_TIMEZONE : blast.timezone);
  const zones = { key: [] as string[], zone: [] as string[], instant: [] as string[] };
  if (blast.send_in_users_timezone)
    for (const { timezone } of await run<{ timezone: string }>(PROJECT_TIMEZONES, [blast.project_id])) {
      const at = recipientSendInstant(blast, timezone || null);
      zones.key.push(timezone);
      zones.zone.push(at.zone);
      zones.instant.push(at.instant.toISOString());
    }

  // The project's sunset and frequency policies, and for send-time optimisation the project's best hour (the fallback).
  const policies = policyUse(await readPolicies(run, blast.project_id));
  const optimised = blast.send_time_optimised && !blast.send_in_users_timezone;
  const projectHour = optimised ? (await run<{ hour: number | null }>(PROJECT_BEST_HOUR, [blast.project_id]))[0].hour : null;
  const chunkSql = queueAudienceChunkSql(policies, optimised);

  const excluded = noneExcluded();
  const perZone: Record<string, string> = {};
  let found = 0;
  let queued = 0;
  let failed = 0;
  // A small first chunk gets the first emails going at once; later chunks are larger (fewer statements).
  for (let lo = NO_ID, size = FIRST_CHUNK; lo !== LAST_ID; size = CHUNK) {
    const [{ hi }] = await run<{ hi: string | null }>(AUDIENCE_SPAN, [blast.project_id, lo, size, segmentIds, userIds]);
    const upTo = hi ?? LAST_ID;
    const [c] = await run<{
      found: number;
      bounced: number;
      suppressed: number;
      unsubscribed: number;
      unconfirmed: number;
      invalid: number;
      sunset: number;
      frequency: number;
      to_send: number;
      refused: number;
      zones: Record<string, string>;
    }>(chunkSql, [
      blast.project_id,
      userIds,
      userEmails,
      segmentIds,
      marketing,
      lo,
      upTo,
      blast.id,
      blast.sender_persona_id,
      templates,
      bounds,
      zones.key,
      zones.zone,
      zones.instant,
      fallback.zone,
      fallback.instant.toISOString(),
      domain,
      !project.not_in_sandbox,
      allowed,
      SANDBOX_REFUSAL,
      topic,
      blast.re_engagement,
      projectHour,
    ]);
    found += c.found;
    queued += c.to_send;
    failed += c.refused;
    for (const why of ['unsubscribed', 'unconfirmed', 'bounced', 'suppressed', 'invalid', 'sunset', 'frequency'] as const) excluded[why] += c[why];
    for (const [zone, instant] of Object.entries(c.zones)) perZone[zone] = new Date(instant).toISOString();
    if (c.to_send) onQueued();
    lo = upTo;
  }
  // Ids and addresses chosen directly that name no live contact are counted, never silently dropped.
  const [missing] = await run<{ missing_ids: number; missing_emails: number }>(AUDIENCE_MISSING, [blast.project_id, userIds, userEmails]);
  excluded.not_a_contact = missing.missing_ids + missing.missing_emails;
  const accounting = { targeted: found + excluded.not_a_contact, queued, excluded };

  const done = await ctx.database.transaction(async (tx) => {
    const [marked] = await tx<{ id: string }>(MARK_EXPANDED, [blast.id, JSON.stringify(perZone), JSON.stringify(accounting)]);
    if (!marked) return false; // another expansion of the same blast finished first
    await tx(LOG_EXPANDED, [
      blast.project_id,
      JSON.stringify({ scheduled_email_group_id: blast.id, name: blast.name }),
      JSON.stringify({
        num_recipients: queued,
        num_not_allowed_in_sandbox: failed,
        num_targeted: accounting.targeted,
        excluded,
        sent_at_per_timezone: perZone,
      }),
    ]);
    return true;
  });
  if (!done) return 0;
  // A blast whose rows all settled while it was expanding (everyone excluded or refused, or a small audience the
  // sender already finished) is distributed now.
  await logFinishedBlasts(run, [blast.id]);
  return queued;
}
