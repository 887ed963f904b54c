// Transactions: tx() and savepoints without better-sqlite3's per-call wrappers, the txid bump
// before the outermost COMMIT, and commit logs summed once per transaction.
import { bumpBeforeCommit, changesMark, noteCommitted } from '../txid.ts';
import type { Db, Statement } from './types.ts';

// Transaction control, prepared once per connection. better-sqlite3's `db.transaction(fn)` does
// the same but builds four wrapper functions with their properties on every call, and a page
// write opens one savepoint or more: a noticeable share of the server's allocations under a
// write load, so more frequent young-generation GCs.
type Control = {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
};
const controls = new WeakMap<Db, Control>();

function control(db: Db): Control {
  let c = controls.get(db);
  if (!c) {
    c = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT ks'),
      release: db.prepare('RELEASE ks'),
      rollbackTo: db.prepare('ROLLBACK TO ks'),
    };
    controls.set(db, c);
  }
  return c;
}

/** Runs `fn` in one BEGIN IMMEDIATE transaction (a savepoint when nested); never awaited. */
export function tx<T>(db: Db, fn: () => T): T {
  return bracket(db, fn, db.inTransaction);
}

/** Runs `fn` in a savepoint of the open transaction: if it throws, only its own changes go. */
export function withinSavepoint<T>(db: Db, fn: () => T): T {
  return bracket(db, fn, true);
}

/**
 * Changes that many writes of one transaction make to the same few rows (key statistics: every
 * page write adds to its keys' counts) collected as entries and written once, just before the
 * outermost COMMIT of a transaction opened by `tx`. Entries added inside a savepoint that rolls
 * back are dropped with it. `add` returns false outside such a transaction (the caller then
 * writes at once).
 */
type CommitLog<E> = { add(db: Db, entry: E): boolean; pending(db: Db): number };

type AnyLog = { flush: (db: Db, entries: never[]) => void };
const logs: AnyLog[] = [];
// Per connection, while a transaction opened by `tx` is open: log, entry, log, entry, …
const logEntries = new WeakMap<Db, unknown[]>();

/** A commit log (see CommitLog); `flush` gets the entries of one transaction in the order added. */
export function commitLog<E>(flush: (db: Db, entries: E[]) => void): CommitLog<E> {
  const self: AnyLog = { flush: flush as AnyLog['flush'] };
  logs.push(self);
  return {
    add(db, entry) {
      const all = logEntries.get(db);
      if (!all) return false;
      all.push(self, entry);
      return true;
    },
    pending: (db) => entriesOf(db, self).length,
  };
}

// What better-sqlite3's transaction functions do: open, run `fn`, close; when `fn` (or the close)
// throws, roll back, and release a savepoint rolled back to. Plus the commit logs: flushed before
// the outermost COMMIT, cut back to where a savepoint that rolls back began.
function bracket<T>(db: Db, fn: () => T, nested: boolean): T {
  const c = control(db);
  const mark = logEntries.get(db)?.length ?? 0;
  (nested ? c.savepoint : c.begin).run();
  const changes = nested ? null : changesMark(db);
  if (!nested) logEntries.set(db, []);
  try {
    const result = fn();
    if (result && typeof (result as { then?: unknown }).then === 'function') {
      throw new TypeError('Transaction function cannot return a promise');
    }
    if (nested) {
      c.release.run();
      return result;
    }
    flushLogs(db);
    const txid = bumpBeforeCommit(db, changes); // the transaction number (store/txid.ts)
    c.commit.run();
    logEntries.delete(db);
    noteCommitted(db, txid);
    return result;
  } catch (e) {
    if (nested) logEntries.get(db)?.splice(mark);
    else logEntries.delete(db);
    if (db.inTransaction) {
      if (nested) {
        c.rollbackTo.run();
        c.release.run();
      } else {
        c.rollback.run();
      }
    }
    throw e;
  }
}

function flushLogs(db: Db): void {
  for (const log of logs) {
    const entries = entriesOf(db, log);
    if (entries.length) log.flush(db, entries as never[]);
  }
}

function entriesOf(db: Db, log: AnyLog): unknown[] {
  const all = logEntries.get(db) ?? [];
  const out: unknown[] = [];
  for (let i = 0; i < all.length; i += 2) if (all[i] === log) out.push(all[i + 1]);
  return out;
}
