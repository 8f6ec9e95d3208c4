/**
 * The sender (DESIGN.md §6): the claim loop and the SMTP hand-off. A feeder claims due outbox rows in batches ahead
 * into a queue (core/sending/claims.ts: claim tokens, leases, the per-batch lookups), and `concurrency` slots take
 * rows from it: each checks that the email may still go (core/sending/eligibility.ts), takes its provider's slot
 * (providerSlots.ts) and its domain's warm-up (dailyCaps.ts), renders and stores it (compose.ts), picks a relay
 * (relayChoice.ts), delivers it and records `email_send_result_success` (sentRecorder.ts) — or hands the failure to
 * core/sending/outcomes.ts (a deferral is tried again with back-off until DEFER_MAX_AGE; anything else fails).
 *
 * Exactly once: a row moves pending → sending → sent|failed; the sent mark and its event are one statement, written
 * within the recorder's window (20 ms) of the relay's 250, only while this sender holds the claim. A sender killed
 * mid-batch leaves rows in `sending`, re-claimed when their lease ends; a message the relay had not accepted was
 * discarded by it, so resending is safe, and a resend after an unrecorded 250 carries the same Message-ID. A row is
 * rendered and delivered only while its claim is provably held (Claims.held).
 */
import { setMaxListeners } from 'node:events';
import type { AppContext } from '../server/context.ts';
import type { QueryFn } from '../server/db/client.ts';
import { takeConnection, type MailLease, type MailTransport } from '../server/mail/transport.ts';
import { AcquireAborted } from '../server/mail/smtpPool.ts';
import type { RenderPool } from '../server/mail/renderPool.ts';
import { PacingAborted } from '../server/core/sending/pacing.ts';
import { ShareWaitAborted } from '../server/core/sending/connections.ts';
import { DailyCaps } from '../server/core/sending/dailyCaps.ts';
import { Claims, type Batch, type OutboxRow } from '../server/core/sending/claims.ts';
import { compose, sentEvent } from '../server/core/sending/compose.ts';
import { RelaySet, type BackupRelay, type Relay } from '../server/core/sending/relayChoice.ts';
import { ProviderSlots } from '../server/core/sending/providerSlots.ts';
import { Outcomes } from '../server/core/sending/outcomes.ts';
import { Admission, type Admitted } from '../server/core/sending/admission.ts';

/** How long (ms) rows gather after a small claim before the next (a trickle is claimed in batches, not per row). */
const TRICKLE_GATHER_MS = 100;

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
  /** Lease renewal period in ms (default leaseMs / 3); tests starve it to show nothing is sent twice without it. */
  heartbeatMs?: number;
  /** Relays to fail over to when the main one (`transport`, with SMTP_URL's pacing) refuses (SMTP_URL's further URLs). */
  backupRelays?: BackupRelay[];
  /** The clock the daily caps read (ms since the epoch, UTC; default Date.now): tests move it through days. */
  now?: () => number;
}

/** Thrown inside sendOne when the row's claim is lost before delivery: the row is dropped, not failed. */
class ClaimLost extends Error {}

/** Thrown inside sendOne when the sender stops before the email reached the relay: the row is handed back. */
class StopHandBack extends Error {}

/** A queued row and its batch. */
type Item = { row: OutboxRow; batch: Batch };

/**
 * Sender runs the claim → render → store → deliver → record loop until stopped: a feeder claims batches ahead into a
 * queue of rows, and `concurrency` slots take rows from it, so sending never waits for a claim at a batch's end.
 */
export class Sender {
  private running = false;
  private loops?: Promise<unknown>;
  private readonly claims: Claims;
  private readonly providers: ProviderSlots;
  private readonly relays: RelaySet;
  private readonly outcomes: Outcomes;
  private readonly admission: Admission;
  /** Claimed rows not yet taken by a slot, oldest first. */
  private readonly queue: Item[] = [];
  /** Batches whose rows are all done, finishing (marks written, finished blasts logged). */
  private readonly settling = new Set<Promise<void>>();
  private feederWake?: () => void;
  /** The feeder sleeps with rows due (until the queue runs low), not idle after an empty claim (until poked or polled). */
  private feederWaitsForSlots = false;
  private readonly slotWakes = new Set<() => void>();
  private feeding = false;
  /** Set by stop(): no row is handed to a relay any more; a claimed row not yet in an SMTP transaction goes back. */
  private stopping = false;
  private readonly stopSignal = new AbortController();
  /** Rows handed back while stopping, and messages in an SMTP transaction (their relay's answer awaited). */
  private handedBack = 0;
  private inTransaction = 0;

  constructor(
    private readonly ctx: AppContext,
    transport: MailTransport,
    private readonly renderer: RenderPool,
    private readonly opts: SenderOptions,
  ) {
    const query = ctx.database.query.bind(ctx.database) as QueryFn;
    // Every sending slot waiting for a send slot or a connection listens to the stop signal (up to 128 at once).
    setMaxListeners(0, this.stopSignal.signal);
    this.claims = new Claims(query, { leaseMs: opts.leaseMs, heartbeatMs: opts.heartbeatMs, batchSize: this.batchSize });
    // Warm-up and daily_quota counts. Stopping, the sender closes its sessions before it gives its share back (stop).
    const caps = new DailyCaps(query, ctx.config.warmupSchedule, opts.now);
    this.relays = new RelaySet(query, ctx.config, transport, opts.backupRelays ?? [], caps, () => this.stopping && !this.feeding);
    this.providers = new ProviderSlots(query, ctx.config.providerGroups);
    const paused = (projectId: string) => this.claims.paused.add(projectId);
    this.outcomes = new Outcomes(query, ctx.config, this.relays, ctx.blocks, paused, opts.recordWindowMs ?? 20);
    this.admission = new Admission(query, this.providers, caps, this.relays, this.outcomes, () => this.claims.paused);
  }

  private get batchSize(): number {
    return this.opts.batchSize ?? 200;
  }

  /** The feeder claims another batch when fewer claimed rows than this wait for a slot: half a batch. */
  private get lowWater(): number {
    return Math.ceil(this.batchSize / 2);
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
   * stop is a graceful stop: it claims no more, waits for the messages in an SMTP transaction and records those the
   * relay accepted, and hands back every other claimed row (due at once, its attempt not counted) for another sender.
   * Waits for a slot or a connection end at once. Resolves once everything is recorded; logs what it handed back.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    const inTransaction = this.inTransaction;
    this.stopSignal.abort();
    this.poke();
    // Claimed rows no slot has taken yet go back at once.
    const queued = this.queue.splice(0);
    for (const { row } of queued) this.providers.untrack(row);
    this.wakeSlots();
    const handing = this.handBack(queued);
    await this.loops;
    await handing;
    await Promise.all(this.settling);
    await this.outcomes.stop();
    await this.relays.closeSessions();
    await this.providers.stop();
    if (this.handedBack || inTransaction) {
      console.log(
        `sender: stopped; waited for ${inTransaction} email(s) in an SMTP transaction and recorded them; handed back ${this.handedBack} ` +
          'claimed email(s) not yet sent (pending again: another sender, or this one after its restart, sends them)',
      );
    }
  }

  /** handBack puts claimed rows back for another sender (Claims.handBack) and, unless `close` is false, closes them in their batches. */
  private async handBack(items: Item[], close = true): Promise<void> {
    this.handedBack += await this.claims.handBack(items);
    if (close) for (const { batch } of items) this.closeRow(batch);
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
          const batch = await this.claims.claim();
          claimed = batch?.rows.length ?? 0;
          if (batch) await this.enqueue(batch);
        } catch (err) {
          console.error('sender: claiming a batch failed:', (err as Error).message);
        }
        // A trickle (messages handed in one by one over SMTP or the API, each waking the sender) would otherwise be
        // claimed a row or two at a time, each claim paying for its batch's lookups: after a small claim, let the
        // next rows gather for a moment. The first claim after an idle spell is not held back.
        if (claimed > 0 && claimed < this.batchSize / 4) await new Promise((r) => setTimeout(r, TRICKLE_GATHER_MS));
        if (claimed > 0) continue;
      }
      if (!this.running) break;
      // Enough in hand: sleep until a slot drains the queue below the mark. Nothing due: sleep until a poke or the
      // poll (slots do not wake an idle feeder, or the tail of the last batch would claim once per row).
      this.feederWaitsForSlots = this.queue.length >= this.lowWater;
      // Rate-limited providers are looked at again every PROVIDER_CLAIM_MS, however full the queue is.
      const sleepMs = Math.min(this.feederWaitsForSlots ? 60_000 : this.opts.pollMs, this.providers.pollMs);
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
   * claimForProviders claims the due rows of each rate-limited provider group on their own (ProviderSlots.dueClaims,
   * every PROVIDER_CLAIM_MS) and puts them at the front of the queue. Never rejects.
   */
  private async claimForProviders(): Promise<void> {
    for (const { group, ...only } of this.providers.dueClaims()) {
      if (!this.running) return;
      try {
        const batch = await this.claims.claim(only);
        if (batch) await this.enqueue(batch);
      } catch (err) {
        console.error(`sender: claiming the due emails of provider ${group} failed:`, (err as Error).message);
      }
    }
  }

  /**
   * enqueue puts a claimed batch's rows in the queue — a rate-limited provider's first, as claimForProviders' do, so
   * each takes its provider's slot or steps aside at once instead of waiting behind the batch — or, when the sender
   * stopped while the claim ran, hands them all back.
   */
  private async enqueue(batch: Batch): Promise<void> {
    if (this.stopping) return this.handBack(batch.rows.map((row) => ({ row, batch })));
    const first: Item[] = [];
    for (const row of batch.rows) (this.providers.track(row) ? first : this.queue).push({ row, batch });
    this.queue.unshift(...first);
    this.wakeSlots();
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
      this.providers.untrack(item.row);
    }
  }

  /** sendRow sends one claimed row (or drops it when its claim is no longer provably held) and closes it in its batch. */
  private async sendRow(row: OutboxRow, batch: Batch): Promise<void> {
    try {
      if (await this.claims.held(batch, row)) {
        // The slot waits for its row's sent mark before it takes the next row, which keeps the queue of marks short
        // (moving on at once was measured slower by bench/blast.bench.ts: PostgreSQL ratio 0.52-0.54 against 0.56-0.60).
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
    const settled = this.claims.settle(batch);
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
  }

  /** sendBatch claims one batch, sends it `concurrency` at a time and waits until it is recorded (tests drive the sender so); resolves how many it claimed. */
  async sendBatch(): Promise<number> {
    const batch = await this.claims.claim();
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
   * sendOne checks, renders, stores and delivers one email of `batch`. On delivery it returns {mark}, the pending sent
   * mark (wrapped, so that waiting for it is the caller's choice); a mark that cannot be written is logged and its row
   * left in `sending` (re-claimed after the lease), never reported as a failed delivery. Just before delivery it checks
   * again that the claim is held; if not, the row is dropped (batch.dropped) and nothing is sent or recorded.
   */
  private async sendOne(row: OutboxRow, batch: Batch): Promise<{ mark: Promise<void> } | undefined> {
    const { token, lookups: data } = batch;
    let stage = 'render';
    let usedRelay: Relay | undefined;
    let admitted: Admitted | undefined;
    let lease: MailLease | undefined;
    try {
      this.checkStopping();
      admitted = await this.admission.beforeRender(row, batch, this.stopSignal.signal, () => this.checkStopping());
      if (!admitted) return undefined;
      const { persona, simulated } = admitted;
      const composed = compose(this.ctx.config.publicUrl, row, data, persona, admitted.template);
      const { subject, raw } = await this.renderer.render(composed.request);
      stage = 'deliver';
      this.checkStopping();
      const relay = await this.admission.beforeDelivery(row, token, admitted);
      if (!relay) return undefined;
      usedRelay = relay;
      // A connection of the relay's own, taken before the message goes so that it never queues inside the transport:
      // with a rate limit, after the slot's instant and before the pacer checks the send still lands in its second.
      if (!simulated) {
        const take = () => takeConnection(relay.transport, this.stopSignal.signal);
        // An email holding its provider's send slot (a rate-limited provider) is served before the others waiting.
        lease = relay.pacer ? await relay.pacer.permit(take, this.stopSignal.signal, !!admitted.group?.limits.maxRate) : await take();
      }
      // The render (or the wait) may have taken long: the claim must still be provably held when the email leaves.
      if (!(await this.claims.held(batch, row))) throw new ClaimLost();
      if (!(await this.admission.inSlotSecond(row, token, admitted))) return undefined;
      // The last moment a stopping sender hands the row back: from here on the message is in an SMTP transaction, and
      // the stop waits for the relay's answer and records it.
      this.checkStopping();
      this.inTransaction++;
      const reply = await (
        simulated
          ? Promise.resolve({ response: `250 simulator: accepted for ${row.email} (${simulated.kind}), not delivered` })
          : lease!.send({ from: (relay.returnPath !== 'persona' && composed.returnPath) || composed.from, to: [row.email] }, raw)
      ).finally(() => this.inTransaction--);
      const acceptedAt = Date.now();
      const via = simulated ? 'simulator' : relay.transport.delivers ? 'smtp' : 'capture';
      if (!simulated) this.relays.tookMessage(relay);
      const sent = sentEvent(row, {
        key: composed.key,
        subject,
        response: reply.response,
        via,
        relay: simulated ? undefined : relay.name,
        from: composed.from,
      });
      return { mark: this.outcomes.delivered(row, token, sent, { via, acceptedAt, daily: admitted.daily, simulated }) };
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
        await this.handBack([{ row, batch }], false);
        return undefined;
      }
      await this.outcomes.failed(row, token, (err as { stage?: string }).stage ?? stage, err, usedRelay);
      return undefined;
    } finally {
      lease?.release();
      if (admitted?.group) this.providers.release(admitted.group);
    }
  }

  /** checkStopping throws StopHandBack once stop() was called: the email has not reached the relay and goes back. */
  private checkStopping(): void {
    if (this.stopping) throw new StopHandBack();
  }
}
