import type { Db } from './db/types.ts';

import { readAssetText } from '../assets.ts';
import { ACL_READERS } from './access-sql.ts';
import { migrateRevisionsLayout, retimeRevisions } from './migrate-revisions.ts';
import { TXID_SQL } from './txid.ts';
import { CHANGES_SQL, rewriteChanges } from './changes.ts';
import { ORG_USAGE_SQL } from './org-usage.ts';
import {
  fillTitleOrder,
  fillTitleWords,
  PAGES_TITLE_ORDER_SQL,
  TITLE_ORDER_SQL,
  refillTitleWords,
  TITLE_WORDS_SQL,
} from './title-words-schema.ts';
import { CJK_REINDEX_SQL, CJK_TITLE_WORDS } from './fts/cjk-reindex.ts';

/**
 * The page size of a new kspace.db. A page row (a little over a 2 KB page's text) is stored whole
 * in a B-tree page: 4 KB pages hold one such row and leave much of it empty, 8 KB pages three,
 * 16 KB pages seven. But every page a commit changes is written whole to the WAL, and a page write
 * changes several index pages, so larger pages cost write throughput. 8 KB keeps most of the room
 * and the PUT rate of 4 KB (docs/performance.md, Storage).
 */
export const PAGE_SIZE = 8192;

const MOVES_AND_TRASH_SQL = `CREATE TABLE redirects (
    space_id INTEGER NOT NULL REFERENCES spaces(id), path TEXT NOT NULL,
    page_id INTEGER NOT NULL REFERENCES pages(id), created_at TEXT NOT NULL,
    PRIMARY KEY (space_id, path)) WITHOUT ROWID;
  CREATE INDEX redirects_page ON redirects(page_id);
  CREATE TABLE trash (
    page_id INTEGER PRIMARY KEY REFERENCES pages(id), deleted_by TEXT NOT NULL REFERENCES principals(id),
    readers TEXT, acl TEXT);
  ALTER TABLE spaces ADD COLUMN deleted_at TEXT;
  ALTER TABLE spaces ADD COLUMN deleted_by TEXT REFERENCES principals(id);`;

const ATTACHMENTS_SQL = `CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, chunk_size INTEGER NOT NULL, created_at TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE blob_chunks (
    sha256 TEXT NOT NULL REFERENCES blobs(sha256), n INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (sha256, n));
  CREATE TABLE attachments (
    page_id INTEGER NOT NULL REFERENCES pages(id), name TEXT NOT NULL, space_id INTEGER NOT NULL REFERENCES spaces(id),
    sha256 TEXT NOT NULL REFERENCES blobs(sha256),
    content_type TEXT NOT NULL, size INTEGER NOT NULL, created_at TEXT NOT NULL, created_by TEXT NOT NULL REFERENCES principals(id),
    PRIMARY KEY (page_id, name)) WITHOUT ROWID;
  CREATE INDEX attachments_blob ON attachments(sha256);
  CREATE INDEX attachments_space ON attachments(space_id, size);
  CREATE TRIGGER attachments_follow_page AFTER UPDATE OF space_id ON pages WHEN NEW.space_id <> OLD.space_id
  BEGIN
    UPDATE attachments SET space_id = NEW.space_id WHERE page_id = NEW.id;
  END;`;

// schema.sql describes the current schema whole; a new database gets it in one go. A database
// made by an older kspace is brought forward by the steps below, one per version, in order.
export const SCHEMA_VERSION = 23;
// The step that rewrites revisions (issue 22); an upgrade across it compacts the file once.
const REVISIONS_ONCE = 10;

export const STEPS: Array<{ to: number; sql: string; run?: (db: Db) => void }> = [
  {
    // The full-text index moves to kspace-fts.db (src/store/fts/index-file.ts); the server's first start
    // queues every live page for it (no generation token yet).
    to: 2,
    sql: `DROP TABLE page_fts;
      DROP VIEW page_fts_source;
      CREATE TABLE fts_queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, page_id INTEGER NOT NULL);
      CREATE TABLE derived_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;`,
  },
  {
    // A second (space_id, path) index, partial on live pages: every lookup it served, the
    // UNIQUE (space_id, path) index serves too, and each page write paid ~0.9 WAL pages for it.
    to: 3,
    sql: 'DROP INDEX IF EXISTS pages_live_path;',
  },
  {
    // Revisions keep the ACL they were written under (docs/security.md). Revisions written
    // before this version did not record it: those of a page that has an ACL now are treated
    // as written under it (a history_access row up to its current version). A deleted page's
    // ACL was already dropped by the older kspace; nothing is left to restore there.
    to: 4,
    sql: `ALTER TABLE revisions ADD COLUMN readers TEXT;
      CREATE TABLE history_access (
        page_id INTEGER NOT NULL REFERENCES pages(id), up_to INTEGER NOT NULL, readers TEXT NOT NULL,
        PRIMARY KEY (page_id, up_to, readers)) WITHOUT ROWID;
      INSERT INTO history_access (page_id, up_to, readers)
        SELECT p.id, p.version, ${ACL_READERS} FROM pages p WHERE p.has_acl = 1;`,
  },
  {
    // Web sessions: idle expiry and the device list need the last use and the user agent;
    // revocation ends a principal's sessions by principal.
    to: 5,
    sql: `ALTER TABLE sessions ADD COLUMN last_seen_at TEXT NOT NULL DEFAULT '';
      ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
      CREATE INDEX sessions_principal ON sessions(principal_id);`,
  },
  {
    // Moves, trash (issue 21): the old address of a moved page redirects to it until a page is
    // written there; a deleted page's ACL and deleter wait in the trash for a restore; a deleted
    // space waits in the org trash.
    to: 6,
    sql: MOVES_AND_TRASH_SQL,
  },
  {
    // Attachments (issue 21): content-addressed blobs in chunks, attached to pages by id.
    to: 7,
    sql: ATTACHMENTS_SQL,
  },
  {
    // Wikilinks (issue 21): pages are found by title, and wikilinks are filed by the keys that
    // re-resolve them. Existing wikilinks are indexed by the link index's backfill.
    to: 8,
    sql: `CREATE INDEX pages_title ON pages(space_id, title COLLATE NOCASE);
      CREATE TABLE wikilink_keys (space TEXT NOT NULL, key TEXT NOT NULL, source_id INTEGER NOT NULL REFERENCES pages(id),
        target TEXT, PRIMARY KEY (space, key, source_id)) WITHOUT ROWID;
      CREATE INDEX wikilink_keys_source ON wikilink_keys(source_id);`,
  },
  {
    // Replication (issue 23): the transaction number that grows with each commit (store/txid.ts),
    // answered as X-Service-Txid and read by replicas to know how far they have caught up.
    to: 9,
    sql: TXID_SQL,
  },
  {
    // Storage (issue 22): a revision's state is stored once, older ones as compressed reverse
    // deltas (store/revision-codec.ts); revisions become a rowid table.
    to: REVISIONS_ONCE,
    sql: '',
    run: migrateRevisionsLayout,
  },
  {
    // Moves (issue 34): a move into another space leaves the history under the old space's
    // readers, and its event reaches the subscriptions of the space it left.
    to: 11,
    sql: `CREATE TABLE move_history (
        page_id INTEGER NOT NULL REFERENCES pages(id), up_to INTEGER NOT NULL,
        space_id INTEGER NOT NULL REFERENCES spaces(id), readers TEXT NOT NULL,
        PRIMARY KEY (page_id, up_to, space_id, readers)) WITHOUT ROWID;
      ALTER TABLE events ADD COLUMN from_space_id INTEGER;`,
  },
  {
    // The title index (issue 37, GET /search/titles), filled here from the live pages.
    to: 12,
    sql: TITLE_WORDS_SQL,
    run: fillTitleWords,
  },
  {
    // Favourites (issue 35, /me/favourites).
    to: 13,
    sql: `CREATE TABLE favourites (
        principal_id TEXT NOT NULL REFERENCES principals(id), page_id INTEGER NOT NULL REFERENCES pages(id),
        created_at TEXT NOT NULL, PRIMARY KEY (principal_id, page_id)) WITHOUT ROWID;`,
  },
  {
    // The live pages in the order of GET /search/titles's groups (store/title-words.ts).
    to: 14,
    sql: PAGES_TITLE_ORDER_SQL,
  },
  {
    // The change feed (issue 38, GET /changes): kept from here on; an older `since` is 410.
    to: 15,
    sql: CHANGES_SQL,
  },
  {
    // What each organisation stores, for SERVICE_ORG_QUOTA_BYTES (issue 34 L9), counted here once.
    to: 16,
    sql: ORG_USAGE_SQL,
  },
  {
    // Chinese, Japanese and Korean text is indexed as bigrams (issue 37, text/cjk.ts): the live
    // pages holding such characters are queued for the full-text index, which indexes them anew,
    // and their title index rows rewritten (a CJK run is a word of its own, apart from letters).
    to: 17,
    sql: CJK_REINDEX_SQL,
    run: (db) => refillTitleWords(db, CJK_TITLE_WORDS),
  },
  {
    // An attached file remembers its path in the folder it was imported from (issue 39), so that a
    // Markdown export writes a vault's files where the vault had them: a nullable column, no rewrite
    // (added only where it is missing: a database made from schema.sql and marked older has it).
    to: 18,
    sql: '',
    run: (db) => {
      const columns = db.prepare("SELECT name FROM pragma_table_info('attachments')").pluck().all();
      if (!columns.includes('source')) db.exec('ALTER TABLE attachments ADD COLUMN source TEXT');
    },
  },
  {
    // GET /search/titles walks and sorts title_order (store/title-words-schema.ts, made by the
    // step to 20) instead of the index pages_title_order and the page rows; a page's title_words
    // rows are found by the words its title_order row holds, not by an index.
    to: 19,
    sql: `DROP INDEX IF EXISTS pages_title_order;
      DROP INDEX IF EXISTS title_words_page;`,
  },
  {
    // title_order keyed so that a write appends its row to its title length's rows (its pages
    // fill up), with the time in epoch milliseconds: made anew, filled from the live pages.
    to: 20,
    sql: `DROP TABLE IF EXISTS title_order;
      ${TITLE_ORDER_SQL}`,
    run: fillTitleOrder,
  },
  {
    // The change feed keyed by (txid, seq), its times in epoch milliseconds, without the indexes
    // on txid and on time (store/changes.ts): rewritten, same rows, same order.
    to: 21,
    sql: '',
    run: rewriteChanges,
  },
  {
    // A revision's time in epoch milliseconds (an ISO string in the API): the table rewritten.
    to: 22,
    sql: '',
    run: retimeRevisions,
  },
  {
    // A change's event stored as a number (store/changes.ts, EVENTS): the feed rewritten again
    // (a table the step to 21 wrote stays).
    to: 23,
    sql: '',
    run: rewriteChanges,
  },
];

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === SCHEMA_VERSION) return;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this kspace (${SCHEMA_VERSION})`);
  }
  db.transaction(() => {
    if (current === 0) {
      db.exec(readAssetText('schema.sql'));
      db.exec(ORG_USAGE_SQL); // its triggers are written from one definition (store/org-usage.ts)
    } else {
      for (const step of STEPS) {
        if (step.to <= current) continue;
        if (step.sql) db.exec(step.sql);
        step.run?.(db);
      }
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  if (current > 0 && current < REVISIONS_ONCE) compact(db);
}

/**
 * Once, after the upgrade across REVISIONS_ONCE: the file rewritten without the space the old revisions
 * took, in pages of PAGE_SIZE (an existing file keeps its page size otherwise, and its free pages).
 * VACUUM copies the database through a temporary file (not memory, whatever temp_store says), so
 * it needs about twice the file's size of free disk; if it fails, the database works as it is.
 */
function compact(db: Db): void {
  const mode = db.pragma('journal_mode', { simple: true }) as string;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE'); // the page size cannot change in WAL mode
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('temp_store = FILE');
    db.exec('VACUUM');
  } catch (e) {
    process.emitWarning(`kspace: the database was upgraded but not compacted (${(e as Error).message}); it works as it is`);
  } finally {
    db.pragma('temp_store = MEMORY');
    db.pragma(`journal_mode = ${mode}`);
  }
}
