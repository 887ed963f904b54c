import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption, stmt, type Db } from './db.ts';
import { ensurePrivateFile } from './files.ts';
import { INDEX_OPTIONS, lastQueued } from './fts-index.ts';
import type { FullTextIndex } from './fts-sync.ts';

// A replica's full-text index (SERVICE_ROLE=replica, docs/scale-out.md): a file of its own,
// kspace-replica-fts.db next to the replicated kspace.db, which the replica never writes. It is
// derived data like the primary's kspace-fts.db, but it cannot be kept the primary's way: the
// primary trims fts_queue rows once its own index holds them, so a replica that looks later (it
// was stopped, or the follower copied a second of commits at once) finds rows gone.
//
// So the replica keeps, beside the index, the version and liveness of every page it indexed
// (replica_pages) and the last queue row it has seen (seq). Catching up reads the replicated
// database in one read transaction (one consistent snapshot) and:
// - when the queue rows after seq are all still there (no gap: sequence numbers are given out
//   without holes, AUTOINCREMENT), indexes the pages they name, as they are now;
// - otherwise (a gap, a first start, or a kspace.db of another index generation: a restore),
//   compares every page's (version, live) with replica_pages and indexes the pages that differ.
//   That reads the pages' rows but tokenizes only what changed.
// Each catch-up is one transaction of the index file. A search catches up first (the replica
// has no write load of its own: it indexes on its event loop), and the replica's poller does so
// within a second of a change arriving.

export const REPLICA_FTS_FILE = 'kspace-replica-fts.db';

const SCHEMA = `CREATE VIRTUAL TABLE IF NOT EXISTS page_fts USING fts5(${INDEX_OPTIONS});
CREATE TABLE IF NOT EXISTS replica_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  generation TEXT NOT NULL,   -- derived_state.fts_generation of the kspace.db indexed
  seq INTEGER NOT NULL        -- fts_queue rows up to here are indexed
);
CREATE TABLE IF NOT EXISTS replica_pages (page_id INTEGER PRIMARY KEY, version INTEGER NOT NULL, live INTEGER NOT NULL);`;

type PageRow = { id: number; version: number; live: number };
type Indexed = { page_id: number; version: number; live: number };

/** The replica's FullTextIndex over its read-only `db`; the same interface as the primary's (fts-sync.ts). */
export function createReplicaFullTextIndex(db: Db, cacheMb = 8): FullTextIndex & { catchUp(): number } {
  const file = path.join(path.dirname(db.name), REPLICA_FTS_FILE);
  let writer: Db | null = null;
  let search: Db | null = null;

  const open = (): Db => {
    if (!writer) {
      ensurePrivateFile(file);
      writer = new Database(file, nativeBindingOption());
      writer.pragma('journal_mode = WAL');
      writer.pragma('synchronous = NORMAL');
      writer.pragma('busy_timeout = 5000');
      writer.pragma(`cache_size = -${cacheMb * 1024}`);
      writer.exec(SCHEMA);
    }
    return writer;
  };
  const state = (w: Db) => stmt(w, 'SELECT generation, seq FROM replica_state WHERE id = 1').get() as { generation: string; seq: number } | undefined;

  /** Indexes what changed since the last catch-up; returns how many pages it (re)indexed. */
  const catchUp = (): number => {
    const w = open();
    db.exec('BEGIN'); // one snapshot of the replicated database for everything read below
    try {
      const generation = (stmt(db, "SELECT value FROM derived_state WHERE name = 'fts_generation'").pluck().get() as string | undefined) ?? '';
      const last = lastQueued(db);
      const st = state(w);
      let full = !st || st.generation !== generation || hasOtherFormat(w);
      if (!full && st!.seq === last) return 0;
      let changed: number[] = [];
      if (!full) {
        const first = stmt(db, 'SELECT min(seq) FROM fts_queue WHERE seq > ?').pluck().get(st!.seq) as number | null;
        if (first === null || first > st!.seq + 1) full = true; // rows trimmed before this replica saw them
        else changed = stmt(db, 'SELECT DISTINCT page_id FROM fts_queue WHERE seq > ? AND seq <= ?').pluck().all(st!.seq, last) as number[];
      }
      const get = stmt(db, 'SELECT id, version, deleted_at IS NULL AS live, title, content FROM pages WHERE id = ?');
      const known = stmt(w, 'SELECT page_id, version, live FROM replica_pages WHERE page_id = ?');
      let n = 0;
      w.transaction(() => {
        if (full && (!st || st.generation !== generation || hasOtherFormat(w))) {
          w.exec(`DROP TABLE IF EXISTS page_fts; CREATE VIRTUAL TABLE page_fts USING fts5(${INDEX_OPTIONS}); DELETE FROM replica_pages;`);
        }
        const del = stmt(w, 'DELETE FROM page_fts WHERE rowid = ?');
        const ins = stmt(w, 'INSERT INTO page_fts (rowid, title, content) VALUES (?, ?, ?)');
        const put = stmt(w, 'INSERT OR REPLACE INTO replica_pages (page_id, version, live) VALUES (?, ?, ?)');
        const forget = stmt(w, 'DELETE FROM replica_pages WHERE page_id = ?');
        const apply = (id: number) => {
          const before = known.get(id) as Indexed | undefined;
          const p = get.get(id) as (PageRow & { title: string; content: string }) | undefined;
          if (before?.live) del.run(id);
          if (!p) {
            forget.run(id);
          } else {
            if (p.live) ins.run(id, p.title, p.content);
            put.run(id, p.version, p.live);
          }
          n++;
        };
        if (full) {
          const mine = new Map((stmt(w, 'SELECT page_id, version, live FROM replica_pages').all() as Indexed[]).map((r) => [r.page_id, r]));
          for (const p of stmt(db, 'SELECT id, version, deleted_at IS NULL AS live FROM pages').iterate() as IterableIterator<PageRow>) {
            const r = mine.get(p.id);
            mine.delete(p.id);
            if (!r ? p.live : r.version !== p.version || r.live !== p.live) apply(p.id);
            else if (!r) put.run(p.id, p.version, p.live);
          }
          for (const id of mine.keys()) apply(id); // pages gone from kspace.db altogether
        } else {
          for (const id of changed) apply(id);
        }
        stmt(w, 'INSERT OR REPLACE INTO replica_state (id, generation, seq) VALUES (1, ?, ?)').run(generation, last);
      })();
      return n;
    } finally {
      db.exec('COMMIT');
    }
  };

  return {
    catchUp,
    conn() {
      if (!search) {
        open();
        // Read-only like the replica's own connection: the index file is attached read-only too.
        search = new Database(db.name, { readonly: true, fileMustExist: true, ...nativeBindingOption() });
        search.pragma('busy_timeout = 5000');
        search.pragma(`cache_size = -${cacheMb * 1024}`);
        search.prepare('ATTACH DATABASE ? AS fts').run(file);
      }
      return search;
    },
    check() {
      open();
    },
    synced() {
      catchUp();
      return Promise.resolve();
    },
    attachHelper() {},
    detachHelper() {},
    helperLine() {},
    backlog() {
      const st = writer ? state(writer) : undefined;
      return Math.max(0, lastQueued(db) - (st?.seq ?? 0));
    },
    close() {
      search?.close();
      search = null;
      writer?.close();
      writer = null;
    },
  };
}

function hasOtherFormat(w: Db): boolean {
  const sql = stmt(w, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'page_fts'").pluck().get() as string | undefined;
  return sql === undefined || !sql.includes(INDEX_OPTIONS);
}
