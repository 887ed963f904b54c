import Database from 'better-sqlite3';
import path from 'node:path';
import { cached } from '../bounded-cache.ts';
import { ensurePrivateDir, ensurePrivateFile } from './files.ts';
import { migrate, SCHEMA_VERSION } from './migrations.ts';
import { bumpBeforeCommit, changesMark, enableTxid, noteCommitted } from './txid.ts';

export type Db = Database.Database;
export type Statement = Database.Statement;

// The single executable loads the addon itself and hands over the loaded module (see sea-main).
let nativeBinding: object | undefined;
let nativeFile: string | undefined;
/** `file`: where the addon was loaded from, for the helper thread to load it too (checkpointer.ts). */
export function setNativeBinding(binding: object, file?: string): void {
  nativeBinding = binding;
  nativeFile = file;
}

export function nativeAddonFile(): string | undefined {
  return nativeFile;
}

export function nativeBindingOption(): { nativeBinding?: never } {
  return nativeBinding ? { nativeBinding: nativeBinding as never } : {};
}

/**
 * The page size of a new kspace.db. A page row (a little over a 2 KB page's text) is stored whole
 * in a B-tree page: 4 KB pages hold one such row and leave much of it empty, 8 KB pages three,
 * 16 KB pages seven. But every page a commit changes is written whole to the WAL, and a page write
 * changes several index pages, so larger pages cost write throughput. 8 KB keeps most of the room
 * and the PUT rate of 4 KB (docs/performance.md, Storage).
 */
export const PAGE_SIZE = 8192;

/** How many pages of `db` hold what `pages` pages of 4 KB hold (the WAL thresholds are counted in 4 KB pages). */
export function pagesOf4k(db: Db, pages: number): number {
  return Math.max(1, Math.round((pages * 4096) / (db.pragma('page_size', { simple: true }) as number)));
}

export type OpenOptions = { synchronous?: 'normal' | 'full'; readonly?: boolean; cacheMb?: number };

/** Opens (creating and migrating if needed) the kspace database in `dataDir`. */
export function openDb(dataDir: string, opts: OpenOptions = {}): Db {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'kspace.db');
  ensurePrivateFile(file); // 0600 before SQLite creates it: its -wal and -shm take the same mode (files.ts)
  const db = new Database(file, nativeBindingOption());
  // Only a new, empty file takes it (before WAL mode and the first table); an existing one keeps its own.
  db.pragma(`page_size = ${PAGE_SIZE}`);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('temp_store = MEMORY');
  // SQLite's own page cache; the OS page cache holds the rest of the file. 8 MB keeps the
  // server's resident set within its budget under load; more was no faster (docs/performance.md, Memory).
  db.pragma(`cache_size = -${(opts.cacheMb ?? 8) * 1024}`);
  migrate(db);
  enableTxid(db);
  return db;
}

/**
 * Opens a replica's copy of kspace.db read-only (SERVICE_ROLE=replica, docs/scale-out.md): no
 * migration, no journal-mode change, no checkpoint. The file is a WAL database kept current by
 * the follower (`kspace replica-follow`, or the test shipper) writing through SQLite, so every
 * read here is one consistent snapshot of a commit the primary made; SQLite's read locks on the
 * -shm file are all this connection takes. It refuses a schema other than this kspace's.
 */
export function openReplicaDb(dataDir: string, opts: OpenOptions = {}): Db {
  const file = path.join(dataDir, 'kspace.db');
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, ...nativeBindingOption() });
  } catch (e) {
    throw new Error(`replica: cannot open ${file} read-only (${e instanceof Error ? e.message : String(e)}); the follower (kspace replica-follow) must have restored it first`);
  }
  db.pragma('busy_timeout = 5000');
  db.pragma('query_only = ON');
  db.pragma(`cache_size = -${(opts.cacheMb ?? 8) * 1024}`);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new Error(`replica: ${file} has schema version ${version}, this kspace needs ${SCHEMA_VERSION}; a replica never migrates: run the same kspace version as the primary`);
  }
  return db;
}

const cache = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement, prepared once per connection and reused. Parameters are always bound. */
export function stmt(db: Db, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(plannedOnce(sql))));
  return s;
}

// A write's few index rows (metadata, links, wikilink keys) go in with one statement of as many
// VALUES rows, prepared once for each count up to ROWS_PER_INSERT: a statement a row would be most
// of a page write's statements (docs/performance.md, Figures behind the code). A multi-row
// statement opens a statement savepoint, which costs more inside a savepoint that has written
// much: jobs that write many pages run alone (group-commit.ts).
const ROWS_PER_INSERT = 16;

/** Runs `head` (an `INSERT … ` up to VALUES) for `rows`, each `width` values, ROWS_PER_INSERT rows a statement. */
export function insertRows(db: Db, head: string, width: number, rows: unknown[][]): void {
  const row = `(${new Array(width).fill('?').join(', ')})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.length - i > ROWS_PER_INSERT ? rows.slice(i, i + ROWS_PER_INSERT) : i === 0 ? rows : rows.slice(i);
    stmt(db, `${head} VALUES ${new Array(part.length).fill(row).join(', ')}`).run(part.flat());
  }
}

// Statements built from a query's shape (filter combinations) are many: the most recent ones stay prepared.
const dynamicCache = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement for SQL built at run time, from a bounded cache per connection. */
export function dynamicStmt(db: Db, sql: string): Statement {
  let m = dynamicCache.get(db);
  if (!m) dynamicCache.set(db, (m = new Map()));
  return cached(m, sql, 256, () => db.prepare(plannedOnce(sql)));
}

/**
 * The SQL with every bound parameter written `+param` (outside string literals, quoted names and
 * comments). SQLite uses the value bound to a bare parameter when it plans some statements (a
 * `LIMIT ?`, `column = ?` next to a join, range bounds), and then plans the statement again every
 * time that parameter is bound, which here is every call: a large part of a small query's time
 * (`sqlite3Reprepare` under `sqlite3_step`). The unary plus
 * changes nothing else: a parameter has no affinity either way, and an index still serves
 * `column = +?`. Every statement cache (`stmt` and the dynamic ones) prepares through this.
 */
export function plannedOnce(sql: string): string {
  let out = '';
  let i = 0;
  let prev = ''; // last character outside whitespace, literals and comments
  while (i < sql.length) {
    const c = sql[i];
    const skipTo = (end: string, from: number) => {
      const j = sql.indexOf(end, from);
      return j < 0 ? sql.length : j + end.length;
    };
    let j = i + 1;
    if (c === "'" || c === '"' || c === '`') {
      j = skipTo(c, i + 1);
      while (c !== '`' && sql[j] === c) j = skipTo(c, j + 1); // '' or "" inside the quotes
    } else if (c === '[') j = skipTo(']', i + 1);
    else if (c === '-' && sql[i + 1] === '-') j = skipTo('\n', i + 2);
    else if (c === '/' && sql[i + 1] === '*') j = skipTo('*/', i + 2);
    else if (c === '?' || ((c === '@' || c === ':' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? ''))) {
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j])) j++;
      out += prev === '+' ? sql.slice(i, j) : `+${sql.slice(i, j)}`;
      prev = 'p';
      i = j;
      continue;
    }
    out += sql.slice(i, j);
    if (!/\s/.test(c)) prev = c;
    i = j;
  }
  return out;
}

// Transaction control, prepared once per connection. better-sqlite3's `db.transaction(fn)` does
// the same but builds four wrapper functions with their properties on every call, and a page
// write opens one savepoint or more: a noticeable share of the server's allocations under a
// write load, so more frequent young-generation GCs.
type Control = { begin: Statement; commit: Statement; rollback: Statement; savepoint: Statement; release: Statement; rollbackTo: Statement };
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
export type CommitLog<E> = { add(db: Db, entry: E): boolean; pending(db: Db): number };

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

/**
 * A read-only second connection holding one read transaction: every read through it sees the
 * database as of its first statement (WAL snapshot), while writers go on committing. For long
 * reads such as an export, which must neither block writers nor see a half-applied import.
 */
export function openSnapshot(db: Db): Db {
  const reader = new Database(db.name, { readonly: true, fileMustExist: true, ...nativeBindingOption() });
  reader.pragma('busy_timeout = 5000');
  reader.exec('BEGIN');
  snapshots.add(reader);
  return reader;
}

/** Ends a snapshot opened by openSnapshot. */
export function closeSnapshot(reader: Db): void {
  snapshots.delete(reader);
  if (!reader.open) return;
  if (reader.inTransaction) reader.exec('COMMIT');
  reader.close();
}

// Held until closed: a snapshot left open pins the WAL (no checkpoint past it), so a leak must
// show, not be papered over by garbage collection.
const snapshots = new Set<Db>();

/** How many snapshots are open now (all databases of this process). */
export function openSnapshotCount(): number {
  return snapshots.size;
}
