import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { nativeBindingOption } from './db/native.ts';
import type { Db } from './db/types.ts';
import { SCHEMA_VERSION } from './migrations.ts';
import { openReadOnly } from './db/connection.ts';

// Online backups of kspace.db through SQLite's backup API. The copy is the database as of one
// moment: every write committed before the backup started is in it. The full-text index
// (kspace-fts.db) is a separate file and is never part of a backup; kspace rebuilds it.

/**
 * Copies `db` into `file` (created 0600; replaced atomically when done). `pagesPerStep`
 * bounds how long each step holds the event loop (the server's own connection: its writes
 * reach the copy as it goes); Infinity copies in one step, one read transaction, which is what a
 * separate process wants (a write by another connection between two steps restarts the copy).
 */
export async function backupDatabase(db: Db, file: string, pagesPerStep: number): Promise<{ pages: number }> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
  fs.chmodSync(tmp, 0o600);
  try {
    const step = Number.isFinite(pagesPerStep) ? pagesPerStep : 0x7fffffff;
    const r = await db.backup(tmp, { progress: () => step });
    // A standalone file: no -wal beside it to lose, whatever journal mode the source had.
    const copy = new Database(tmp, nativeBindingOption());
    copy.pragma('journal_mode = DELETE');
    copy.close();
    const fd = fs.openSync(tmp, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
    return { pages: r.totalPages };
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Opens kspace.db of `dataDir` read-only for a backup from another process. */
export function openForBackup(dbFile: string): Db {
  return openReadOnly(dbFile);
}

export type BackupCheck = { ok: true; version: number } | { ok: false; reason: string };

/** Whether `file` is a sound kspace database this kspace can open: integrity, schema version, tables. */
export function checkBackupFile(file: string): BackupCheck {
  let db: Db;
  try {
    db = openReadOnly(file);
  } catch (e) {
    return { ok: false, reason: `cannot open ${file}: ${(e as Error).message}` };
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return { ok: false, reason: `${file} fails integrity_check: ${String(integrity)}` };
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map((t) => t.name),
    );
    if (version === 0 || !tables.has('pages') || !tables.has('principals'))
      return { ok: false, reason: `${file} is not a kspace database` };
    if (version > SCHEMA_VERSION)
      return { ok: false, reason: `${file} has schema version ${version}, newer than this kspace (${SCHEMA_VERSION})` };
    return { ok: true, version };
  } catch (e) {
    return { ok: false, reason: `${file} is not a readable database: ${(e as Error).message}` };
  } finally {
    db.close();
  }
}
