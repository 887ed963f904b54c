// How busy this process's event loop is: its utilisation (the share of the time it spent running
// callbacks rather than waiting) over fixed windows. The webhook pacer and the full-text helper's
// "busy" signal both step back while it is high.
import { performance } from 'node:perf_hooks';

/** Calls `fn` every `windowMs` with the loop's utilisation (0–1) over that window; an unref'd timer. */
export function everyLoadWindow(windowMs: number, fn: (utilisation: number) => void): NodeJS.Timeout {
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    fn(window.utilization);
  }, windowMs);
  timer.unref();
  return timer;
}
