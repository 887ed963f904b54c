import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { nativeBindingOption } from '../db/native.ts';
import { stmt } from '../db/statements.ts';
import type { Db } from '../db/types.ts';
import { ensurePrivateFile } from '../files.ts';
import { indexText } from '../../text/cjk.ts';

// The full-text index lives in a database file of its own, kspace-fts.db next to kspace.db,
// and is kept up to date off the write path. A page write only appends a row to fts_queue (in
// kspace.db, in the write's own transaction, so a committed write can never miss the index);
// the helper process (helper/thread.ts) moves queued pages into the index in transactions of a
// few hundred, on the other core and under the index file's own write lock. FTS5 work at every
// commit of the write path (tokenizing, a segment per commit, merges of up to ~15 ms) was ~40 %
// of a page write's time and the largest cause of slow writes.
//
// Searches see every write acknowledged before them: a search first waits until the index has
// caught up with the queue (FullTextIndex.synced, services.ts). The index is derived data:
// when kspace-fts.db is missing, belongs to another kspace.db (generation token) or claims
// more than the queue ever held, it is emptied and every live page queued again.

export const FTS_FILE = 'kspace-fts.db';

// The index keeps no copy of the text (contentless; rows are deleted by rowid): snippets are cut
// from kspace.db's pages (domain/search/snippet.ts), and an external-content table cannot
// reach a table in another file. A copy would be most of the index file and of the helper's
// indexing time (docs/performance.md, Figures behind the code). An index whose
// table was created with other options is rebuilt at start (hasCurrentFormat), so any edit of
// INDEX_OPTIONS, even of its spacing, re-indexes every deployment once.
//
// detail = none: the index records which pages hold a word, not where in them nor in which
// column (20,000 pages of 2 KB: 35.1 MB with positions, 16.4 MB with columns, 6.4 MB with
// neither; docs/performance.md). FTS5 then refuses phrases of more than one word and column
// filters: a phrase goes to it as the AND of its words, and the words' adjacency is checked in JS
// (domain/search/full-text.ts); the titles have an index of their own, title_fts (0.5 MB for
// those pages), which finds the hits ranked first (a title holding every word).
// The index holds English stems (porter over unicode61: `notes` and `note` are one word to it),
// so a word finds its other forms; which pages hold the word as written is told apart by the
// ranking, which reads the candidates' text (domain/search/score.ts). WORD_TOKENIZER is the
// same without stemming: the words of a query phrase as written (tokens.ts).
// Both tables are given each title and body through indexText (text/cjk.ts): a run of Chinese,
// Japanese or Korean characters goes in as its bigrams, so that any two or more characters of it
// find the page; other text goes in as it is.
export const WORD_TOKENIZER = 'unicode61 remove_diacritics 2';
export const INDEX_TOKENIZER = `porter ${WORD_TOKENIZER}`;
export const INDEX_OPTIONS = `title, content, content = '', contentless_delete = 1, detail = none,
  tokenize = '${INDEX_TOKENIZER}'`;
export const TITLE_INDEX_OPTIONS = `title, content = '', contentless_delete = 1, detail = none, tokenize = '${INDEX_TOKENIZER}'`;

/** The index's two tables, in the schema `schema` ('fts.' on the index connection, '' in a file of their own). */
export function indexTables(schema: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${schema}page_fts USING fts5(
  ${INDEX_OPTIONS}
);
CREATE VIRTUAL TABLE IF NOT EXISTS ${schema}title_fts USING fts5(${TITLE_INDEX_OPTIONS});`;
}
const SCHEMA = `${indexTables('fts.')}
CREATE TABLE IF NOT EXISTS fts.fts_state (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  generation  TEXT NOT NULL,       -- equals derived_state.fts_generation of the kspace.db it indexes
  indexed_seq INTEGER NOT NULL     -- every fts_queue row up to here is in the index
);`;

function ftsFileOf(mainFile: string): string {
  return path.join(path.dirname(mainFile), FTS_FILE);
}

/**
 * A connection to kspace.db with the index attached as `fts`: searches run on it, and so does
 * indexing. Its transactions are DEFERRED, so writing the index never takes kspace.db's lock.
 */
export function openIndexConnection(mainFile: string, cacheMb = 8, mainCacheMb = cacheMb): Db {
  // Not fileMustExist: an attached file is opened with the main file's flags, and may be new.
  const db = new Database(mainFile, nativeBindingOption());
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${mainCacheMb * 1024}`);
  ensurePrivateFile(ftsFileOf(mainFile)); // 0600, and so its -wal and -shm (files.ts)
  db.prepare('ATTACH DATABASE ? AS fts').run(ftsFileOf(mainFile));
  // Pages freed by merging segments leave the file (compactIndex). Only a new file takes this
  // (before its first page is written, so before journal_mode); an older one keeps its mode until
  // the VACUUM of ensureIndexGeneration, which hasCurrentFormat asks for.
  db.pragma('fts.auto_vacuum = INCREMENTAL');
  db.pragma('fts.journal_mode = WAL');
  db.pragma('fts.synchronous = NORMAL');
  db.pragma(`fts.cache_size = -${cacheMb * 1024}`);
  db.exec(SCHEMA);
  db.function('index_text', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? indexText(text) : text));
  return db;
}

/** The last fts_queue sequence number ever given out (AUTOINCREMENT keeps it). */
export function lastQueued(db: Db): number {
  const r = stmt(db, "SELECT seq FROM main.sqlite_sequence WHERE name = 'fts_queue'").get() as { seq: number } | undefined;
  return r?.seq ?? 0;
}

export function indexedSeq(idx: Db): number {
  const r = stmt(idx, 'SELECT indexed_seq FROM fts.fts_state WHERE id = 1').get() as { indexed_seq: number } | undefined;
  return r?.indexed_seq ?? 0;
}

/**
 * Called by the server at start, before the helper: when the index is not the one of this
 * kspace.db (missing, another generation, or ahead of the queue after a restore from backup),
 * it is emptied under a new generation and every live page is queued again.
 */
export function ensureIndexGeneration(main: Db, idx: Db): { reset: boolean } {
  const token = (stmt(main, "SELECT value FROM derived_state WHERE name = 'fts_generation'").get() as { value: string } | undefined)?.value;
  const state = stmt(idx, 'SELECT generation, indexed_seq FROM fts.fts_state WHERE id = 1').get() as
    | { generation: string; indexed_seq: number }
    | undefined;
  const current = hasCurrentFormat(idx);
  if (current && token && state && state.generation === token && state.indexed_seq <= lastQueued(main)) return { reset: false };
  const fresh = crypto.randomBytes(12).toString('hex');
  idx.transaction(() => {
    emptyIndex(idx);
    stmt(idx, 'INSERT OR REPLACE INTO fts.fts_state (id, generation, indexed_seq) VALUES (1, ?, 0)').run(fresh);
  })();
  // A crash between the two leaves the generations apart: the next start resets again.
  main
    .transaction(() => {
      stmt(main, "INSERT OR REPLACE INTO derived_state (name, value) VALUES ('fts_generation', ?)").run(fresh);
      stmt(main, 'INSERT INTO fts_queue (page_id) SELECT id FROM pages WHERE deleted_at IS NULL ORDER BY id').run();
    })
    .immediate();
  // An index of an older format held a copy of every page (or positions, or columns, or had no
  // auto_vacuum): give its pages back to the disk, and the file its auto_vacuum mode.
  if (!current) {
    idx.exec('VACUUM fts');
    idx.pragma('fts.wal_checkpoint(TRUNCATE)');
  } else {
    idx.pragma('fts.incremental_vacuum'); // the emptied table's pages
  }
  return { reset: true };
}

/**
 * Whether the index tables are the ones indexTables defines (older kspace versions kept the text
 * in page_fts, or word positions, or columns and no title_fts) in a file with incremental
 * auto_vacuum.
 */
function hasCurrentFormat(idx: Db): boolean {
  return hasIndexTables(idx, 'fts.') && idx.pragma('fts.auto_vacuum', { simple: true }) === AUTO_VACUUM_INCREMENTAL;
}

/** Whether the schema `schema` holds both index tables with today's options. */
export function hasIndexTables(db: Db, schema: string): boolean {
  const sql = (name: string) =>
    stmt(db, `SELECT sql FROM ${schema}sqlite_schema WHERE type = 'table' AND name = ?`).pluck().get(name) as string | undefined;
  return sql('page_fts')?.includes(INDEX_OPTIONS) === true && sql('title_fts')?.includes(TITLE_INDEX_OPTIONS) === true;
}
const AUTO_VACUUM_INCREMENTAL = 2;

/**
 * One bounded step of merging the index's segments into one (FTS5's 'merge' with a negative
 * argument: up to about `pages` leaf pages of work, whatever the number of segments; the steps
 * together are an 'optimize', which rewrites every segment); whether it did any work. A burst of
 * writes leaves many small segments, which take more room and more reading per search than a few
 * large ones (20,000 pages, an index file of 8.3 MB unmerged after a rebuild, 7.2 MB merged).
 */
function mergeStep(idx: Db, pages: number): boolean {
  // The titles' index first: it is small (one step mostly merges all of it).
  return mergeStepOf(idx, 'title_fts', pages) || mergeStepOf(idx, 'page_fts', pages);
}

function mergeStepOf(idx: Db, table: 'page_fts' | 'title_fts', pages: number): boolean {
  const changes = stmt(idx, 'SELECT total_changes()').pluck();
  const before = changes.get() as number;
  stmt(idx, `INSERT INTO fts.${table} (${table}, rank) VALUES ('merge', ?)`).run(-pages);
  // The command itself counts one change; work done counts more (FTS5's documentation).
  return (changes.get() as number) - before >= 2;
}

/** How many pages the index holds. */
export function indexedPages(idx: Db): number {
  return stmt(idx, 'SELECT count(*) FROM fts.page_fts_docsize').pluck().get() as number;
}

/** Gives up to `pages` free pages of the index file back to the disk; whether any are left. */
function compactIndex(idx: Db, pages: number): boolean {
  idx.pragma(`fts.incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  return (idx.pragma('fts.freelist_count', { simple: true }) as number) > 0;
}

/**
 * Whether enough of the index file is free to give back outside a merge (FTS5's own merging,
 * run by writes, frees pages too): more than a sixteenth of the file and 1 MB (a few free pages
 * are reused by the next segments anyway).
 */
export function worthCompacting(idx: Db): boolean {
  const free = idx.pragma('fts.freelist_count', { simple: true }) as number;
  return free > 256 && free > (idx.pragma('fts.page_count', { simple: true }) as number) / 16;
}

// One merge step does ~MERGE_PAGES leaf pages of work (mostly 1–5 ms here, a few steps tens of
// ms whatever the number); a vacuum step moves up to VACUUM_PAGES pages. Both are writes of the
// index file, each its own short transaction.
const MERGE_PAGES = 16;
const VACUUM_PAGES = 256;

/**
 * Merges the index's segments into one, in steps, for about `budgetMs` at most; whether there is
 * more to do. The steps of one merge must not be interleaved with writes of the index: FTS5
 * starts the merge over with the new segments (and what the interrupted one wrote) on the next
 * step, and a merge resumed after every write never ended (20,000 pages, a write every 20 steps:
 * 5,000 steps, 119 segments). The helper (fts/tidy.ts) so gives a merge up at the first
 * write, and FTS5's own merging, which later writes run, finishes it.
 */
export function mergeIndex(idx: Db, budgetMs: number): boolean {
  const until = performance.now() + budgetMs;
  do {
    if (!mergeStep(idx, MERGE_PAGES)) return false;
  } while (performance.now() < until);
  return true;
}

/** Gives free pages of the index file back to the disk, in steps, for about `budgetMs`; whether some are left. */
export function compactIndexFor(idx: Db, budgetMs: number): boolean {
  const until = performance.now() + budgetMs;
  while (compactIndex(idx, VACUUM_PAGES)) if (performance.now() >= until) return true;
  return false;
}

/** Queues a page whose title or body changed (or that was deleted); inside the write's transaction. */
export function queueForIndex(db: Db, pageId: number): void {
  stmt(db, 'INSERT INTO fts_queue (page_id) VALUES (?)').run(pageId);
}

type QueuedRow = { seq: number; page_id: number; title: string | null; content: string | null; deleted_at: string | null };

/**
 * Moves up to `limit` queued rows into the index in one transaction of the index file; returns
 * how many rows it took (fewer than `limit`: the queue is drained as of this transaction).
 * Each page is indexed as it is now, so a page queued many times is indexed once.
 */
export function indexQueued(idx: Db, limit: number): { rows: number; seq: number } {
  return idx.transaction(() => {
    // A write first: the index file's lock is taken before its state is read (no lost race).
    stmt(idx, 'UPDATE fts.fts_state SET indexed_seq = indexed_seq WHERE id = 1').run();
    const from = indexedSeq(idx);
    const rows = stmt(
      idx,
      `SELECT q.seq, q.page_id, p.title, p.content, p.deleted_at
      FROM main.fts_queue q LEFT JOIN main.pages p ON p.id = q.page_id
      WHERE q.seq > ? ORDER BY q.seq LIMIT ?`,
    ).all(from, limit) as QueuedRow[];
    if (rows.length === 0) return { rows: 0, seq: from };
    // FTS5 spends ~10 µs on a delete even of a rowid it does not hold (measured: 110 → 123 µs a
    // 2 KB page): a new page, the common case, is only looked up in the index's docsize table.
    const indexed = stmt(idx, 'SELECT 1 FROM fts.page_fts_docsize WHERE id = ?').pluck();
    const index = indexWriter(idx, 'fts.');
    const done = new Set<number>();
    for (const r of rows) {
      if (done.has(r.page_id)) continue;
      done.add(r.page_id);
      if (indexed.get(r.page_id) !== undefined) index.remove(r.page_id);
      if (r.title !== null && r.deleted_at === null) index.add(r.page_id, r.title, r.content!);
    }
    const seq = rows[rows.length - 1].seq;
    stmt(idx, 'UPDATE fts.fts_state SET indexed_seq = ? WHERE id = 1').run(seq);
    return { rows: rows.length, seq };
  })();
}

/** Indexes until the queue is drained; returns the last indexed sequence number. */
export function indexAll(idx: Db, chunk = 500): number {
  for (;;) {
    const r = indexQueued(idx, chunk);
    if (r.rows < chunk) return r.seq;
  }
}

/**
 * Re-indexes every live page from scratch (POST /admin/indexes/rebuild). Merging segments while
 * rebuilding is wasted work: it is switched off, and the index merged into one segment once at
 * the end, which also serves the first queries best.
 */
export function rebuildIndex(idx: Db): void {
  idx.transaction(() => {
    stmt(idx, 'UPDATE fts.fts_state SET indexed_seq = indexed_seq WHERE id = 1').run();
    emptyIndex(idx);
    for (const t of ['page_fts', 'title_fts']) stmt(idx, `INSERT INTO fts.${t} (${t}, rank) VALUES ('automerge', 0)`).run();
    stmt(
      idx,
      `INSERT INTO fts.page_fts (rowid, title, content)
      SELECT id, index_text(title), index_text(content) FROM main.pages WHERE deleted_at IS NULL ORDER BY id`,
    ).run();
    stmt(
      idx,
      `INSERT INTO fts.title_fts (rowid, title)
      SELECT id, index_text(title) FROM main.pages WHERE deleted_at IS NULL ORDER BY id`,
    ).run();
    for (const t of ['page_fts', 'title_fts']) {
      stmt(idx, `INSERT INTO fts.${t} (${t}) VALUES ('optimize')`).run();
      stmt(idx, `INSERT INTO fts.${t} (${t}, rank) VALUES ('automerge', 4)`).run();
    }
    // Same snapshot as the pages just read: later queue rows are indexed as usual.
    stmt(idx, 'UPDATE fts.fts_state SET indexed_seq = ? WHERE id = 1').run(lastQueued(idx));
  })();
  idx.pragma('fts.incremental_vacuum'); // pages the old table left and the new one did not reuse
}

/** Drops and recreates the index tables: far cheaper than deleting every row of them. */
function emptyIndex(idx: Db): void {
  idx.exec(`DROP TABLE IF EXISTS fts.page_fts; DROP TABLE IF EXISTS fts.title_fts; ${indexTables('fts.')}`);
}

/** Adds and removes pages in both index tables (of the schema `schema`), inside the caller's transaction; CJK text as bigrams (indexText). */
export function indexWriter(db: Db, schema: string): { add(id: number, title: string, content: string): void; remove(id: number): void } {
  const delPage = stmt(db, `DELETE FROM ${schema}page_fts WHERE rowid = ?`);
  const delTitle = stmt(db, `DELETE FROM ${schema}title_fts WHERE rowid = ?`);
  const insPage = stmt(db, `INSERT INTO ${schema}page_fts (rowid, title, content) VALUES (?, ?, ?)`);
  const insTitle = stmt(db, `INSERT INTO ${schema}title_fts (rowid, title) VALUES (?, ?)`);
  return {
    add(id, title, content) {
      const t = indexText(title);
      insPage.run(id, t, indexText(content));
      insTitle.run(id, t);
    },
    remove(id) {
      delPage.run(id);
      delTitle.run(id);
    },
  };
}

/** Removes queue rows the index already holds (run by the server, which owns kspace.db's writes). */
export function trimQueue(db: Db, upTo: number): void {
  stmt(db, 'DELETE FROM fts_queue WHERE seq <= ?').run(upTo);
}
