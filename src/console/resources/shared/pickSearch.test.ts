import { describe, expect, it } from 'vitest';
import { searchWithin } from './pickSearch.ts';

const rows = ['Ann <ann@x.test>', 'Bob <bob@x.test>', 'Anna <anna@y.test>'].map((label, i) => ({ id: String(i), label }));

describe('searching a pick list read once per opening (part 2 §2 Pick lists)', () => {
  it('reads the list on the first search only, and filters it on every keystroke', async () => {
    let reads = 0;
    const search = searchWithin(
      async () => {
        reads++;
        return rows;
      },
      (r) => r,
      10,
    );
    expect((await search('')).map((o) => o.id)).toEqual(['0', '1', '2']);
    expect((await search('AN')).map((o) => o.id)).toEqual(['0', '2']);
    expect((await search('y.test')).map((o) => o.id)).toEqual(['2']);
    expect(reads).toBe(1);
  });

  it('shares one read between searches made while it is under way, and shows at most `limit`', async () => {
    let reads = 0;
    const search = searchWithin(
      async () => {
        reads++;
        return rows;
      },
      (r) => r,
      2,
    );
    const [a, b] = await Promise.all([search('a'), search('')]);
    expect(reads).toBe(1);
    expect(a).toHaveLength(2);
    expect(b.map((o) => o.id)).toEqual(['0', '1']);
  });

  it('reads again after a failed read', async () => {
    let reads = 0;
    const search = searchWithin(
      async () => {
        if (reads++ === 0) throw new Error('down');
        return rows;
      },
      (r) => r,
      10,
    );
    await expect(search('a')).rejects.toThrow('down');
    expect(await search('bob')).toEqual([rows[1]]);
    expect(reads).toBe(2);
  });
});
