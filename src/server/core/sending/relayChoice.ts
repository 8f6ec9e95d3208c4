/**
 * Which relay an email goes through (docs/architecture.md "The governor"): the main relay of SMTP_URL and its backups,
 * each with its pacing (max_rate), its share of max_connections over all processes, its daily caps (daily_quota,
 * warm-up) and whether it is taken for down. RelaySet.take picks the first by priority that is up and has today's cap
 * left, relays of equal priority sharing the mail by weight; failover, when a relay refuses connections, is the
 * wentDown/tookMessage bookkeeping the sender reports to.
 */
import type { QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import type { MailTransport } from '../../mail/transport.ts';
import { ConnectionShare } from './connections.ts';
import { DailyCaps, utcDay, type CapRefusal } from './dailyCaps.ts';
import { MARK_RELAY_DOWN, MARK_RELAY_UP, RelayPacer } from './pacing.ts';
import type { RelaySetting } from './relays.ts';

/** A backup relay (SMTP_URL's further URLs) with its transport. */
export type BackupRelay = Omit<RelaySetting, 'url'> & { transport: MailTransport };

/** A relay the sender delivers through: its transport, its pacer, and until when it is taken for down. */
export interface Relay {
  name: string;
  transport: MailTransport;
  pacer?: RelayPacer;
  /**
   * Its share of max_connections over all processes (./connections.ts), when it has one: the transport keeps its SMTP
   * sessions within it (MailTransport.limitSessions), and the share records them until their sockets close.
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
  /** SMTP_URL's `stream=`: it carries only this message stream's mail. */
  stream?: string;
}

/** The first wait after a relay is found down (ms), and the longest. */
export const RELAY_DOWN_MS = { first: 5_000, max: 5 * 60_000 };

/** RelaySet holds a sender's relays, in order of priority (the main one of SMTP_URL, then the backups). */
export class RelaySet {
  readonly all: Relay[];

  /**
   * `transport` is SMTP_URL's main relay (with the config's relay settings), `backups` the others; `closing()` says
   * when the sender is closing its sessions (no new one may then be opened).
   */
  constructor(
    private readonly query: QueryFn,
    config: Config,
    transport: MailTransport,
    backups: BackupRelay[],
    private readonly caps: DailyCaps,
    private readonly closing: () => boolean,
  ) {
    const { relayMaxRate, relayName, relayDailyQuota, relayWarmup, relayPriority, relayWeight, relayMaxConnections, relayReturnPath, relayStream } = config;
    const relay = (s: Omit<RelaySetting, 'url'>, t: MailTransport): Relay => ({
      name: s.name,
      transport: t,
      pacer: s.maxRate && t.delivers ? new RelayPacer(query, s.name, s.maxRate) : undefined,
      share: s.maxConnections && t.delivers && t.limitSessions ? this.relayShare(s.name, t, s.maxConnections) : undefined,
      downUntil: 0,
      downFor: RELAY_DOWN_MS.first,
      limits: t.delivers ? { dailyQuota: s.dailyQuota, warmup: s.warmup } : {},
      priority: s.priority ?? 0,
      weight: s.weight ?? 1,
      current: 0,
      ...(s.returnPath ? { returnPath: s.returnPath } : {}),
      ...(s.stream ? { stream: s.stream } : {}),
    });
    const main = {
      name: relayName ?? transport.description,
      maxRate: relayMaxRate,
      dailyQuota: relayDailyQuota,
      warmup: relayWarmup,
      priority: relayPriority ?? 0,
      weight: relayWeight,
      maxConnections: relayMaxConnections,
      returnPath: relayReturnPath,
      stream: relayStream,
    };
    this.all = [
      relay(main, transport),
      ...backups.map(({ transport: t, ...b }, i) => relay({ ...b, priority: b.priority ?? (relayPriority ?? 0) + i + 1 }, t)),
    ].sort((a, b) => a.priority - b.priority);
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
    t.limitSessions!({ allowed: () => (this.closing() ? 0 : share.granted), ready: () => share.start() });
    return share;
  }

  /** The relay of highest priority: the one the mailbox simulator's answers are counted against. */
  get first(): Relay {
    return this.all[0];
  }

  /**
   * take returns the relay for the next email and counts it against that relay's daily caps: the first by priority
   * that is not taken for down (or, when all are, the one back the soonest) and whose cap today is not reached. When
   * every relay's cap is reached, the refusal of the last one tried (the email waits for the next day). The candidates
   * are the relays of the email's message `stream` (SMTP_URL `stream=`) when it has any, else the relays given no stream.
   */
  async take(stream?: string): Promise<Relay | CapRefusal> {
    const now = performance.now();
    const today = utcDay(this.caps.now());
    const open = (r: Relay) => r.full?.day !== today;
    const all = this.forStream(stream);
    const up = this.byWeight(all.filter((r) => r.downUntil <= now && open(r)));
    const down = all.filter((r) => r.downUntil > now && open(r)).sort((a, b) => a.downUntil - b.downUntil);
    let refusal: CapRefusal | undefined;
    for (const r of [...up, ...down, ...all.filter((r) => !open(r))]) {
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

  /** forStream: the relays that carry `stream`'s mail: its own when SMTP_URL gives it any, else those given no stream (all, when none has one). */
  forStream(stream?: string): Relay[] {
    const own = stream ? this.all.filter((r) => r.stream === stream) : [];
    if (own.length) return own;
    const general = this.all.filter((r) => !r.stream);
    return general.length ? general : this.all;
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

  /** anyUp: whether some relay is not taken for down now. */
  anyUp(): boolean {
    return this.all.some((r) => r.downUntil <= performance.now());
  }

  /**
   * wentDown takes `relay` for down after it refused a connection or a session (`message`; `reason` is what
   * GET {scheduler}/sending_status shows): for 5 s, doubling up to 5 min. Emails already in flight when it went down
   * fail too: only the first failure of an outage (or of a probe after the wait) takes it down and doubles the wait.
   */
  wentDown(relay: Relay, message: string, reason: string): void {
    if (relay.downUntil > performance.now()) return;
    relay.downUntil = performance.now() + relay.downFor;
    relay.wasDown = true;
    relay.downReason = message;
    void this.query(MARK_RELAY_DOWN, [relay.name, String(relay.downFor), reason]).catch((e) =>
      console.error('sender: noting a relay down failed:', (e as Error).message),
    );
    relay.downFor = Math.min(relay.downFor * 2, RELAY_DOWN_MS.max);
  }

  /** tookMessage: `relay` accepted a message; its next outage waits the first wait again, and it is noted up. */
  tookMessage(relay: Relay): void {
    relay.downFor = RELAY_DOWN_MS.first;
    if (!relay.wasDown) return;
    relay.wasDown = false;
    void this.query(MARK_RELAY_UP, [relay.name]).catch((err) => console.error('sender: noting a relay up failed:', (err as Error).message));
  }

  /**
   * closeSessions closes the relays' SMTP sessions before their shares are given back, so that no other process is
   * granted connections this one still has open (at most 2 s; a share lapses 5 s after its last renewal anyway).
   * Call once `closing()` holds.
   */
  async closeSessions(): Promise<void> {
    const shared = this.all.filter((r) => r.share);
    for (const r of shared) r.transport.sessionLimitChanged?.();
    for (const end = performance.now() + 2000; shared.some((r) => (r.transport.openSessions ?? 0) > 0) && performance.now() < end;) {
      await new Promise((res) => setTimeout(res, 20));
    }
    await Promise.all(shared.map((r) => r.share!.stop()));
  }
}
