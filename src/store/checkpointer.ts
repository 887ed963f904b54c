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
// The log restarts from its start only when a write begins after a complete backfill. Under
// sustained writes a PASSIVE pass never finds the log complete (the server appends while it
// copies), so the helper asks for it: once the log is past RESTART_PAGES it runs passes back to
// back until one finds less than TAIL_PAGES new, then asks the server to hold its write batches
// ("hold" on its standard output; the server answers "held" on the helper's standard input),
// copies that short tail, and lets go ("release"). The server's next write restarts the log.
// Writes wait 5–15 ms for that here, where the server's own safety checkpoint (which then had to
// do it) stalled them 45–60 ms; a hold lasts at most MAX_HOLD_MS whatever the helper does. The
// WAL file so stays near RESTART_PAGES pages (~70–110 MB); it is reused from its start, not cut
// back (a journal_size_limit, which makes it grow again every cycle, made writes slower), and
// SQLite removes it when the server stops.
export const SAFETY_CHECKPOINT_PAGES = 64_000;
export const RESTART_PAGES = 16_000;
const TAIL_PAGES = 600;
const INTERVAL_MS = 250;
const MAX_HOLD_MS = 200;

export type Checkpointer = { stop(): void };

/** The command that starts this same program as the checkpointer (source checkout or executable). */
function selfCommand(): string[] {
  if (sea.isSea()) return [process.execPath];
  const script = process.argv[1];
  return script && /\.(ts|js|cjs|mjs)$/.test(script) ? [process.execPath, ...process.execArgv, path.resolve(script)] : [];
}

/**
 * Starts the helper for `dbFile` and relaxes the writer's own checkpoints; no-op when it cannot.
 * `holdWrites` holds the server's write batches back until the function it returns is called.
 */
export function startCheckpointer(db: Db, dbFile: string, log: (msg: string) => void, holdWrites: () => () => void): Checkpointer {
  const cmd = selfCommand();
  if (cmd.length === 0) return { stop() {} };
  let child: ChildProcess | null = spawn(cmd[0], [...cmd.slice(1), 'internal-checkpointer', dbFile], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin!.on('error', () => {}); // a helper that died is noticed by 'exit'
  db.pragma(`wal_autocheckpoint = ${SAFETY_CHECKPOINT_PAGES}`);
  let release: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;
  const letGo = () => {
    clearTimeout(timer);
    release?.();
    release = null;
  };
  onLines(child.stdout!, (line) => {
    if (line === 'hold' && !release) {
      release = holdWrites();
      timer = setTimeout(letGo, MAX_HOLD_MS);
      child?.stdin?.write('held\n');
    } else if (line === 'release') {
      letGo();
    }
  });
  child.on('exit', (code, signal) => {
    letGo();
    if (!child) return; // stopped on purpose
    child = null;
    log(`checkpointer exited (${signal ?? code}); the server checkpoints by itself again`);
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  child.on('error', () => {});
  return {
    stop() {
      letGo();
      const c = child;
      child = null;
      c?.stdin?.end(); // the helper exits when its stdin closes (also when the server is killed)
    },
  };
}

/** The helper process: PASSIVE checkpoints (and log restarts, see above) until standard input closes. */
export function runCheckpointer(dbFile: string, restartPages = RESTART_PAGES): Promise<void> {
  const db = new Database(dbFile, { fileMustExist: true, ...nativeBindingOption() });
  db.pragma('busy_timeout = 100');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const pass = (): { log: number } | null => {
    try {
      return checkpoint.get() as { log: number };
    } catch {
      return null; // busy or locked: the next round tries again
    }
  };
  let timer: NodeJS.Timeout | undefined;
  let asked = false;
  let lastLog = 0;
  const tick = () => {
    const r = pass();
    let next = INTERVAL_MS;
    if (r && r.log >= restartPages && !asked) {
      if (r.log - lastLog < TAIL_PAGES) {
        asked = true;
        process.stdout.write('hold\n');
      } else {
        next = 0; // copy again at once: the tail shrinks to what one short pass lets through
      }
    }
    lastLog = r?.log ?? lastLog;
    timer = setTimeout(tick, next);
  };
  timer = setTimeout(tick, INTERVAL_MS);
  onLines(process.stdin, (line) => {
    if (line !== 'held') return;
    pass(); // nothing is appended meanwhile: this completes the backfill
    asked = false;
    process.stdout.write('release\n');
  });
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      db.close();
      resolve();
    };
    process.stdin.on('end', done);
    process.stdin.on('error', done);
    process.stdin.resume();
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
