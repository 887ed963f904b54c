import type { Db } from './db/types.ts';
import { encodePrev, storedWhole, type StoredState } from './revision-codec.ts';
import { epochMs } from './time-sql.ts';

// Schema version 10 (issue 22): revisions stop holding a copy of their content, frontmatter and
// metadata (revision-codec.ts). The old table (WITHOUT ROWID, every state in full) is read in
// (page_id, version) order and written again as the rowid table, each row with the state of the
// revision before it encoded against its own.

// The table as schema version 22 has it (created_at in epoch milliseconds): step 10 writes it so.
const REVISIONS_SQL = `CREATE TABLE revisions (
    id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL REFERENCES pages(id), version INTEGER NOT NULL,
    title TEXT NOT NULL, author_id TEXT NOT NULL REFERENCES principals(id), created_at INTEGER NOT NULL,
    readers TEXT, prev BLOB, UNIQUE (page_id, version));`;

const TRIGGERS_SQL = `CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
  BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;
  CREATE TRIGGER revisions_no_delete BEFORE DELETE ON revisions
  BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;`;

const BATCH = 2000;

type OldRow = StoredState & {
  page_id: number;
  version: number;
  title: string;
  author_id: string;
  created_at: string;
  readers: string | null;
  page_version: number;
  page_frontmatter: string;
  page_metadata: string;
  page_content: string;
};

/** Rewrites `revisions` in the version 10 layout; inside the migration's transaction. */
export function migrateRevisionsLayout(db: Db): void {
  db.exec(`DROP TRIGGER IF EXISTS revisions_no_update;
    DROP TRIGGER IF EXISTS revisions_no_delete;
    ALTER TABLE revisions RENAME TO revisions_old;
    ${REVISIONS_SQL}`);
  const read = db.prepare(`SELECT r.page_id, r.version, r.title, r.content, r.frontmatter, r.metadata, r.author_id, r.created_at, r.readers,
      p.version AS page_version, p.frontmatter AS page_frontmatter, p.metadata AS page_metadata, p.content AS page_content
    FROM revisions_old r JOIN pages p ON p.id = r.page_id
    WHERE (r.page_id, r.version) > (?, ?) ORDER BY r.page_id, r.version LIMIT ${BATCH}`);
  const write = db.prepare(`INSERT INTO revisions (page_id, version, title, author_id, created_at, readers, prev)
    VALUES (@page_id, @version, @title, @author_id, @created_at, @readers, @prev)`);
  let last: { page: number; version: number; state: StoredState } = {
    page: -1,
    version: -1,
    state: { frontmatter: '', metadata: '', content: '' },
  };
  for (;;) {
    const rows = read.all(last.page, last.version) as OldRow[];
    for (const r of rows) {
      // The page row holds the newest state from now on: the newest revision is that state (the
      // two agree whenever kspace wrote them; the row wins if an edit by hand made them differ).
      const state: StoredState =
        r.version === r.page_version
          ? { frontmatter: r.page_frontmatter, metadata: r.page_metadata, content: r.page_content }
          : { frontmatter: r.frontmatter, metadata: r.metadata, content: r.content };
      const prev = last.page === r.page_id ? encodePrev(last.state, state, storedWhole(last.version)) : null;
      write.run({
        page_id: r.page_id,
        version: r.version,
        title: r.title,
        author_id: r.author_id,
        created_at: Date.parse(r.created_at),
        readers: r.readers,
        prev,
      });
      last = { page: r.page_id, version: r.version, state };
    }
    if (rows.length < BATCH) break;
  }
  db.exec(`DROP TABLE revisions_old; ${TRIGGERS_SQL}`);
}

/**
 * Schema version 22: a revisions table of versions 10–21 (created_at an ISO string) rewritten with
 * created_at in epoch milliseconds, same ids and rows; the append-only triggers made again. A
 * table written by step 10 of this kspace, or made from schema.sql, has it already.
 */
export function retimeRevisions(db: Db): void {
  const type = db.prepare("SELECT type FROM pragma_table_info('revisions') WHERE name = 'created_at'").pluck().get();
  if (type !== 'TEXT') return;
  db.exec(`DROP TRIGGER IF EXISTS revisions_no_update;
    DROP TRIGGER IF EXISTS revisions_no_delete;
    ALTER TABLE revisions RENAME TO revisions_v21;
    ${REVISIONS_SQL}
    INSERT INTO revisions (id, page_id, version, title, author_id, created_at, readers, prev)
      SELECT id, page_id, version, title, author_id, ${epochMs('created_at')}, readers, prev FROM revisions_v21 ORDER BY id;
    DROP TABLE revisions_v21;
    ${TRIGGERS_SQL}`);
}
