/**
 * Per-provider limits of the delivery governor: the big mailbox providers throttle senders that open too
 * many connections or send too fast (Gmail and Yahoo answer 421/451), so mail to each provider group keeps within a
 * rate (`max_rate`, messages/s over all sender processes, paced through a relay_pacing row `provider:<group>` as a
 * relay is: core/sending/pacing.ts) and a number of messages in flight at once (`max_connections`, per sender
 * process: each message in flight holds one relay connection).
 *
 * A slow provider never holds back mail to the others: an email whose provider has no free slot within a second, or
 * no free connection, is not waited for; it goes back to pending for a moment (src/workers/sender.ts) and the sender
 * takes the next one. The mailbox simulator's addresses have no provider.
 *
 * Built-in groups and defaults: for Yahoo/AOL, 150 connections, the figure of Yahoo's sender guidance
 * ("up to 150 connections, 20 messages each"). Google, Microsoft and Apple publish no numbers; their defaults
 * (20, 10, 10 connections) are conservative choices of ours. No group has a default max_rate: set one with DOMAIN_LIMITS, e.g.
 * `{"gmail.com":{"max_rate":20}}` (naming any domain of a group sets the whole group's limits).
 */

/** A provider group's limits: messages per second over all processes, messages in flight per process. */
export interface ProviderLimits {
  maxRate?: number;
  maxConnections?: number;
}

/** A group of recipient domains served by one mailbox provider. */
export interface ProviderGroup {
  name: string;
  domains: string[];
  limits: ProviderLimits;
}

/** The built-in groups (see the module's comment for where the numbers come from). */
export const DEFAULT_PROVIDER_GROUPS: readonly ProviderGroup[] = [
  { name: 'gmail', domains: ['gmail.com', 'googlemail.com'], limits: { maxConnections: 20 } },
  {
    name: 'yahoo',
    domains: ['yahoo.com', 'ymail.com', 'rocketmail.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'yahoo.co.jp', 'aol.com', 'aim.com', 'verizon.net'],
    limits: { maxConnections: 150 },
  },
  {
    name: 'microsoft',
    domains: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'hotmail.fr', 'live.co.uk', 'outlook.fr'],
    limits: { maxConnections: 10 },
  },
  { name: 'icloud', domains: ['icloud.com', 'me.com', 'mac.com'], limits: { maxConnections: 10 } },
];

const LIMIT_KEYS: Record<string, keyof ProviderLimits> = { max_rate: 'maxRate', max_connections: 'maxConnections' };

/**
 * parseDomainLimits reads DOMAIN_LIMITS (JSON: `{"example.org":{"max_rate":5,"max_connections":2}}`) over the built-in
 * groups: a domain of a built-in group sets that group's limits (the fields given replace the defaults), any other
 * domain becomes a group of its own. Unset or empty gives the built-in groups. Throws an Error naming DOMAIN_LIMITS and
 * the fault (not JSON, not an object, a bad domain, an unknown field, a value that is not a number > 0, max_connections
 * not whole).
 */
export function parseDomainLimits(value: string | undefined): ProviderGroup[] {
  const groups = DEFAULT_PROVIDER_GROUPS.map((g) => ({ ...g, limits: { ...g.limits } }));
  const raw = value?.trim();
  if (!raw) return groups;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`DOMAIN_LIMITS must be JSON such as {"example.org":{"max_rate":5,"max_connections":2}}: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('DOMAIN_LIMITS must be a JSON object of domains, e.g. {"example.org":{"max_rate":5}}');
  for (const [key, spec] of Object.entries(parsed as Record<string, unknown>)) {
    const domain = key.trim().toLowerCase();
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw new Error(`DOMAIN_LIMITS: "${key}" is not a domain name`);
    if (!spec || typeof spec !== 'object' || Array.isArray(spec)) throw new Error(`DOMAIN_LIMITS: ${domain} must be an object such as {"max_rate":5}`);
    const limits: ProviderLimits = {};
    for (const [field, v] of Object.entries(spec as Record<string, unknown>)) {
      const name = LIMIT_KEYS[field];
      if (!name) throw new Error(`DOMAIN_LIMITS: ${domain} has an unknown field "${field}" (known: max_rate, max_connections)`);
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
        throw new Error(`DOMAIN_LIMITS: ${domain}.${field} must be a number > 0, got ${JSON.stringify(v)}`);
      if (name === 'maxConnections' && !Number.isInteger(v)) throw new Error(`DOMAIN_LIMITS: ${domain}.max_connections must be a whole number, got ${v}`);
      limits[name] = v;
    }
    const group = groups.find((g) => g.domains.includes(domain));
    if (group) group.limits = { ...group.limits, ...limits };
    else groups.push({ name: domain, domains: [domain], limits });
  }
  return groups;
}

/** ProviderTable finds the provider group of a recipient address. */
export class ProviderTable {
  private readonly byDomain = new Map<string, ProviderGroup>();

  constructor(readonly groups: readonly ProviderGroup[]) {
    for (const g of groups) for (const d of g.domains) this.byDomain.set(d, g);
  }

  /** forEmail returns the group of `email`'s domain (case-insensitive), or undefined when no limit applies. */
  forEmail(email: string): ProviderGroup | undefined {
    const at = email.lastIndexOf('@');
    return at < 0
      ? undefined
      : this.byDomain.get(
          email
            .slice(at + 1)
            .trim()
            .toLowerCase(),
        );
  }
}
