import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/domain/rate-limit.ts';

describe('createRateLimiter', () => {
  it('allows a burst, then asks to wait until the next token, then allows again', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 3, perMinute: 6 }, () => now); // a token every 10 s
    for (let i = 0; i < 3; i++) {
      expect(l.waitSeconds('a')).toBe(0);
      l.take('a');
    }
    expect(l.waitSeconds('a')).toBe(10);
    expect(l.waitSeconds('b')).toBe(0); // buckets are per key
    now = 4_000;
    expect(l.waitSeconds('a')).toBe(6);
    now = 10_000;
    expect(l.waitSeconds('a')).toBe(0);
    l.take('a');
    expect(l.waitSeconds('a')).toBe(10);
  });

  it('never holds more than the burst, however long a key was idle', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 2, perMinute: 60 }, () => now);
    l.take('a');
    now = 3_600_000;
    l.take('a');
    l.take('a');
    expect(l.waitSeconds('a')).toBe(1);
  });

  it('forgets full buckets when it holds too many keys', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 1, perMinute: 60 }, () => now);
    for (let i = 0; i < 10_000; i++) l.take(`k${i}`);
    now = 120_000; // all full again
    l.take('new');
    expect(l.size()).toBe(1);
  });
});
