// Opening kspace.db: the server's read-write connection (created and migrated if needed), and
// every read-only one.
import Database from 'better-sqlite3';
import path from 'node:path';
import { ensurePrivateDir, ensurePrivateFile } from '../files.ts';
import { migrate, PAGE_SIZE, SCHEMA_VERSION } from '../migrations.ts';
import { enableTxid } from '../txid.ts';
import { nativeBindingOption } from './native.ts';
import type { Db } from './types.ts';

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
    db = openReadOnly(file);
  } catch (e) {
    throw new Error(
      `replica: cannot open ${file} read-only (${e instanceof Error ? e.message : String(e)}); the follower (kspace replica-follow) must have restored it first`,
    );
  }
  db.pragma('query_only = ON');
  db.pragma(`cache_size = -${(opts.cacheMb ?? 8) * 1024}`);
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new Error(
      `replica: ${file} has schema version ${version}, this kspace needs ${SCHEMA_VERSION}; a replica never migrates: run the same kspace version as the primary`,
    );
  }
  return db;
}

/** A read-only connection to an existing database file (a replica's copy, a snapshot, a backup's source, blob reads). */
export function openReadOnly(file: string, busyTimeoutMs = 5000): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true, ...nativeBindingOption() });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

/** What a memory-mapped reader of a connection reads: each kind has a connection of its own. */
export type MappedKind = 'blobs' | 'search';
const mapped = new Map<MappedKind, WeakMap<Db, Db>>([
  ['blobs', new WeakMap()],
  ['search', new WeakMap()],
]);
const MMAP_BYTES = 1024 * 1024 * 1024;

/**
 * A read-only connection beside `db` with memory-mapped I/O and a small page cache, one per kind
 * and opened once: from the map a B-tree page costs a memory read where `db`'s own cache would
 * send most of them to a pread (and SQLite empties a WAL connection's cache whenever another one
 * has committed). An in-memory `db` is its own reader.
 */
export function mappedReader(db: Db, kind: MappedKind): Db {
  const readers = mapped.get(kind)!;
  let r = readers.get(db);
  if (r?.open) return r;
  if (db.memory) return db;
  r = openReadOnly(db.name);
  r.pragma('cache_size = -1024');
  r.pragma(`mmap_size = ${MMAP_BYTES}`);
  readers.set(db, r);
  return r;
}

/** Closes the mapped readers of `db` (before `db` itself closes). */
export function closeMappedReaders(db: Db): void {
  for (const readers of mapped.values()) {
    const r = readers.get(db);
    readers.delete(db);
    if (r && r !== db && r.open) r.close();
  }
}

/**
 * A read-only second connection holding one read transaction: every read through it sees the
 * database as of its first statement (WAL snapshot), while writers go on committing. For long
 * reads such as an export, which must neither block writers nor see a half-applied import.
 */
export function openSnapshot(db: Db): Db {
  const reader = openReadOnly(db.name);
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
/** Snapshots held by other threads of this process (an export's worker: bundles/export-thread.ts). */
let elsewhere = 0;

/** Counts a snapshot another thread holds until the function it returns is called. */
export function snapshotElsewhere(): () => void {
  elsewhere++;
  let held = true;
  return () => {
    if (held) elsewhere--;
    held = false;
  };
}

/** How many snapshots are open now (all databases of this process, other threads' included). */
export function openSnapshotCount(): number {
  return snapshots.size + elsewhere;
}
