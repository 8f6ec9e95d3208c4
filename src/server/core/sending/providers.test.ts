/** DOMAIN_LIMITS parsing and provider groups (core/sending/providers.ts). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDER_GROUPS, parseDomainLimits, ProviderTable } from './providers.ts';

describe('parseDomainLimits', () => {
  it('gives the built-in groups when unset', () => {
    expect(parseDomainLimits(undefined)).toEqual(DEFAULT_PROVIDER_GROUPS);
    expect(parseDomainLimits('')).toEqual(DEFAULT_PROVIDER_GROUPS);
  });
  it('sets a whole built-in group through any of its domains, and adds other domains as groups of their own', () => {
    const groups = parseDomainLimits('{"googlemail.com":{"max_rate":20},"Example.ORG":{"max_rate":5,"max_connections":2}}');
    expect(groups.find((g) => g.name === 'gmail')!.limits).toEqual({ maxConnections: 20, maxRate: 20 });
    expect(groups.find((g) => g.name === 'example.org')).toEqual({ name: 'example.org', domains: ['example.org'], limits: { maxRate: 5, maxConnections: 2 } });
    const table = new ProviderTable(groups);
    expect(table.forEmail('Someone@GMAIL.com')!.name).toBe('gmail');
    expect(table.forEmail('a@example.org')!.limits.maxRate).toBe(5);
    expect(table.forEmail('a@sub.example.org')).toBeUndefined();
    expect(table.forEmail('a@aol.com')!.name).toBe('yahoo');
  });
  it('refuses what it cannot use, naming DOMAIN_LIMITS and the fault', () => {
    expect(() => parseDomainLimits('{example.org: 5}')).toThrow(/^DOMAIN_LIMITS must be JSON/);
    expect(() => parseDomainLimits('[1]')).toThrow(/^DOMAIN_LIMITS must be a JSON object/);
    expect(() => parseDomainLimits('{"localhost":{"max_rate":1}}')).toThrow(/^DOMAIN_LIMITS: "localhost" is not a domain name/);
    expect(() => parseDomainLimits('{"a.org":{"rate":1}}')).toThrow(/^DOMAIN_LIMITS: a.org has an unknown field "rate"/);
    expect(() => parseDomainLimits('{"a.org":{"max_rate":0}}')).toThrow(/^DOMAIN_LIMITS: a.org.max_rate must be a number > 0, got 0/);
    expect(() => parseDomainLimits('{"a.org":{"max_connections":1.5}}')).toThrow(/max_connections must be a whole number/);
    expect(() => parseDomainLimits('{"a.org":5}')).toThrow(/^DOMAIN_LIMITS: a.org must be an object/);
  });
});
