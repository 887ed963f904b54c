import sea from 'node:sea';
import { Worker } from 'node:worker_threads';
import { assetPath } from '../../assets.ts';
import { everyLoadWindow } from '../../loop-load.ts';
import type { Db } from '../db/types.ts';
import { nativeAddonFile } from '../db/native.ts';
import { pagesOf4k } from '../db/connection.ts';
import type { FullTextIndex } from '../fts/sync.ts';
import { END, HEAP_LINE } from './loop.ts';
import { committedTxid } from '../txid.ts';

// Starts the helper and answers it; the helper's own side is helper/loop.ts (the constants named
// below without a value are there).
//
// The helper does two jobs off the server's event loop: WAL checkpoints (below) and the
// full-text index (fts/index-file.ts: it moves queued pages into kspace-fts.db every
// INDEX_INTERVAL_MS, and at once when a search asks with "s <target>").
//
// WAL checkpoints copy committed pages back into the database file and fsync it, which takes
// tens of milliseconds. Run by the writing connection they stall every request behind that
// commit. The helper, a worker thread of the server with connections of its own (SQLite's locks
// work between connections of one process as between processes), checkpoints PASSIVE-ly every
// few hundred milliseconds instead, on the other core; the server's own automatic checkpoint
// stays as a safety net at a higher threshold in case the helper lags or dies. A thread, not a
// process: it shares the server's copy of Node and of the program (docs/performance.md, Memory).
// `kspace internal-checkpointer <db>` still runs it as a process, talking over its standard
// input and output (tests of the protocol).
//
// The two sides talk in lines: "hold"/"held"/"release" (below), "busy"/"calm" (the server's
// load), "s <target>" (a search waits), "i <seq>" and "d <target> <seq>" (indexed so far),
// "idle"/"w" (below).
//
// Idle: with nothing to index or tidy and the log all copied, the helper looks again only every
// IDLE_MS, says "idle", and the server says "w" within a LOAD_WINDOW_MS of its next commit. Each
// round reads kspace.db's WAL index under a mutex SQLite shares between the connections of a
// process, and the helper's thread runs at nice 10: preempted while it holds that mutex, it keeps
// the server's next read waiting until the scheduler comes back to it. Rounds a second apart make
// those waits rare.
//
// The log restarts from its start only when a write begins after a complete backfill. Under
// sustained writes a PASSIVE pass never finds the log complete (the server appends while it
// copies), so the helper asks for it: once the log is past RESTART_PAGES it runs passes back to
// back until one finds less than TAIL_PAGES new, then asks the server to hold its write batches
// ("hold" on its standard output; the server answers "held" on the helper's standard input),
// copies that short tail, makes the first write of the new log itself (one row: the new log
// header's fsync then covers a few KB, not the server's next batch), and lets go ("release").
// The pass during the hold is the first to reach the end of the log, so it is the one that fsyncs
// the database file: the helper syncs that file after every pass (syncDb) so that little is left
// to flush then, and a hold is short; it lasts at most MAX_HOLD_MS whatever the helper does. The
// server's own safety checkpoint, which restarted the log before, stalled writes several times
// longer. The log is restarted from RESTART_PAGES, far from the SAFETY_CHECKPOINT_PAGES
// checkpoint: a shorter log is a shorter WAL file, and appending frames past the end of the file
// costs the writer about twice what overwriting them does (ext4 allocates and zeroes new blocks
// inside SQLite's pwrite). The WAL file is reused from its start, not cut back (a
// journal_size_limit makes it grow again every cycle, and writes slower), and SQLite removes it
// when the server stops. The figures: docs/performance.md, "Figures behind the code".
const SAFETY_CHECKPOINT_PAGES = 64_000;
const MAX_HOLD_MS = 200;

const LOAD_WINDOW_MS = 100;
const BUSY_ABOVE = 0.7;
const CALM_BELOW = 0.5;

type CheckpointerOptions = {
  log: (msg: string) => void;
  /** Holds the server's write batches back until the function it returns is called. */
  holdWrites: () => () => void;
  /** The server's side of the full-text index, which the helper keeps while it runs. */
  fts: FullTextIndex;
  /**
   * SERVICE_CHECKPOINT_MODE=litestream: Litestream holds a read transaction on the database most
   * of the time and checkpoints itself; a hold-and-restart would only stall writes behind it (the
   * restart cannot happen while it reads). The helper then runs PASSIVE passes only (they never
   * wait for a reader and never restart the log) and the server's own automatic checkpoint is off
   * (wal_autocheckpoint=0), as Litestream asks of applications.
   */
  passiveOnly?: boolean;
};

export type Checkpointer = {
  /** Lets the helper go; resolves once it has exited (killed after STOP_WAIT_MS if it has not). */
  stop(): Promise<void>;
  /** Ends the helper at once, as a crash would (tests). */
  terminate(): Promise<void>;
  /** Asks the helper thread to take the heap limit for its own heap (src/heap-limit.ts). */
  tightenHeapLimit(): void;
};

/** What the helper thread is started with (helper/worker.ts). */
export type HelperData = {
  dbFile: string /** The SQLite addon file the single executable loaded. */;
  addon?: string;
  /** SERVICE_CHECKPOINT_MODE=litestream: PASSIVE passes only, never a hold and a log restart. */
  passiveOnly?: boolean;
};
/** The SEA asset holding the helper thread's bundle. */
const HELPER_BUNDLE_ASSET = 'helper-worker.cjs';
const STOP_WAIT_MS = 5000;

/** Starts the helper thread for `dbFile` and relaxes the writer's own checkpoints. */
export function startCheckpointer(
  db: Db,
  dbFile: string,
  { log, holdWrites, fts, passiveOnly = false }: CheckpointerOptions,
): Checkpointer {
  const data: HelperData = { dbFile, addon: nativeAddonFile(), passiveOnly };
  let worker: Worker | null;
  try {
    worker = sea.isSea()
      ? // The single executable carries the helper's own bundle (scripts/build-binary.ts).
        new Worker(sea.getAsset(HELPER_BUNDLE_ASSET, 'utf8'), { eval: true, workerData: data })
      : new Worker(assetPath('src/store/helper/worker.ts'), { workerData: data });
  } catch (e) {
    log(`checkpointer not started (${e instanceof Error ? e.message : String(e)}); the server checkpoints by itself`);
    fts.detachHelper(); // searches waiting for it index here
    return { stop: async () => {}, terminate: async () => {}, tightenHeapLimit: () => {} };
  }
  const send = (line: string) => worker?.postMessage(line);
  db.pragma(`wal_autocheckpoint = ${passiveOnly ? 0 : pagesOf4k(db, SAFETY_CHECKPOINT_PAGES)}`);
  let release: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;
  let helperIdle = false;
  let idleTxid = 0;
  let windowTxid = committedTxid(db); // as of the last load window
  const letGo = () => {
    clearTimeout(timer);
    release?.();
    release = null;
  };
  worker.on('message', (line: string) => {
    if (line === 'hold' && !release) {
      release = holdWrites();
      timer = setTimeout(letGo, MAX_HOLD_MS);
      send('held');
    } else if (line === 'release') {
      letGo();
    } else if (line === 'idle') {
      helperIdle = true;
      idleTxid = windowTxid; // a commit the helper may have missed wakes it too
    } else {
      fts.helperLine(line);
    }
  });
  fts.attachHelper(send);
  // Tells the helper when the event loop is busy ("busy") and when calm again ("calm"), and an
  // idle helper that something was written ("w": a commit since the window before its "idle").
  let busy = false;
  const loadTimer = everyLoadWindow(LOAD_WINDOW_MS, (utilisation) => {
    const txid = committedTxid(db);
    if (helperIdle && txid !== idleTxid) {
      helperIdle = false;
      send('w');
    }
    windowTxid = txid;
    if (nextLoadState(busy, utilisation) === busy) return;
    busy = !busy;
    send(busy ? 'busy' : 'calm');
  });
  let exited = false;
  let failure = '';
  worker.on('error', (e) => (failure = e instanceof Error ? e.message : String(e)));
  worker.on('exit', (code) => {
    exited = true;
    clearInterval(loadTimer);
    letGo();
    fts.detachHelper();
    if (!worker) return; // stopped on purpose
    worker = null;
    log(`checkpointer exited (${failure || code}); the server checkpoints by itself again`);
    if (db.open && !passiveOnly) db.pragma('wal_autocheckpoint = 1000');
  });
  return {
    // When `kspace serve` exits after a signal nothing of it still works in the data dir: a
    // backup or a `rm -r` that follows at once finds files that stay put.
    stop() {
      clearInterval(loadTimer);
      letGo();
      fts.detachHelper();
      const w = worker;
      worker = null;
      if (!w || exited) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const kill = setTimeout(() => void w.terminate(), STOP_WAIT_MS);
        w.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        w.postMessage(END); // the helper closes its connections and ends
      });
    },
    terminate: () => worker?.terminate().then(() => {}) ?? Promise.resolve(),
    tightenHeapLimit: () => send(HEAP_LINE),
  };
}

/** Whether the event loop counts as busy after a window with `utilisation` (with hysteresis). */
export function nextLoadState(busy: boolean, utilisation: number): boolean {
  return busy ? utilisation >= CALM_BELOW : utilisation > BUSY_ABOVE;
}
