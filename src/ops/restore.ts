import fs from 'node:fs';
import path from 'node:path';
import { checkBackupFile } from '../store/backup.ts';
import { DB_FILE, ensurePrivateDir, lockDataDir } from '../store/files.ts';

const FTS_FILES = ['kspace-fts.db', 'kspace-fts.db-wal', 'kspace-fts.db-shm'];

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
    const target = path.join(dataDir, DB_FILE);
    const incoming = path.join(dataDir, `.${DB_FILE}.restoring`);
    fs.rmSync(incoming, { force: true });
    fs.copyFileSync(from, incoming);
    fs.chmodSync(incoming, 0o600);
    const fd = fs.openSync(incoming, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    const stamp = now.toISOString().replace(/[:.]/g, '-');
    const kept: string[] = [];
    for (const suffix of ['', '-wal', '-shm']) {
      const f = target + suffix;
      if (!fs.existsSync(f)) continue;
      const aside = `${target}.replaced-${stamp}${suffix}`;
      fs.renameSync(f, aside);
      kept.push(aside);
    }
    fs.renameSync(incoming, target);
    for (const f of FTS_FILES) fs.rmSync(path.join(dataDir, f), { force: true });
    return { kept, version: check.version };
  } finally {
    lock.release();
  }
}
