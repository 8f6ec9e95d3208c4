/**
 * Claimed batches of the outbox (docs/architecture.md "Sending a blast, exactly once"): a sender claims due rows in
 * batches (FOR UPDATE SKIP LOCKED, ./queries.ts CLAIM_DUE), fenced by a claim token and a lease, with what sending
 * them needs looked up once per batch. A live sender never takes over its own rows and never sends a row it cannot
 * show it still holds (a stalled process once re-claimed rows still waiting in its own queue and sent them twice):
 * - the claim skips rows whose token is one of this sender's live tokens (batches not yet settled), whatever their
 *   lease says;
 * - each batch keeps a local deadline, the instant (performance.now(), ms) the last successful claim or renewal
 *   statement was *sent* plus the lease, never later than the database's `lease_until`. Before a row is rendered and
 *   again before it is delivered, `holds` compares the clock with it (no statement); when less than a third of the
 *   lease is left, `renewAndHolds` first awaits a renewal (one in flight per batch, shared with the heartbeat). A row
 *   a renewal does not return was taken over by another sender after its lease lapsed, and is dropped unsent;
 * - the heartbeat (every lease/3) renews the lease of queued and in-flight rows so that other senders leave them
 *   alone, but correctness does not depend on it running on time.
 */
import { randomUUID } from 'node:crypto';
import type { QueryFn } from '../../db/client.ts';
import { logFinishedBlasts } from '../blasts/finished.ts';
import { dkimKeys, personaSendingDomains } from '../domains/index.ts';
import { SEND_TIME_EXCLUSIONS, type SendExclusion } from './eligibility.ts';
import { CLAIM_DUE, CLAIM_DUE_FOR_DOMAINS, HAND_BACK, LOOKUP, RENEW_LEASE } from './queries.ts';
import { PAUSED_PROJECTS } from './reputation.ts';
import type { SubmissionContent } from './submission.ts';

/** A claimed outbox row, as CLAIM_DUE returns it. */
export interface OutboxRow {
  id: string | number;
  project_id: string;
  blast_id: string | null;
  contact_id: string | null;
  email: string;
  template_id: string | null;
  sender_persona_id: string | null;
  subject: string | null;
  body: string | null;
  attempts: number;
  /** When the email was due (its deferrals count their age from here). */
  send_at: Date;
  message_id: string;
  is_test: boolean;
  /** False for an email sent without any tracking (the double opt-in confirmation). */
  tracking: boolean;
  workflow_id: string | null;
  workflow_hops: number | null;
  event: Record<string, unknown> | null;
  /** The message stream (core/sending/streams.ts). */
  stream: string;
  /** The submission whose content it is (the sending API, SMTP submission), else null. */
  submission_id: string | null;
}

/** A template as the sender reads it. */
export interface TemplateRow {
  id: string;
  version: number;
  subject: string;
  html_body: string;
  plain_text_body: string | null;
  type: string;
  /** The subscription topic of its emails, or null. */
  topic_id: string | null;
}

/** A submission's content as the sender reads it (core/sending/submission.ts). */
export interface SubmissionRow {
  id: string;
  content: SubmissionContent;
  tags: string[];
  metadata: Record<string, string>;
}

/** A sender persona as the sender reads it. */
export type PersonaRow = Record<string, unknown> & { id: string; email: string; first_name: string; last_name: string | null; verified_at: Date | null };

/** What sending a batch needs, each by id: contacts, personas, templates, projects, blasts, exclusions (by outbox id), DKIM keys and sending domains (by persona id). */
export type BatchData = Awaited<ReturnType<typeof loadBatchData>>;

/**
 * loadBatchData looks up, in one statement per kind run together, what sending `rows` needs: their contacts,
 * personas, templates, projects' link secrets, blasts, why each recipient may not be sent to now
 * (SEND_TIME_EXCLUSIONS), the DKIM key of each persona on a verified sending domain, and the sending domain each
 * persona sends from (what its warm-up counts).
 */
export async function loadBatchData(query: QueryFn, rows: OutboxRow[]) {
  const ids = (pick: (r: OutboxRow) => string | null) => [...new Set(rows.map(pick).filter((x): x is string => !!x))];
  const personaIds = ids((r) => r.sender_persona_id);
  const [contacts, personas, templates, projects, blasts, submissions, exclusions, dkim, domains] = await Promise.all([
    query<Record<string, unknown> & { id: string }>(LOOKUP.contacts, [ids((r) => r.contact_id)]),
    query<PersonaRow>(LOOKUP.personas, [personaIds]),
    query<TemplateRow>(LOOKUP.templates, [ids((r) => r.template_id)]),
    query<{ id: string; link_secret: string }>(LOOKUP.projects, [ids((r) => r.project_id)]),
    query<{ id: string; enabled: boolean; topic_id: string | null }>(LOOKUP.blasts, [ids((r) => r.blast_id)]),
    query<SubmissionRow>(LOOKUP.submissions, [ids((r) => r.submission_id)]),
    query<SendExclusion>(SEND_TIME_EXCLUSIONS, [rows.map((r) => String(r.id))]),
    dkimKeys(query, personaIds),
    personaSendingDomains(query, personaIds),
  ]);
  const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
  return {
    contacts: byId(contacts),
    personas: byId(personas),
    templates: byId(templates),
    projects: byId(projects),
    blasts: byId(blasts),
    submissions: byId(submissions),
    exclusions: byId(exclusions),
    dkim,
    domains,
  };
}

/** One claimed batch: its rows, claim token, looked-up data, how long it is surely held, and what is still open of it. */
export interface Batch {
  rows: OutboxRow[];
  token: string;
  lookups: BatchData;
  heartbeat: ReturnType<typeof setInterval>;
  /** Until when (performance.now(), ms) the rows in `held` are surely still claimed under `token`. */
  heldUntil: number;
  /** Ids (as strings) the last successful claim or renewal returned: the rows still claimed under `token` then. */
  held: Set<string>;
  /** The renewal statement in flight, if any: the heartbeat and every slot share it. */
  renewing?: Promise<void>;
  /** Rows not yet sent, failed or dropped. */
  open: number;
  /** Rows dropped unsent because the claim on them could not be shown to be still held. */
  dropped: number;
  marks: Promise<void>[];
}

/** Claims makes and keeps one sender's claims. */
export class Claims {
  /** Claim tokens of this sender's batches not yet settled: the claim never takes rows held under them. */
  private readonly live = new Set<string>();
  /** Projects whose marketing sending the circuit-breaker paused, as of the last claim (or this process's own pause). */
  paused = new Set<string>();

  /** `leaseMs`: the claim's lease; `heartbeatMs`: how often it is renewed (default leaseMs / 3); `batchSize`: rows per claim. */
  constructor(
    private readonly query: QueryFn,
    private readonly opts: { leaseMs: number; heartbeatMs?: number; batchSize: number },
  ) {}

  /**
   * claim takes up to batchSize due rows (or, with `only`, up to `only.limit` due rows to recipients at `only.domains`)
   * under a new claim token, and loads what sending them needs. A heartbeat renews the lease until `settled`.
   * Undefined when nothing is due. Rejects when the lookups fail, after handing the rows back.
   */
  async claim(only?: { domains: string[]; limit: number }): Promise<Batch | undefined> {
    const token = randomUUID();
    const sentAt = performance.now();
    const { leaseMs } = this.opts;
    const rows = only
      ? await this.query<OutboxRow>(CLAIM_DUE_FOR_DOMAINS, [token, String(leaseMs), only.limit, only.domains])
      : await this.query<OutboxRow>(CLAIM_DUE, [token, String(leaseMs), this.opts.batchSize, [...this.live]]);
    if (!rows.length) return undefined;
    this.live.add(token);
    // Which projects are paused now (the claim left their marketing rows; rows claimed earlier are checked per row).
    // A failure keeps the last known set: the token must not stay live with no batch to settle it.
    try {
      this.paused = new Set((await this.query<{ id: string }>(PAUSED_PROJECTS)).map((r) => r.id));
    } catch (err) {
      console.error('sender: reading the paused projects failed:', (err as Error).message);
    }
    const heartbeatMs = Math.min(2 ** 31 - 1, Math.max(50, Math.floor(this.opts.heartbeatMs ?? leaseMs / 3)));
    // The heartbeat runs from the claim on, while the batch's data loads too; `lookups` is filled in below.
    const batch: Batch = {
      rows,
      token,
      lookups: undefined as unknown as BatchData,
      heartbeat: setInterval(() => void this.renew(batch), heartbeatMs),
      heldUntil: sentAt + leaseMs,
      held: new Set(rows.map((r) => String(r.id))),
      open: rows.length,
      dropped: 0,
      marks: [],
    };
    try {
      batch.lookups = await loadBatchData(this.query, rows);
      return batch;
    } catch (err) {
      // The rows go back at once (or, if even that fails, stay claimed until the lease ends).
      this.settled(batch);
      await this.query(HAND_BACK, [rows.map((r) => String(r.id)), token]).catch(() => undefined);
      throw err;
    }
  }

  /** settled stops renewing the batch's claim and lets later claims take over its rows once their lease lapses. */
  settled(batch: Batch): void {
    clearInterval(batch.heartbeat);
    this.live.delete(batch.token);
  }

  /**
   * settle, once every row of the batch is done, waits for its sent marks, stops renewing its claim (settled), says
   * how many rows were dropped unsent, then logs the blasts it finished (core/blasts/finished.ts). Never rejects: the
   * sender logs a mark that cannot be written, and a failure to log finished blasts is logged here.
   */
  async settle(batch: Batch): Promise<void> {
    try {
      await Promise.all(batch.marks);
    } finally {
      this.settled(batch);
    }
    if (batch.dropped) {
      console.warn(
        `sender: not sending ${batch.dropped} of the ${batch.rows.length} emails of claim ${batch.token}: their lease lapsed ` +
          '(this process stalled, or the database was slow) and a renewal did not show them still held; another sender takes them over',
      );
    }
    await logFinishedBlasts(this.query, [...new Set(batch.rows.map((r) => r.blast_id).filter((b): b is string => !!b))]).catch((err) =>
      console.error('sender: logging finished blasts failed:', (err as Error).message),
    );
  }

  /**
   * handBack puts claimed rows back to pending, due at once, their attempt not counted (HAND_BACK, one statement per
   * batch): for a stopping sender. Resolves how many went back; never rejects (a row it cannot put back stays claimed
   * until its lease lapses, when another sender takes it).
   */
  async handBack(items: Array<{ row: OutboxRow; batch: Batch }>): Promise<number> {
    const byBatch = new Map<Batch, OutboxRow[]>();
    for (const { row, batch } of items) byBatch.set(batch, [...(byBatch.get(batch) ?? []), row]);
    const counts = await Promise.all(
      [...byBatch].map(([batch, rows]) =>
        this.query(HAND_BACK, [rows.map((r) => String(r.id)), batch.token]).then(
          (back) => back.length,
          (err) => {
            console.error(`sender: handing back ${rows.length} claimed email(s) failed (taken over after the lease):`, (err as Error).message);
            return 0;
          },
        ),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /**
   * renew extends the lease of the batch's rows still claimed under its token, and on success sets `held` to the ids
   * the statement returned and `heldUntil` to when it was sent + leaseMs. One renewal is in flight per batch. Never
   * rejects (a failure is logged and changes nothing).
   */
  renew(batch: Batch): Promise<void> {
    if (!batch.renewing) {
      const sentAt = performance.now();
      batch.renewing = this.query<{ id: string | number }>(RENEW_LEASE, [batch.token, String(this.opts.leaseMs)])
        .then(
          (rows) => {
            batch.held = new Set(rows.map((r) => String(r.id)));
            batch.heldUntil = sentAt + this.opts.leaseMs;
          },
          (err) => console.error('sender: lease renewal failed:', (err as Error).message),
        )
        .finally(() => {
          batch.renewing = undefined;
        });
    }
    return batch.renewing;
  }

  /** holds, with no statement: true while more than a third of the lease is left of the batch's local deadline and the last claim or renewal returned the row. */
  private holds(batch: Batch, row: OutboxRow): boolean {
    return performance.now() < batch.heldUntil - this.opts.leaseMs / 3 && batch.held.has(String(row.id));
  }

  /**
   * renewAndHolds is the slow path of holds: while the deadline is near it awaits a renewal (the one in flight, then
   * at most one more), then answers whether the row is still held. False when a renewal did not return the row or
   * two renewals left the deadline near: the row must not be sent.
   */
  private async renewAndHolds(batch: Batch, row: OutboxRow): Promise<boolean> {
    for (let renewals = 0; performance.now() >= batch.heldUntil - this.opts.leaseMs / 3; renewals++) {
      if (renewals === 2) return false;
      await this.renew(batch);
    }
    return batch.held.has(String(row.id));
  }

  /** held: whether the row's claim is provably held now (holds, with no statement; else renewAndHolds). */
  async held(batch: Batch, row: OutboxRow): Promise<boolean> {
    return this.holds(batch, row) || (await this.renewAndHolds(batch, row));
  }
}
