import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { checkBackupFile } from '../store/backup.ts';
import { nativeBindingOption } from '../store/db/native.ts';
import type { Db } from '../store/db/types.ts';
import { DB_FILE, ensurePrivateDir, lockDataDir } from '../store/files.ts';
import { RestoreError, swapIn, type RestoreResult } from './restore.ts';

// `kspace restore --from-litestream <replica-url>` (docs/operations.md, Backups and restore):
// `litestream restore` writes a side file in the data directory, never kspace.db itself; the
// side file is checked (integrity_check, a kspace schema this kspace knows) and then swapped in
// as `kspace restore --from` does, with the old -wal and -shm moved aside (SQLite would replay a
// crashed primary's -wal onto the restored file) and the full-text index removed. The data
// directory's lock is held from before the restore to after the swap: no server can start on it
// meanwhile, and none may be running.

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
const SIDE_SUFFIXES = ['', '-wal', '-shm', '.tmp', '.tmp-wal', '.tmp-shm'];

export type LitestreamRestoreOptions = {
  /** A replica URL Litestream understands (file://, s3://, sftp://…) or a replica directory. */
  from: string;
  /** RFC 3339: restore the database as it was at that moment (Litestream's -timestamp). */
  timestamp?: string;
  /** The litestream executable (default: `litestream` on PATH). */
  bin?: string;
  now?: Date;
};

/** The replica URL for `from`: a URL as given, an existing directory as a file:// URL. */
export function replicaUrlOf(from: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from)) return from;
  if (fs.existsSync(from) && fs.statSync(from).isDirectory()) return pathToFileURL(path.resolve(from)).href;
  throw new RestoreError(`--from-litestream: ${from} is neither a replica URL (file://, s3://, …) nor a directory`);
}

/** Restores the latest state (or the one at `timestamp`) of a Litestream replica into `dataDir`. */
export async function restoreFromLitestream(dataDir: string, opts: LitestreamRestoreOptions): Promise<RestoreResult & { ms: number }> {
  const started = performance.now();
  if (opts.timestamp !== undefined && !(RFC3339.test(opts.timestamp) && Number.isFinite(Date.parse(opts.timestamp)))) {
    throw new RestoreError(`--timestamp: ${opts.timestamp} is not an RFC 3339 time (e.g. 2026-11-29T03:15:00Z)`);
  }
  const url = replicaUrlOf(opts.from);
  ensurePrivateDir(dataDir);
  const lock = lockDataDir(dataDir);
  const side = path.join(dataDir, `.${DB_FILE}.litestream-restore`);
  const clean = () => cleanSide(side);
  try {
    clean();
    const args = ['restore', '-o', side, ...(opts.timestamp ? ['-timestamp', opts.timestamp] : []), url];
    await runLitestream(opts.bin ?? 'litestream', args);
    if (!fs.existsSync(side)) throw new RestoreError(`litestream restore wrote no file (nothing to restore at ${url}?)`);
    settle(side);
    const check = checkBackupFile(side);
    if (!check.ok) throw new RestoreError(`the restored copy is not usable, nothing replaced: ${check.reason}`);
    const kept = swapIn(dataDir, side, lock, opts.now ?? new Date());
    return { kept, version: check.version, ms: Math.round(performance.now() - started) };
  } finally {
    clean();
    lock.release();
  }
}

/** Removes a side file Litestream restores into, with what it and SQLite leave beside it. */
export function cleanSide(side: string): void {
  for (const s of SIDE_SUFFIXES) fs.rmSync(side + s, { force: true });
}

/** Folds whatever -wal the copy has into the file, in WAL mode, and closes it: the copy is then one file, alone. */
export function settle(file: string): void {
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: true, ...nativeBindingOption() });
  } catch (e) {
    throw new RestoreError(`the restored copy cannot be opened, nothing replaced: ${(e as Error).message}`);
  }
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    // A WAL database whatever mode the restore left it in: kspace's, and the one a running
    // replica reads the follower's copies into (its page 1, journal mode included, is copied).
    db.pragma('journal_mode = WAL');
  } catch (e) {
    throw new RestoreError(`the restored copy is not a readable database, nothing replaced: ${(e as Error).message}`);
  } finally {
    db.close(); // the last connection: SQLite removes the -wal and -shm
  }
}

export function runLitestream(bin: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (d: Buffer) => {
      out = (out + d.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (e: NodeJS.ErrnoException) => {
      reject(
        new RestoreError(e.code === 'ENOENT' ? `${bin} not found: install Litestream or pass --litestream <path>` : `${bin}: ${e.message}`),
      );
    });
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new RestoreError(`litestream ${args[0]} failed (exit ${code}), nothing replaced:\n${out.trim()}`));
    });
  });
}
