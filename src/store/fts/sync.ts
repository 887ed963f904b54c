import type { Db } from '../db/types.ts';
import { ensureIndexGeneration, indexAll, indexedSeq, lastQueued, openIndexConnection, trimQueue } from './index-file.ts';

// The server's side of the full-text index (fts/index-file.ts): the connection searches run on,
// "has the index caught up with every acknowledged write?", and trimming the queue. With the
// helper process running, the helper indexes and the server asks it to catch up when a search
// needs it; without one (tests, a checkout without a script to start) the server indexes
// pending pages itself, just before a search.

export type FullTextIndex = {
  /** kspace.db with the index attached as `fts`; opened on first use. */
  conn(): Db;
  /** Checks the index is this database's (else resets it) without keeping a connection open. */
  check(): void;
  /** Resolves once the index holds every page write committed before the call. */
  synced(): Promise<void>;
  /** A helper is about to start: until it does, a search with a large backlog waits for it. */
  expectHelper(): void;
  /** The helper indexes from now on; `send` writes one line to it. */
  attachHelper(send: (line: string) => void): void;
  /** The helper is gone: the server indexes by itself again. */
  detachHelper(): void;
  /** A line from the helper: "i <seq>" (indexed up to seq), "d <target> <seq>" (caught up with target). */
  helperLine(line: string): void;
  /** Page writes queued and not yet indexed, as far as the server knows (readiness, metrics). */
  backlog(): number;
  close(): void;
};

/**
 * How long a search waits for the helper to report progress before it indexes the rest itself.
 * Progress re-arms the wait: a helper rebuilding a large index (the first start after a format
 * change, a restore) is left to finish, where a fixed deadline had the search index what was left
 * on the server's event loop, holding every request for seconds (the helper's rebuild of 20,000
 * pages took 3.3 s; indexed on the event loop, 1.5 s). A search waits at most
 * SERVICE_MAX_REQUEST_MS like any request.
 */
const HELPER_WAIT_MS = 10_000;

/**
 * A search in the moment between the server's start and its helper's (server.ts starts the
 * helper 250 ms after listening) indexes a backlog of up to this many pages itself (~0.1 s); a
 * larger one (every page, after an upgrade that changed the index's format) it leaves to the
 * helper: indexed here it held every request, 1.5 s for 20,000 pages in a profile.
 */
const LOCAL_BACKLOG_MAX = 1000;

/**
 * `enqueueWrite` runs a function as a write of the server (the group commit), so that queue
 * trimming never takes kspace.db's lock outside it.
 */
export function createFullTextIndex(
  db: Db,
  enqueueWrite: (fn: () => void) => Promise<unknown>,
  cacheMb = 8,
  helperWaitMs = HELPER_WAIT_MS,
  localBacklogMax = LOCAL_BACKLOG_MAX,
): FullTextIndex {
  let idx: Db | null = null;
  let known = -1; // indexed_seq as last seen; -1: not read yet
  let trimmed = 0;
  let send: ((line: string) => void) | null = null;
  let expecting = false; // a helper is starting (expectHelper) and has not attached yet
  const waiters: Array<{ target: number; resolve: () => void; timer: NodeJS.Timeout | undefined }> = [];
  let trimTimer: NodeJS.Timeout | null = null;

  const conn = (): Db => {
    if (!idx) {
      idx = openIndexConnection(db.name, cacheMb);
      ensureIndexGeneration(db, idx);
      known = indexedSeq(idx);
    }
    return idx;
  };
  const advance = (seq: number) => {
    if (seq > known) {
      known = seq;
      for (const w of waiters) arm(w); // the helper is working: wait on
    }
    scheduleTrim();
  };
  // Trimming is a write of kspace.db: batched, at most once a second.
  const scheduleTrim = () => {
    if (trimTimer || known <= trimmed) return;
    trimTimer = setTimeout(() => {
      trimTimer = null;
      const upTo = known;
      enqueueWrite(() => trimQueue(db, upTo)).then(
        () => (trimmed = Math.max(trimmed, upTo)),
        () => {},
      );
    }, 1000);
    trimTimer.unref();
  };
  const indexHere = () => {
    advance(indexAll(conn()));
  };
  // From a timer or the helper's exit: a failure must not escape (the waiting searches then run
  // on the index as it is, and say nothing false about pages they find).
  const indexHereQuietly = () => {
    try {
      indexHere();
    } catch {
      // the next search tries again
    }
  };
  // The helper is stuck (no progress for helperWaitMs): catch up here rather than fail the search.
  const arm = (w: { target: number; timer: NodeJS.Timeout | undefined }) => {
    clearTimeout(w.timer);
    w.timer = setTimeout(() => {
      indexHereQuietly();
      settle(w.target);
    }, helperWaitMs);
  };
  const settle = (target: number) => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].target <= target) {
        clearTimeout(waiters[i].timer);
        waiters[i].resolve();
        waiters.splice(i, 1);
      }
    }
  };

  return {
    conn,
    check() {
      const open = idx !== null;
      conn();
      if (!open) {
        idx!.close(); // reopened by the first search: a server that only takes writes keeps no cache for it
        idx = null;
      }
    },
    synced() {
      conn();
      const target = lastQueued(db);
      if (known >= target) return Promise.resolve();
      if (!send && !(expecting && target - known > localBacklogMax)) {
        indexHere();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const w = { target, resolve, timer: undefined };
        arm(w);
        waiters.push(w);
        send?.(`s ${target}`); // a helper still starting is asked when it attaches
      });
    },
    expectHelper() {
      expecting = true;
    },
    attachHelper(fn) {
      send = fn;
      expecting = false;
      for (const w of waiters) {
        arm(w);
        fn(`s ${w.target}`);
      }
    },
    detachHelper() {
      send = null;
      expecting = false;
      if (waiters.length) {
        indexHereQuietly();
        settle(Infinity);
      }
    },
    helperLine(line) {
      const [kind, a, b] = line.split(' ');
      if (kind === 'i') advance(Number(a));
      else if (kind === 'd') {
        advance(Number(b));
        settle(Number(a));
      }
    },
    backlog() {
      if (known < 0) conn();
      return Math.max(0, lastQueued(db) - known);
    },
    close() {
      if (trimTimer) clearTimeout(trimTimer);
      for (const w of waiters.splice(0)) {
        clearTimeout(w.timer);
        w.resolve();
      }
      idx?.close();
      idx = null;
    },
  };
}
