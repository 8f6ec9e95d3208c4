import { describe, expect, it } from 'vitest';
import { addressKey, FirstRows, mergedReason } from './importAddresses';

describe('addressKey', () => {
  it('compares addresses whatever their letter case, as lower(email) does', () => {
    expect(addressKey('YUKI.OBRIEN3@EXAMPLE.COM')).toBe('yuki.obrien3@example.com');
    expect(addressKey('Yuki.OBrien3@Example.com')).toBe(addressKey('yuki.obrien3@example.com'));
    expect(addressKey('ann@example.com')).not.toBe(addressKey('anne@example.com'));
  });
});

describe('FirstRows', () => {
  it('keeps the first row of an address; a later row in another case is merged into it, a repeat as written is not', () => {
    const rows = new FirstRows();
    expect(rows.see('YUKI.OBRIEN3@EXAMPLE.COM', 2)).toEqual({ kind: 'first' });
    expect(rows.see('ann@example.com', 3)).toEqual({ kind: 'first' });
    expect(rows.see('yuki.obrien3@example.com', 7)).toEqual({ kind: 'merged', firstLine: 2 });
    expect(rows.see('Yuki.OBrien3@example.com', 8)).toEqual({ kind: 'merged', firstLine: 2 });
    expect(rows.see('YUKI.OBRIEN3@EXAMPLE.COM', 9)).toEqual({ kind: 'same', firstLine: 2 });
    expect(rows.see('ann@example.com', 10)).toEqual({ kind: 'same', firstLine: 3 });
    expect(rows.see('ANN@example.com', 11)).toEqual({ kind: 'merged', firstLine: 3 });
    expect(rows.size).toBe(2);
  });

  it('takes the key from the caller when given', () => {
    const rows = new FirstRows();
    expect(rows.see('Bo@example.com', 2, addressKey('Bo@example.com'))).toEqual({ kind: 'first' });
    expect(rows.see('bo@example.com', 3, 'bo@example.com')).toEqual({ kind: 'merged', firstLine: 2 });
  });

  it('remembers every address while it grows (100,000 addresses, each repeated in another case)', () => {
    const rows = new FirstRows();
    const n = 100_000;
    let first = 0;
    for (let i = 0; i < n; i++) if (rows.see(`person${i}@example${i % 7}.com`, i + 2).kind === 'first') first++;
    expect({ first, size: rows.size }).toEqual({ first: n, size: n });
    let merged = 0;
    let same = 0;
    for (let i = 0; i < n; i++) {
      const seen = rows.see(i % 2 ? `PERSON${i}@example${i % 7}.com` : `person${i}@example${i % 7}.com`, n + i + 2);
      if (seen.kind === 'merged' && seen.firstLine === i + 2) merged++;
      if (seen.kind === 'same' && seen.firstLine === i + 2) same++;
    }
    expect({ merged, same, size: rows.size }).toEqual({ merged: n / 2, same: n / 2, size: n });
  });

  it('refuses a line that is not a row number', () => {
    expect(() => new FirstRows().see('a@example.com', 0)).toThrow(RangeError);
  });
});

describe('mergedReason', () => {
  it('names the address merged into and the line kept', () => {
    expect(mergedReason(2, 'YUKI.OBRIEN3@EXAMPLE.COM')).toBe(
      "merged into YUKI.OBRIEN3@EXAMPLE.COM (line 2): the same address in another letter case, so this row's values were not applied",
    );
  });

  it('names the line when no live contact has the address any more', () => {
    expect(mergedReason(5, null)).toBe("merged into the contact of line 5: the same address in another letter case, so this row's values were not applied");
  });
});
