/**
 * The gates a claimed email passes on its way to a relay (docs/architecture.md "The governor"), in order: may it still
 * be sent (its blast still enabled, ./eligibility.ts), a connection and send slot of its mailbox provider (./providerSlots.ts), its sending
 * domain's warm-up (./dailyCaps.ts); then, once rendered, whether the circuit-breaker paused its project meanwhile and
 * which relay takes it (./relayChoice.ts). An email stopped at a gate is written back here (stepped aside, held for a
 * cap, released, deferred while every relay is down) or refused with a PermanentError; the sender only delivers.
 */
import type { QueryFn } from '../../db/client.ts';
import { simulatorFeedback } from '../../../domain/feedback.ts';
import { sendMetrics } from '../../metrics.ts';
import type { Batch, OutboxRow, PersonaRow, TemplateRow } from './claims.ts';
import type { DailyCaps } from './dailyCaps.ts';
import { sendRefusal } from './eligibility.ts';
import type { Outcomes } from './outcomes.ts';
import type { ProviderGroup } from './providers.ts';
import type { ProviderSlots } from './providerSlots.ts';
import { CANCEL_DISABLED, HOLD_FOR_CAP, RELEASE_PAUSED, WAIT_FOR_PROVIDER } from './queries.ts';
import type { Relay, RelaySet } from './relayChoice.ts';
import type { DailyCount } from './sentRecorder.ts';

/** An email admitted to rendering: its persona and template, what it holds of its provider and warm-up, and whether the mailbox simulator answers it. */
export interface Admitted {
  persona: PersonaRow;
  template?: TemplateRow;
  simulated?: ReturnType<typeof simulatorFeedback>;
  /** The provider group whose connection it holds (the caller calls ProviderSlots.release after delivery). */
  group?: ProviderGroup;
  /** The instant (epoch ms) of its provider's send slot, when the provider has a max_rate. */
  slotAt?: number;
  /** The daily_sends count its sent mark adds to (a domain past its warm-up). */
  daily?: DailyCount;
}

/** Admission runs the gates for one sender. */
export class Admission {
  constructor(
    private readonly query: QueryFn,
    private readonly providers: ProviderSlots,
    private readonly caps: DailyCaps,
    private readonly relays: RelaySet,
    private readonly outcomes: Outcomes,
    /** The projects the circuit-breaker paused, as the sender knows them. */
    private readonly paused: () => Set<string>,
  ) {}

  /**
   * beforeRender: the gates before an email is rendered. Resolves what it was admitted with, or undefined when it
   * was written back (its blast was disabled: cancelled; its provider has no connection or slot free soon: stepped aside; over its domain's warm-up:
   * held for the next UTC day). Throws the PermanentError of a refused email (sendRefusal), and whatever `checkStop`
   * throws once the provider is taken (the provider is released first).
   */
  async beforeRender(row: OutboxRow, batch: Batch, signal: AbortSignal, checkStop: () => void): Promise<Admitted | undefined> {
    const { lookups: data, token } = batch;
    // A disabled blast's email is cancelled.
    if (row.blast_id && data.blasts.get(row.blast_id)?.enabled === false) {
      await this.query(CANCEL_DISABLED, [row.id, token]);
      return undefined;
    }
    const persona = row.sender_persona_id ? data.personas.get(row.sender_persona_id) : undefined;
    const template = row.template_id ? data.templates.get(row.template_id) : undefined;
    // Checked again at send time: the recipient may have bounced, complained or unsubscribed since it was queued.
    const refusal = sendRefusal(row.email, persona, { missing: !!row.template_id && !template }, data.exclusions.get(String(row.id)));
    if (refusal || !persona) throw refusal;
    // The mailbox simulator answers for its own addresses: accepted without delivery, then its feedback.
    const simulated = simulatorFeedback(row.email);
    const admitted: Admitted = { persona, template, simulated };
    const group = simulated ? undefined : this.providers.forEmail(row.email);
    if (group) {
      const taken = await this.providers.take(group, signal).finally(() => this.providers.untrack(row));
      if ('stepAsideMs' in taken) return this.stepAside(row, token, taken.stepAsideMs);
      Object.assign(admitted, { group, slotAt: taken.slotAt });
    }
    try {
      if (group) checkStop();
      // Warm-up: a real email from a sending domain counts toward its day; a blast's or workflow's email over today's
      // cap waits for the next UTC day (test emails and single sends always go). Past the warm-up (or without a cap:
      // transactional mail) the count is written with the sent mark.
      const domain = data.domains.get(persona.id);
      if (simulated || !domain) return admitted;
      const take = await this.caps.takeWarmup(domain, !!(row.blast_id || row.workflow_id) && !row.is_test);
      if (!('reason' in take)) return { ...admitted, daily: take.countWithSend };
      await this.holdForCap(row, token, take);
    } catch (err) {
      if (group) this.providers.release(group);
      throw err;
    }
    if (group) this.providers.release(group);
    return undefined;
  }

  /**
   * beforeDelivery: the gates between rendering and delivery. Resolves the relay to deliver through, or undefined
   * when the email was written back (its project's marketing sending paused: released; every relay's daily cap
   * reached: held for the next UTC day; every relay taken for down: deferred until the first is tried again).
   */
  async beforeDelivery(row: OutboxRow, token: string, admitted: Admitted): Promise<Relay | undefined> {
    if ((row.blast_id || row.workflow_id) && this.paused().has(row.project_id)) {
      await this.query(RELEASE_PAUSED, [row.id, token]);
      return undefined;
    }
    if (admitted.simulated) return this.relays.first;
    const relay = await this.relays.take(row.stream);
    if (!('transport' in relay)) return this.holdForCap(row, token, relay);
    if (relay.downUntil <= performance.now()) return relay;
    await this.outcomes.whileDown(row, token, relay);
    return undefined;
  }

  /**
   * inSlotSecond: whether an email holding its provider's send slot still leaves in that slot's calendar second. A
   * provider counts per second as a relay does: an email whose slot passed into an earlier second (it waited for a
   * connection) would add to this second's own slots, so it steps aside (false: written back, due at once) for a new slot.
   */
  async inSlotSecond(row: OutboxRow, token: string, admitted: Admitted): Promise<boolean> {
    if (admitted.slotAt === undefined || Math.floor(Date.now() / 1000) === Math.floor(admitted.slotAt / 1000)) return true;
    await this.stepAside(row, token, 0);
    return false;
  }

  /** stepAside puts a row back for `ms` (WAIT_FOR_PROVIDER), its attempt not counted. */
  private async stepAside(row: OutboxRow, token: string, ms: number): Promise<undefined> {
    await this.query(WAIT_FOR_PROVIDER, [row.id, token, String(ms)]);
    return undefined;
  }

  /** holdForCap puts a row over a daily cap (warm-up, daily_quota) back until the cap allows it (HOLD_FOR_CAP). */
  private async holdForCap(row: OutboxRow, token: string, refusal: { reason: string; waitMs: number }): Promise<undefined> {
    await this.query(HOLD_FOR_CAP, [row.id, token, refusal.reason, String(refusal.waitMs)]);
    sendMetrics.deferred.inc({ reason: 'daily_cap' });
    return undefined;
  }
}
