/**
 * Per-provider limits at send time (DOMAIN_LIMITS; ./providers.ts; docs/architecture.md "The governor"): for each
 * mailbox-provider group, its share of connections over all processes and, with a max_rate, its send slots. Also
 * what one sender holds of each rate-limited group (the rows claimed and not yet given a slot), so that the sender's
 * feeder claims a group's due rows on their own at its rate (core/sending/queries.ts CLAIM_DUE_FOR_DOMAINS) instead
 * of letting them wait behind every other pending row.
 */
import type { QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import { ConnectionShare } from './connections.ts';
import { SlotPacer } from './pacing.ts';
import { ProviderTable, type ProviderGroup } from './providers.ts';

/** How many seconds of a rate-limited provider's rate the feeder keeps claimed in hand. */
const PROVIDER_LOOKAHEAD_S = 1;

/**
 * How often (ms) the feeder claims the due rows of each rate-limited provider on their own: a provider's rows then
 * flow at its rate beside the rest of a blast, instead of waiting behind every other pending row.
 */
export const PROVIDER_CLAIM_MS = 500;

/** ProviderSlots is one sender's view of the provider groups: their connections, send slots and rows in hand. */
export class ProviderSlots {
  private readonly table: ProviderTable;
  /** The groups with a max_rate, whose due rows the feeder claims on their own. */
  readonly rateLimited: ProviderGroup[];
  private readonly state = new Map<string, { pacer?: SlotPacer; connections?: ConnectionShare }>();
  /** Per rate-limited group, its rows claimed by this sender that have not yet taken (or given up on) a send slot. */
  private readonly inHand = new Map<string, number>();
  /** The group each such row waits for, by row id. */
  private readonly waitingFor = new Map<string, string>();
  /** When (performance.now(), ms) dueClaims last answered. */
  private claimedAt = -Infinity;

  constructor(
    private readonly query: QueryFn,
    groups: Config['providerGroups'],
  ) {
    this.table = new ProviderTable(groups);
    this.rateLimited = this.table.groups.filter((g) => g.limits.maxRate);
  }

  /** forEmail: the provider group of an address, if it has limits. */
  forEmail(email: string): ProviderGroup | undefined {
    return this.table.forEmail(email);
  }

  /** How long (ms) the feeder may sleep before dueClaims has claims again: PROVIDER_CLAIM_MS, or Infinity without rate-limited groups. */
  get pollMs(): number {
    return this.rateLimited.length ? PROVIDER_CLAIM_MS : Infinity;
  }

  /**
   * dueClaims: at most every PROVIDER_CLAIM_MS, the claims the feeder should make of each rate-limited group's due rows
   * (Claims.claim's `only`: its domains, and a second of its rate less what this sender holds of it); else none.
   * Each row claimed takes a send slot of its provider within a second or steps aside again.
   */
  dueClaims(): Array<{ group: string; domains: string[]; limit: number }> {
    if (!this.rateLimited.length || performance.now() - this.claimedAt < PROVIDER_CLAIM_MS) return [];
    this.claimedAt = performance.now();
    return this.rateLimited
      .map((g) => ({
        group: g.name,
        domains: g.domains,
        limit: Math.max(1, Math.ceil(g.limits.maxRate! * PROVIDER_LOOKAHEAD_S)) - (this.inHand.get(g.name) ?? 0),
      }))
      .filter((c) => c.limit > 0);
  }

  /**
   * track counts a claimed row of a rate-limited group in what this sender holds of it (until untrack: once the row
   * has its provider's send slot, stepped aside, or is done). True for such a row.
   */
  track(row: { id: string | number; email: string }): boolean {
    const group = this.rateLimited.length ? this.table.forEmail(row.email) : undefined;
    if (!group?.limits.maxRate) return false;
    if (this.waitingFor.has(String(row.id))) return true;
    this.waitingFor.set(String(row.id), group.name);
    this.inHand.set(group.name, (this.inHand.get(group.name) ?? 0) + 1);
    return true;
  }

  /** untrack takes a row out of what is in hand (no-op when it is not counted). */
  untrack(row: { id: string | number }): void {
    const group = this.waitingFor.get(String(row.id));
    if (group === undefined) return;
    this.waitingFor.delete(String(row.id));
    this.inHand.set(group, (this.inHand.get(group) ?? 1) - 1);
  }

  /**
   * take takes one of the group's connections and, with a max_rate, a send slot: resolves {slotAt} when the email
   * may go (the slot's instant, epoch ms, when the group has a rate; the caller calls release after delivery), or
   * {stepAsideMs}, how long it should step aside: all connections are busy and as many emails wait for one already
   * (250), or no slot is free within a second. A wait for a connection ends when `signal` aborts (ShareWaitAborted).
   */
  async take(group: ProviderGroup, signal: AbortSignal): Promise<{ stepAsideMs: number } | { slotAt?: number }> {
    let st = this.state.get(group.name);
    if (!st) {
      const { maxRate, maxConnections } = group.limits;
      st = {
        pacer: maxRate ? new SlotPacer(this.query, `provider:${group.name}`, maxRate) : undefined,
        connections: maxConnections ? new ConnectionShare(this.query, `provider:${group.name}`, maxConnections) : undefined,
      };
      this.state.set(group.name, st);
    }
    if (st.connections && !(await st.connections.tryAcquire())) {
      if (st.connections.waiting >= st.connections.max) return { stepAsideMs: 250 };
      await st.connections.acquire(signal);
    }
    if (!st.pacer) return {};
    let slotAt: number | undefined;
    try {
      slotAt = await st.pacer.tryPermit();
    } catch (err) {
      this.release(group);
      throw err;
    }
    if (slotAt === undefined) {
      this.release(group);
      return { stepAsideMs: st.pacer.horizonMs };
    }
    return { slotAt };
  }

  /** release gives back a connection of the group (to the first email waiting for one, if any). */
  release(group: ProviderGroup): void {
    this.state.get(group.name)?.connections?.release();
  }

  /** stop gives back every group's share of connections. */
  async stop(): Promise<void> {
    await Promise.all([...this.state.values()].map((p) => p.connections?.stop()));
  }
}
