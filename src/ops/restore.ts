import fs from 'node:fs';
import path from 'node:path';
import { checkBackupFile } from '../store/backup.ts';
import { DB_FILE, ensurePrivateDir, lockDataDir, type DataDirLock } from '../store/files.ts';

const FTS_FILES = ['kspace-fts.db', 'kspace-fts.db-wal', 'kspace-fts.db-shm'];
// Litestream's shadow WAL directory beside a database it replicates: it describes the replaced
// file, so it goes aside with it (a `litestream replicate` started afterwards begins a new
// generation from the restored file either way).
const LITESTREAM_DIR = `.${DB_FILE}-litestream`;

export type RestoreResult = { kept: string[]; version: number };

export class RestoreError extends Error {}

/**
 * Puts the backup `from` in place of kspace.db in `dataDir`: refused while a server holds the
 * directory (its lock) or when the file fails integrity_check or has a schema this kspace does
 * not know. The replaced kspace.db (with its -wal and -shm, which belong to it) is kept aside as
 * kspace.db.replaced-<time>; the full-text index is removed, to be rebuilt on the next start.
 */
export function restoreBackup(dataDir: string, from: string, now = new Date()): RestoreResult {
  const check = checkBackupFile(from);
  if (!check.ok) throw new RestoreError(check.reason);
  ensurePrivateDir(dataDir);
  const lock = lockDataDir(dataDir);
  try {
    const incoming = path.join(dataDir, `.${DB_FILE}.restoring`);
    fs.rmSync(incoming, { force: true });
    fs.copyFileSync(from, incoming);
    return { kept: swapIn(dataDir, incoming, lock, now), version: check.version };
  } finally {
    lock.release();
  }
}

/**
 * Under `lock` (the caller holds the directory): makes `incoming` (a checked database file in
 * `dataDir`) 0600, fsyncs it, moves the current kspace.db with its -wal and -shm (and Litestream's
 * shadow directory) aside as kspace.db.replaced-<time>…, renames `incoming` into place and
 * removes the full-text index. The old -wal never stays beside the new file: SQLite would replay
 * it onto it. Returns the paths kept aside.
 */
export function swapIn(dataDir: string, incoming: string, lock: DataDirLock, now: Date): string[] {
  void lock; // taken by the caller, for the whole of the swap
  fs.chmodSync(incoming, 0o600);
  const fd = fs.openSync(incoming, 'r');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  const target = path.join(dataDir, DB_FILE);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const kept: string[] = [];
  for (const suffix of ['', '-wal', '-shm']) {
    const f = target + suffix;
    if (!fs.existsSync(f)) continue;
    const aside = `${target}.replaced-${stamp}${suffix}`;
    fs.renameSync(f, aside);
    kept.push(aside);
  }
  const shadow = path.join(dataDir, LITESTREAM_DIR);
  if (fs.existsSync(shadow)) {
    const aside = `${target}.replaced-${stamp}-litestream`;
    fs.renameSync(shadow, aside);
    kept.push(aside);
  }
  fs.renameSync(incoming, target);
  for (const f of FTS_FILES) fs.rmSync(path.join(dataDir, f), { force: true });
  const dirFd = fs.openSync(dataDir, 'r');
  try {
    fs.fsyncSync(dirFd); // the renames themselves survive a crash
  } finally {
    fs.closeSync(dirFd);
  }
  return kept;
}
