import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption } from '../db/native.ts';
import { stmt } from '../db/statements.ts';
import type { Db } from '../db/types.ts';
import { ensurePrivateFile } from '../files.ts';
import { hasIndexTables, indexTables, indexWriter, lastQueued } from './index-file.ts';
import type { FullTextIndex } from './sync.ts';
import { openReadOnly } from '../db/connection.ts';

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
// Catching up goes in steps (STEP_PAGES, SCAN_ROWS below), each one transaction of the index file
// over one snapshot of the copy; its state (seq, and the comparison's progress) is kept in the
// index file, so a restart goes on where it stopped. A search catches up first (the replica has no
// write load of its own: it indexes on its event loop, between other requests), and the
// replica's poller does so within a second of a change arriving.

export const REPLICA_FTS_FILE = 'kspace-replica-fts.db';

const SCHEMA = `${indexTables('')}
CREATE TABLE IF NOT EXISTS replica_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  generation TEXT NOT NULL,   -- derived_state.fts_generation of the kspace.db indexed
  seq INTEGER NOT NULL,       -- fts_queue rows up to here are indexed
  scan_from INTEGER,          -- a comparison of every page in progress: pages up to this id are done
  scan_seq INTEGER            -- the queue's last row when that comparison began (seq once it ends)
);
CREATE TABLE IF NOT EXISTS replica_pages (page_id INTEGER PRIMARY KEY, version INTEGER NOT NULL, live INTEGER NOT NULL);`;

// One step indexes at most STEP_PAGES pages and compares at most SCAN_ROWS page rows, so that a
// first index of a large copy (tokenizing costs ~100 µs a page) never holds the replica's event
// loop for long: the steps run on timers, a search waits for them between other requests.
const STEP_PAGES = 300;
const SCAN_ROWS = 5000;

type State = { generation: string; seq: number; scan_from: number | null; scan_seq: number | null };
type PageRow = { id: number; version: number; live: number };
type Indexed = { page_id: number; version: number; live: number };

/** The replica's FullTextIndex over its read-only `db`; the same interface as the primary's (fts/sync.ts). */
export function createReplicaFullTextIndex(db: Db, cacheMb = 8): FullTextIndex & { catchUp(): Promise<void> } {
  const file = path.join(path.dirname(db.name), REPLICA_FTS_FILE);
  let writer: Db | null = null;
  let search: Db | null = null;
  let running: Promise<void> | null = null;
  let closed = false;

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
  const stateOf = (w: Db) =>
    stmt(w, 'SELECT generation, seq, scan_from, scan_seq FROM replica_state WHERE id = 1').get() as State | undefined;

  /** One step of catching up; true once the index holds the copy as of this step's snapshot. */
  const step = (): boolean => {
    const w = open();
    db.exec('BEGIN'); // one snapshot of the replicated database for everything read below
    try {
      const generation =
        (stmt(db, "SELECT value FROM derived_state WHERE name = 'fts_generation'").pluck().get() as string | undefined) ?? '';
      const last = lastQueued(db);
      let st = stateOf(w);
      const get = stmt(db, 'SELECT id, version, deleted_at IS NULL AS live, title, content FROM pages WHERE id = ?');
      const known = stmt(w, 'SELECT page_id, version, live FROM replica_pages WHERE page_id = ?');
      const put = stmt(w, 'INSERT OR REPLACE INTO replica_state (id, generation, seq, scan_from, scan_seq) VALUES (1, ?, ?, ?, ?)');
      return w.transaction((): boolean => {
        const index = indexWriter(w, '');
        const record = stmt(w, 'INSERT OR REPLACE INTO replica_pages (page_id, version, live) VALUES (?, ?, ?)');
        const forget = stmt(w, 'DELETE FROM replica_pages WHERE page_id = ?');
        const apply = (id: number) => {
          const before = known.get(id) as Indexed | undefined;
          const p = get.get(id) as (PageRow & { title: string; content: string }) | undefined;
          if (before?.live) index.remove(id);
          if (!p) {
            forget.run(id);
            return;
          }
          if (p.live) index.add(id, p.title, p.content);
          record.run(id, p.version, p.live);
        };
        // Another kspace.db (a restore, a new index generation) or an index of another format: start over.
        if (!st || st.generation !== generation || !hasIndexTables(w, '')) {
          w.exec(`DROP TABLE IF EXISTS page_fts; DROP TABLE IF EXISTS title_fts; ${indexTables('')} DELETE FROM replica_pages;`);
          put.run(generation, 0, 0, last);
          st = stateOf(w)!;
        }
        if (st.scan_from === null) {
          if (st.seq === last) return true;
          const first = stmt(db, 'SELECT min(seq) FROM fts_queue WHERE seq > ?').pluck().get(st.seq) as number | null;
          if (first !== null && first === st.seq + 1) {
            // The queue rows after seq are all there: index the pages they name, in order.
            const rows = stmt(db, 'SELECT seq, page_id FROM fts_queue WHERE seq > ? ORDER BY seq LIMIT ?').all(
              st.seq,
              STEP_PAGES,
            ) as Array<{ seq: number; page_id: number }>;
            for (const id of new Set(rows.map((r) => r.page_id))) apply(id);
            const to = rows[rows.length - 1].seq;
            put.run(generation, to, null, null);
            return to === last;
          }
          // Rows trimmed before this replica saw them: compare every page from the first id on.
          put.run(generation, st.seq, 0, last);
          st = stateOf(w)!;
        }
        // A comparison in progress: the next SCAN_ROWS pages after scan_from, at most STEP_PAGES indexed.
        const rows = stmt(db, 'SELECT id, version, deleted_at IS NULL AS live FROM pages WHERE id > ? ORDER BY id LIMIT ?').all(
          st.scan_from,
          SCAN_ROWS,
        ) as PageRow[];
        let done = 0;
        let upTo = st.scan_from!;
        for (const p of rows) {
          const r = known.get(p.id) as Indexed | undefined;
          if (r ? r.version !== p.version || r.live !== p.live : p.live) {
            if (done === STEP_PAGES) break;
            apply(p.id);
            done++;
          } else if (!r) {
            record.run(p.id, p.version, p.live);
          }
          upTo = p.id;
        }
        if (rows.length === SCAN_ROWS || done === STEP_PAGES) {
          put.run(generation, st.seq, upTo, st.scan_seq);
          return false;
        }
        // The comparison has reached the last page: pages gone from kspace.db altogether go too,
        // and the queue rows after scan_seq (written meanwhile) come next.
        const exists = stmt(db, 'SELECT 1 FROM pages WHERE id = ?').pluck();
        for (const id of stmt(w, 'SELECT page_id FROM replica_pages').pluck().all() as number[])
          if (exists.get(id) === undefined) apply(id);
        put.run(generation, st.scan_seq!, null, null);
        return st.scan_seq === last;
      })();
    } finally {
      db.exec('COMMIT');
    }
  };

  /** Steps until caught up, yielding to other requests between steps. */
  const catchUp = (): Promise<void> => {
    if (running) return running;
    const run: Promise<void> = (async () => {
      await Promise.resolve(); // `running` is set before the first step
      try {
        while (!closed && !step()) await new Promise((r) => setImmediate(r));
      } finally {
        running = null;
      }
    })();
    running = run;
    return run;
  };

  return {
    catchUp,
    conn() {
      if (!search) {
        open();
        // Read-only like the replica's own connection: the index file is attached read-only too.
        search = openReadOnly(db.name);
        search.pragma(`cache_size = -${cacheMb * 1024}`);
        search.prepare('ATTACH DATABASE ? AS fts').run(file);
      }
      return search;
    },
    check() {
      open();
    },
    async synced() {
      // A step already running started from an older snapshot: one more pass after it.
      if (running) await running;
      await catchUp();
    },
    expectHelper() {},
    attachHelper() {},
    detachHelper() {},
    helperLine() {},
    backlog() {
      const st = writer ? stateOf(writer) : undefined;
      return Math.max(0, lastQueued(db) - (st?.seq ?? 0));
    },
    close() {
      closed = true;
      search?.close();
      search = null;
      writer?.close();
      writer = null;
    },
  };
}
