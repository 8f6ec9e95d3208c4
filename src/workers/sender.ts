/**
 * The sender (DESIGN.md §6): claims due outbox rows in batches (FOR UPDATE SKIP LOCKED, fenced by a claim token and a
 * lease), renders each recipient's email, stores the exact raw message, delivers it through the MailTransport, and
 * records `email_send_result_success` — or, for a deferral (any 4xx, a refused connection), tries again with
 * back-off until DEFER_MAX_AGE (core/sending/deferral.ts), and for a permanent failure or an expired deferral records
 * `email_send_result_failure` with the reason.
 *
 * Exactly once: a row moves pending → sending → sent|failed. The sent mark and its event are one statement, written
 * within the recorder's window (20 ms) of the relay accepting the message, and only if this sender still holds the
 * claim. A sender killed mid-batch leaves rows in `sending`; when their lease ends another sender re-claims them. A
 * message the relay had not accepted (no 250 after DATA) was discarded by the relay, so resending it is safe. The one
 * window left is between the relay's 250 and the mark's commit (the window plus one statement); a resend then carries
 * the same Message-ID, which receivers use to drop duplicates.
 *
 * A live sender never takes over its own rows and never sends a row it cannot show it still holds (a
 * stalled process once re-claimed rows still waiting in its own queue and sent them twice):
 * - It never takes over its own claims: the claim skips rows whose claim token is one of this sender's live tokens
 *   (those of batches not yet settled, i.e. until every sent mark of the batch is written), whatever their lease says.
 * - It never sends a row on a claim it cannot prove: each batch keeps a local deadline, the instant (performance.now(),
 *   ms) the last successful claim or renewal statement was *sent* plus the lease, which is never later than the
 *   database's `lease_until`. Before a slot renders a row, and again before it delivers it, it compares the clock
 *   with that deadline (no statement); when less than a third of the lease is left, it first awaits a renewal of the
 *   batch (one in flight per batch, shared by the slots and the heartbeat). A renewal returns the ids still held under
 *   the token; a row it does not return was taken over by another sender after its lease lapsed, and is dropped
 *   unsent (counted, and logged when the batch settles), as is a row whose renewal failed twice.
 * - The heartbeat (every lease/3) still renews the lease of queued and in-flight rows so that other senders leave them
 *   alone, but correctness does not depend on it running on time. What remains is a stall of more than the margin
 *   between the last check and the relay's 250 (an email in flight), where another process may take the row over.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { takeConnection, type MailLease, type MailTransport } from '../server/mail/transport.ts';
import { returnPath } from '../server/mail/returnPath.ts';
import { AcquireAborted } from '../server/mail/smtpPool.ts';
import type { RenderPool } from '../server/mail/renderPool.ts';
import { unsubscribeLink } from '../server/mail/links.ts';
import { recordFeedback } from '../server/core/feedback/index.ts';
import { isDeferral, isRelayDown, isThrottling, nextAttemptDelay } from '../server/core/sending/deferral.ts';
import { MARK_RELAY_DOWN, MARK_RELAY_UP, PacingAborted, RelayPacer, SlotPacer } from '../server/core/sending/pacing.ts';
import { ProviderTable, type ProviderGroup } from '../server/core/sending/providers.ts';
import { ConnectionShare, ShareWaitAborted } from '../server/core/sending/connections.ts';
import type { RelaySetting } from '../server/core/sending/relays.ts';
import { PAUSED_PROJECTS, ReputationWatch } from '../server/core/sending/reputation.ts';
import {
  CANCEL_DISABLED,
  CLAIM_DUE,
  CLAIM_DUE_FOR_DOMAINS,
  HOLD_FOR_CAP,
  WAIT_FOR_PROVIDER,
  RELEASE_PAUSED,
  FAIL_SEND,
  HAND_BACK,
  LOOKUP,
  RENEW_LEASE,
  RETRY_SEND_LATER,
} from '../server/core/sending/queries.ts';
import { DailyCaps, utcDay, type CapRefusal } from '../server/core/sending/dailyCaps.ts';
import { SentRecorder, type DailyCount } from '../server/core/sending/sentRecorder.ts';
import { logFinishedBlasts } from '../server/core/blasts/finished.ts';
import { simulatorFeedback, smtpBounce, type SmtpRefusal } from '../domain/feedback.ts';
import { buildRenderContext } from '../domain/templateVariables.ts';
import { encodeLocation } from '../domain/location.ts';
import { dkimKeys, personaSendingDomains } from '../server/core/domains/index.ts';
import { sendMetrics, stageClass, type FailureReason } from '../server/metrics.ts';

/** The bucket holding the exact copy of every sent email. */
export const SENT_BUCKET = 'sent-emails';
/** How soon (ms) an email the relay throttled (454, 4.7.x, "rate") is tried again: the pacer has slowed down meanwhile. */
export const THROTTLED_RETRY_MS = 1000;
/** The longest back-off between two attempts of a deferred email (ms). */
export const MAX_RETRY_DELAY_MS = 30 * 60_000;

interface OutboxRow {
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
}

interface TemplateRow {
  id: string;
  version: number;
  subject: string;
  html_body: string;
  plain_text_body: string | null;
  type: string;
  /** The subscription topic of its emails, or null. */
  topic_id: string | null;
}

export interface SenderOptions {
  /** Rows claimed per batch (default 200). */
  batchSize?: number;
  /** Claim lease in ms (Config.sendLeaseMs). */
  leaseMs: number;
  /** Idle poll interval in ms (Config.sendPollMs). */
  pollMs: number;
  /** Messages in flight at once: the sending slots (default 32; Config gives 128). */
  concurrency?: number;
  /** Longest wait (ms) before accepted messages are recorded as sent, batched into one statement (default 20). */
  recordWindowMs?: number;
  /**
   * Heartbeat period in ms: how often the lease of each batch in hand is renewed (default leaseMs / 3, at least 50;
   * at most 2^31 − 1, the longest timer Node runs). For tests only: a value far beyond a test's length starves the
   * heartbeat, to show that no recipient is sent twice without it (tests/api/senderLease.api.test.ts).
   */
  heartbeatMs?: number;
  /**
   * Relays to fail over to when the main one (the `transport` argument, with SMTP_URL's pacing) refuses connections
   * or turns sessions away, lowest priority first (SMTP_URL's further URLs; see workers/index.ts).
   */
  backupRelays?: Array<Omit<RelaySetting, 'url'> & { transport: MailTransport }>;
  /**
   * The clock the daily caps read (ms since the epoch, UTC; default Date.now): which UTC day it is for warm-up and
   * daily_quota (core/sending/dailyCaps.ts). Tests move it through days.
   */
  now?: () => number;
}

/** A relay the sender delivers through: its transport, its pacer, and until when it is taken for down. */
interface Relay {
  name: string;
  transport: MailTransport;
  pacer?: RelayPacer;
  /**
   * Its share of max_connections over all processes (core/sending/connections.ts), when it has one: the transport keeps
   * its SMTP sessions within it (MailTransport.limitSessions), and the share records them until their sockets close.
   */
  share?: ConnectionShare;
  /** performance.now() (ms) until which the relay is not used after it refused a connection; 0 = up. */
  downUntil: number;
  /** The next wait (ms) if it is found down again: 5 s, doubling up to 5 min; reset when it takes a message. */
  downFor: number;
  /** Whether this process found it down since it last took a message (its relay_pacing row then says so), and why. */
  wasDown?: boolean;
  downReason?: string;
  /** Its daily caps (SMTP_URL daily_quota, warmup=1). */
  limits: { dailyQuota?: number; warmup?: boolean };
  /** The UTC day its daily cap was found reached, and why: it is not tried again that day. */
  full?: { day: string; refusal: CapRefusal };
  /** Lower is used first; relays of equal priority share the mail by `weight` (smooth weighted round-robin). */
  priority: number;
  weight: number;
  /** The round-robin's running weight. */
  current: number;
  /** SMTP_URL's `return_path=persona`: mail through it keeps the persona's address as envelope sender (no VERP). */
  returnPath?: 'persona';
}

/**
 * How often (ms) the feeder claims the due rows of each rate-limited provider on their own, and how many seconds of
 * the provider's rate it keeps in hand: a provider's rows then flow at its rate beside the rest of a
 * blast, instead of waiting behind every other pending row (a row that steps aside for its provider is due again
 * later than the rows queued before it, and the general claim takes rows in that order).
 */
const PROVIDER_CLAIM_MS = 500;
const PROVIDER_LOOKAHEAD_S = 1;

/** The first wait after a relay is found down (ms), and the longest. */
const RELAY_DOWN_MS = { first: 5_000, max: 5 * 60_000 };

/** One claimed batch: its rows, claim token, looked-up data, how long it is surely held, and what is still open of it. */
interface Batch {
  rows: OutboxRow[];
  token: string;
  lookups: BatchData;
  heartbeat: ReturnType<typeof setInterval>;
  /**
   * Until when (performance.now(), ms) the rows in `held` are surely still claimed under `token`: when the last
   * successful claim or renewal statement was sent, plus the lease. The database's lease_until is never earlier.
   */
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

/** Thrown inside sendOne when the row's claim is lost before delivery: the row is dropped, not failed. */
class ClaimLost extends Error {}

/** Thrown inside sendOne when the sender stops before the email reached the relay: the row is handed back. */
class StopHandBack extends Error {}

type BatchData = Awaited<ReturnType<Sender['loadBatchData']>>;

/**
 * Sender runs the claim → render → store → deliver → record loop until stopped: a feeder claims batches ahead into a
 * queue of rows, and `concurrency` slots take rows from it, so sending never waits for a claim at a batch's end.
 */
export class Sender {
  private running = false;
  private loops?: Promise<unknown>;
  private readonly query: QueryFn;
  private readonly recorder: SentRecorder;
  /** Warm-up and daily_quota counts (core/sending/dailyCaps.ts). */
  private readonly caps: DailyCaps;
  /** Per-provider limits (core/sending/providers.ts): the groups, and per group its pacer, messages in flight, waiters. */
  private readonly providers: ProviderTable;
  private readonly providerState = new Map<string, { pacer?: SlotPacer; connections?: ConnectionShare }>();
  /** The provider groups with a max_rate, whose due rows the feeder claims on their own (claimForProviders). */
  private readonly rateLimitedGroups: ProviderGroup[];
  /**
   * Rows of each rate-limited group claimed by this sender that have not yet taken (or given up on) a send slot of
   * their provider: the lookahead the feeder tops up. `waitingFor` names each such row's group, by row id.
   */
  private readonly inHand = new Map<string, number>();
  private readonly waitingFor = new Map<string, string>();
  /** When (performance.now(), ms) the feeder last claimed for the rate-limited providers. */
  private providersClaimedAt = -Infinity;
  /**
   * The relays, in order of priority: the main one, then the backups. Each paces its sends when it has a rate limit
   * (SMTP_URL max_rate, shared with every other sender process).
   */
  private readonly relays: Relay[];
  /** Projects whose marketing sending the circuit-breaker paused, as of the last claim (or this process's own pause). */
  private paused = new Set<string>();
  /** The circuit-breaker evaluated as this sender's sends are recorded. */
  private readonly reputation: ReputationWatch;
  /** Claimed rows not yet taken by a slot, oldest first. */
  private readonly queue: Array<{ row: OutboxRow; batch: Batch }> = [];
  /** Batches whose rows are all done, finishing (marks written, finished blasts logged). */
  private readonly settling = new Set<Promise<void>>();
  private feederWake?: () => void;
  /** The feeder sleeps with rows due (until the queue runs low), not idle after an empty claim (until poked or polled). */
  private feederWaitsForSlots = false;
  private readonly slotWakes = new Set<() => void>();
  private feeding = false;
  /** Claim tokens of this sender's batches not yet settled: the claim never takes rows held under them. */
  private readonly liveTokens = new Set<string>();
  /**
   * Set by stop(): no row is handed to a relay any more; a row claimed but not yet in an SMTP transaction goes back
   * (HAND_BACK), and waits for a send slot or a connection end at once (the signal aborts them).
   */
  private stopping = false;
  private readonly stopSignal = new AbortController();
  /** Rows handed back while stopping, and messages in an SMTP transaction (their relay's answer awaited). */
  private handedBack = 0;
  private inTransaction = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly transport: MailTransport,
    private readonly renderer: RenderPool,
    private readonly opts: SenderOptions,
  ) {
    this.query = ctx.database.query.bind(ctx.database) as QueryFn;
    // Every sending slot waiting for a send slot or a connection listens to the stop signal (up to 128 at once).
    setMaxListeners(0, this.stopSignal.signal);
    const { relayMaxRate, relayName, relayDailyQuota, relayWarmup, relayPriority, relayWeight, relayMaxConnections, relayReturnPath } = ctx.config;
    const relay = (s: Omit<RelaySetting, 'url'>, t: MailTransport): Relay => ({
      name: s.name,
      transport: t,
      pacer: s.maxRate && t.delivers ? new RelayPacer(this.query, s.name, s.maxRate) : undefined,
      share: s.maxConnections && t.delivers && t.limitSessions ? this.relayShare(s.name, t, s.maxConnections) : undefined,
      downUntil: 0,
      downFor: RELAY_DOWN_MS.first,
      limits: t.delivers ? { dailyQuota: s.dailyQuota, warmup: s.warmup } : {},
      priority: s.priority ?? 0,
      weight: s.weight ?? 1,
      current: 0,
      ...(s.returnPath ? { returnPath: s.returnPath } : {}),
    });
    this.relays = [
      relay(
        {
          name: relayName ?? transport.description,
          maxRate: relayMaxRate,
          dailyQuota: relayDailyQuota,
          warmup: relayWarmup,
          priority: relayPriority ?? 0,
          weight: relayWeight,
          maxConnections: relayMaxConnections,
          returnPath: relayReturnPath,
        },
        transport,
      ),
      ...(opts.backupRelays ?? []).map(({ transport: t, ...b }, i) => relay({ ...b, priority: b.priority ?? (relayPriority ?? 0) + i + 1 }, t)),
    ].sort((a, b) => a.priority - b.priority);
    this.caps = new DailyCaps(this.query, ctx.config.warmupSchedule, opts.now);
    this.providers = new ProviderTable(ctx.config.providerGroups);
    this.rateLimitedGroups = this.providers.groups.filter((g) => g.limits.maxRate);
    this.recorder = new SentRecorder(this.query, opts.recordWindowMs ?? 20);
    this.reputation = new ReputationWatch(this.query, ctx.config.reputation, (projectId) => this.paused.add(projectId));
  }

  /**
   * relayShare makes a relay's share of its max_connections over all processes and has its transport keep its SMTP
   * sessions within it: the share records the transport's open sessions (until their sockets close) and, after each
   * renewal, the transport closes idle sessions beyond a smaller share or opens up to a larger one.
   */
  private relayShare(name: string, t: MailTransport, maxConnections: number): ConnectionShare {
    const share = new ConnectionShare(this.query, `relay:${name}`, maxConnections, {
      measure: () => t.openSessions ?? 0,
      onRenew: () => t.sessionLimitChanged?.(),
    });
    // Stopping, the sender closes its sessions before it gives its share back (stop): none may then be opened.
    t.limitSessions!({ allowed: () => (this.stopping && !this.feeding ? 0 : share.granted), ready: () => share.start() });
    return share;
  }

  private get batchSize(): number {
    return this.opts.batchSize ?? 200;
  }

  /** The feeder claims another batch when fewer claimed rows than this wait for a slot: half a batch. */
  private get lowWater(): number {
    return Math.ceil(this.batchSize / 2);
  }

  /** A slot renews a batch before sending from it when less than this (ms) is left of its local deadline: a third of the lease. */
  private get renewMarginMs(): number {
    return this.opts.leaseMs / 3;
  }

  /**
   * start begins polling for due rows: the feeder claims a batch whenever fewer than half a batch of claimed rows
   * wait for a slot (so the next batch is in hand before the current one runs out), and the slots send.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.feeding = true;
    const slots = Math.max(1, this.opts.concurrency ?? 32);
    this.loops = Promise.all([
      this.feed().finally(() => {
        this.feeding = false;
        this.wakeSlots();
      }),
      ...Array.from({ length: slots }, () => this.slot()),
    ]);
  }

  /**
   * stop is a graceful stop: it claims no more, waits for the messages already in an SMTP transaction
   * and records those the relay accepted, and hands back every other claimed row (HAND_BACK: pending again, due at
   * once, its attempt not counted), so another sender takes it over at once instead of after the lease, and nothing
   * the relay accepted is left unrecorded to be sent again. Waits for a send slot, a connection or a provider's
   * connection end at once. Resolves once everything is recorded and the loops ended; logs what it handed back.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    const inTransaction = this.inTransaction;
    this.stopSignal.abort();
    this.poke();
    // Claimed rows no slot has taken yet go back at once.
    const queued = this.queue.splice(0);
    for (const { row } of queued) this.untrack(row);
    this.wakeSlots();
    const handing = this.handBack(queued);
    await this.loops;
    await handing;
    await Promise.all(this.settling);
    await this.reputation.stop();
    // The relays' sessions are closed before their shares are given back, so that no other process is granted
    // connections this one still has open (at most 2 s; a share lapses 5 s after its last renewal anyway).
    const shared = this.relays.filter((r) => r.share);
    for (const r of shared) r.transport.sessionLimitChanged?.();
    for (const end = performance.now() + 2000; shared.some((r) => (r.transport.openSessions ?? 0) > 0) && performance.now() < end;) {
      await new Promise((res) => setTimeout(res, 20));
    }
    const shares = [...this.relays.map((r) => r.share), ...[...this.providerState.values()].map((p) => p.connections)];
    await Promise.all(shares.map((c) => c?.stop()));
    if (this.handedBack || inTransaction) {
      console.log(
        `sender: stopped; waited for ${inTransaction} email(s) in an SMTP transaction and recorded them; handed back ${this.handedBack} ` +
          'claimed email(s) not yet sent (pending again: another sender, or this one after its restart, sends them)',
      );
    }
  }

  /**
   * handBack puts claimed rows back to pending (HAND_BACK, one statement per batch) and closes them in their batches.
   * Never rejects: a row it cannot put back stays claimed until its lease lapses, when another sender takes it.
   */
  private async handBack(items: Array<{ row: OutboxRow; batch: Batch }>): Promise<void> {
    const byBatch = new Map<Batch, OutboxRow[]>();
    for (const { row, batch } of items) byBatch.set(batch, [...(byBatch.get(batch) ?? []), row]);
    await Promise.all(
      [...byBatch].map(async ([batch, rows]) => {
        try {
          const back = await this.query<{ id: string }>(HAND_BACK, [rows.map((r) => String(r.id)), batch.token]);
          this.handedBack += back.length;
        } catch (err) {
          console.error(`sender: handing back ${rows.length} claimed email(s) failed (taken over after the lease):`, (err as Error).message);
        }
        for (let i = 0; i < rows.length; i++) this.closeRow(batch);
      }),
    );
  }

  /** poke wakes an idle feeder at once (e.g. after a single send was queued or a blast expanded). */
  poke(): void {
    this.feederWake?.();
  }

  private wakeSlots(): void {
    for (const wake of [...this.slotWakes]) wake();
  }

  /**
   * feed keeps the queue topped up: claims when it runs low, sleeps `pollMs` (or until poked) when nothing is due.
   * Rows already in the queue are never claimed again, even after their lease lapsed (a stalled process): claim()
   * skips this sender's live claim tokens, and the slots renew or drop such rows (sendRow).
   */
  private async feed(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      await this.claimForProviders();
      if (this.queue.length < this.lowWater) {
        try {
          const batch = await this.claim();
          if (batch && this.stopping) {
            // Stopped while the claim ran: nothing of it is sent.
            await this.handBack(batch.rows.map((row) => ({ row, batch })));
          } else if (batch) {
            claimed = batch.rows.length;
            // A rate-limited provider's rows go first, as claimForProviders' do: each takes its provider's slot or
            // steps aside at once, instead of waiting behind the batch.
            const first: Array<{ row: OutboxRow; batch: Batch }> = [];
            for (const row of batch.rows) {
              if (this.track(row)) first.push({ row, batch });
              else this.queue.push({ row, batch });
            }
            this.queue.unshift(...first);
            this.wakeSlots();
          }
        } catch (err) {
          console.error('sender: claiming a batch failed:', (err as Error).message);
        }
        if (claimed > 0) continue;
      }
      if (!this.running) break;
      // Enough in hand: sleep until a slot drains the queue below the mark. Nothing due: sleep until a poke or the
      // poll (slots do not wake an idle feeder, or the tail of the last batch would claim once per row).
      this.feederWaitsForSlots = this.queue.length >= this.lowWater;
      // Rate-limited providers are looked at again every PROVIDER_CLAIM_MS, however full the queue is.
      const sleepMs = Math.min(this.feederWaitsForSlots ? 60_000 : this.opts.pollMs, this.rateLimitedGroups.length ? PROVIDER_CLAIM_MS : Infinity);
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => this.feederWake?.(), sleepMs);
        this.feederWake = () => {
          clearTimeout(t);
          this.feederWake = undefined;
          this.feederWaitsForSlots = false;
          resolve();
        };
      });
    }
  }

  /**
   * claimForProviders claims, every PROVIDER_CLAIM_MS, the due rows of each rate-limited provider group (DOMAIN_LIMITS
   * max_rate) up to a second of its rate less what this sender holds of it, and puts them at the front of the queue:
   * each takes a send slot of its provider within a second or steps aside again (WAIT_FOR_PROVIDER). Never rejects.
   */
  private async claimForProviders(): Promise<void> {
    if (!this.rateLimitedGroups.length || performance.now() - this.providersClaimedAt < PROVIDER_CLAIM_MS) return;
    this.providersClaimedAt = performance.now();
    for (const group of this.rateLimitedGroups) {
      const want = Math.max(1, Math.ceil(group.limits.maxRate! * PROVIDER_LOOKAHEAD_S)) - (this.inHand.get(group.name) ?? 0);
      if (want <= 0 || !this.running) continue;
      try {
        const batch = await this.claim({ domains: group.domains, limit: want });
        if (!batch) continue;
        if (this.stopping) {
          await this.handBack(batch.rows.map((row) => ({ row, batch })));
          continue;
        }
        for (const row of [...batch.rows].reverse()) {
          this.track(row);
          this.queue.unshift({ row, batch });
        }
        this.wakeSlots();
      } catch (err) {
        console.error(`sender: claiming the due emails of provider ${group.name} failed:`, (err as Error).message);
      }
    }
  }

  /**
   * track counts a claimed row of a rate-limited provider group in what this sender holds of it (inHand, until
   * untrack: once the row has its provider's send slot, stepped aside, or is done). True for such a row.
   */
  private track(row: OutboxRow): boolean {
    const group = this.rateLimitedGroups.length ? this.providers.forEmail(row.email) : undefined;
    if (!group?.limits.maxRate) return false;
    if (this.waitingFor.has(String(row.id))) return true;
    this.waitingFor.set(String(row.id), group.name);
    this.inHand.set(group.name, (this.inHand.get(group.name) ?? 0) + 1);
    return true;
  }

  /** untrack takes a row out of inHand (no-op when it is not counted). */
  private untrack(row: OutboxRow): void {
    const group = this.waitingFor.get(String(row.id));
    if (group === undefined) return;
    this.waitingFor.delete(String(row.id));
    this.inHand.set(group, (this.inHand.get(group) ?? 1) - 1);
  }

  /** slot sends queued rows one at a time until the sender stops and the queue is empty. */
  private async slot(): Promise<void> {
    for (;;) {
      const item = this.queue.shift();
      if (!item) {
        if (!this.feeding) return;
        await new Promise<void>((resolve) => {
          const wake = () => {
            this.slotWakes.delete(wake);
            resolve();
          };
          this.slotWakes.add(wake);
        });
        continue;
      }
      if (this.feederWaitsForSlots && this.queue.length < this.lowWater) this.feederWake?.();
      await this.sendRow(item.row, item.batch);
      this.untrack(item.row);
    }
  }

  /**
   * sendRow sends one claimed row and, when it was its batch's last open row, starts finishing the batch. A row whose
   * claim is no longer provably held (holds) is dropped unsent instead.
   */
  private async sendRow(row: OutboxRow, batch: Batch): Promise<void> {
    try {
      if (this.holds(batch, row) || (await this.renewAndHolds(batch, row))) {
        // The slot waits for its row's sent mark (the recorder's window plus one statement) before it takes the next
        // row: 128 slots so held back keep the queue of marks short. Moving on at once was measured and not kept
        // (npx tsx bench/blast.bench.ts, alternating runs: PostgreSQL ratio 0.52 and 0.54 moving on against 0.60 and
        // 0.56 waiting; PGlite 0.53 and 0.57 against 0.50 and 0.54).
        const sent = await this.sendOne(row, batch);
        if (sent) {
          batch.marks.push(sent.mark);
          await sent.mark;
        }
      } else {
        batch.dropped++;
      }
    } catch (err) {
      console.error(`sender: email ${row.id} failed unexpectedly:`, (err as Error).message);
    }
    this.closeRow(batch);
  }

  /** closeRow counts one row of the batch done (sent, failed, deferred, dropped or handed back); the last settles it. */
  private closeRow(batch: Batch): void {
    if (--batch.open > 0) return;
    const settled = this.settle(batch);
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
  }

  /**
   * settle waits for the batch's sent marks, stops renewing its claim, then logs the blasts it finished. Never
   * rejects: sendOne logs a mark that cannot be written, and a failure to log finished blasts is logged here.
   */
  private async settle(batch: Batch): Promise<void> {
    try {
      await Promise.all(batch.marks);
    } finally {
      clearInterval(batch.heartbeat);
      this.liveTokens.delete(batch.token);
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
   * sendBatch claims up to batchSize due rows (pending and due, or sending with an expired lease), sends them
   * (`concurrency` at a time), waits until they are recorded, and returns how many it claimed. For callers that
   * drive the sender by hand (tests); start() runs the same steps continuously.
   */
  async sendBatch(): Promise<number> {
    const batch = await this.claim();
    if (!batch) return 0;
    let next = 0;
    const slots = Math.min(Math.max(1, this.opts.concurrency ?? 32), batch.rows.length);
    await Promise.all(
      Array.from({ length: slots }, async () => {
        while (next < batch.rows.length) await this.sendRow(batch.rows[next++], batch);
      }),
    );
    await Promise.all(this.settling);
    return batch.rows.length;
  }

  /**
   * claim takes up to batchSize due rows (pending and due, or sending with an expired lease under a claim token that is
   * not one of this sender's live tokens: a sender never takes over its own rows, however late its renewals are) under
   * a new claim token, and loads what sending them needs. The batch's local deadline is when the statement was sent
   * plus leaseMs; a heartbeat renews the lease every heartbeatMs (default leaseMs / 3) until the batch settles, and
   * slots renew it themselves when the deadline is near (renewAndHolds). Undefined when nothing is due.
   */
  private async claim(only?: { domains: string[]; limit: number }): Promise<Batch | undefined> {
    const token = randomUUID();
    const sentAt = performance.now();
    const rows = only
      ? await this.query<OutboxRow>(CLAIM_DUE_FOR_DOMAINS, [token, String(this.opts.leaseMs), only.limit, only.domains])
      : await this.query<OutboxRow>(CLAIM_DUE, [token, String(this.opts.leaseMs), this.batchSize, [...this.liveTokens]]);
    if (!rows.length) return undefined;
    this.liveTokens.add(token);
    // Which projects are paused now (the claim left their marketing rows; rows claimed earlier are checked per row).
    // A failure keeps the last known set: the token must not stay live with no batch to settle it.
    try {
      this.paused = new Set((await this.query<{ id: string }>(PAUSED_PROJECTS)).map((r) => r.id));
    } catch (err) {
      console.error('sender: reading the paused projects failed:', (err as Error).message);
    }
    const heartbeatMs = Math.min(2 ** 31 - 1, Math.max(50, Math.floor(this.opts.heartbeatMs ?? this.opts.leaseMs / 3)));
    // The heartbeat runs from the claim on, while the batch's data loads too; `lookups` is filled in below.
    const batch: Batch = {
      rows,
      token,
      lookups: undefined as unknown as BatchData,
      heartbeat: setInterval(() => void this.renew(batch), heartbeatMs),
      heldUntil: sentAt + this.opts.leaseMs,
      held: new Set(rows.map((r) => String(r.id))),
      open: rows.length,
      dropped: 0,
      marks: [],
    };
    try {
      batch.lookups = await this.loadBatchData(rows);
      return batch;
    } catch (err) {
      // The rows go back at once (or, if even that fails, stay claimed until the lease ends; another claim, this
      // sender's too, then takes them).
      clearInterval(batch.heartbeat);
      await this.query(HAND_BACK, [rows.map((r) => String(r.id)), token]).catch(() => undefined);
      this.liveTokens.delete(token);
      throw err;
    }
  }

  /**
   * renew extends the lease of the batch's rows still claimed under its token to now + leaseMs, and on success sets
   * `held` to the ids the statement returned and `heldUntil` to when it was sent + leaseMs. One renewal is in flight
   * per batch: a call while one runs returns that one. Never rejects (a failure is logged and changes nothing).
   */
  private renew(batch: Batch): Promise<void> {
    if (!batch.renewing) {
      const sentAt = performance.now();
      batch.renewing = this.query<{ id: string | number }>(RENEW_LEASE, [batch.token, String(this.opts.leaseMs)])
        .then(
          (rows) => {
            batch.held = new Set(rows.map((r) => String(r.id)));
            batch.heldUntil = sentAt + this.opts.leaseMs;
          },
          (err) => {
            console.error('sender: lease renewal failed:', (err as Error).message);
          },
        )
        .finally(() => {
          batch.renewing = undefined;
        });
    }
    return batch.renewing;
  }

  /**
   * holds is the check before a row is rendered and before it is delivered, with no statement: true while more than
   * renewMarginMs (lease/3) is left of the batch's local deadline and the last claim or renewal returned the row.
   */
  private holds(batch: Batch, row: OutboxRow): boolean {
    return performance.now() < batch.heldUntil - this.renewMarginMs && batch.held.has(String(row.id));
  }

  /**
   * renewAndHolds is the slow path of holds: while the batch's deadline is near it awaits a renewal (the one in flight,
   * which may have been sent long ago, then at most one more), then answers whether the row is still held. False
   * when a renewal did not return the row (another sender took it over after its lease lapsed) or when two renewals
   * left the deadline near (failed, or the database answered too late): the row must not be sent.
   */
  private async renewAndHolds(batch: Batch, row: OutboxRow): Promise<boolean> {
    for (let renewals = 0; performance.now() >= batch.heldUntil - this.renewMarginMs; renewals++) {
      if (renewals === 2) return false;
      await this.renew(batch);
    }
    return batch.held.has(String(row.id));
  }

  private async loadBatchData(rows: OutboxRow[]) {
    const ids = (pick: (r: OutboxRow) => string | null) => [...new Set(rows.map(pick).filter((x): x is string => !!x))];
    const [contacts, personas, templates, projects, blasts, suppressions, dkim, domains] = await Promise.all([
      this.query<Record<string, unknown> & { id: string }>(LOOKUP.contacts, [ids((r) => r.contact_id)]),
      this.query<Record<string, unknown> & { id: string; email: string; first_name: string; last_name: string | null; verified_at: Date | null }>(
        LOOKUP.personas,
        [ids((r) => r.sender_persona_id)],
      ),
      this.query<TemplateRow>(LOOKUP.templates, [ids((r) => r.template_id)]),
      this.query<{ id: string; link_secret: string }>(LOOKUP.projects, [ids((r) => r.project_id)]),
      this.query<{ id: string; enabled: boolean; topic_id: string | null }>(LOOKUP.blasts, [ids((r) => r.blast_id)]),
      this.query<{ project_id: string; email: string; reason: string }>(LOOKUP.suppressions, [
        ids((r) => r.project_id),
        [...new Set(rows.map((r) => r.email.trim().toLowerCase()))],
      ]),
      // Mail from a persona on a verified sending domain is DKIM-signed with that domain's key.
      dkimKeys(
        this.query,
        ids((r) => r.sender_persona_id),
      ),
      // The sending domain each persona sends from: what its warm-up counts (core/sending/dailyCaps.ts).
      personaSendingDomains(
        this.query,
        ids((r) => r.sender_persona_id),
      ),
    ]);
    const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((x) => [x.id, x]));
    const suppressed = new Map(suppressions.map((x) => [`${x.project_id}:${x.email}`, x.reason]));
    return {
      contacts: byId(contacts),
      personas: byId(personas),
      templates: byId(templates),
      projects: byId(projects),
      blasts: byId(blasts),
      suppressed,
      dkim,
      domains,
    };
  }

  /**
   * sendOne renders, stores and delivers one email of `batch`. On delivery it returns {mark}, the pending sent mark
   * (wrapped, so that waiting for it is the caller's choice, not an accident of returning a promise); a mark that
   * cannot be written is logged and its row left in `sending` (re-claimed after the lease), never reported as a failed
   * delivery. Just before delivery it checks again that the claim is held (holds); if not, the row is dropped (counted
   * in batch.dropped) and nothing is sent or recorded.
   */
  private async sendOne(row: OutboxRow, batch: Batch): Promise<{ mark: Promise<void> } | undefined> {
    const { token, lookups: data } = batch;
    const blast = row.blast_id ? data.blasts.get(row.blast_id) : undefined;
    if (blast && !blast.enabled) {
      await this.query(CANCEL_DISABLED, [row.id, token]);
      return undefined;
    }
    const persona = row.sender_persona_id ? data.personas.get(row.sender_persona_id) : undefined;
    const template = row.template_id ? data.templates.get(row.template_id) : undefined;
    const project = data.projects.get(row.project_id);
    let stage = 'render';
    let usedRelay: Relay | undefined;
    let heldProvider: ProviderGroup | undefined;
    let lease: MailLease | undefined;
    /** The instant (epoch ms) of the provider's send slot this email holds, when its provider has a max_rate. */
    let providerSlotAt: number | undefined;
    const key = `${row.project_id}/${new Date().toISOString().slice(0, 10)}/${row.id}.eml`;
    try {
      this.checkStopping();
      if (!persona) throw new PermanentError('sender persona not found', 'sender');
      if (!persona.verified_at) {
        throw new PermanentError(
          `sender not verified: ${persona.email} has not confirmed the verification email sent to it; follow its link, then send again`,
          'sender',
        );
      }
      if (row.template_id && !template) throw new PermanentError('template not found', 'template');
      const marketing = template?.type === 'TEMPLATE_MARKETING';
      const contact = row.contact_id ? data.contacts.get(row.contact_id) : undefined;
      // Checked again at send time: the recipient may have bounced, complained or unsubscribed since expansion.
      // An unsubscribe (unsubscribed_at, or an 'unsubscribed' entry for a recipient who is not a contact) stops
      // marketing sends only, and not an operator's test email of a marketing template; bounces and complaints stop all.
      const optOutApplies = marketing && !row.is_test;
      const suppressedFor = data.suppressed.get(`${row.project_id}:${row.email.trim().toLowerCase()}`);
      if (suppressedFor && (suppressedFor !== 'unsubscribed' || optOutApplies)) {
        throw new PermanentError(`suppressed: ${row.email} is on the suppression list (${suppressedFor})`, 'suppressed');
      }
      if (optOutApplies && contact?.unsubscribed_at) throw new PermanentError(`unsubscribed: ${row.email} unsubscribed from marketing email`, 'unsubscribed');
      // Subscription topics and double opt-in (core/audience leaves the same contacts out at expansion).
      const topicId = blast?.topic_id ?? template?.topic_id ?? null;
      if (optOutApplies && topicId && (contact?.unsubscribed_topic_ids as string[] | undefined)?.includes(topicId)) {
        throw new PermanentError(`unsubscribed: ${row.email} unsubscribed from this email's topic`, 'unsubscribed');
      }
      if (optOutApplies && contact?.confirmation_pending_at) {
        throw new PermanentError(`unconfirmed: ${row.email} has not confirmed the subscription yet (double opt-in)`, 'unsubscribed');
      }
      // The mailbox simulator answers for its own addresses: accepted without delivery, then its feedback.
      const simulated = simulatorFeedback(row.email);
      // Per-provider limits (core/sending/providers.ts): no free connection or send slot for the recipient's provider
      // soon, and the email steps aside for a moment instead of holding this slot.
      const group = simulated ? undefined : this.providers.forEmail(row.email);
      if (group) {
        const taken = await this.takeProvider(group).finally(() => this.untrack(row));
        if ('stepAsideMs' in taken) {
          await this.query(WAIT_FOR_PROVIDER, [row.id, token, String(taken.stepAsideMs)]);
          return undefined;
        }
        providerSlotAt = taken.slotAt;
        heldProvider = group;
        this.checkStopping();
      }
      // Warm-up (core/sending/dailyCaps.ts): a real email from a sending domain counts toward its day; a blast's or
      // workflow's email over today's cap waits for the next UTC day (test emails and single sends always go).
      // Past the warm-up (or without a cap: transactional mail) the count is written with the sent mark.
      const domain = data.domains.get(persona.id);
      let daily: DailyCount | undefined;
      if (!simulated && domain) {
        const take = await this.caps.takeWarmup(domain, !!(row.blast_id || row.workflow_id) && !row.is_test);
        if ('reason' in take) {
          await this.query(HOLD_FOR_CAP, [row.id, token, take.reason, String(take.waitMs)]);
          sendMetrics.deferred.inc({ reason: 'daily_cap' });
          return undefined;
        }
        daily = take.countWithSend;
      }
      const link = unsubscribeLink(this.ctx.config.publicUrl, project?.link_secret ?? '', row.project_id, row.contact_id, Number(row.id));
      // The envelope sender: a per-message return path at the domain's bounce subdomain once its records verify
      // (bounces and complaints then come back whatever relay sends it: mail/returnPath.ts), else — or through a relay
      // that must keep the signed-in mailbox's address (return_path=persona) — the persona's own address.
      const messageReturnPath = domain?.returnPathDomain && project ? returnPath(Number(row.id), project.link_secret, domain.returnPathDomain) : undefined;
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
        // Opens and clicks are tracked on every email but test emails and those sent untracked (the double
        // opt-in confirmation: nobody is tracked before they consent).
        tracking:
          row.is_test || !row.tracking || !project
            ? undefined
            : {
                publicUrl: this.ctx.config.publicUrl,
                secret: project.link_secret,
                projectId: row.project_id,
                contactId: row.contact_id,
                outboxId: Number(row.id),
                unsubscribeLink: link,
              },
      });
      stage = 'deliver';
      this.checkStopping();
      // The circuit-breaker paused the project's marketing sending since the batch was claimed: the row waits.
      if ((row.blast_id || row.workflow_id) && this.paused.has(row.project_id)) {
        await this.query(RELEASE_PAUSED, [row.id, token]);
        return undefined;
      }
      // The first relay by priority that is not taken for down (failover) and has today's daily cap left (daily_quota,
      // warmup=1); none left: the email waits for the next UTC day. With a rate limit (SMTP_URL max_rate), wait for
      // this process's next send slot on the relay (core/sending/pacing.ts).
      const relay = simulated ? this.relays[0] : await this.takeRelay();
      if (!('transport' in relay)) {
        await this.query(HOLD_FOR_CAP, [row.id, token, relay.reason, String(relay.waitMs)]);
        sendMetrics.deferred.inc({ reason: 'daily_cap' });
        return undefined;
      }
      // Every relay is taken for down: the email waits until the first is tried again (a deferral, counted, until
      // DEFER_MAX_AGE), instead of knocking at a relay that refused a moment ago.
      if (!simulated && relay.downUntil > performance.now()) {
        await this.deferWhileDown(row, token, relay);
        return undefined;
      }
      usedRelay = relay;
      // A connection of the relay's own (an idle SMTP session, or a new one while this process's share of
      // max_connections — else the transport's pool size — leaves room), taken before the message goes so that it
      // never queues inside the transport: with a rate limit, after the slot's instant and before the pacer checks
      // that the send still lands in the slot's second.
      if (!simulated) {
        const take = () => takeConnection(relay.transport, this.stopSignal.signal);
        // An email holding its provider's send slot (a rate-limited provider) is served before the others waiting,
        // so it leaves within its slot's moment.
        lease = relay.pacer ? await relay.pacer.permit(take, this.stopSignal.signal, !!heldProvider?.limits.maxRate) : await take();
      }
      // The render (or the wait) may have taken long: the claim must still be provably held when the email leaves.
      if (!this.holds(batch, row) && !(await this.renewAndHolds(batch, row))) throw new ClaimLost();
      // A provider counts per calendar second as a relay does: an email whose provider slot has passed into an earlier
      // second (it waited for a connection, or for a relay that was just opening its sessions) would add to this
      // second's own slots. It steps aside and takes a new slot at once; the relay slot is capacity lost, never a burst.
      if (providerSlotAt !== undefined && Math.floor(Date.now() / 1000) !== Math.floor(providerSlotAt / 1000)) {
        await this.query(WAIT_FOR_PROVIDER, [row.id, token, '0']);
        return undefined;
      }
      // The last moment a stopping sender hands the row back: from here on the message is in an SMTP transaction, and
      // the stop waits for the relay's answer and records it.
      this.checkStopping();
      this.inTransaction++;
      const reply = await (
        simulated
          ? Promise.resolve({ response: `250 simulator: accepted for ${row.email} (${simulated.kind}), not delivered` })
          : lease!.send({ from: (relay.returnPath !== 'persona' && messageReturnPath) || persona.email, to: [row.email] }, raw)
      ).finally(() => this.inTransaction--);
      const acceptedAt = Date.now();
      const via = simulated ? 'simulator' : relay.transport.delivers ? 'smtp' : 'capture';
      if (!simulated) {
        relay.downFor = RELAY_DOWN_MS.first;
        if (relay.wasDown) {
          relay.wasDown = false;
          void this.query(MARK_RELAY_UP, [relay.name]).catch((err) => console.error('sender: noting a relay up failed:', (err as Error).message));
        }
      }
      const location = encodeLocation(SENT_BUCKET, key);
      const mark = this.recorder
        .markSent(
          row.id,
          token,
          location,
          {
            bucket: SENT_BUCKET,
            key,
            location,
            subject,
            message_id: row.message_id,
            blast_id: row.blast_id,
            template_id: row.template_id,
            is_test_email: row.is_test,
            transport: via,
            // The relay and the From's domain: what feedback about this email is counted against (core/feedback/blocks.ts).
            ...(simulated ? {} : { relay: relay.name }),
            sending_domain: persona.email.split('@').pop()!.toLowerCase(),
            response: reply.response,
            // A workflow's email: its events count for the workflow, and the hop count guards against cycles.
            ...(row.workflow_id ? { workflow_id: row.workflow_id, workflow_hops: row.workflow_hops ?? 0 } : {}),
          },
          daily,
        )
        .then(async () => {
          this.reputation.sent(row.project_id);
          sendMetrics.sent.inc({ transport: via });
          sendMetrics.latency.observe(Math.max(0, acceptedAt - new Date(row.send_at).getTime()) / 1000);
          if (!simulated) return;
          const { paused } = await recordFeedback(
            this.query,
            row.project_id,
            [{ ...simulated, messageId: row.message_id }],
            'simulator',
            this.ctx.config.reputation,
            this.ctx.blocks,
          );
          if (paused) this.paused.add(row.project_id);
        })
        .catch((err) => console.error(`sender: email ${row.id} was delivered but could not be recorded as sent:`, (err as Error).message));
      return { mark };
    } catch (err) {
      if (err instanceof ClaimLost) {
        batch.dropped++;
        return undefined;
      }
      // Stopping, and the email had not reached the relay: it goes back for another sender.
      if (
        err instanceof StopHandBack ||
        (this.stopping && (err instanceof PacingAborted || err instanceof AcquireAborted || err instanceof ShareWaitAborted))
      ) {
        lease?.release();
        lease = undefined;
        await this.handBackOne(row, token);
        return undefined;
      }
      await this.recordFailure(row, token, (err as { stage?: string }).stage ?? stage, err, usedRelay);
      return undefined;
    } finally {
      lease?.release();
      if (heldProvider) this.releaseProvider(heldProvider);
    }
  }

  /** checkStopping throws StopHandBack once stop() was called: the email has not reached the relay and goes back. */
  private checkStopping(): void {
    if (this.stopping) throw new StopHandBack();
  }

  /** handBackOne puts one claimed row back (HAND_BACK) while stopping; a failure leaves it to the lease. */
  private async handBackOne(row: OutboxRow, token: string): Promise<void> {
    try {
      this.handedBack += (await this.query(HAND_BACK, [[String(row.id)], token])).length;
    } catch (err) {
      console.error(`sender: handing back email ${row.id} failed (taken over after the lease):`, (err as Error).message);
    }
  }

  /**
   * takeProvider takes one of the group's connections and, with a max_rate, a send slot: resolves {slotAt} when the
   * email may go (the slot's instant, epoch ms, when the group has a rate; the caller releases the connection after
   * delivery), or {stepAsideMs}, how long it should step aside: all connections are busy and as many emails wait for
   * one already (250), or no slot is free within a second (1000).
   */
  private async takeProvider(group: ProviderGroup): Promise<{ stepAsideMs: number } | { slotAt?: number }> {
    let st = this.providerState.get(group.name);
    if (!st) {
      const { maxRate, maxConnections } = group.limits;
      st = {
        pacer: maxRate ? new SlotPacer(this.query, `provider:${group.name}`, maxRate) : undefined,
        connections: maxConnections ? new ConnectionShare(this.query, `provider:${group.name}`, maxConnections) : undefined,
      };
      this.providerState.set(group.name, st);
    }
    if (st.connections && !(await st.connections.tryAcquire())) {
      if (st.connections.waiting >= st.connections.max) return { stepAsideMs: 250 };
      await st.connections.acquire(this.stopSignal.signal);
    }
    if (!st.pacer) return {};
    let slotAt: number | undefined;
    try {
      slotAt = await st.pacer.tryPermit();
    } catch (err) {
      this.releaseProvider(group);
      throw err;
    }
    if (slotAt === undefined) {
      this.releaseProvider(group);
      return { stepAsideMs: st.pacer.horizonMs };
    }
    return { slotAt };
  }

  /** releaseProvider gives back a connection of the group (to the first email waiting for one, if any). */
  private releaseProvider(group: ProviderGroup): void {
    this.providerState.get(group.name)?.connections?.release();
  }

  /**
   * takeRelay returns the relay for the next email and counts it against that relay's daily caps: the first by
   * priority that is not taken for down (or, when all are, the one back the soonest) and whose cap today is not
   * reached. When every relay's cap is reached, the refusal of the last one tried (the email waits for the next day).
   */
  private async takeRelay(): Promise<Relay | CapRefusal> {
    const now = performance.now();
    const today = utcDay(this.caps.now());
    const open = (r: Relay) => r.full?.day !== today;
    const up = this.byWeight(this.relays.filter((r) => r.downUntil <= now && open(r)));
    const down = this.relays.filter((r) => r.downUntil > now && open(r)).sort((a, b) => a.downUntil - b.downUntil);
    let refusal: CapRefusal | undefined;
    for (const r of [...up, ...down, ...this.relays.filter((r) => !open(r))]) {
      if (r.full?.day === today) {
        refusal = r.full.refusal;
        continue;
      }
      const no = await this.caps.takeRelay(r.name, r.limits);
      if (!no) return r;
      r.full = { day: today, refusal: no };
      refusal = no;
    }
    return refusal!;
  }

  /**
   * deferWhileDown puts a row back until `relay` (the one back the soonest) is tried again, with the reason it was
   * taken for down; a row that has waited DEFER_MAX_AGE since it was due fails instead, with that reason.
   */
  private async deferWhileDown(row: OutboxRow, token: string, relay: Relay): Promise<void> {
    const reason = `deliver: relay ${relay.name} is down (${relay.downReason ?? 'it refused the connection'}); tried again when it is back`;
    if (Date.now() - new Date(row.send_at).getTime() >= this.ctx.config.deferMaxAgeMs) {
      await this.query(FAIL_SEND, [row.id, token, `deferred for longer than DEFER_MAX_AGE (${row.attempts} attempts); last: ${reason}`]);
      sendMetrics.failed.inc({ reason: 'expired' });
      return;
    }
    await this.query(RETRY_SEND_LATER, [row.id, token, reason, String(Math.ceil(relay.downUntil - performance.now()))]);
    sendMetrics.deferred.inc({ reason: 'relay_down' });
  }

  /**
   * byWeight orders relays that are up by priority and, among equal priorities, by smooth weighted round-robin (as
   * nginx's upstreams): each call adds every relay's weight to its running weight and puts the highest first, then
   * takes the tier's total weight from it, so relays of weights 3 and 1 take 3 of every 4 emails, interleaved.
   */
  private byWeight(up: Relay[]): Relay[] {
    if (up.length < 2) return up;
    const top = up.filter((r) => r.priority === up[0].priority);
    if (top.length < 2) return up;
    const total = top.reduce((n, r) => n + r.weight, 0);
    for (const r of top) r.current += r.weight;
    const first = top.reduce((a, b) => (b.current > a.current ? b : a));
    first.current -= total;
    return [first, ...up.filter((r) => r !== first)];
  }

  /**
   * recordFailure records a failed attempt of `row` at `stage` ('render', 'store' or 'deliver'): a deferral puts the
   * row back to pending with back-off (or, past DEFER_MAX_AGE, fails it), anything else fails it at once (a relay's 5xx
   * is also a bounce). Counts the outcome in sendMetrics by reason class.
   */
  private async recordFailure(row: OutboxRow, token: string, stage: string, err: unknown, relay?: Relay): Promise<void> {
    const e = err as Error & { responseCode?: number };
    const reason = `${stage}: ${e.message ?? String(err)}`;
    const failure = { responseCode: typeof e.responseCode === 'number' ? e.responseCode : undefined, stage, permanent: err instanceof PermanentError };
    if (isDeferral(failure)) {
      // The relay asks us to slow down: this process's pace is cut at once (core/sending/pacing.ts).
      const throttled = stage === 'deliver' && isThrottling({ ...failure, message: e.message });
      if (throttled) relay?.pacer?.throttled();
      // The relay refused the connection or the session: it is taken for down for a while (5 s, doubling up to 5 min)
      // and, when another relay is up, the email goes to it at once (it was certainly not accepted here).
      if (stage === 'deliver' && relay && isRelayDown(err as { command?: string; code?: string })) {
        // Emails already in flight when it went down fail too: only the first failure of an outage (or of a probe
        // after the wait) takes it down and doubles the next wait.
        if (relay.downUntil <= performance.now()) {
          relay.downUntil = performance.now() + relay.downFor;
          relay.wasDown = true;
          relay.downReason = e.message;
          // What GET {scheduler}/sending_status shows of the relay (core/sending/pacing.ts).
          void this.query(MARK_RELAY_DOWN, [relay.name, String(relay.downFor), reason]).catch((e2) =>
            console.error('sender: noting a relay down failed:', (e2 as Error).message),
          );
          relay.downFor = Math.min(relay.downFor * 2, RELAY_DOWN_MS.max);
        }
        if (this.relays.some((r) => r.downUntil <= performance.now())) {
          await this.query(RETRY_SEND_LATER, [row.id, token, reason, '0']);
          sendMetrics.deferred.inc({ reason: 'relay_down' });
          return;
        }
      }
      // Deferred (core/sending/deferral.ts): tried again with back-off until it has waited DEFER_MAX_AGE since it was
      // due; only then does it fail, with the last reason.
      const { deferMaxAgeMs, deferRetryMs } = this.ctx.config;
      // A throttled email is tried again after THROTTLED_RETRY_MS, not on the growing back-off: the relay is up and
      // only asked for a slower pace, which the pacer now keeps.
      const delay = nextAttemptDelay(throttled ? 1 : row.attempts, Date.now() - new Date(row.send_at).getTime(), {
        retryMs: throttled ? Math.min(THROTTLED_RETRY_MS, deferRetryMs) : deferRetryMs,
        maxDelayMs: MAX_RETRY_DELAY_MS,
        maxAgeMs: deferMaxAgeMs,
      });
      if (delay !== 'expired') {
        await this.query(RETRY_SEND_LATER, [row.id, token, reason, String(delay)]);
        const down = stage === 'deliver' && isRelayDown(err as { command?: string; code?: string });
        sendMetrics.deferred.inc({ reason: throttled ? 'throttled' : down ? 'relay_down' : stageClass(stage) });
        return;
      }
      await this.query(FAIL_SEND, [row.id, token, `deferred for longer than DEFER_MAX_AGE (${row.attempts} attempts); last: ${reason}`]);
      sendMetrics.failed.inc({ reason: 'expired' });
      return;
    }
    await this.query(FAIL_SEND, [row.id, token, reason]);
    sendMetrics.failed.inc({ reason: err instanceof PermanentError ? err.kind : stageClass(stage) });
    // A relay's 5xx is a hard bounce; a recipient refused as a bad address is also suppressed (smtpBounce).
    const bounce = stage === 'deliver' ? smtpBounce(row.email, err as SmtpRefusal) : undefined;
    if (bounce) {
      const { paused } = await recordFeedback(
        this.query,
        row.project_id,
        [{ ...bounce, messageId: row.message_id, relay: relay?.name }],
        'smtp',
        this.ctx.config.reputation,
        this.ctx.blocks,
      );
      if (paused) this.paused.add(row.project_id);
    }
  }
}

/**
 * PermanentError marks a failure that retrying cannot fix (a missing or unverified persona, a missing template, a
 * suppressed or unsubscribed recipient); `kind` is its class in the failed-emails metric.
 */
export class PermanentError extends Error {
  constructor(
    message: string,
    readonly kind: FailureReason = 'other',
  ) {
    super(message);
  }
}
