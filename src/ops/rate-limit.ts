import type { RateSetting } from '../config/ops-config.ts';

// Token buckets by key (an address, an API key): `rate` tokens a second up to `burst`. A bucket
// is two numbers; the map is bounded, the oldest bucket going first (a full bucket and a missing
// one are the same thing, so only a flood of new keys can make a drained one be forgotten).

export type RateLimiter = {
  /** Takes one token for `key`: 0 when allowed, else the seconds until one is there. */
  take(key: string, nowMs: number): number;
};

export function createRateLimiter({ rate, burst }: RateSetting, maxKeys = 50_000): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, nowMs) {
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
        b = { tokens: burst, at: nowMs };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(burst, b.tokens + ((nowMs - b.at) / 1000) * rate);
        b.at = nowMs;
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / rate));
    },
  };
}
