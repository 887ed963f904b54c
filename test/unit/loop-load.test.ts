// everyLoadWindow: the event loop's utilisation per window, as the webhook pacer and the
// full-text helper's busy signal read it.
import { expect, it } from 'vitest';
import { everyLoadWindow } from '../../src/loop-load.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('reports a window with the loop blocked as busy and an idle one as calm', async () => {
  const seen: number[] = [];
  const timer = everyLoadWindow(40, (u) => seen.push(u));
  try {
    await sleep(130);
    const idle = seen.splice(0);
    const end = Date.now() + 130;
    while (Date.now() < end); // the loop does nothing else: a window of it is all callback
    await sleep(60); // the window after the block reports it
    expect(idle.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...idle)).toBeLessThan(0.3);
    expect(Math.max(...seen)).toBeGreaterThan(0.7);
    for (const u of [...idle, ...seen]) expect(u).toBeGreaterThanOrEqual(0);
  } finally {
    clearInterval(timer);
  }
});
