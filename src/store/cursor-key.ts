import crypto from 'node:crypto';
import { stmt } from './db/statements.ts';
import { tx } from './db/transactions.ts';
import type { Db } from './db/types.ts';

// The secret that seals list cursors (src/http/cursor-seal.ts): 32 random bytes kept in the
// database, in derived_state under 'cursor_key', so a cursor outlives a restart, reads back on
// every replica of the database (they copy the row with the rest) and travels with a backup. It
// guards no access (every list applies the caller's access on every page): it keeps cursors
// opaque and unforgeable. The primary makes it at start; a replica only reads it.

const NAME = 'cursor_key';

/** The key, made on a writable connection when there is none yet. */
export function ensureCursorKey(db: Db): Buffer {
  return tx(db, () => {
    stmt(db, 'INSERT OR IGNORE INTO derived_state (name, value) VALUES (?, ?)').run(NAME, crypto.randomBytes(32).toString('base64'));
    return readCursorKey(db)!;
  });
}

/** The key, or null when the database has none yet (a replica of a primary that has not started). */
export function readCursorKey(db: Db): Buffer | null {
  const row = stmt(db, 'SELECT value FROM derived_state WHERE name = ?').get(NAME) as { value: string } | undefined;
  const key = row ? Buffer.from(row.value, 'base64') : null;
  return key && key.length === 32 ? key : null;
}
