/**
 * The sender (DESIGN.md §6): claims due outbox rows in batches (FOR UPDATE SKIP LOCKED, fenced by a claim token and a
 * lease), renders each recipient's email, stores the exact raw message, delivers it through the MailTransport, and
 * records `email_send_result_success` — or retries with back-off, and after the last attempt records
 * `email_send_result_failure` with the reason.
 *
 * Exactly once: a row moves pending → sending → sent|failed. The sent mark and its event are one statement run the
 * moment the relay accepts the message, and only if this sender still holds the claim. A sender killed mid-batch
 * leaves rows in `sending`; when their lease ends another sender re-claims them. A message the relay had not accepted
 * (no 250 after DATA) was discarded by the relay, so resending it is safe. The one window left is the sub-millisecond
 * between the relay's 250 and the commit; a resend then carries the same Message-ID, which receivers use to drop
 * duplicates.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import type { MailTransport } from '../server/mail/transport.ts';
import type { RenderPool } from '../server/mail/renderPool.ts';
import { unsubscribeLink } from '../server/mail/links.ts';
import { recordFeedback } from '../server/feedback.ts';
import { simulatorFeedback, smtpBounce, type SmtpRefusal } from '../domain/feedback.ts';
import { buildRenderContext } from '../domain/templateVariables.ts';
import { encodeLocation } from '../domain/location.ts';
import { dkimKeys } from '../server/domains.ts';

/** The bucket holding the exact copy of every sent email. */
export const SENT_BUCKET = 'sent-emails';
/** Attempts before a temporary failure becomes final. */
export const MAX_ATTEMPTS = 5;

/** retryDelayMs is the back-off before attempt `attempts + 1`: 30 s, 1 min, 2 min, 4 min … capped at 30 min. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 30 * 60_000);
}

interface OutboxRow {
  id: string | number; project_id: string; blast_id: string | null; contact_id: string | null; email: string;
  template_id: string | null; sender_persona_id: string | null; subject: string | null; body: string | null;
  attempts: number; message_id: string; is_test: boolean;
  workflow_id: string | null; workflow_hops: number | null; event: Record<string, unknown> | null;
}

interface TemplateRow { id: string; version: number; subject: string; html_body: string; plain_text_body: string | null; type: string }

export interface SenderOptions {
  /** Rows claimed per batch (default 200). */
  batchSize?: number;
  /** Claim lease in ms (Config.sendLeaseMs). */
  leaseMs: number;
  /** Idle poll interval in ms (Config.sendPollMs). */
  pollMs: number;
  /** Messages in flight at once, over both batch loops (default 32; Config gives 128). */
  concurrency?: number;
  /** Longest wait (ms) before accepted messages are recorded as sent, batched into one statement (default 5). */
  recordWindowMs?: number;
}

interface SentMark { id: string | number; token: string; location: string; json: object; done: () => void; fail: (err: unknown) => void }

/**
 * SentRecorder records accepted messages as sent: each mark waits at most `windowMs` (or until 50 are waiting) and is
 * written with the others in one statement (outbox row → sent, plus its email_send_result_success event), fenced by
 * each row's claim token. Batching keeps the database off the per-message path; the price is that the window between
 * the relay's 250 and the commit is up to `windowMs` instead of one round trip.
 */
export class SentRecorder {
  private pending: SentMark[] = [];
  private timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly query: QueryFn, private readonly windowMs: number) {}

  /** sent resolves once the row is recorded as sent (or rejects when the statement failed). */
  sent(id: string | number, token: string, location: string, json: object): Promise<void> {
    return new Promise((done, fail) => {
      this.pending.push({ id, token, location, json, done, fail });
      if (this.pending.length >= 50) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  private async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return;
    try {
      await this.query(
        `WITH input AS (SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::jsonb[]) AS u(id, token, location, json)),
         done AS (
           UPDATE outbox o SET status = 'sent', sent_at = now(), location = i.location, last_error = NULL, claim_token = NULL
             FROM input i WHERE o.id = i.id AND o.claim_token = i.token
           RETURNING o.project_id, o.email, o.contact_id, o.blast_id, o.template_id, i.json)
         INSERT INTO events (project_id, name, email, user_id, is_system, blast_id, template_id, json)
         SELECT project_id, 'email_send_result_success', email, contact_id, true, blast_id, template_id, json FROM done`,
        [batch.map((m) => String(m.id)), batch.map((m) => m.token), batch.map((m) => m.location), batch.map((m) => JSON.stringify(m.json))]);
      for (const m of batch) m.done();
    } catch (err) {
      for (const m of batch) m.fail(err);
    }
  }
}

/** Sender runs the claim → render → store → deliver → record loop until stopped. */
export class Sender {
  private running = false;
  private loops?: Promise<void[]>;
  private readonly wakers = new Set<() => void>();
  private readonly query: QueryFn;
  private readonly recorder: SentRecorder;

  constructor(
    private readonly ctx: AppContext,
    private readonly transport: MailTransport,
    private readonly renderer: RenderPool,
    private readonly opts: SenderOptions,
  ) {
    this.query = ctx.database.query.bind(ctx.database) as QueryFn;
    this.recorder = new SentRecorder(this.query, opts.recordWindowMs ?? 5);
  }

  /**
   * start begins polling for due rows with two batch loops, so one claims and fills its batch while the other drains
   * the tail of its own (each keeps `concurrency / 2` emails in flight).
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Promise.all([this.run(), this.run()]);
  }

  /** stop finishes the batches in hand and resolves when the loops have ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.loops;
  }

  /** poke wakes idle loops at once (e.g. after a single send was queued). */
  poke(): void {
    for (const wake of this.wakers) wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.sendBatch();
      } catch (err) {
        console.error('sender: batch failed:', (err as Error).message);
      }
      if (claimed === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const wake = () => { clearTimeout(t); this.wakers.delete(wake); resolve(); };
          const t = setTimeout(wake, this.opts.pollMs);
          this.wakers.add(wake);
        });
      }
    }
  }

  /**
   * sendBatch claims up to batchSize due rows (pending and due, or sending with an expired lease), sends them, and
   * returns how many it claimed.
   */
  async sendBatch(): Promise<number> {
    const token = randomUUID();
    const rows = await this.query<OutboxRow>(
      `UPDATE outbox SET status = 'sending', claim_token = $1, lease_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
        WHERE id IN (SELECT id FROM outbox
                      WHERE (status = 'pending' AND send_at <= now() AND next_attempt_at <= now())
                         OR (status = 'sending' AND lease_until < now())
                      LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, blast_id, contact_id, email, template_id, sender_persona_id, subject, body, attempts, message_id, is_test,
                  workflow_id, workflow_hops, event`,
      [token, String(this.opts.leaseMs), this.opts.batchSize ?? 200]);
    if (!rows.length) return 0;
    // Renew the claim while the batch is in hand: only a sender that has stopped loses its rows to another.
    const heartbeat = setInterval(() => {
      this.query(`UPDATE outbox SET lease_until = now() + ($2 || ' milliseconds')::interval WHERE claim_token = $1 AND status = 'sending'`,
        [token, String(this.opts.leaseMs)]).catch((err) => console.error('sender: lease renewal failed:', (err as Error).message));
    }, Math.max(50, Math.floor(this.opts.leaseMs / 3)));
    try {
      const lookups = await this.loadBatchData(rows);
      const concurrency = Math.max(1, Math.floor((this.opts.concurrency ?? 32) / 2));
      let next = 0;
      // A delivered email's sent mark is written in the background (SentRecorder batches them) so its slot moves on
      // to the next email; the batch ends only when every mark is written, while the claim is still renewed.
      const marks: Promise<void>[] = [];
      const worker = async () => {
        while (next < rows.length) {
          const row = rows[next++];
          const mark = await this.sendOne(row, token, lookups);
          if (mark) marks.push(mark);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
      await Promise.all(marks);
    } finally {
      clearInterval(heartbeat);
    }
    await logFinishedBlasts(this.query, [...new Set(rows.map((r) => r.blast_id).filter((b): b is string => !!b))]);
    return rows.length;
  }

  private async loadBatchData(rows: OutboxRow[]) {
    const ids = (pick: (r: OutboxRow) => string | null) => [...new Set(rows.map(pick).filter((x): x is string => !!x))];
    const [contacts, personas, templates, projects, blasts, suppressions, dkim] = await Promise.all([
      this.query<Record<string, unknown> & { id: string }>('SELECT * FROM contacts WHERE id = ANY($1::uuid[])', [ids((r) => r.contact_id)]),
      this.query<Record<string, unknown> & { id: string; email: string; first_name: string; last_name: string | null; verified_at: Date | null }>('SELECT * FROM sender_personas WHERE id = ANY($1::uuid[])', [ids((r) => r.sender_persona_id)]),
      this.query<TemplateRow>('SELECT id, version, subject, html_body, plain_text_body, type FROM templates WHERE id = ANY($1::uuid[])', [ids((r) => r.template_id)]),
      this.query<{ id: string; link_secret: string }>('SELECT id, link_secret FROM projects WHERE id = ANY($1::uuid[])', [ids((r) => r.project_id)]),
      this.query<{ id: string; enabled: boolean }>('SELECT id, enabled FROM email_blasts WHERE id = ANY($1::uuid[])', [ids((r) => r.blast_id)]),
      this.query<{ project_id: string; email: string; reason: string }>(
        'SELECT project_id, email, reason FROM suppressions WHERE project_id = ANY($1::uuid[]) AND email = ANY($2::text[])',
        [ids((r) => r.project_id), [...new Set(rows.map((r) => r.email.trim().toLowerCase()))]]),
      // Mail from a persona on a verified sending domain is DKIM-signed with that domain's key (issue 4 §5).
      dkimKeys(this.query, ids((r) => r.sender_persona_id)),
    ]);
    const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
    const suppressed = new Map(suppressions.map((x) => [`${x.project_id}:${x.email}`, x.reason]));
    return { contacts: byId(contacts), personas: byId(personas), templates: byId(templates), projects: byId(projects), blasts: byId(blasts), suppressed, dkim };
  }

  /**
   * sendOne renders, stores and delivers one email. On delivery it returns the pending sent mark; a mark that cannot be
   * written is logged and its row left in `sending` (re-claimed after the lease), never reported as a failed delivery.
   */
  private async sendOne(row: OutboxRow, token: string, data: Awaited<ReturnType<Sender['loadBatchData']>>): Promise<Promise<void> | undefined> {
    const blast = row.blast_id ? data.blasts.get(row.blast_id) : undefined;
    if (blast && !blast.enabled) {
      await this.query(`UPDATE outbox SET status = 'cancelled', last_error = 'blast disabled', claim_token = NULL WHERE id = $1 AND claim_token = $2`, [row.id, token]);
      return undefined;
    }
    const persona = row.sender_persona_id ? data.personas.get(row.sender_persona_id) : undefined;
    const template = row.template_id ? data.templates.get(row.template_id) : undefined;
    const project = data.projects.get(row.project_id);
    let stage = 'render';
    const key = `${row.project_id}/${new Date().toISOString().slice(0, 10)}/${row.id}.eml`;
    try {
      if (!persona) throw new PermanentError('sender persona not found');
      if (!persona.verified_at) {
        throw new PermanentError(`sender not verified: ${persona.email} has not confirmed the verification email sent to it; follow its link, then send again`);
      }
      if (row.template_id && !template) throw new PermanentError('template not found');
      const marketing = template?.type === 'TEMPLATE_MARKETING';
      const contact = row.contact_id ? data.contacts.get(row.contact_id) : undefined;
      // Checked again at send time: the recipient may have bounced, complained or unsubscribed since expansion.
      // An unsubscribe (unsubscribed_at, or an 'unsubscribed' entry for a recipient who is not a contact) stops
      // marketing sends only, and not an operator's test email of a marketing template; bounces and complaints stop all.
      const optOutApplies = marketing && !row.is_test;
      const suppressedFor = data.suppressed.get(`${row.project_id}:${row.email.trim().toLowerCase()}`);
      if (suppressedFor && (suppressedFor !== 'unsubscribed' || optOutApplies)) {
        throw new PermanentError(`suppressed: ${row.email} is on the suppression list (${suppressedFor})`);
      }
      if (optOutApplies && contact?.unsubscribed_at) throw new PermanentError(`unsubscribed: ${row.email} unsubscribed from marketing email`);
      const link = unsubscribeLink(this.ctx.config.publicUrl, project?.link_secret ?? '', row.project_id, row.contact_id, Number(row.id));
      const vars = buildRenderContext(contact ?? { email: row.email }, persona, link, row.event);
      const { subject, raw } = await this.renderer.render({
        templateKey: template ? `${template.id}:${template.version}` : `outbox:${row.id}`,
        template: template ?? { subject: row.subject ?? '', html_body: row.body ?? '' },
        vars,
        message: {
          from: { email: persona.email, name: [persona.first_name, persona.last_name].filter(Boolean).join(' ') },
          to: row.email,
          messageId: row.message_id,
          listUnsubscribe: marketing ? link : undefined,
          dkim: data.dkim.get(persona.id),
        },
        store: { bucket: SENT_BUCKET, key },
        // Opens and clicks are tracked on every email but test emails (issue 5).
        tracking: row.is_test || !project ? undefined : {
          publicUrl: this.ctx.config.publicUrl, secret: project.link_secret, projectId: row.project_id, contactId: row.contact_id,
          outboxId: Number(row.id), unsubscribeLink: link,
        },
      });
      stage = 'deliver';
      // The mailbox simulator answers for its own addresses: accepted without delivery, then its feedback.
      const simulated = simulatorFeedback(row.email);
      const reply = simulated
        ? { response: `250 simulator: accepted for ${row.email} (${simulated.kind}), not delivered` }
        : await this.transport.send({ from: persona.email, to: [row.email] }, raw);
      const location = encodeLocation(SENT_BUCKET, key);
      return this.recorder.sent(row.id, token, location, {
        bucket: SENT_BUCKET, key, location, subject, message_id: row.message_id,
        blast_id: row.blast_id, template_id: row.template_id, is_test_email: row.is_test,
        transport: simulated ? 'simulator' : this.transport.delivers ? 'smtp' : 'capture', response: reply.response,
        // A workflow's email (issue 8): its events count for the workflow, and the hop count guards against cycles.
        ...(row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {}),
      }).then(async () => {
        if (simulated) await recordFeedback(this.query, row.project_id, [{ ...simulated, messageId: row.message_id }], 'simulator');
      }).catch((err) => console.error(`sender: email ${row.id} was delivered but could not be recorded as sent:`, (err as Error).message));
    } catch (err) {
      await this.recordFailure(row, token, (err as { stage?: string }).stage ?? stage, err);
      return undefined;
    }
  }

  private async recordFailure(row: OutboxRow, token: string, stage: string, err: unknown): Promise<void> {
    const e = err as Error & { responseCode?: number };
    const reason = `${stage}: ${e.message ?? String(err)}`;
    const permanent = err instanceof PermanentError || (typeof e.responseCode === 'number' && e.responseCode >= 500) || stage === 'render';
    if (!permanent && row.attempts < MAX_ATTEMPTS) {
      await this.query(
        `UPDATE outbox SET status = 'pending', claim_token = NULL, last_error = $3, next_attempt_at = now() + ($4 || ' milliseconds')::interval
          WHERE id = $1 AND claim_token = $2`,
        [row.id, token, reason, String(retryDelayMs(row.attempts))]);
      return;
    }
    await this.query(
      `WITH done AS (
         UPDATE outbox SET status = 'failed', last_error = $3, claim_token = NULL WHERE id = $1 AND claim_token = $2 RETURNING *)
       INSERT INTO events (project_id, name, email, user_id, is_system, blast_id, template_id, json)
       SELECT project_id, 'email_send_result_failure', email, contact_id, true, blast_id, template_id,
              jsonb_strip_nulls(jsonb_build_object('error_string', $3::text, 'attempts', attempts, 'blast_id', blast_id, 'message_id', message_id,
                                                   'workflow_id', workflow_id, 'workflow_hops', workflow_hops)) FROM done`,
      [row.id, token, reason]);
    // A relay's 5xx is a hard bounce; a recipient refused as a bad address is also suppressed (smtpBounce).
    const bounce = stage === 'deliver' ? smtpBounce(row.email, err as SmtpRefusal) : undefined;
    if (bounce) await recordFeedback(this.query, row.project_id, [{ ...bounce, messageId: row.message_id }], 'smtp');
  }
}

/**
 * logFinishedBlasts writes one JOB_DISTRIBUTE_EMAIL_BLAST entry for each fully expanded blast whose rows are all
 * settled (a blast still being expanded has more rows to come). The open
 * check is an index probe per blast; the counts are only computed for a blast that has just finished.
 */
export async function logFinishedBlasts(query: QueryFn, blastIds: string[]): Promise<void> {
  if (!blastIds.length) return;
  const finished = (await query<{ id: string }>(
    `SELECT b.id FROM email_blasts b
      WHERE b.id = ANY($1::uuid[]) AND b.expanded_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.blast_id = b.id AND o.status IN ('pending', 'sending'))
        AND NOT EXISTS (SELECT 1 FROM job_log j WHERE j.job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND j.start_details->>'scheduled_email_group_id' = b.id::text)`,
    [blastIds])).map((r) => r.id);
  if (!finished.length) return;
  await query(
    `INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
     SELECT b.project_id, 'JOB_DISTRIBUTE_EMAIL_BLAST', b.due_at, now(), c.failed = 0,
            jsonb_build_object('scheduled_email_group_id', b.id, 'name', b.name),
            jsonb_build_object('num_sent', c.sent, 'num_failed', c.failed, 'num_cancelled', c.cancelled)
       FROM email_blasts b
       JOIN LATERAL (SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status = 'failed')::int AS failed,
                            count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
                       FROM outbox o WHERE o.blast_id = b.id) c ON true
      WHERE b.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM job_log j WHERE j.job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND j.start_details->>'scheduled_email_group_id' = b.id::text)`,
    [finished]);
}

/** PermanentError marks a failure that retrying cannot fix (missing persona or template). */
export class PermanentError extends Error {}
