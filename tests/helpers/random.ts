/**
 * seededRandom returns a deterministic generator (mulberry32) of whole numbers in [0, n), so a seeded test's data is
 * the same every run and a failure can be replayed. (A plain LCG's low bits alternate, so `% 2` would correlate every
 * coin flip.)
 */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return Math.floor((((x ^ (x >>> 14)) >>> 0) / 4294967296) * n);
  };
}
