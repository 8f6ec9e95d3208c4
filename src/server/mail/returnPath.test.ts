/**
 * The per-message return path: it names its outbox row, survives an MTA folding the local part's case,
 * and cannot be forged, altered or moved to another project's secret.
 */
import { describe, expect, it } from 'vitest';
import { parseReturnPath, returnPath, verifyReturnPath } from './returnPath.ts';

const SECRET = 'a'.repeat(64);

describe('returnPath', () => {
  it('names its outbox row and verifies under its project’s secret, in any letter case', () => {
    const address = returnPath(123_456_789, SECRET, 'bounces.example.com');
    expect(address).toMatch(/^b-[0-9a-z]+-[0-9a-f]{16}@bounces\.example\.com$/);
    for (const form of [address, address.toUpperCase()]) {
      const claimed = parseReturnPath(form)!;
      expect(claimed).toMatchObject({ outboxId: 123_456_789, domain: 'bounces.example.com' });
      expect(verifyReturnPath(claimed.outboxId, claimed.signature, SECRET)).toBe(true);
    }
  });

  it('does not verify an altered id, a forged signature or another project’s secret', () => {
    const claimed = parseReturnPath(returnPath(42, SECRET, 'bounces.example.com'))!;
    expect(verifyReturnPath(43, claimed.signature, SECRET)).toBe(false);
    expect(verifyReturnPath(42, '0'.repeat(16), SECRET)).toBe(false);
    expect(verifyReturnPath(42, claimed.signature, 'b'.repeat(64))).toBe(false);
  });

  it('reads only addresses of its own form', () => {
    for (const address of ['news@example.com', 'b-1-0123@bounces.example.com', 'b--0123456789abcdef@x.com', 'b-0-0123456789abcdef@x.com', 'no-at-sign']) {
      expect(parseReturnPath(address), address).toBeUndefined();
    }
  });
});
