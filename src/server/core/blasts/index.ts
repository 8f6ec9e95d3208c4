/**
 * Email blasts (spec part 2 §2 Email blasts, §3 Email blast, §4, §5 Email blast, §7; DESIGN.md §6): validation,
 * scheduling (a pg-boss job at the due instant expands the blast, see server/core/blasts/expand.ts), listing and disabling.
 */
import { and, count, desc, eq, ilike, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { audienceCounts, audienceSampleShare, noneExcluded, type AudienceCounts } from '../audience/index.ts';
import { monthSendsSql } from '../reports/index.ts';
import { liveContactsByEmail } from '../contacts/index.ts';
import { PROJECT_PERSONA_EMAILS } from './queries.ts';
import { sendCost } from '../../../domain/pricing.ts';
import { contacts, emailBlasts, outbox, segments, senderPersonas, templates, topics } from '../../db/schema.ts';
import { cancelBlastRows } from '../sending/outbox.ts';
import {
  blastDueInstant,
  CONTACT_LOCAL_TIMEZONE,
  isContactLocalTimezone,
  isValidTimezone,
  parseWallClock,
  wallClockToInstant,
} from '../../../domain/sendTime.ts';
import { checkRequired, checkTemplateContent, MESSAGES, UUID_V4_RE } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { BadRequest, FieldErrors } from '../../errors.ts';
import type { AppContext } from '../../context.ts';
import type { ProjectScope } from '../scope.ts';
import { iso, isoRequired, likePattern, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/scheduler.gen.ts';
import type { Config } from '../../config.ts';
import { ProviderTable } from '../sending/providers.ts';
import { estimateSendDuration } from '../sending/estimate.ts';
import { personaWarmup, unsignedPersonaWarnings } from '../domains/index.ts';
import { launchBlockers } from '../templates/checks.ts';

export type BlastOut = components['schemas']['EmailBlast'];
type BlastIn = components['schemas']['EmailBlastInput'];
type ListQuery = NonNullable<operations['listEmailBlasts']['parameters']['query']>;
type Row = typeof emailBlasts.$inferSelect;

const SORTABLE = { name: emailBlasts.name, enabled: emailBlasts.enabled, created_at: emailBlasts.createdAt, send_at: emailBlasts.dueAt };

/**
 * A blast's recipient rows: all, sent, deferred (the relay deferred it, or a daily cap holds it: waiting to be tried
 * again), failed, and waiting (not tried yet: queued, or stepping aside for a provider's limit).
 */
interface RecipientCounts {
  total: number;
  sent: number;
  deferred: number;
  failed: number;
  waiting: number;
}

/** toBlast maps a row and its recipient counts to the API's EmailBlast. */
export function toBlast(r: Row, counts: RecipientCounts = { total: 0, sent: 0, deferred: 0, failed: 0, waiting: 0 }): BlastOut {
  return {
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    created_at: isoRequired(r.createdAt),
    send_at: r.sendAt,
    send_at_utc: iso(r.sendAtUtc),
    send_in_users_timezone: r.sendInUsersTimezone,
    timezone: r.sendInUsersTimezone ? CONTACT_LOCAL_TIMEZONE : r.timezone,
    topic_id: r.topicId,
    re_engagement: r.reEngagement,
    send_time_optimised: r.sendTimeOptimised,
    template_id: r.templateId,
    template_ids_with_weights: r.templateIdsWithWeights,
    sender_persona_id: r.senderPersonaId,
    to_segment_ids: r.toSegmentIds,
    to_user_ids: r.toUserIds,
    to_user_emails: r.toUserEmails,
    cc_to_user_ids: r.ccToUserIds,
    bcc_to_user_ids: r.bccToUserIds,
    sent_at_per_timezone: r.sentAtPerTimezone,
    scheduled_emails: counts.total,
    sent_emails: counts.sent,
    deferred_emails: counts.deferred,
    waiting_emails: counts.waiting,
    failed_emails: counts.failed,
    audience: r.audience ?? null,
    payload: {
      template_id: r.templateId,
      sender_persona_id: r.senderPersonaId,
      to_segment_ids: r.toSegmentIds,
      to_user_ids: r.toUserIds,
      timezone: r.sendInUsersTimezone ? CONTACT_LOCAL_TIMEZONE : r.timezone,
    },
  };
}

async function recipientCounts(db: Db, blastIds: string[]) {
  const out = new Map<string, RecipientCounts>();
  if (!blastIds.length) return out;
  const rows = await db
    .select({
      blastId: outbox.blastId,
      total: sql<number>`count(*)::int`,
      sent: sql<number>`(count(*) FILTER (WHERE ${outbox.status} = 'sent'))::int`,
      failed: sql<number>`(count(*) FILTER (WHERE ${outbox.status} = 'failed'))::int`,
      // Deferred: waiting to be tried again after the relay deferred it (core/sending/deferral.ts: last_error is set).
      deferred: sql<number>`(count(*) FILTER (WHERE ${outbox.status} = 'pending' AND ${outbox.lastError} IS NOT NULL))::int`,
      // Waiting: not tried yet (queued or being sent), or stepping aside for a provider's limit (no reason recorded).
      waiting: sql<number>`(count(*) FILTER (WHERE ${outbox.status} IN ('pending', 'sending') AND ${outbox.lastError} IS NULL))::int`,
    })
    .from(outbox)
    .where(inArray(outbox.blastId, blastIds))
    .groupBy(outbox.blastId);
  for (const r of rows)
    out.set(r.blastId as string, {
      total: Number(r.total),
      sent: Number(r.sent),
      deferred: Number(r.deferred),
      failed: Number(r.failed),
      waiting: Number(r.waiting),
    });
  return out;
}

function where(projectId: string, ids: string[], enabledOnly?: boolean, search?: string) {
  return and(
    eq(emailBlasts.projectId, projectId),
    ids.length ? inArray(emailBlasts.id, ids) : undefined,
    enabledOnly ? eq(emailBlasts.enabled, true) : undefined,
    search?.trim() ? ilike(emailBlasts.name, likePattern(search.trim())) : undefined,
  );
}

/** listBlasts returns one page of blasts (newest first by default) with their recipient counts. */
export async function listBlasts(db: Db, projectId: string, q: ListQuery): Promise<BlastOut[]> {
  const rows = await db
    .select()
    .from(emailBlasts)
    .where(where(projectId, uuidList(q.ids, 'ids'), q.enabled_only, q.search_value))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'created_at DESC'), desc(emailBlasts.id))
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  const counts = await recipientCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toBlast(r, counts.get(r.id)));
}

/** countBlasts counts the project's blasts (enabled only, or whose name contains `search`, when asked). */
export async function countBlasts(db: Db, projectId: string, ids?: string, enabledOnly?: boolean, search?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(emailBlasts)
    .where(where(projectId, uuidList(ids, 'ids'), enabledOnly, search));
  return row.n;
}

/** missingIds returns the ids of `ids` that are not live rows of `table` in the project. */
async function missingIds(
  db: Db,
  table: typeof templates | typeof senderPersonas | typeof segments | typeof contacts | typeof topics,
  projectId: string,
  ids: string[],
): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.projectId, projectId), isNull(table.archivedAt), inArray(table.id, ids)));
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

/**
 * saveBlast validates and schedules a new blast. Checks (each a 400 naming the field): a v4 id not used before, name,
 * template (or weights), sender persona, at least one segment or contact, a valid wall-clock send_at and zone, that
 * every referenced row is live in the project, and in the sandbox that every recipient is allowed. Then it stores the
 * blast and enqueues its expansion at the due instant; if enqueueing fails the blast is removed again.
 */
export async function saveBlast(ctx: AppContext, project: ProjectScope, b: BlastIn): Promise<BlastOut> {
  const db = ctx.database.db;
  const errs = new FieldErrors();
  if (!UUID_V4_RE.test(b.id)) errs.add('id', 'must be a generated v4 UUID');
  errs.add('name', checkRequired(b.name));
  const weights = b.template_ids_with_weights ?? [];
  if (!b.template_id && !weights.length) errs.add('template_id', MESSAGES.required);
  errs.add('sender_persona_id', checkRequired(b.sender_persona_id));
  const segmentIds = [...new Set((b.to_segment_ids ?? []).map((s) => s.toLowerCase()))];
  const userIds = [...new Set((b.to_user_ids ?? []).map((s) => s.toLowerCase()))];
  const userEmails = [...new Set((b.to_user_emails ?? []).map((e) => e.trim()).filter(Boolean))];
  if (!segmentIds.length && !userIds.length && !userEmails.length) errs.add('to_segment_ids', MESSAGES.blastAudience);
  const contactLocal = b.send_in_users_timezone === true || isContactLocalTimezone(b.timezone);
  const zone = contactLocal ? 'UTC' : b.timezone;
  if (!parseWallClock(b.send_at)) errs.add('send_at', 'must be a date and time YYYY-MM-DDTHH:mm');
  if (!contactLocal && !isValidTimezone(b.timezone)) errs.add('timezone', `unknown time zone ${b.timezone}`);
  if (b.send_time_optimised && contactLocal) errs.add('send_time_optimised', "cannot be combined with the contact's local time zone: choose one of the two");
  errs.throwIfAny();

  const [existing] = await db.select({ id: emailBlasts.id }).from(emailBlasts).where(eq(emailBlasts.id, b.id));
  if (existing) throw new BadRequest(['id: an email blast with this id already exists; a scheduled blast cannot be edited, disable it and create a new one']);
  const templateIds = b.template_id ? [b.template_id, ...weights.map((w) => w.template_id)] : weights.map((w) => w.template_id);
  const refErrs = new FieldErrors();
  for (const id of await missingIds(db, templates, project.id, [...new Set(templateIds)]))
    refErrs.add(b.template_id === id ? 'template_id' : 'template_ids_with_weights', `no template ${id} in this project`);
  for (const id of await missingIds(db, senderPersonas, project.id, [b.sender_persona_id]))
    refErrs.add('sender_persona_id', `no sender persona ${id} in this project`);
  for (const id of await missingIds(db, segments, project.id, segmentIds)) refErrs.add('to_segment_ids', `no segment ${id} in this project`);
  if (b.topic_id) for (const id of await missingIds(db, topics, project.id, [b.topic_id])) refErrs.add('topic_id', `no topic ${id} in this project`);
  for (const id of await missingIds(db, contacts, project.id, userIds)) refErrs.add('to_user_ids', `no contact ${id} in this project`);
  if (userEmails.length) {
    const found = new Set((await liveContactsByEmail(db, project.id, userEmails)).map((c) => c.email.toLowerCase()));
    for (const e of userEmails) if (!found.has(e.toLowerCase())) refErrs.add('to_user_emails', `no contact with email ${e}`);
  }
  // What the pre-send checks call an error stops an enabled blast (core/templates/checks.ts).
  for (const x of await launchBlockers(ctx.database.query.bind(ctx.database) as QueryFn, project.id, [...new Set(templateIds)]))
    refErrs.add(b.template_id === x.templateId ? 'template_id' : 'template_ids_with_weights', x.message);
  refErrs.throwIfAny();

  if (!project.notInSandbox) {
    const personas = (
      await db
        .select({ email: senderPersonas.email })
        .from(senderPersonas)
        .where(and(eq(senderPersonas.projectId, project.id), isNull(senderPersonas.archivedAt)))
    ).map((p) => p.email);
    // The sandbox check sees exactly who the expansion will send to (core/audience), counted in the database.
    const audience = await audienceCounts(
      ctx.database.query.bind(ctx.database) as QueryFn,
      project.id,
      { to_segment_ids: segmentIds, to_user_ids: userIds, to_user_emails: userEmails },
      templateIds,
      { personaEmails: personas },
      1,
      b.topic_id,
      { reEngagement: b.re_engagement },
    );
    if (audience.sandboxRefused) {
      const shown = audience.sandboxFirst.map((email) => `to_user_ids: ${sandboxRejection(email, personas)}`);
      if (audience.sandboxRefused > 5) shown.push(`to_user_ids: and ${audience.sandboxRefused - 5} more recipients not allowed in the sandbox`);
      throw new BadRequest(shown);
    }
  }

  const schedule = { send_at: b.send_at, timezone: zone, send_in_users_timezone: contactLocal };
  const dueAt = blastDueInstant(schedule);
  const [row] = await db
    .insert(emailBlasts)
    .values({
      id: b.id.toLowerCase(),
      projectId: project.id,
      name: b.name.trim(),
      templateId: b.template_id ?? null,
      templateIdsWithWeights: weights,
      senderPersonaId: b.sender_persona_id,
      toSegmentIds: segmentIds,
      toUserIds: userIds,
      toUserEmails: userEmails,
      ccToUserIds: b.cc_to_user_ids ?? [],
      bccToUserIds: b.bcc_to_user_ids ?? [],
      sendAt: b.send_at,
      sendAtUtc: contactLocal ? null : wallClockToInstant(b.send_at, zone),
      sendInUsersTimezone: contactLocal,
      timezone: zone,
      topicId: b.topic_id ?? null,
      reEngagement: b.re_engagement ?? false,
      sendTimeOptimised: b.send_time_optimised ?? false,
      dueAt,
    })
    .returning();
  try {
    await ctx.queue.enqueue('blast-expand', { blastId: row.id }, { startAfter: dueAt, singletonKey: row.id });
  } catch (err) {
    await db.delete(emailBlasts).where(eq(emailBlasts.id, row.id));
    throw err;
  }
  return toBlast(row);
}

/**
 * disableBlasts disables enabled blasts by id (not reversible) and cancels their recipients not yet claimed by a
 * sender. At least one id is needed. Unknown or already disabled ids are reported in errors.
 */
export async function disableBlasts(db: Db, projectId: string, idList: string): Promise<{ ids: string[]; errors: string[] }> {
  const ids = uuidList(idList, 'ids');
  if (!ids.length) throw new BadRequest([`ids: ${MESSAGES.blastMissingId}`]);
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(emailBlasts)
      .set({ enabled: false, disabledAt: new Date() })
      .where(and(eq(emailBlasts.projectId, projectId), inArray(emailBlasts.id, ids), eq(emailBlasts.enabled, true)))
      .returning({ id: emailBlasts.id });
    const done = rows.map((r) => r.id);
    await cancelBlastRows(tx, done);
    const doneSet = new Set(done);
    return { ids: done, errors: ids.filter((id) => !doneSet.has(id)).map((id) => `ids: no enabled email blast ${id} in this project`) };
  });
}

type PreviewIn = components['schemas']['PreviewRequest'];
type PreviewOut = components['schemas']['BlastPreview'];

/**
 * previewBlast answers POST {scheduler}/scheduler/preview (the send wizard's review): the audience as the
 * expansion would resolve it now (src/server/core/audience/index.ts), this UTC month's sends so far (from the report aggregates),
 * the cost of the send (src/domain/pricing.ts sendCost over to_send × emails_per_recipient) and the problems that stop
 * a launch, and how long the send takes under the delivery governor's limits that apply now (`governor`: the relay's
 * max_rate, the providers' rates, the sender persona's domain warm-up; core/sending/estimate.ts). With `counts:
 * 'estimate'` a large audience is counted over a sample (audienceSampleShare; counts_estimated true). Saves nothing.
 */
export async function previewBlast(
  query: QueryFn,
  project: ProjectScope,
  p: PreviewIn,
  governor: Pick<Config, 'relayMaxRate' | 'providerGroups' | 'warmupSchedule'>,
): Promise<PreviewOut> {
  const templateIds = [
    ...new Set([...(p.template_ids_with_weights ?? []).map((w) => w.template_id), ...(p.template_id ? [p.template_id] : []), ...(p.template_ids ?? [])]),
  ];
  const personaIds = [...new Set([...(p.sender_persona_id ? [p.sender_persona_id] : []), ...(p.sender_persona_ids ?? [])])];
  const hasAudience = !!((p.to_segment_ids?.length ?? 0) + (p.to_user_ids?.length ?? 0) + (p.to_user_emails?.length ?? 0));
  const sandboxed = !project.notInSandbox && hasAudience;
  const personaEmails = sandboxed ? (await query<{ email: string }>(PROJECT_PERSONA_EMAILS, [project.id])).map((r) => r.email) : [];
  // Counted in the database: the recipients never pass through here.
  // An estimate when asked for, over a large audience, outside the sandbox (whose refusals must be exact).
  const share = p.counts === 'estimate' && hasAudience && !sandboxed ? await audienceSampleShare(query, p) : 1;
  const audience: AudienceCounts = hasAudience
    ? await audienceCounts(query, project.id, p, templateIds, sandboxed ? { personaEmails } : undefined, share, p.topic_id, {
        reEngagement: p.re_engagement,
      })
    : {
        targeted: 0,
        excluded: noneExcluded(),
        toSend: 0,
        sandboxRefused: 0,
        sandboxFirst: [],
        domains: {},
      };
  const [{ month }] = await query<{ month: string | null }>(`SELECT ${monthSendsSql('$1')} AS month`, [project.id]);
  const monthSends = Number(month ?? 0);
  const problems: string[] = [];
  const templateRows = templateIds.length
    ? await query<{ id: string; name: string; type: string; html_body: string }>(
        'SELECT id, name, type, html_body FROM templates WHERE project_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL',
        [project.id, templateIds],
      )
    : [];
  for (const id of templateIds) {
    const t = templateRows.find((x) => x.id === id);
    if (!t) problems.push(`template_id: no template with id ${id}`);
    else if (checkTemplateContent(t.html_body, t.type)) problems.push(`template '${t.name}': ${checkTemplateContent(t.html_body, t.type)}`);
  }
  const personas = personaIds.length
    ? await query<{ id: string; email: string; verified: boolean }>(
        'SELECT id, email, verified_at IS NOT NULL AS verified FROM sender_personas WHERE project_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL',
        [project.id, personaIds],
      )
    : [];
  for (const id of personaIds) {
    const s = personas.find((x) => x.id === id);
    if (!s) problems.push(`sender_persona_id: no sender persona with id ${id}`);
    else if (!s.verified) problems.push(`sender persona ${s.email} is not verified yet: follow the link in the verification email sent to it, then launch`);
  }
  const sandboxRefused = audience.sandboxRefused;
  if (sandboxRefused)
    problems.push(
      `${sandboxRefused} recipient(s) cannot be sent to while the account is in the sandbox (only the simulator address and your sender personas can)`,
    );
  if (hasAudience && !audience.toSend) problems.push('Nobody to send to: every recipient is left out (see the exclusions)');
  const perRecipient = p.emails_per_recipient ?? 1;
  const emails = audience.toSend * perRecipient;
  const cost = sendCost(monthSends, emails);
  const estimate = await launchEstimate(query, audience.toSend, audience.domains, perRecipient, p.sender_persona_id ?? undefined, governor);
  return {
    counts_estimated: share < 1,
    targeted: audience.targeted,
    excluded: audience.excluded,
    to_send: audience.toSend,
    sandbox_refused: sandboxRefused,
    month_sends: monthSends,
    emails,
    cost: { dollars: cost.dollars, before: cost.before, after: cost.after, free_left: cost.freeLeft },
    cost_per_1000: sendCost(monthSends, 1000).dollars,
    // Under the relay's rate (SMTP_URL max_rate), the providers' rates and the warm-up: how long the emails take to go
    // out; null when no limit applies.
    send_rate: governor.relayMaxRate ?? null,
    estimated_duration_s: estimate.seconds,
    estimate_limited_by: estimate.limitedBy,
    problems,
    warnings: await unsignedPersonaWarnings(query, project.id, personaIds),
  };
}

/**
 * launchEstimate sums the recipients per provider group with a rate limit (from the audience's recipients per domain,
 * counted in the database) and reads the sender persona's domain warm-up, then estimates the send's duration
 * (core/sending/estimate.ts).
 */
async function launchEstimate(
  query: QueryFn,
  recipients: number,
  domains: Record<string, number>,
  perRecipient: number,
  personaId: string | undefined,
  governor: Pick<Config, 'relayMaxRate' | 'providerGroups' | 'warmupSchedule'>,
) {
  const table = new ProviderTable(governor.providerGroups);
  const counts = new Map<string, { name: string; emails: number; maxRate: number }>();
  for (const [domain, n] of Object.entries(domains)) {
    const g = table.forEmail(`x@${domain}`);
    if (!g?.limits.maxRate) continue;
    const c = counts.get(g.name) ?? { name: g.name, emails: 0, maxRate: g.limits.maxRate };
    c.emails += n * perRecipient;
    counts.set(g.name, c);
  }
  const now = Date.now();
  const w = personaId && governor.warmupSchedule ? await personaWarmup(query, personaId, governor.warmupSchedule, now) : undefined;
  return estimateSendDuration({
    emails: recipients * perRecipient,
    relayRate: governor.relayMaxRate,
    providers: [...counts.values()],
    warmup:
      w && w.state.active && w.state.cap_today !== null
        ? { domain: w.domain, day: w.state.day, capToday: w.state.cap_today, sentToday: w.state.sent_today, schedule: governor.warmupSchedule! }
        : undefined,
    now,
  });
}
