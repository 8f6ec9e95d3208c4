/**
 * Blast expansion (DESIGN.md §6): when a blast is due, turn its audience (segments ∪ contacts, minus unsubscribed,
 * bounced, complained and suppressed addresses) into one outbox row per recipient with its own send instant (the
 * contact's zone when asked), and record the audience accounting (targeted, queued, excluded by reason; issue 5) on
 * the blast.
 *
 * Rows are written in chunks, each its own statement, so the sender starts on the first chunk while the rest is
 * written, and a large blast never holds one long transaction (on PGlite, with its single connection, that would stall
 * every other request). Each chunk inserts with ON CONFLICT (blast_id, contact_id) DO NOTHING, so a retried, resumed
 * or duplicated expansion adds only what is missing and never a second row, Message-ID or failure event for anyone.
 * The blast counts as expanded (expanded_at, accounting, the JOB_PROCESS_EMAIL_BLAST entry) only once every chunk is
 * in, in one transaction guarded by expanded_at IS NULL; until then the blast is never reported as distributed.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import { recipientSendInstant } from '../../../domain/sendTime.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { logFinishedBlasts } from './finished.ts';
import { BLAST_BY_ID, LOG_EXPANDED, MARK_EXPANDED, PERSONA_EMAIL, PROJECT_PERSONA_EMAILS, PROJECT_SANDBOX, QUEUE_RECIPIENTS } from './queries.ts';
import { blastAudience } from '../audience/index.ts';
import type { QueryFn } from '../../db/client.ts';

/** Recipients in the first chunk of an expansion (written first, so sending starts early), then in each later chunk. */
const FIRST_CHUNK = 500;
const CHUNK = 5000;

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
}

/**
 * pickTemplate chooses a template for one recipient: the blast's template, or for an A/B blast one of the weighted
 * templates, chosen by a stable hash of the contact id so a re-expansion picks the same one.
 */
export function pickTemplate(blast: Pick<BlastRow, 'template_id' | 'template_ids_with_weights'>, contactId: string): string {
  const weights = blast.template_ids_with_weights ?? [];
  if (!weights.length) return blast.template_id as string;
  const total = weights.reduce((s, w) => s + w.weight, 0);
  let h = 2166136261;
  for (const ch of contactId) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let point = h % total;
  for (const w of weights) {
    if (point < w.weight) return w.template_id;
    point -= w.weight;
  }
  return weights[weights.length - 1].template_id;
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
  const personaEmails = project.not_in_sandbox ? [] : (await run<{ email: string }>(PROJECT_PERSONA_EMAILS, [blast.project_id])).map((r) => r.email);
  const domain = persona?.email.split('@')[1] ?? 'localhost';
  const templateIds = blast.template_ids_with_weights?.length ? blast.template_ids_with_weights.map((w) => w.template_id) : [blast.template_id];
  const { recipients, excluded, targeted } = await blastAudience(
    run,
    blast.project_id,
    blast,
    templateIds.filter((t): t is string => !!t),
  );
  const accounting = { targeted, queued: recipients.length, excluded };

  const perZone: Record<string, string> = {};
  const instants = new Map<string | null, { zone: string; instant: Date }>(); // one computation per distinct zone
  let failed = 0;
  // A small first chunk gets the first emails going at once; later chunks are larger (fewer statements).
  for (let i = 0, size = FIRST_CHUNK; i < recipients.length; i += size, size = CHUNK) {
    const cols = {
      contact: [] as string[],
      email: [] as string[],
      template: [] as string[],
      zone: [] as string[],
      sendAt: [] as string[],
      status: [] as string[],
      error: [] as (string | null)[],
      messageId: [] as string[],
    };
    for (const r of recipients.slice(i, i + size)) {
      let at = instants.get(r.timezone);
      if (!at) instants.set(r.timezone, (at = recipientSendInstant(blast, r.timezone)));
      const { zone, instant } = at;
      perZone[zone] = instant.toISOString();
      const rejection = project.not_in_sandbox ? undefined : sandboxRejection(r.email, personaEmails);
      if (rejection) failed++;
      cols.contact.push(r.id);
      cols.email.push(r.email);
      cols.template.push(pickTemplate(blast, r.id));
      cols.zone.push(zone);
      cols.sendAt.push(instant.toISOString());
      cols.status.push(rejection ? 'failed' : 'pending');
      cols.error.push(rejection ?? null);
      cols.messageId.push(`<${randomUUID()}@${domain}>`);
    }
    // The rows and, for a recipient refused in the sandbox, its unsuccessful-send event: one statement, so a chunk is
    // in whole or not at all; rows already there (a resumed expansion) are left as they are and get no second event.
    await run(QUEUE_RECIPIENTS, [
      blast.project_id,
      blast.id,
      blast.sender_persona_id,
      cols.contact,
      cols.email,
      cols.template,
      cols.zone,
      cols.sendAt,
      cols.status,
      cols.error,
      cols.messageId,
    ]);
    onQueued();
  }
  const done = await ctx.database.transaction(async (tx) => {
    const [marked] = await tx<{ id: string }>(MARK_EXPANDED, [blast.id, JSON.stringify(perZone), JSON.stringify(accounting)]);
    if (!marked) return false; // another expansion of the same blast finished first
    await tx(LOG_EXPANDED, [
      blast.project_id,
      JSON.stringify({ scheduled_email_group_id: blast.id, name: blast.name }),
      JSON.stringify({
        num_recipients: recipients.length,
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
  return recipients.length;
}
