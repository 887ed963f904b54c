// Token buckets in memory, one per key (a client address, an API key, a sign-in name). A bucket
// holds up to `burst` tokens and regains `perSecond` a second. Two ways to spend:
// - tryTake: a request that is refused when the bucket is empty (the front's per-address and
//   per-key limits): a token is taken only when there is one;
// - waitSeconds, then take: a failure that counts even against an empty bucket (sign-in
//   attempts), the level never going below 0.
// A bucket is two numbers. A full bucket and a missing one are the same thing, so the map is
// bounded by forgetting full buckets first and, only under a flood of new keys, the oldest
// drained ones; each such sweep frees a quarter of the map, so it costs O(1) a new key amortised.
// In memory on purpose: one process, and a restart forgetting the counts is fine.

type BucketLimits = { burst: number; perSecond: number };

export type RateLimiter = {
  /** Takes one token for `key` when it has one: 0; else the seconds until it has one (nothing taken). */
  tryTake(key: string): number;
  /** 0 when `key` has a token now; otherwise the seconds until it has (for Retry-After). */
  waitSeconds(key: string): number;
  /** Takes one token from `key`'s bucket, whatever its level (never below 0). */
  take(key: string): void;
  /** The buckets held. */
  size(): number;
};

type Bucket = { tokens: number; at: number };

export function createRateLimiter({ burst, perSecond }: BucketLimits, opts: { clock?: () => number; maxKeys?: number } = {}): RateLimiter {
  const clock = opts.clock ?? Date.now;
  const maxKeys = opts.maxKeys ?? 50_000;
  const buckets = new Map<string, Bucket>();
  const level = (b: Bucket, now: number): number => Math.min(burst, b.tokens + ((now - b.at) / 1000) * perSecond);
  const wait = (tokens: number): number => (tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond)));
  const sweep = (now: number) => {
    for (const [key, b] of buckets) if (level(b, now) >= burst) buckets.delete(key);
    for (const key of buckets.keys()) {
      if (buckets.size <= maxKeys * 0.75) break;
      buckets.delete(key); // the oldest first (a Map keeps insertion order)
    }
  };
  /** The bucket of `key` brought to now, made (full) when missing. */
  const bucket = (key: string, now: number): Bucket => {
    let b = buckets.get(key);
    if (!b) {
      if (buckets.size >= maxKeys) sweep(now);
      b = { tokens: burst, at: now };
      buckets.set(key, b);
    } else {
      b.tokens = level(b, now);
      b.at = now;
    }
    return b;
  };
  return {
    tryTake(key) {
      const b = bucket(key, clock());
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return wait(b.tokens);
    },
    waitSeconds(key) {
      const b = buckets.get(key);
      return b ? wait(level(b, clock())) : 0;
    },
    take(key) {
      const b = bucket(key, clock());
      b.tokens = Math.max(0, b.tokens - 1);
    },
    size: () => buckets.size,
  };
}
