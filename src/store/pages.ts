import { insertRows, stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { ACL_READERS, READABLE_PAGE, READABLE_REVISION, callerParams } from './access-sql.ts';
import { isoTime } from './time-sql.ts';
import type { AclEntry, Caller } from '../model.ts';
import type { IndexRow } from '../model.ts';
import {
  decodePrev,
  decodeWalk,
  encodePrev,
  isWhole,
  parseState,
  serializeState,
  storedWhole,
  wholeAbove,
  type StoredState,
  type StoredStateBytes,
} from './revision-codec.ts';

export type PageRow = {
  id: number;
  space_id: number;
  path: string;
  title: string;
  content: string;
  frontmatter: string;
  metadata: string;
  template: string | null;
  version: number;
  has_acl: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type PageState = {
  title: string;
  content: string;
  frontmatter: string;
  metadata: string;
  template: string | null;
};

/** The page row at a path, live or deleted. */
export function findPage(db: Db, spaceId: number, path: string): PageRow | undefined {
  return stmt(db, 'SELECT * FROM pages WHERE space_id = ? AND path = ?').get(spaceId, path) as never;
}

/** What a conditional read needs of the page row at a path (never its content): live or deleted. */
export type PageStamp = { id: number; version: number; has_acl: number; deleted_at: string | null };

export function findPageStamp(db: Db, spaceId: number, path: string): PageStamp | undefined {
  return stmt(db, 'SELECT id, version, has_acl, deleted_at FROM pages WHERE space_id = ? AND path = ?').get(spaceId, path) as never;
}

/** A page row's stamp and its stored path (never its content): live or deleted. */
export function findPageHead(db: Db, spaceId: number, path: string): (PageStamp & { path: string }) | undefined {
  return stmt(db, 'SELECT id, version, has_acl, deleted_at, path FROM pages WHERE space_id = ? AND path = ?').get(spaceId, path) as never;
}

/** A page as wikilink resolution sees it; `aliases`: its frontmatter's `aliases` as JSON text, or null. */
export type TitledRow = { id: number; path: string; title: string; has_acl: number; deleted_at: string | null; aliases: string | null };
const TITLED = "id, path, title, has_acl, deleted_at, frontmatter -> '$.aliases' AS aliases";

/**
 * The live pages of a space at one of `paths` (at most two), or whose title or an alias may be
 * `title` (ASCII case-insensitive, or by the title index's folded whole titles and aliases,
 * `folded`: a superset the caller narrows with titleMatch): a wikilink's candidates in one query.
 */
export function livePagesAtOrTitled(db: Db, spaceId: number, paths: string[], title: string, folded: string): TitledRow[] {
  // Index lookups each (an OR of them made SQLite scan the space's titles); a page may come more
  // than once (at a path and by title).
  return stmt(
    db,
    `SELECT ${TITLED} FROM pages WHERE space_id = @spaceId AND path = @a AND deleted_at IS NULL
    UNION ALL SELECT ${TITLED} FROM pages WHERE space_id = @spaceId AND path = @b AND @b <> @a AND deleted_at IS NULL
    UNION ALL SELECT * FROM (SELECT ${TITLED} FROM pages WHERE space_id = @spaceId AND title = @title COLLATE NOCASE AND deleted_at IS NULL LIMIT 32)
    UNION ALL SELECT * FROM (SELECT ${TITLED} FROM pages WHERE id IN (SELECT page_id FROM title_words WHERE whole = 1 AND word = @folded)
      AND space_id = @spaceId AND deleted_at IS NULL LIMIT 32)`,
  ).all({ spaceId, a: paths[0] ?? '', b: paths[1] ?? paths[0] ?? '', title, folded }) as never;
}

/** The page rows of a space (live and deleted), at most `limit`, for an import's in-memory view (wiki-index.ts). */
export function titledRowsOfSpace(db: Db, spaceId: number, limit: number): TitledRow[] {
  return stmt(db, `SELECT ${TITLED} FROM pages WHERE space_id = ? LIMIT ?`).all(spaceId, limit) as never;
}

/** What an access check needs of a page row, by id (never its content). */
export function pageAccessById(
  db: Db,
  id: number,
): { id: number; space_id: number; has_acl: number; deleted_at: string | null } | undefined {
  return stmt(db, 'SELECT id, space_id, has_acl, deleted_at FROM pages WHERE id = ?').get(id) as never;
}

export function titledRowById(db: Db, id: number): TitledRow | undefined {
  return stmt(db, `SELECT ${TITLED} FROM pages WHERE id = ?`).get(id) as never;
}

/** Whether any old address of the space redirects (most spaces have none). */
export function spaceHasRedirects(db: Db, spaceId: number): boolean {
  return stmt(db, 'SELECT 1 FROM redirects WHERE space_id = ? LIMIT 1').get(spaceId) !== undefined;
}

/** livePagesAtOrTitled without paths: the live pages whose title or an alias may be `title`, with what an access check needs. */
export function livePagesTitled(db: Db, spaceId: number, title: string, folded: string): TitledRow[] {
  return livePagesAtOrTitled(db, spaceId, [], title, folded);
}

export function insertPage(db: Db, spaceId: number, path: string, s: PageState, now: string): number {
  return Number(
    stmt(
      db,
      `INSERT INTO pages (space_id, path, title, content, frontmatter, metadata, template, version, created_at, updated_at)
    VALUES (@spaceId, @path, @title, @content, @frontmatter, @metadata, @template, 1, @now, @now)`,
    ).run({ spaceId, path, ...s, now }).lastInsertRowid,
  );
}

export function updatePage(db: Db, id: number, s: PageState, version: number, now: string): void {
  stmt(
    db,
    `UPDATE pages SET title = @title, content = @content, frontmatter = @frontmatter, metadata = @metadata,
            template = @template, version = @version, updated_at = @now, deleted_at = NULL WHERE id = @id`,
  ).run({ id, ...s, version, now });
}

export function markDeleted(db: Db, id: number, now: string): void {
  stmt(db, 'UPDATE pages SET deleted_at = ?, has_acl = 0 WHERE id = ?').run(now, id);
  stmt(db, 'DELETE FROM page_acl WHERE page_id = ?').run(id);
}

/**
 * A new revision; it records the readers of the page's own ACL as it is now (NULL: none). Call it
 * before the page row takes the new state (updatePage): the state it replaces, still in the row,
 * goes into this revision's `prev`, and the new one is stored only in the row (revision-codec.ts).
 */
export function insertRevision(db: Db, pageId: number, version: number, s: PageState, authorId: string, now: string): void {
  let prev: Buffer | null = null;
  if (version > 1) {
    const older = newestState(db, pageId) as NewestState | undefined;
    if (!older || older.version !== version - 1) throw new Error(`revision ${version} of page ${pageId} follows version ${older?.version}`);
    prev = encodePrev(older, s, storedWhole(older.version));
  }
  stmt(
    db,
    `INSERT INTO revisions (page_id, version, title, author_id, created_at, readers, prev)
            SELECT @pageId, @version, @title, @authorId, @at, ${ACL_READERS}, @prev
            FROM pages p WHERE p.id = @pageId`,
  ).run({ pageId, version, title: s.title, authorId, at: Date.parse(now), prev });
}

/**
 * Before the page's own ACL is dropped (page deleted, ACL removed): the history it governed,
 * every version up to the current one, stays readable only by that ACL's readers. No-op for a
 * page without an ACL.
 */
export function sealHistory(db: Db, pageId: number): void {
  stmt(
    db,
    `INSERT OR IGNORE INTO history_access (page_id, up_to, readers)
            SELECT p.id, p.version, ${ACL_READERS} FROM pages p WHERE p.id = ? AND p.has_acl = 1`,
  ).run(pageId);
}

export type RevisionListRow = {
  version: number;
  title: string;
  created_at: string;
  author_id: string;
  author_kind: string;
  author_name: string;
};

/** The revisions of a page the caller may read (READABLE_REVISION), newest first, before a version. */
export function listRevisions(db: Db, caller: Caller, pageId: number, beforeVersion: number, limit: number): RevisionListRow[] {
  return stmt(
    db,
    `SELECT r.version, r.title, ${isoTime('r.created_at')} AS created_at, r.author_id, a.kind AS author_kind, a.name AS author_name
                   FROM revisions r JOIN principals a ON a.id = r.author_id
                   JOIN pages p ON p.id = r.page_id JOIN spaces s ON s.id = p.space_id
                   WHERE r.page_id = @pageId AND r.version < @before AND ${READABLE_REVISION}
                   ORDER BY r.version DESC LIMIT @limit`,
  ).all({ ...callerParams(caller), pageId, before: beforeVersion, limit }) as never;
}

export type RevisionRow = Omit<PageState, 'template'> & {
  version: number;
  created_at: string;
  author_id: string;
  author_kind: string;
  author_name: string;
};

/** A revision's row without its state: what READABLE_REVISION lets the caller read of it. */
export type RevisionHead = Omit<RevisionRow, keyof StoredState>;

/** One revision, if the caller may read it (READABLE_REVISION). */
export function findRevision(db: Db, caller: Caller, pageId: number, version: number): RevisionRow | undefined {
  const row = findRevisionHead(db, caller, pageId, version);
  return row && { ...row, ...revisionState(db, pageId, version) };
}

/** findRevision without the revision's state (nothing decoded). */
export function findRevisionHead(db: Db, caller: Caller, pageId: number, version: number): RevisionHead | undefined {
  return stmt(
    db,
    `SELECT r.version, r.title, ${isoTime('r.created_at')} AS created_at, r.author_id, a.kind AS author_kind, a.name AS author_name
                   FROM revisions r JOIN principals a ON a.id = r.author_id
                   JOIN pages p ON p.id = r.page_id JOIN spaces s ON s.id = p.space_id
                   WHERE r.page_id = @pageId AND r.version = @version AND ${READABLE_REVISION}`,
  ).get({ ...callerParams(caller), pageId, version }) as RevisionHead | undefined;
}

type PrevRow = { version: number; prev: Buffer | null };

type NewestState = StoredState & { version: number };

/** The page row's version and state: what every older revision is decoded from. */
function newestState(db: Db, pageId: number): NewestState {
  return stmt(db, 'SELECT version, frontmatter, metadata, content FROM pages WHERE id = ?').get(pageId) as NewestState;
}

/** newestState as the row's UTF-8 bytes, each its own Buffer: no string is made of them (a worker decodes them). */
export type NewestStateBytes = StoredStateBytes & { version: number };

export function newestStateBytes(db: Db, pageId: number): NewestStateBytes | undefined {
  return stmt(
    db,
    `SELECT version, CAST(frontmatter AS BLOB) AS frontmatter, CAST(metadata AS BLOB) AS metadata,
            CAST(content AS BLOB) AS content FROM pages WHERE id = ?`,
  ).get(pageId) as NewestStateBytes | undefined;
}

/**
 * The frontmatter, metadata and content of revision `version` of a page: the page row's for its
 * current version, else decoded back from the nearest whole state above it (revision-codec.ts).
 */
export function revisionState(db: Db, pageId: number, version: number): StoredState {
  const page = newestState(db, pageId);
  const walk = revisionWalk(db, pageId, version, page.version);
  return walk.length ? parseState(decodeWalk(walk, () => serializeState(page))) : page;
}

/**
 * The `prev` values revision `version` is decoded from (decodeWalk), newest first, when the page
 * row holds `newestVersion`: down from the nearest whole state above it; none for the current
 * version.
 */
export function revisionWalk(db: Db, pageId: number, version: number, newestVersion: number): Buffer[] {
  if (version >= newestVersion) return [];
  const prevs = stmt(db, 'SELECT version, prev FROM revisions WHERE page_id = ? AND version > ? AND version <= ? ORDER BY version DESC');
  let rows = prevs.all(pageId, version, Math.min(newestVersion, wholeAbove(version))) as PrevRow[];
  // Only if a row that should hold a whole state does not (never written so): from the page row.
  if (rows.length && rows[0].version !== newestVersion && !isWhole(rows[0].prev!))
    rows = prevs.all(pageId, version, newestVersion) as PrevRow[];
  return rows.map((r) => r.prev!);
}

/** Every revision's state of a page, newest first (one walk down its whole history: for tests and tools). */
export function historyStates(db: Db, pageId: number): Array<StoredState & { version: number }> {
  const page = newestState(db, pageId);
  const rows = stmt(db, 'SELECT version, prev FROM revisions WHERE page_id = ? ORDER BY version DESC').all(pageId) as PrevRow[];
  const out: Array<StoredState & { version: number }> = [];
  let state: StoredState = page;
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) state = decodePrev(rows[i - 1].prev!, state);
    out.push({ version: rows[i].version, frontmatter: state.frontmatter, metadata: state.metadata, content: state.content });
  }
  return out;
}

export function replaceMetaIndex(db: Db, pageId: number, rows: IndexRow[]): void {
  stmt(db, 'DELETE FROM page_meta WHERE page_id = ?').run(pageId);
  insertMetaIndex(db, pageId, rows);
}

/** Replaces the metadata index rows of some keys of a page; `rows` are those keys' new rows. */
export function replaceMetaIndexKeys(db: Db, pageId: number, keys: string[], rows: IndexRow[]): void {
  stmt(db, 'DELETE FROM page_meta WHERE page_id = ? AND key IN (SELECT value FROM json_each(?))').run(pageId, JSON.stringify(keys));
  insertMetaIndex(db, pageId, rows);
}

/** Adds a page's metadata index rows; it has none yet. */
export function insertMetaIndex(db: Db, pageId: number, rows: IndexRow[]): void {
  insertRows(
    db,
    'INSERT INTO page_meta (page_id, key, pos, t, v)',
    5,
    rows.map((r) => [pageId, r.key, r.pos, r.t, r.v]),
  );
}

export function readAcl(db: Db, pageId: number): AclEntry[] {
  return stmt(db, 'SELECT principal_id, perm FROM page_acl WHERE page_id = ? ORDER BY principal_id').all(pageId) as never;
}

export function replaceAcl(db: Db, pageId: number, entries: AclEntry[] | null): void {
  stmt(db, 'DELETE FROM page_acl WHERE page_id = ?').run(pageId);
  const ins = stmt(db, 'INSERT INTO page_acl (page_id, principal_id, perm) VALUES (?, ?, ?)');
  for (const e of entries ?? []) ins.run(pageId, e.principal_id, e.perm);
  stmt(db, 'UPDATE pages SET has_acl = ? WHERE id = ?').run(entries ? 1 : 0, pageId);
}

export type PageListRow = { path: string; title: string; version: number; updated_at: string; template: string | null };

// Readable live pages of one space with `prefix <= path < end` and `path > after`, in path order.
const READABLE_RANGE = `SELECT p.path, p.title, p.version, p.updated_at, p.template
                   FROM pages p JOIN spaces s ON s.id = p.space_id
                   WHERE p.space_id = @spaceId AND p.path >= @prefix AND p.path < @end AND p.path > @after
                     AND ${READABLE_PAGE}
                   ORDER BY p.path LIMIT @limit`;

/** Readable live pages of one space in path order, after `afterPath`, with an optional prefix. */
export function listReadablePages(
  db: Db,
  caller: Caller,
  spaceId: number,
  prefix: string,
  afterPath: string,
  limit: number,
): PageListRow[] {
  // The prefix range [prefix, prefix + U+10FFFF) keeps the walk on the (space_id, path) index.
  return stmt(db, READABLE_RANGE).all({
    ...callerParams(caller),
    spaceId,
    prefix,
    end: prefix + '\u{10FFFF}',
    after: afterPath,
    limit,
  }) as never;
}

/**
 * The first readable live page of one space in path order with `prefix <= path < end` and
 * `path > after`: one step of the walk that lists a folder level (`listPageLevel`), which skips
 * a whole subfolder per step instead of reading its pages.
 */
export function nextReadablePage(
  db: Db,
  caller: Caller,
  spaceId: number,
  prefix: string,
  end: string,
  after: string,
): PageListRow | undefined {
  return stmt(db, READABLE_RANGE).get({ ...callerParams(caller), spaceId, prefix, end, after, limit: 1 }) as never;
}
