import { describe, expect, it } from 'vitest';
import { PACE, createPacer } from '../../src/domain/webhooks/pacer.ts';

// Windows: [utilisation, writes seen] → the rate after adjusting.
describe('createPacer', () => {
  it.each([
    ['idle loop, no writes', [[0.1, false]], Infinity],
    ['busy loop without writes (the dispatcher itself)', [[1, false]], Infinity],
    ['writes on an idle loop', [[0.3, true]], Infinity],
    ['writes saturating the loop: straight to the floor', [[0.95, true]], PACE.floorPerSecond],
    ['saturated for long: never below the floor', Array(20).fill([0.99, true]), PACE.floorPerSecond],
    ['back up once writes stop', [...Array(20).fill([0.99, true]), ...Array(10).fill([0.99, false])], Infinity],
    [
      'one window back up',
      [
        [0.95, true],
        [0.2, true],
      ],
      PACE.floorPerSecond * 2,
    ],
    [
      'saturated again on the way up',
      [
        [0.95, true],
        [0.2, true],
        [0.2, false],
        [0.9, true],
      ],
      PACE.floorPerSecond,
    ],
    ['not yet saturated enough', [[PACE.busyUtilisation, true]], Infinity],
  ] as Array<[string, Array<[number, boolean]>, number]>)('%s', (_name, windows, rate) => {
    const p = createPacer();
    windows.forEach(([u, w], i) => p.adjust(u, w, i * 100));
    expect(p.rate).toBe(rate);
  });

  it('hands out tokens at its rate while limited', () => {
    const p = createPacer();
    for (let i = 0; i < 20; i++) p.adjust(0.99, true, 0);
    expect(p.rate).toBe(PACE.floorPerSecond);
    let sent = 0;
    for (let t = 0; t <= 1000; t++) while (p.take(t)) sent++;
    expect(sent).toBeGreaterThanOrEqual(PACE.floorPerSecond - 1);
    expect(sent).toBeLessThanOrEqual(PACE.floorPerSecond + PACE.floorPerSecond / 10);
    expect(p.take(1000)).toBe(false);
    expect(p.waitMs(1000)).toBeGreaterThan(0);
    expect(p.waitMs(1000)).toBeLessThanOrEqual(1000 / PACE.floorPerSecond);
  });

  it('never limits while unlimited', () => {
    const p = createPacer();
    for (let i = 0; i < 10_000; i++) expect(p.take(0)).toBe(true);
    expect(p.waitMs(0)).toBe(0);
  });
});
