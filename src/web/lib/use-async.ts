// Loads data for a view: loading, value or error, and a reload; a stale answer never overwrites a newer one.
import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';

export type Async<T> =
  | { status: 'loading'; data?: T; reload: () => void }
  | { status: 'ok'; data: T; reload: () => void }
  | { status: 'error'; error: unknown; data?: T; reload: () => void };

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ status: 'loading' | 'ok' | 'error'; data?: T; error?: unknown }>({ status: 'loading' });
  const seq = useRef(0);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  // Started in a layout effect, as the view mounts, not after its first paint: an answer already
  // there (main.tsx's prefetch) then renders before the browser paints the empty view, and the
  // view's other requests go out a frame earlier.
  useLayoutEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ status: 'loading', data: s.data }));
    load().then(
      (data) => {
        if (seq.current === mine) setState({ status: 'ok', data });
      },
      (error: unknown) => {
        if (seq.current === mine) setState((s) => ({ status: 'error', error, data: s.data }));
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { ...state, reload } as Async<T>;
}
