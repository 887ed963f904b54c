// A throwaway WAL database file for unit tests of the storage helpers.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

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

/** A new tempDb(schema) for each test of the file, handed to `use` before the test and removed after it. */
export function tempDbEach(schema: string, use: (db: Database.Database) => void): void {
  let t: TempDb | undefined;
  beforeEach(() => {
    t = tempDb(schema);
    use(t.db);
  });
  afterEach(() => t?.close());
}
