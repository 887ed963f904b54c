// "A moment after the last of a run of calls" without a timer per call: `poke()` only notes the
// time; one timer is armed per quiet period and, when it fires early (calls came meanwhile), it
// waits for the rest. Typing pokes on every keystroke, so restarting a timer each time (clear and
// set) would be work on every key.

interface QuietTimer {
  /** Something happened: run `fn` once `delay` ms have passed without another poke. */
  poke: () => void;
  cancel: () => void;
}

export function whenQuiet(delay: number, fn: () => void): QuietTimer {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = (): void => {
    const wait = last + delay - performance.now();
    if (wait > 1) {
      timer = setTimeout(fire, wait);
      return;
    }
    timer = undefined;
    fn();
  };
  return {
    poke: () => {
      last = performance.now();
      timer ??= setTimeout(fire, delay);
    },
    cancel: () => {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
