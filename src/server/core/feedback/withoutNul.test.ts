import { describe, expect, it } from 'vitest';
import { withoutNul } from './index.ts';

describe('withoutNul', () => {
  it('drops NUL characters from every string of a JSON value, and keeps the rest as it is', () => {
    expect(withoutNul({ a: 'x\u0000y', b: [1, 'z\u0000', null, { c: '\u0000' }], d: true })).toEqual({ a: 'xy', b: [1, 'z', null, { c: '' }], d: true });
    expect(withoutNul('plain')).toBe('plain');
    expect(withoutNul(null)).toBeNull();
  });
});
