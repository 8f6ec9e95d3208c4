/** Deferrals: which failures are transient and when a deferred email is tried again (core/sending/deferral.ts). */
import { describe, expect, it } from 'vitest';
import { isDeferral, isRelayDown, isThrottling, nextAttemptDelay, parseDuration } from './deferral.ts';

const policy = { retryMs: 30_000, maxDelayMs: 30 * 60_000, maxAgeMs: 72 * 3_600_000 };

describe('isDeferral', () => {
  it('defers every 4xx, at any stage of the relay conversation, and a connection without a reply', () => {
    for (const code of [421, 450, 451, 452, 454]) expect(isDeferral({ responseCode: code, stage: 'deliver' })).toBe(true);
    expect(isDeferral({ stage: 'deliver' })).toBe(true); // ECONNREFUSED, ETIMEDOUT
    expect(isDeferral({ stage: 'store' })).toBe(true);
  });
  it('keeps 5xx, render failures and permanent errors permanent', () => {
    expect(isDeferral({ responseCode: 550, stage: 'deliver' })).toBe(false);
    expect(isDeferral({ responseCode: 554, stage: 'deliver' })).toBe(false);
    expect(isDeferral({ stage: 'render' })).toBe(false);
    expect(isDeferral({ stage: 'deliver', permanent: true })).toBe(false);
  });
});

describe('nextAttemptDelay', () => {
  it('doubles from the first delay up to the longest, with no limit on the number of attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((a) => nextAttemptDelay(a, 0, policy))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000,
    ]);
  });
  it('makes a last attempt as the lifetime ends, then expires', () => {
    expect(nextAttemptDelay(3, policy.maxAgeMs - 10_000, policy)).toBe(10_000);
    expect(nextAttemptDelay(3, policy.maxAgeMs, policy)).toBe('expired');
    expect(nextAttemptDelay(1, policy.maxAgeMs + 1, policy)).toBe('expired');
  });
});

describe('parseDuration', () => {
  it('reads seconds and s, m, h, d units', () => {
    expect(parseDuration('X', '259200')).toBe(259_200_000);
    expect(parseDuration('X', '72h')).toBe(259_200_000);
    expect(parseDuration('X', '30m')).toBe(1_800_000);
    expect(parseDuration('X', '1.5s')).toBe(1500);
    expect(parseDuration('X', '3d')).toBe(259_200_000);
  });
  it('refuses anything else, naming the setting', () => {
    for (const bad of ['', 'soon', '-1h', '0', '72 hours', '1e3'])
      expect(() => parseDuration('DEFER_MAX_AGE', bad)).toThrow(/^DEFER_MAX_AGE must be a duration/);
  });
});

describe('isThrottling', () => {
  it('knows the relays’ ways of saying "slow down"', () => {
    expect(isThrottling({ responseCode: 454, stage: 'deliver', message: 'Throttling failure: Maximum sending rate exceeded.' })).toBe(true);
    expect(isThrottling({ responseCode: 421, stage: 'deliver', message: '421 4.7.0 Try again later, closing connection. (TS)' })).toBe(true);
    expect(isThrottling({ responseCode: 451, stage: 'deliver', message: '451 4.7.1 Please retry later' })).toBe(true);
    expect(isThrottling({ responseCode: 450, stage: 'deliver', message: '450 4.2.1 The user you are trying to contact is receiving mail at a rate' })).toBe(
      true,
    );
  });
  it('does not take other deferrals or permanent failures for throttling', () => {
    expect(isThrottling({ responseCode: 451, stage: 'deliver', message: '451 4.3.0 Mail server temporarily rejected message' })).toBe(false);
    expect(isThrottling({ responseCode: 452, stage: 'deliver', message: '452 4.2.2 Mailbox full' })).toBe(false);
    expect(isThrottling({ stage: 'deliver', message: 'connect ECONNREFUSED' })).toBe(false);
    expect(isThrottling({ responseCode: 554, stage: 'deliver', message: '554 Throttling' })).toBe(false);
  });
});

describe('isRelayDown', () => {
  it('is a failure before the relay took anything: a refused or dropped connection, a session turned away', () => {
    expect(isRelayDown({ code: 'ESOCKET', command: 'CONN' })).toBe(true); // connect ECONNREFUSED, as nodemailer reports it
    expect(isRelayDown({ code: 'ECONNECTION' })).toBe(true);
    expect(isRelayDown({ code: 'EPROTOCOL', command: 'CONN' })).toBe(true); // 421 at the greeting
    expect(isRelayDown({ code: 'EENVELOPE', command: 'RCPT TO' })).toBe(false);
    expect(isRelayDown({ code: 'EMESSAGE', command: 'DATA' })).toBe(false);
  });
});
