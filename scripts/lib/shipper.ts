// A test-only stand-in for Litestream and a follower (`litestream replicate` on the primary plus
// `kspace replica-follow` on the replica), quicker and steadier than the real pair
// (scripts/lib/litestream.ts, test/api/litestream*.test.ts drive that). It keeps a replica's
// kspace.db a copy of the primary's, as of one committed transaction at a time:
//
// - Like Litestream it holds a read transaction on the primary between rounds (so the WAL
//   cannot be restarted under it: that is what makes kspace's hold-and-restart stall, and why
//   SERVICE_CHECKPOINT_MODE=litestream exists), lets go of it only to start a round, and
//   checkpoints the primary's WAL the way Litestream does (litestreamHold below).
// - A round is SQLite's online backup API (better-sqlite3 `db.backup`) from the primary's file
//   into the replica's, in one step: one read transaction on the primary (a consistent
//   snapshot of its last commit), one write transaction on the replica's file. The replica's
//   file is a WAL database and the copy goes through SQLite's pager into its WAL, under SQLite's
//   own locks: the replica's read-only connection sees the old state or the new one, never a
//   page of each, and never blocks the copy. After a round the shipper checkpoints the replica's
//   WAL (PASSIVE, from its own connection) so that it does not grow by a copy per round.
// - It copies every page each round (the backup API has no notion of "changed since"), so a
//   round costs about the database's size: fine for tests and the bench's few-MB databases, not
//   a model of Litestream's cost (Litestream ships only the WAL frames written since its last
//   look). Its lag is far below kspace replica-follow's, which restores the whole database from
//   the replica each round (docs/scale-out.md, Figures with the real Litestream).
//
// Litestream 0.5's `restore -f` writes pages straight into the follower's file, not through
// SQLite's locks; it is not tested here (docs/scale-out.md).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Round = { ms: number; pages: number; at: number };
export type Shipper = {
  /** One round now (after any round in progress). */
  ship(): Promise<Round>;
  /** Rounds back to back, `intervalMs` apart. */
  start(intervalMs?: number): void;
  /** No more rounds until resume(); resolves once a round in progress has finished. */
  pause(): Promise<void>;
  resume(): void;
  close(): Promise<void>;
  readonly rounds: Round[];
};

/**
 * Litestream's hold on the primary: a read transaction held all the time (so the WAL cannot be
 * restarted before it has read it), let go only for a moment, when it checkpoints as Litestream
 * does (v0.3–0.5 defaults): PASSIVE once the WAL has 1,000 pages, RESTART past 10,000 (which waits
 * for writers, up to its busy timeout, and lets the next writer start the WAL over).
 */
export type LitestreamHold = { src: Database.Database; letGo(): void; hold(): void; checkpoint(): void; close(): void };

export const MIN_CHECKPOINT_PAGES = 1000;
export const MAX_CHECKPOINT_PAGES = 10_000;

export function litestreamHold(primaryFile: string): LitestreamHold {
  const src = new Database(primaryFile, { readonly: true, fileMustExist: true });
  src.pragma('busy_timeout = 5000');
  const rw = new Database(primaryFile, { fileMustExist: true });
  rw.pragma('busy_timeout = 1000');
  const walFile = `${primaryFile}-wal`;
  const hold = () => {
    src.exec('BEGIN');
    src.prepare('SELECT count(*) FROM sqlite_schema').get(); // the read transaction starts here
  };
  const letGo = () => {
    if (src.inTransaction) src.exec('COMMIT');
  };
  hold();
  return {
    src,
    hold,
    letGo,
    checkpoint() {
      let pages = 0;
      try {
        pages = Math.floor(fs.statSync(walFile).size / 4120); // frames of a 4 KB page
      } catch {
        return;
      }
      if (pages < MIN_CHECKPOINT_PAGES) return;
      const held = src.inTransaction;
      letGo();
      try {
        rw.pragma(pages >= MAX_CHECKPOINT_PAGES ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)');
      } catch {
        // busy: the next round
      } finally {
        if (held) hold();
      }
    },
    close() {
      letGo();
      src.close();
      rw.close();
    },
  };
}

export function createShipper(primaryFile: string, replicaFile: string): Shipper {
  fs.mkdirSync(path.dirname(replicaFile), { recursive: true, mode: 0o700 });
  const lease = litestreamHold(primaryFile);
  const { src, hold, letGo } = lease;
  let dst: Database.Database | null = null; // the shipper's own connection to the replica's file (checkpoints)
  const rounds: Round[] = [];
  let running: Promise<Round> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let interval: number | null = null;
  let paused = false;
  let closed = false;

  const round = async (): Promise<Round> => {
    const t0 = performance.now();
    letGo();
    let pages = 0;
    try {
      await src.backup(replicaFile, {
        progress: (p) => {
          pages = p.totalPages;
          return 0x7fffffff; // the rest in one step: one snapshot, one write transaction
        },
      });
    } finally {
      hold();
    }
    if (!dst) {
      dst = new Database(replicaFile, { fileMustExist: true });
      dst.pragma('busy_timeout = 5000');
    }
    dst.pragma('wal_checkpoint(PASSIVE)');
    lease.checkpoint(); // the primary's WAL, as Litestream keeps it in bounds
    const r = { ms: performance.now() - t0, pages, at: Date.now() };
    rounds.push(r);
    return r;
  };
  const ship = (): Promise<Round> => {
    const next = (running ?? Promise.resolve()).catch(() => {}).then(round);
    running = next;
    void next
      .finally(() => {
        if (running === next) running = null;
      })
      .catch(() => {});
    return next;
  };
  const loop = () => {
    if (paused || closed || interval === null) return;
    void ship()
      .catch(() => {})
      .then(() => {
        if (!paused && !closed) timer = setTimeout(loop, interval!);
      });
  };
  return {
    rounds,
    ship,
    start(intervalMs = 20) {
      interval = intervalMs;
      paused = false;
      loop();
    },
    async pause() {
      paused = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
    resume() {
      if (!paused) return;
      paused = false;
      loop();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running?.catch(() => {});
      lease.close();
      (dst as Database.Database | null)?.close();
    },
  };
}
