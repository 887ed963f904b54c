import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import sea from 'node:sea';
import Database from 'better-sqlite3';
import type { Db } from './db.ts';
import { nativeBindingOption } from './db.ts';

// WAL checkpoints copy committed pages back into the database file and fsync it: 10–50 ms here
// for the default 1,000-page threshold. Run by the writing connection they stall every request
// behind that commit. A small helper *process* (the normal multi-process WAL setup, so SQLite's
// file locking stays correct) checkpoints PASSIVE-ly every few hundred milliseconds instead, on
// the other core; the server's own automatic checkpoint stays as a safety net at a higher
// threshold in case the helper lags or dies.
//
// Under sustained writes the helper never wins the race to an empty WAL (the log restarts only
// when a write begins after a complete backfill), so the WAL grows until the safety checkpoint,
// which fsyncs on the request path: 15–50 ms that every in-flight write waits for. A 2 KB page
// write appends ~17 WAL pages here; at 3,000 writes/s, 16,000 pages come every ~0.3 s and put
// ~2 % of the writes behind a stall, 64,000 pages every ~1.25 s, ~0.4 %. The WAL file can so
// reach ~250 MB; it is reused from its start, not cut back (a journal_size_limit of 64 MB, which
// makes it grow again every cycle, put the PUT p99 at 31–35 ms against 22–26 ms without), and
// SQLite removes it when the server stops.
export const SAFETY_CHECKPOINT_PAGES = 64_000;
const INTERVAL_MS = 250;

export type Checkpointer = { stop(): void };

/** The command that starts this same program as the checkpointer (source checkout or executable). */
function selfCommand(): string[] {
  if (sea.isSea()) return [process.execPath];
  const script = process.argv[1];
  return script && /\.(ts|js|cjs|mjs)$/.test(script) ? [process.execPath, ...process.execArgv, path.resolve(script)] : [];
}

/** Starts the helper for `dbFile` and relaxes the writer's own checkpoints; no-op when it cannot. */
export function startCheckpointer(db: Db, dbFile: string, log: (msg: string) => void): Checkpointer {
  const cmd = selfCommand();
  if (cmd.length === 0) return { stop() {} };
  let child: ChildProcess | null = spawn(cmd[0], [...cmd.slice(1), 'internal-checkpointer', dbFile], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  db.pragma(`wal_autocheckpoint = ${SAFETY_CHECKPOINT_PAGES}`);
  child.on('exit', (code, signal) => {
    if (!child) return; // stopped on purpose
    child = null;
    log(`checkpointer exited (${signal ?? code}); the server checkpoints by itself again`);
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  child.on('error', () => {});
  return {
    stop() {
      const c = child;
      child = null;
      c?.stdin?.end(); // the helper exits when its stdin closes (also when the server is killed)
    },
  };
}

/** The helper process: PASSIVE checkpoints until standard input closes. */
export function runCheckpointer(dbFile: string): Promise<void> {
  const db = new Database(dbFile, { fileMustExist: true, ...nativeBindingOption() });
  db.pragma('busy_timeout = 100');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // busy or locked: the next round tries again
    }
  }, INTERVAL_MS);
  return new Promise((resolve) => {
    const done = () => {
      clearInterval(timer);
      db.close();
      resolve();
    };
    process.stdin.on('end', done);
    process.stdin.on('error', done);
    process.stdin.resume();
  });
}
