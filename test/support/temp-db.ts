// A throwaway WAL database file for unit tests of the storage helpers.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type TempDb = { db: Database.Database; file: string; close(): void };

/** A new database in its own temp dir, in WAL mode, with `schema` applied; close() removes it. */
export function tempDb(schema: string): TempDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-unit-'));
  const file = path.join(dir, 'x.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(schema);
  return {
    db,
    file,
    close() {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
