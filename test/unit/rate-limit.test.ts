import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/rate-limit.ts';

// The one token-bucket limiter (src/rate-limit.ts): the front's per-address and per-key request
// limits (tryTake) and the sign-in limits (waitSeconds, then take) share it.

describe('createRateLimiter: waitSeconds and take (sign-in failures)', () => {
  it('allows a burst, then asks to wait until the next token, then allows again', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 3, perSecond: 6 / 60 }, { clock: () => now }); // a token every 10 s
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
    const l = createRateLimiter({ burst: 2, perSecond: 1 }, { clock: () => now });
    l.take('a');
    now = 3_600_000;
    l.take('a');
    l.take('a');
    expect(l.waitSeconds('a')).toBe(1);
  });

  it('counts a failure against an empty bucket without going below empty', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 1, perSecond: 1 }, { clock: () => now });
    for (let i = 0; i < 5; i++) l.take('a');
    expect(l.waitSeconds('a')).toBe(1);
    now = 1_000;
    expect(l.waitSeconds('a')).toBe(0); // one second refills it: the extra failures left no debt
  });

  it('forgets full buckets when it holds too many keys', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 1, perSecond: 1 }, { clock: () => now, maxKeys: 10_000 });
    for (let i = 0; i < 10_000; i++) l.take(`k${i}`);
    now = 120_000; // all full again
    l.take('new');
    expect(l.size()).toBe(1);
  });
});

describe('createRateLimiter: tryTake (requests)', () => {
  it('takes a token when there is one, and refuses without taking one when there is none', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 2, perSecond: 0.5 }, { clock: () => now }); // a token every 2 s
    expect(l.tryTake('ip')).toBe(0);
    expect(l.tryTake('ip')).toBe(0);
    expect(l.tryTake('ip')).toBe(2);
    expect(l.tryTake('ip')).toBe(2); // refusals take nothing: the wait does not grow
    now = 1_000;
    expect(l.tryTake('ip')).toBe(1);
    now = 2_000;
    expect(l.tryTake('ip')).toBe(0);
    expect(l.tryTake('other')).toBe(0);
  });

  it('stays bounded under a flood of new keys, forgetting full buckets before drained ones', () => {
    let now = 0;
    const l = createRateLimiter({ burst: 1, perSecond: 0.001 }, { clock: () => now, maxKeys: 100 });
    l.tryTake('drained'); // empty for 1000 s
    for (let i = 0; i < 98; i++) l.waitSeconds(`seen${i}`); // looking makes no bucket
    expect(l.size()).toBe(1);
    for (let i = 0; i < 99; i++) l.take(`k${i}`);
    now = 1;
    for (let i = 0; i < 99; i++) l.tryTake(`k${i}`); // still drained: refused
    expect(l.size()).toBe(100);
    // At the bound, a sweep frees a quarter: none is full, so the oldest go first.
    l.tryTake('late');
    expect(l.size()).toBeLessThanOrEqual(76);
    expect(l.tryTake('drained')).toBe(0); // it was the oldest: forgotten, so full again
    for (let i = 0; i < 10_000; i++) l.tryTake(`flood${i}`);
    expect(l.size()).toBeLessThanOrEqual(100);
  });
});
