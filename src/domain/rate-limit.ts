// Token buckets in memory, one per key (a name, a client address). A bucket holds up to `burst`
// tokens and regains `perMinute` a minute; a failure takes one; an empty bucket refuses until
// its next token. In memory on purpose: one process, and a restart forgetting failures is fine.

export type BucketLimits = { burst: number; perMinute: number };
export type RateLimiter = {
  /** 0 when `key` may try now; otherwise the seconds until it may (for Retry-After). */
  waitSeconds(key: string): number;
  /** Takes one token from `key`'s bucket. */
  take(key: string): void;
  size(): number;
};

const MAX_BUCKETS = 10_000;

export function createRateLimiter(limits: BucketLimits, clock: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = limits.perMinute / 60_000;
  const level = (key: string, now: number): number => {
    const b = buckets.get(key);
    if (!b) return limits.burst;
    return Math.min(limits.burst, b.tokens + (now - b.at) * perMs);
  };
  const prune = (now: number) => {
    // Full buckets carry no information: dropping them bounds memory against random names.
    for (const key of buckets.keys()) if (level(key, now) >= limits.burst) buckets.delete(key);
    if (buckets.size >= MAX_BUCKETS) buckets.clear();
  };
  return {
    waitSeconds(key) {
      const tokens = level(key, clock());
      return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    },
    take(key) {
      const now = clock();
      if (buckets.size >= MAX_BUCKETS) prune(now);
      buckets.set(key, { tokens: Math.max(0, level(key, now) - 1), at: now });
    },
    size: () => buckets.size,
  };
}
