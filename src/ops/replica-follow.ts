import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { nativeBindingOption } from '../store/db/native.ts';
import type { Db } from '../store/db/types.ts';
import { DB_FILE, ensurePrivateDir, ensurePrivateFile } from '../store/files.ts';
import { SCHEMA_VERSION } from '../store/migrations.ts';
import { cleanSide, replicaUrlOf, runLitestream, settle } from './litestream-restore.ts';
import { RestoreError } from './restore.ts';
import { openReadOnly } from '../store/db/connection.ts';

// `kspace replica-follow --from <replica-url> --data DIR` (docs/scale-out.md): keeps a replica's
// kspace.db a copy of a Litestream replica with Litestream versions that have no follow mode
// (v0.3.13: `restore -f` appeared in 0.5). Each round `litestream restore` writes the newest state
// into a side file in the data directory; when it holds a newer commit (the txid row) than
// kspace.db, it is copied into kspace.db with SQLite's online backup API in one step: one write
// transaction of the replica's WAL database under SQLite's locks, so the replica server's reads
// see the old copy or the new one whole, on the connection it has open (no restart, no file
// renamed under it), then a PASSIVE checkpoint keeps the -wal short. Each round restores the
// whole database, so a round costs about its size: fine for databases of some hundred MB at a
// round every few seconds, not a model of what Litestream ships.

export type FollowRound = { txid: number; atMs: number; copied: boolean; restoreMs: number; copyMs: number };

export type FollowOptions = {
  from: string;
  everyMs: number;
  bin?: string;
  onRound?: (r: FollowRound) => void;
  onError?: (e: Error) => void;
};

/** Resolves once stopped, or with the reason the follower gave up (the refusal below). */
export type Follower = { stop(): Promise<void>; round(): Promise<FollowRound>; done: Promise<Error | null> };

/** kspace.db holds a newer commit than the replica: not a copy of it (a primary's directory?). */
export class FollowRefused extends RestoreError {}

const txidOf = (db: Db): { n: number; atMs: number } =>
  (db.prepare('SELECT n, at_ms AS atMs FROM txid WHERE id = 1').get() as { n: number; atMs: number } | undefined) ?? { n: 0, atMs: 0 };

/** One round: restore into the side file, copy it into kspace.db when it is newer. */
export async function followRound(dataDir: string, url: string, bin: string): Promise<FollowRound> {
  const side = path.join(dataDir, `.${DB_FILE}.follow`);
  const target = path.join(dataDir, DB_FILE);
  cleanSide(side);
  try {
    const t0 = performance.now();
    await runLitestream(bin, ['restore', '-o', side, url]);
    if (!fs.existsSync(side)) throw new RestoreError(`litestream restore wrote no file (nothing to restore at ${url}?)`);
    settle(side);
    const restoreMs = Math.round(performance.now() - t0);
    const src = openReadOnly(side);
    try {
      const version = src.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION)
        throw new RestoreError(
          `the replica holds schema version ${version}, newer than this kspace (${SCHEMA_VERSION}): upgrade the replica`,
        );
      const got = txidOf(src);
      const have = fs.existsSync(target) ? currentTxid(target) : -1;
      if (got.n === have) return { txid: got.n, atMs: got.atMs, copied: false, restoreMs, copyMs: 0 };
      if (have > got.n) {
        throw new FollowRefused(
          `${target} holds commit ${have}, newer than the replica's ${got.n}: it is not a copy of this replica ` +
            "(a primary's data directory?); nothing copied. Point --data at the replica's directory, or remove its kspace.db to start the copy over",
        );
      }
      const t1 = performance.now();
      if (have < 0) ensurePrivateFile(target);
      await src.backup(target, { progress: () => 0x7fffffff }); // one step: one write transaction
      const dst = new Database(target, { fileMustExist: true, ...nativeBindingOption() });
      try {
        dst.pragma('busy_timeout = 5000');
        if (have < 0) dst.pragma('journal_mode = WAL');
        dst.pragma('wal_checkpoint(PASSIVE)');
      } finally {
        dst.close();
      }
      return { txid: got.n, atMs: got.atMs, copied: true, restoreMs, copyMs: Math.round(performance.now() - t1) };
    } finally {
      src.close();
    }
  } finally {
    cleanSide(side);
  }
}

function currentTxid(file: string): number {
  const db = openReadOnly(file);
  try {
    return txidOf(db).n;
  } catch {
    return -2; // not a kspace database yet (an empty file): copy over it
  } finally {
    db.close();
  }
}

/** Rounds every `everyMs` (from the end of one to the start of the next) until stop(). */
export function startFollower(dataDir: string, opts: FollowOptions): Follower {
  const url = replicaUrlOf(opts.from);
  ensurePrivateDir(dataDir);
  const bin = opts.bin ?? 'litestream';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<FollowRound> | null = null;
  let finish: (e: Error | null) => void = () => {};
  const done = new Promise<Error | null>((resolve) => (finish = resolve));
  const round = (): Promise<FollowRound> => {
    const next = (running ?? Promise.resolve()).catch(() => {}).then(() => followRound(dataDir, url, bin));
    running = next;
    return next;
  };
  const loop = () => {
    if (stopped) return;
    round()
      .then(
        (r) => opts.onRound?.(r),
        (e: unknown) => {
          const err = e instanceof Error ? e : new Error(String(e));
          if (err instanceof FollowRefused) {
            stopped = true;
            finish(err);
          } else opts.onError?.(err);
        },
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, opts.everyMs);
      });
  };
  loop();
  return {
    round,
    done,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
      finish(null);
    },
  };
}
