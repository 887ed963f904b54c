import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { nativeBindingOption } from './db/native.ts';

// The data directory holds every page, personal spaces included, and the key hashes: only the
// user kspace runs as may read it. SQLite creates a database file with 0666 & ~umask (0644
// under the usual umask 022) and gives its -wal and -shm files the mode of the database file, so
// creating kspace.db (and kspace-fts.db) 0600 ourselves, before SQLite does, makes all six 0600
// whatever the umask.

export const DB_FILE = 'kspace.db';
export const LOCK_FILE = 'kspace.lock';
const WATCHED = ['kspace.db', 'kspace.db-wal', 'kspace.db-shm', 'kspace-fts.db', 'kspace-fts.db-wal', 'kspace-fts.db-shm'];

/** Creates `dir` (and parents) as 0700 when it does not exist; an existing one is left as it is. */
export function ensurePrivateDir(dir: string): string {
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first !== undefined) fs.chmodSync(dir, 0o700); // the umask may have taken bits off, never added: set exactly
  return dir;
}

/** Creates `file` empty with mode 0600 (umask-independent) unless it exists. */
export function ensurePrivateFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw e;
  }
  try {
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}

/** One line per data-dir entry that other users may read or write (group or other bits set). */
export function looseModes(dataDir: string): string[] {
  const out: string[] = [];
  const check = (p: string, want: number) => {
    try {
      const mode = fs.statSync(p).mode & 0o777;
      if (mode & 0o077)
        out.push(
          `${p} is ${mode.toString(8).padStart(4, '0')}, expected ${want.toString(8).padStart(4, '0')} (chmod ${want.toString(8)} ${p})`,
        );
    } catch {
      // absent: nothing to say
    }
  };
  check(dataDir, 0o700);
  for (const f of WATCHED) check(path.join(dataDir, f), 0o600);
  return out;
}

/** Whether `dataDir` holds a kspace database (a non-empty kspace.db). */
export function hasDatabase(dataDir: string): boolean {
  try {
    return fs.statSync(path.join(dataDir, DB_FILE)).size > 0;
  } catch {
    return false;
  }
}

export class DataDirLockedError extends Error {}

export type DataDirLock = { release(): void };

/**
 * Holds the data directory for this process: one `kspace serve` (or `kspace restore`) at a time.
 * The lock is an OS file lock taken by SQLite on a tiny database of its own (kspace.lock) in
 * locking_mode=EXCLUSIVE: after one write the connection keeps its exclusive lock until it is
 * closed, and the kernel drops it when the process dies however it dies (kill -9 included), so
 * no stale lock is ever left behind, unlike a PID file. SQLite also sees the lock between two
 * connections of the same process, so tests that start two servers in one process meet it too.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  ensurePrivateFile(file);
  const db = new Database(file, nativeBindingOption());
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY');
    // The holder row says who holds the lock; the lock is the open transaction's, not the row's.
    // Without this its commit is an fsync at every start.
    db.pragma('synchronous = OFF');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('DELETE FROM holder');
    db.prepare('INSERT INTO holder (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    db.exec('COMMIT');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY') || (e as { code?: string }).code?.startsWith('SQLITE_LOCKED')) {
      throw new DataDirLockedError(`${dataDir} is in use by another kspace server (it holds ${file}); stop it first`);
    }
    throw e;
  }
  return { release: () => db.open && db.close() };
}
