// Live updates (docs/web.md, "Live updates"): one reader of the change feed per tab
// (GET /changes/stream, docs/changes.md), shared by every view that subscribes. It follows from
// "now" (`since=now`; the stream's first comment names that txid), resumes after the last txid
// it saw with Last-Event-ID, and reconnects with backoff. It stays quiet when the server refuses
// it: 429 (too many streams of this person) waits for Retry-After, 401 (signed out) stops until
// the app starts it again, 410 (the resume point is past the retention) tells the views to read
// their data again, then follows from the answer's nextSince.
//
// It reads the stream with fetch, not EventSource: an EventSource cannot tell a 429 from a 410 or
// a 401, ignores Retry-After, hides the stream's comments, and logs a console error for every
// answer other than 200.
import { useEffect, useRef } from 'preact/hooks';
import type { Change } from '../../model.ts';
import { readEvents, type SseEvent } from '../../client/changes.ts';

type Listener = (batch: Change[]) => void;
const listeners = new Set<Listener>();
const resyncs = new Set<() => void>();

let stopCurrent: (() => void) | null = null;
let pending: Change[] = [];
let flushing = false;

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
// The server sends a comment at least every 15 s: a stream silent for longer is dead.
const SILENT_MS = 45_000;

/** Starts following the feed for this tab (once; the app calls it when someone is signed in). */
export function startLive(): void {
  if (stopCurrent) return;
  const ac = new AbortController();
  const stop = (): void => ac.abort();
  stopCurrent = stop;
  void follow(ac.signal).finally(() => {
    if (stopCurrent === stop) stopCurrent = null;
  });
}

/** Stops following (sign-out, the session gone): the open stream is closed at once. */
export function stopLive(): void {
  stopCurrent?.();
  stopCurrent = null;
}

/** Calls `fn` with each batch of changes (those that arrived together, a txid's at least); returns the unsubscribe. */
function onChanges(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Calls `fn` when changes may have been missed (410 changes_expired): the view reads its data again. */
function onResync(fn: () => void): () => void {
  resyncs.add(fn);
  return () => resyncs.delete(fn);
}

/** A view's subscription: the latest `handle` (and `resync`) of each render, for as long as it is mounted. */
export function useLiveChanges(handle: Listener, resync?: () => void): void {
  const h = useRef(handle);
  h.current = handle;
  const r = useRef(resync);
  r.current = resync;
  useEffect(() => {
    const a = onChanges((batch) => h.current(batch));
    const b = onResync(() => r.current?.());
    return () => {
      a();
      b();
    };
  }, []);
}

function emit(change: Change): void {
  pending.push(change);
  if (flushing) return;
  flushing = true;
  // Changes read together (a folder move is one per page) reach the views as one batch.
  setTimeout(() => {
    const batch = pending;
    pending = [];
    flushing = false;
    for (const fn of [...listeners]) {
      try {
        fn(batch);
      } catch {
        /* one view's failure does not stop the others */
      }
    }
  }, 0);
}

function resync(): void {
  for (const fn of [...resyncs]) {
    try {
      fn();
    } catch {
      /* as above */
    }
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** Resolves once the browser is online (at once when it is), or when `signal` aborts. */
const online = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (navigator.onLine !== false || signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      removeEventListener('online', done);
      resolve();
    };
    addEventListener('online', done);
    signal.addEventListener('abort', done, { once: true });
  });

async function follow(signal: AbortSignal): Promise<void> {
  let last: number | null = null; // the txid to resume after; null: not known yet (follow from now)
  let retry = FIRST_RETRY_MS;
  let connections = 0;
  while (!signal.aborted) {
    // Offline, no attempt is made (each would be a failed request): the stream waits for the network.
    await online(signal);
    if (signal.aborted) return;
    let wait = retry;
    const conn = new AbortController();
    const abortConn = (): void => conn.abort();
    signal.addEventListener('abort', abortConn, { once: true });
    addEventListener('offline', abortConn, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const alive = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abortConn, SILENT_MS);
    };
    try {
      // Never known where to resume from after a connection: what happened meanwhile is read again.
      const missed = last === null && connections > 0;
      connections++;
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (last !== null) headers['last-event-id'] = String(last);
      alive();
      const res: Response = await fetch(last === null ? '/changes/stream?since=now' : '/changes/stream', {
        headers,
        credentials: 'same-origin',
        cache: 'no-store',
        signal: conn.signal,
      });
      if (res.status === 200 && res.body) {
        if (missed) resync();
        const opened = Date.now();
        for await (const e of readEvents(res.body) as AsyncGenerator<SseEvent>) {
          alive();
          if (e.comment !== undefined && last === null && /^txid \d+$/.test(e.comment)) last = Number(e.comment.slice(5));
          if (e.event !== 'change' || e.data === undefined) continue;
          const change = JSON.parse(e.data) as Change;
          last = Number(e.id ?? change.txid);
          emit(change);
        }
        // A stream that held a while was a working connection: start the backoff over.
        if (Date.now() - opened > 10_000) wait = retry = FIRST_RETRY_MS;
      } else {
        const problem = (await res.json().catch(() => null)) as { nextSince?: unknown } | null;
        if (res.status === 401) return; // signed out: the app starts a new reader after the next sign-in
        if (res.status === 410) {
          last = typeof problem?.nextSince === 'number' ? problem.nextSince : null;
          resync();
          wait = 0;
        } else if (res.status === 429) {
          const after = Number(res.headers.get('retry-after'));
          wait = Math.max(retry, Number.isFinite(after) ? after * 1000 : 0);
        }
      }
    } catch {
      // A network failure, a dead stream, or stopLive(): try again later, or stop.
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', abortConn);
      removeEventListener('offline', abortConn);
      conn.abort();
    }
    if (signal.aborted) return;
    // A little jitter, so that the tabs of a restarted server do not all come back at once.
    await sleep(wait + Math.random() * Math.min(wait, 1000), signal);
    retry = Math.min(MAX_RETRY_MS, retry * 2);
  }
}
