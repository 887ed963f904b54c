// The helper's side of helper/thread.ts, which starts it and says what it does and why: its
// rounds (WAL checkpoints, log restarts, the full-text index, tidying, idling) and the two ends of
// its line channel, as a worker thread (helper/worker.ts) or as a process (`kspace
// internal-checkpointer`, tests of the protocol).
import fs from 'node:fs';
import os from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { nativeBindingOption } from '../db/native.ts';
import { pagesOf4k } from '../db/connection.ts';
import { indexedSeq, indexQueued, lastQueued, openIndexConnection } from '../fts/index-file.ts';
import { createIndexTidy } from '../fts/tidy.ts';

export const RESTART_PAGES = 16_000;
const TAIL_PAGES = 600;
const INTERVAL_MS = 250;
const INDEX_INTERVAL_MS = 25;
const IDLE_MS = 1000;
const INDEX_CHUNK = 200;
const HELPER_NICE = 10;
const HELPER_FTS_CACHE_MB = 4;
const HELPER_MAIN_CACHE_MB = 2;
// Foreground first, for the full-text index too: indexing a page costs CPU that a saturated
// server's writes need. While the server's event loop is busy (helper/thread.ts says when) and
// nobody has searched for SEARCH_QUIET_MS, the helper lets the index fall behind by up to
// MAX_DEFER_PAGES pages, indexing only what comes beyond, and catches up once the server is
// calm. A search always has it catch up first, and ends the deferral for SEARCH_QUIET_MS, so
// people who search while scripts write see no lag (docs/performance.md, Writes: the full-text
// index off the write path).
export const MAX_DEFER_PAGES = 10_000;
const SEARCH_QUIET_MS = 30_000;

/** The line that asks the helper to end. */
export const END = 'end';
/** The line that asks the helper thread to take the heap limit (helper/worker.ts). */
export const HEAP_LINE = 'heap';

/** Both ends of the helper's line channel, from the helper's side. */
export type HelperChannel = {
  send(line: string): void;
  onLine(fn: (line: string) => void): void;
  onEnd(fn: () => void): void;
  /** The helper runs in the server's process (a thread): see the descriptor in runCheckpointer. */
  inServerProcess?: boolean;
};

/** The helper's channel as a process (`kspace internal-checkpointer`): standard input and output, one line each. */
export function processChannel(): HelperChannel {
  return {
    send: (line) => process.stdout.write(line + '\n'),
    onLine: (fn) => onLines(process.stdin, fn),
    onEnd(fn) {
      process.stdin.on('end', fn);
      process.stdin.on('error', fn);
      process.stdin.resume();
    },
  };
}

/** The helper's channel as a worker thread: messages on its port; END (or the port closing) ends it. */
export function portChannel(port: MessagePort): HelperChannel {
  const lines: Array<(line: string) => void> = [];
  const ends: Array<() => void> = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const fn of ends) fn();
  };
  port.on('message', (line: string) => (line === END ? end() : lines.forEach((fn) => fn(line))));
  port.on('close', end);
  return { send: (line) => port.postMessage(line), onLine: (fn) => lines.push(fn), onEnd: (fn) => ends.push(fn), inServerProcess: true };
}

/** The helper: PASSIVE checkpoints (and log restarts, see above) and the full-text index until its channel ends. */
export function runCheckpointer(
  dbFile: string,
  channel: HelperChannel,
  restartPages = RESTART_PAGES,
  maxDeferPages = MAX_DEFER_PAGES,
  idleMs = IDLE_MS,
): Promise<void> {
  // Background work: the server and its clients come first when the cores are busy (a lower PUT
  // p99 under load; docs/performance.md). The hold is short either way. On Linux a
  // thread has a nice value of its own: in a worker this lowers the helper's thread only.
  try {
    os.setPriority(HELPER_NICE);
  } catch {
    // not permitted here: run at the server's priority
  }
  const db = new Database(dbFile, { fileMustExist: true, ...nativeBindingOption() });
  db.pragma('busy_timeout = 100');
  // The thresholds above are in 4 KB pages: the same bytes of log whatever the database's page size.
  const restartAt = pagesOf4k(db, restartPages);
  const tailPages = pagesOf4k(db, TAIL_PAGES);
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  // A PASSIVE pass that does not reach the end of the log (under writes, none does) syncs the
  // WAL but not the database file: everything copied since the last restart waits in the page
  // cache for the one pass that does reach the end, the one during the hold, which then lasts long.
  // Syncing the database file after every pass keeps that to the last tail. A descriptor of our
  // own, opened once and closed only after SQLite's connections (closing any descriptor of the
  // file would drop this process's POSIX locks on it).
  const dbFd = fs.openSync(dbFile, 'r');
  const syncDb = (): boolean => {
    try {
      fs.fdatasyncSync(dbFd);
      return true;
    } catch {
      return false; // the next pass tries again
    }
  };
  // The first write after a complete backfill starts the log again, and fsyncs its new header:
  // a one-row write here costs that fsync on a few KB, where the server's next batch would pay
  // it on a whole batch of frames with every write of the batch waiting.
  const restartLog = () => {
    try {
      const mark = db.prepare("INSERT OR REPLACE INTO derived_state (name, value) VALUES ('wal_restarted_at', ?)");
      db.transaction(() => mark.run(new Date().toISOString())).immediate();
    } catch {
      // busy: the server's next write restarts the log instead
    }
  };
  const pass = (): { log: number; checkpointed: number } | null => {
    try {
      return checkpoint.get() as { log: number; checkpointed: number };
    } catch {
      return null; // busy or locked: the next round tries again
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let asked = false;
  let shortening = false; // past restartPages: passes back to back until the hold
  let lastLog = 0;
  let synced = -1; // the pass's `checkpointed` at the last sync
  // Idle (see the top of this file): each round sets its own flag; "idle" once both are.
  let copiedAll = false;
  let indexedAll = false;
  let saidIdle = false;
  const noteIdle = () => {
    if (!copiedAll || !indexedAll) saidIdle = false;
    else if (!saidIdle) {
      saidIdle = true;
      channel.send('idle');
    }
  };
  const tick = () => {
    const r = pass();
    // Only a pass that copied pages has anything to sync: an idle server synced its database
    // file four times a second (strace of an idle executable: 45 fdatasync calls in 12 s).
    if (r && r.checkpointed !== synced && syncDb()) synced = r.checkpointed;
    let next = INTERVAL_MS;
    if (r && r.log >= restartAt && !asked) {
      shortening = true;
      if (r.log - lastLog < tailPages) {
        asked = true;
        channel.send('hold');
      } else {
        next = 0; // copy again at once: the tail shrinks to what one short pass lets through
      }
    }
    // All copied, and nothing written since the pass before (a log just restarted under writes
    // is all copied too, for a moment: slowing down then let it run on to 40,000 pages).
    copiedAll = r !== null && r.checkpointed >= r.log && r.log === lastLog && !shortening && !asked;
    lastLog = r?.log ?? lastLog;
    if (copiedAll) next = idleMs;
    noteIdle();
    timer = setTimeout(tick, next);
  };
  timer = setTimeout(tick, INTERVAL_MS);
  // Full-text index: chunks of INDEX_CHUNK pages, none while the server's writes are held, and
  // none while the log is being shortened for a restart unless a search is waiting: on two busy
  // cores the helper's indexing slowed those passes enough that the log ran on to 40,000–48,000
  // pages (a longer WAL file, longer for the writer to grow; see the top of this file).
  // Smaller caches than a search connection's: the helper reads each queued page once, and its
  // index writes go to the end of the segments. Its thread is in the server's process, whose
  // memory the caches add to (docs/performance.md, Memory).
  const idx = openIndexConnection(dbFile, HELPER_FTS_CACHE_MB, HELPER_MAIN_CACHE_MB);
  idx.pragma('busy_timeout = 50'); // a rebuild holds the index file: come back later, do not block checkpoints
  let wanted: number[] = []; // targets of searches waiting for the index
  let indexTimer: NodeJS.Timeout | undefined;
  // When it has nothing to index and the server is calm, the helper tidies the index: merging
  // its segments and giving freed pages back (fts/tidy.ts).
  const tidy = createIndexTidy(idx);
  let serverBusy = false;
  let searchedAt = -Infinity;
  // Foreground first (see MAX_DEFER_PAGES): while the server is busy and nobody searches, only
  // what the backlog holds beyond maxDeferPages is indexed (a bounded lag, no catch-up burst).
  const allowance = (): number => {
    if (!serverBusy || wanted.length > 0 || Date.now() - searchedAt < SEARCH_QUIET_MS) return INDEX_CHUNK;
    const backlog = lastQueued(idx) - indexedSeq(idx);
    // Nothing queued: a round that finds nothing, so that a busy server's helper goes idle too.
    if (backlog <= 0) return INDEX_CHUNK;
    return Math.min(INDEX_CHUNK, Math.max(0, backlog - maxDeferPages + 1));
  };
  const indexSome = () => {
    let next = INDEX_INTERVAL_MS;
    indexedAll = false;
    const limit = asked || (shortening && wanted.length === 0) ? 0 : allowance();
    if (limit > 0) {
      try {
        const r = indexQueued(idx, limit);
        if (r.rows) {
          channel.send(`i ${r.seq}`);
          tidy.indexed(r.rows);
        }
        const drained = r.rows < limit;
        const met = wanted.filter((t) => drained || t <= r.seq);
        if (met.length) {
          wanted = wanted.filter((t) => !met.includes(t));
          channel.send(`d ${Math.max(...met)} ${r.seq}`);
        }
        if (!drained) next = 0;
        else if (limit === INDEX_CHUNK && wanted.length === 0) {
          const tidying = serverBusy ? null : tidy.idle();
          indexedAll = r.rows === 0 && tidying === null;
          next = tidying ?? (indexedAll ? idleMs : next);
        }
      } catch {
        // the index file is busy (a rebuild): the next round tries again
      }
    }
    noteIdle();
    indexTimer = setTimeout(indexSome, next);
  };
  indexTimer = setTimeout(indexSome, INDEX_INTERVAL_MS);
  const wake = () => {
    if (copiedAll) {
      clearTimeout(timer);
      timer = setTimeout(tick, 0);
    }
    if (indexedAll) {
      clearTimeout(indexTimer);
      indexTimer = setTimeout(indexSome, 0);
    }
  };
  channel.onLine((line) => {
    if (line === 'held') {
      pass(); // nothing is appended meanwhile: this completes the backfill
      restartLog();
      asked = false;
      shortening = false;
      channel.send('release');
    } else if (line === 'w') {
      wake();
    } else if (line === 'busy' || line === 'calm') {
      serverBusy = line === 'busy';
    } else if (line.startsWith('s ')) {
      searchedAt = Date.now();
      wanted.push(Number(line.slice(2)));
      clearTimeout(indexTimer);
      indexTimer = setTimeout(indexSome, 0);
    }
  });
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      clearTimeout(indexTimer);
      idx.close();
      db.close();
      // Closing a descriptor of the file drops every POSIX lock the process holds on it, the
      // server's connection's included when the helper is its thread: left open then (one
      // descriptor, until the process exits).
      if (!channel.inServerProcess) fs.closeSync(dbFd);
      resolve();
    };
    channel.onEnd(done);
  });
}

/** Calls `fn` with each complete line that arrives on `stream`. */
function onLines(stream: NodeJS.ReadableStream, fn: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      fn(line);
    }
  });
}
