import { describe, expect, it } from 'vitest';
import { cached } from '../../src/bounded-cache.ts';

describe('cached', () => {
  it.each([
    // [keys asked in order, max, keys left in the cache (oldest first), how many values were made]
    [['a', 'b', 'c'], 3, ['a', 'b', 'c'], 3],
    [['a', 'b', 'c', 'd'], 3, ['b', 'c', 'd'], 4],
    [['a', 'b', 'a', 'c', 'd'], 3, ['a', 'c', 'd'], 4], // a hit makes 'a' the most recent: 'b' goes
    [['a', 'a', 'a'], 2, ['a'], 1],
    [['a', 'b', 'c', 'a'], 2, ['c', 'a'], 4], // 'a' was evicted, so it is made again
  ] as const)('%j with max %i', (keys, max, left, made) => {
    const cache = new Map<string, string>();
    let n = 0;
    for (const k of keys) expect(cached(cache, k, max, () => `${k}${n++}`)).toMatch(new RegExp(`^${k}\\d+$`));
    expect([...cache.keys()]).toEqual(left);
    expect(n).toBe(made);
  });

  it('returns the kept value on a hit, not a new one', () => {
    const cache = new Map<string, object>();
    const first = cached(cache, 'k', 4, () => ({}));
    expect(cached(cache, 'k', 4, () => ({}))).toBe(first);
  });
});

describe('cached with keep', () => {
  it.each([
    // [values made in order, kept when, keys left in the cache]
    [[1, 2, 3], (v: number) => v !== 2, ['k1', 'k3']],
    [[1, 2, 3], () => false, []],
    [[1, 2, 3], () => true, ['k1', 'k2', 'k3']],
  ] as const)('%j', (values, keep, left) => {
    const cache = new Map<string, number>();
    values.forEach((v, i) => expect(cached(cache, `k${i + 1}`, 8, () => v, keep)).toBe(v));
    expect([...cache.keys()]).toEqual(left);
  });

  it('makes a value it did not keep again on the next call', () => {
    const cache = new Map<string, number | undefined>();
    let made = 0;
    const get = () =>
      cached(
        cache,
        'k',
        8,
        () => (made++, undefined),
        (v) => v !== undefined,
      );
    get();
    get();
    expect(made).toBe(2);
    expect(cache.size).toBe(0);
  });
});
