import type { Db, Statement } from './db/types.ts';

// The transaction number (issue 23): one row that every write transaction of the server advances
// just before its COMMIT (store/db.ts, `tx`), so it grows with each commit that changed anything,
// and a copy of the database (a Litestream follower, a backup) carries the number of the last
// commit it holds. A group-commit batch is one transaction, so one number for all its writes.
// Write answers carry it as X-Service-Txid; a replica compares X-Service-Min-Txid with its copy's.

export const TXID_SQL = `CREATE TABLE txid (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL, at_ms INTEGER NOT NULL);
  INSERT INTO txid (id, n, at_ms) VALUES (1, 0, 0);`;

type Counter = { bump: Statement; changes: Statement; committed: number };
const counters = new WeakMap<Db, Counter>();

/** From now on every transaction of `db` opened by `tx` that changes a row advances the number. */
export function enableTxid(db: Db): void {
  counters.set(db, {
    bump: db.prepare('UPDATE txid SET n = n + 1, at_ms = ? WHERE id = 1 RETURNING n').pluck(),
    changes: db.prepare('SELECT total_changes()').pluck(),
    committed: readTxid(db).n,
  });
}

/** total_changes() at the start of a transaction (null when the number is not kept on `db`). */
export function changesMark(db: Db): number | null {
  const c = counters.get(db);
  return c ? (c.changes.get() as number) : null;
}

/** Just before COMMIT: advances the number when the transaction changed anything since `mark`. */
export function bumpBeforeCommit(db: Db, mark: number | null): number | null {
  if (mark === null) return null;
  const c = counters.get(db)!;
  if ((c.changes.get() as number) === mark) return null;
  return c.bump.get(Date.now()) as number;
}

/** After COMMIT: the number is the last committed one; whoever listens on `db` hears of it. */
export function noteCommitted(db: Db, n: number | null): void {
  if (n === null) return;
  const c = counters.get(db);
  if (c && n > c.committed) c.committed = n;
  announceTxid(db, n);
}

const listeners = new WeakMap<Db, Set<(n: number) => void>>();

/**
 * Calls `fn` with each new number `db` holds: after each commit of this process (a primary), or
 * as a replica's front sees its copy move on. `fn` runs right after COMMIT: it only schedules
 * work. Returns the function that stops it.
 */
export function onTxid(db: Db, fn: (n: number) => void): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** Tells the listeners of `db` that it holds number `n` now (noteCommitted; a replica's poll). */
export function announceTxid(db: Db, n: number): void {
  const set = listeners.get(db);
  if (set) for (const fn of set) fn(n);
}

/** The number of the last commit of this process (a primary's write answers). */
export function committedTxid(db: Db): number {
  return counters.get(db)?.committed ?? 0;
}

/** The number and commit time as the database holds them now (a replica's copy). */
export function readTxid(db: Db): { n: number; atMs: number } {
  let s = reads.get(db);
  if (!s) reads.set(db, (s = db.prepare('SELECT n, at_ms AS atMs FROM txid WHERE id = 1')));
  return (s.get() as { n: number; atMs: number } | undefined) ?? { n: 0, atMs: 0 };
}

// Not db.ts's statement cache: db.ts imports this file (its `tx` advances the number).
const reads = new WeakMap<Db, Statement>();
