// Foreground first. Sending a delivery costs CPU on the same event loop that serves page writes
// (the HTTP client, signing, logging), and a receiver on the same host costs more. While page
// writes keep the loop saturated, deliveries slow to a trickle and the backlog waits, safe in
// SQLite; as soon as the loop has room again they go at full speed. Without this, 3 subscriptions
// cut a saturated server's write throughput by about half (docs/performance.md, Webhooks).

export const PACE = {
  /** Sends per second the dispatcher keeps while writes saturate the loop (never starved). */
  floorPerSecond: 100,
  /** Event-loop utilisation above which a window with writes counts as saturated. */
  busyUtilisation: 0.85,
  /** Past this rate, sending is not limited at all (from the floor: 6 windows doubling). */
  unlimitedAbove: 5000,
};

type Pacer = {
  /** Once per window: how busy the loop was, and whether page writes happened in it. */
  adjust(utilisation: number, writesSeen: boolean, nowMs: number): void;
  /** Takes one send token at `nowMs`; false = wait `waitMs(nowMs)`. */
  take(nowMs: number): boolean;
  waitMs(nowMs: number): number;
  readonly rate: number; // sends per second; Infinity = unlimited
};

/** Down to the floor at once while writes saturate the loop; doubling back up, window by window, when not. */
export function createPacer(): Pacer {
  let rate = Infinity;
  let tokens = 0;
  let last = 0;
  const refill = (now: number) => {
    if (rate === Infinity) return;
    tokens = Math.min(Math.max(1, rate / 10), tokens + ((now - last) * rate) / 1000);
    last = now;
  };
  return {
    adjust(utilisation, writesSeen, now) {
      if (writesSeen && utilisation > PACE.busyUtilisation) {
        if (rate === Infinity) {
          tokens = 0;
          last = now;
        }
        rate = PACE.floorPerSecond;
      } else if (rate !== Infinity) {
        rate *= 2;
        if (rate > PACE.unlimitedAbove) rate = Infinity;
      }
    },
    take(now) {
      if (rate === Infinity) return true;
      refill(now);
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    waitMs(now) {
      if (rate === Infinity) return 0;
      refill(now);
      return Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate));
    },
    get rate() {
      return rate;
    },
  };
}
