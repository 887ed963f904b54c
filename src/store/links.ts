import { insertRows, stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';
import type { PageRef } from '../model.ts';

// The link index: one row per (source page, target address). A target is looked up when read,
// so whether it exists (for this caller) is always current. READABLE_PAGE appears twice in
// some queries: for the source (outer p, s) and, inside a subquery that rebinds p and s, for
// the target.

// An address a readable page was moved away from (redirects) counts as that page: the link
// still reaches it (308), so it is not broken.
const TARGET_READABLE = `(EXISTS (SELECT 1 FROM spaces s JOIN pages p ON p.space_id = s.id
  WHERE s.slug = l.target_space AND p.path = l.target_path AND ${READABLE_PAGE})
  OR EXISTS (SELECT 1 FROM spaces s0 JOIN redirects r ON r.space_id = s0.id
    JOIN pages p ON p.id = r.page_id JOIN spaces s ON s.id = p.space_id
    WHERE s0.slug = l.target_space AND r.path = l.target_path AND ${READABLE_PAGE}))`;

/** Replaces a page's outbound links. */
export function replaceLinks(db: Db, sourceId: number, targets: PageRef[]): void {
  stmt(db, 'DELETE FROM links WHERE source_id = ?').run(sourceId);
  insertLinks(db, sourceId, targets);
}

/** Adds a page's outbound links; it has none yet. */
export function insertLinks(db: Db, sourceId: number, targets: PageRef[]): void {
  insertRows(
    db,
    'INSERT OR IGNORE INTO links (source_id, target_space, target_path, ord)',
    4,
    targets.map((t, i) => [sourceId, t.space, t.path, i]),
  );
}

type OutboundRow = { space: string; path: string; ord: number; exists: number };

/**
 * A page's links in order of appearance after position `afterOrd` (-1: from the start), at most
 * `limit`; `exists` = the target is live and the caller may read it. The target lookups run for
 * the rows of this page only.
 */
export function outboundLinks(db: Db, caller: Caller, sourceId: number, afterOrd: number, limit: number): OutboundRow[] {
  return stmt(
    db,
    `WITH l AS MATERIALIZED (SELECT target_space, target_path, ord FROM links
                      WHERE source_id = @sourceId AND ord > @afterOrd ORDER BY ord LIMIT @limit)
    SELECT l.target_space AS space, l.target_path AS path, l.ord, ${TARGET_READABLE} AS "exists"
    FROM l ORDER BY l.ord`,
  ).all({ ...callerParams(caller), sourceId, afterOrd, limit }) as never;
}

type BacklinkRow = { space: string; path: string; title: string };

/** The readable pages that link to an address, in (space, path) order after `after`, at most `limit`. */
export function backlinks(db: Db, caller: Caller, target: PageRef, after: PageRef, limit: number): BacklinkRow[] {
  return stmt(
    db,
    `SELECT s.slug AS space, p.path, p.title
    FROM links l JOIN pages p ON p.id = l.source_id JOIN spaces s ON s.id = p.space_id
    WHERE l.target_space = @space AND l.target_path = @path AND (s.slug, p.path) > (@afterSpace, @afterPath)
      AND ${READABLE_PAGE}
    ORDER BY s.slug, p.path LIMIT @limit`,
  ).all({
    ...callerParams(caller),
    space: target.space,
    path: target.path,
    afterSpace: after.space,
    afterPath: after.path,
    limit,
  }) as never;
}

/** backlinks() to any of several addresses (a moved page: its own and those redirecting to it). */
export function backlinksToAny(db: Db, caller: Caller, targets: PageRef[], after: PageRef, limit: number): BacklinkRow[] {
  return stmt(
    db,
    `SELECT DISTINCT s.slug AS space, p.path, p.title
    FROM json_each(@targets) j
    JOIN links l ON l.target_space = json_extract(j.value, '$[0]') AND l.target_path = json_extract(j.value, '$[1]')
    JOIN pages p ON p.id = l.source_id JOIN spaces s ON s.id = p.space_id
    WHERE (s.slug, p.path) > (@afterSpace, @afterPath) AND ${READABLE_PAGE}
    ORDER BY s.slug, p.path LIMIT @limit`,
  ).all({
    ...callerParams(caller),
    targets: JSON.stringify(targets.map((t) => [t.space, t.path])),
    afterSpace: after.space,
    afterPath: after.path,
    limit,
  }) as never;
}

type BrokenRow = { sourcePath: string; targetSpace: string; targetPath: string };

/**
 * Links from the space's readable pages to addresses with no page the caller may read, in
 * (source path, target space, target path) order after `after`, at most `limit`. That is the
 * order of the indexes, so a page of results stops after `limit` rows (ordered by position in
 * the page instead, a page with tens of thousands of links has every target checked, then sorted).
 */
export function brokenLinks(db: Db, caller: Caller, spaceId: number, after: [string, string, string], limit: number): BrokenRow[] {
  return stmt(
    db,
    `SELECT p.path AS sourcePath, l.target_space AS targetSpace, l.target_path AS targetPath
    FROM pages p JOIN spaces s ON s.id = p.space_id JOIN links l ON l.source_id = p.id
    WHERE p.space_id = @spaceId AND p.path >= @afterPath
      AND (p.path, l.target_space, l.target_path) > (@afterPath, @afterSpace, @afterTarget)
      AND ${READABLE_PAGE} AND NOT ${TARGET_READABLE}
    ORDER BY p.path, l.target_space, l.target_path LIMIT @limit`,
  ).all({ ...callerParams(caller), spaceId, afterPath: after[0], afterSpace: after[1], afterTarget: after[2], limit }) as never;
}

/** A live page as stored, for a rebuild or a backfill (metadata and frontmatter as JSON text). */
export type StoredPage = {
  id: number;
  spaceId: number;
  space: string;
  path: string;
  title: string;
  content: string;
  metadata: string;
  frontmatter: string;
};

/** Live pages of an organisation with id > afterId, in id order (the rebuild's batches). */
export function livePagesAfter(db: Db, orgId: number, afterId: number, limit: number): StoredPage[] {
  return stmt(
    db,
    `SELECT p.id, p.space_id AS spaceId, s.slug AS space, p.path, p.title, p.content, p.metadata, p.frontmatter
    FROM pages p JOIN spaces s ON s.id = p.space_id
    WHERE p.id > ? AND p.deleted_at IS NULL AND s.org_id = ? ORDER BY p.id LIMIT ?`,
  ).all(afterId, orgId, limit) as never;
}

/** Live pages with ids in (`afterId`, `toId`] (any organisation) whose text may hold a wikilink. */
export function livePagesWithWikilinks(db: Db, afterId: number, toId: number): StoredPage[] {
  return stmt(
    db,
    `SELECT p.id, p.space_id AS spaceId, s.slug AS space, p.path, p.title, p.content, p.metadata, p.frontmatter
    FROM pages p JOIN spaces s ON s.id = p.space_id
    WHERE p.id > ? AND p.id <= ? AND p.deleted_at IS NULL AND instr(p.content, '[[') > 0 ORDER BY p.id`,
  ).all(afterId, toId) as never;
}

export function maxPageId(db: Db): number {
  return (stmt(db, 'SELECT coalesce(max(id), 0) AS n FROM pages').get() as { n: number }).n;
}

/** A value of derived_state (what the derived indexes have been brought to), if set. */
export function derivedState(db: Db, name: string): string | undefined {
  return (stmt(db, 'SELECT value FROM derived_state WHERE name = ?').get(name) as { value: string } | undefined)?.value;
}

export function setDerivedState(db: Db, name: string, value: string): void {
  stmt(db, 'INSERT OR REPLACE INTO derived_state (name, value) VALUES (?, ?)').run(name, value);
}

/** Drops links whose source page is deleted or gone (the rebuild's last step). */
export function deleteOrphanLinks(db: Db): void {
  stmt(db, `DELETE FROM links WHERE source_id NOT IN (SELECT id FROM pages WHERE deleted_at IS NULL)`).run();
  stmt(db, `DELETE FROM wikilink_keys WHERE source_id NOT IN (SELECT id FROM pages WHERE deleted_at IS NULL)`).run();
}

/** A page's link targets in order of appearance. */
export function linkRowsOf(db: Db, sourceId: number): PageRef[] {
  return stmt(db, 'SELECT target_space AS space, target_path AS path FROM links WHERE source_id = ? ORDER BY ord').all(sourceId) as never;
}

/** The addresses a page's links point at (`space/path` keys). */
export function linkTargetsOf(db: Db, sourceId: number): Set<string> {
  const rows = stmt(db, 'SELECT target_space AS space, target_path AS path FROM links WHERE source_id = ?').all(sourceId) as PageRef[];
  return new Set(rows.map((r) => `${r.space}/${r.path}`));
}

export type WikiKeyRow = { space: string; key: string; target: string | null };

/** Replaces the keys a page's wikilinks are filed under (schema.sql wikilink_keys). */
// Not OR REPLACE: with foreign keys on, that costs many times an import's own time a row.
export function replaceWikiKeys(db: Db, sourceId: number, rows: WikiKeyRow[], fresh = false): void {
  if (!fresh) stmt(db, 'DELETE FROM wikilink_keys WHERE source_id = ?').run(sourceId);
  insertRows(
    db,
    'INSERT OR IGNORE INTO wikilink_keys (space, key, source_id, target)',
    4,
    rows.map((r) => [r.space, r.key, sourceId, r.target]),
  );
}

/** Sets the target filed with one of a page's wikilink keys. */
export function setWikiTarget(db: Db, sourceId: number, row: WikiKeyRow): void {
  stmt(db, 'UPDATE wikilink_keys SET target = ? WHERE space = ? AND key = ? AND source_id = ?').run(
    row.target,
    row.space,
    row.key,
    sourceId,
  );
}

/** Points a page's link to `from` at `to` instead (`to` is not among its links). */
export function retargetLink(db: Db, sourceId: number, from: PageRef, to: PageRef): void {
  stmt(db, `UPDATE links SET target_space = ?, target_path = ? WHERE source_id = ? AND target_space = ? AND target_path = ?`).run(
    to.space,
    to.path,
    sourceId,
    from.space,
    from.path,
  );
}

/** A page's filed wikilinks: `space key` → target. */
export function wikiKeysOf(db: Db, sourceId: number): Map<string, string | null> {
  const rows = stmt(db, 'SELECT space, key, target FROM wikilink_keys WHERE source_id = ?').all(sourceId) as WikiKeyRow[];
  return new Map(rows.map((r) => [`${r.space} ${r.key}`, r.target]));
}

/** The live pages with a wikilink filed under one of `keys` in `space`, with the key. */
export function wikiSourcesUnder(db: Db, space: string, keys: string[]): Array<{ id: number; key: string; target: string | null }> {
  if (keys.length === 0) return [];
  // CROSS JOIN: the keys first, each an index range of wikilink_keys (left to itself, the
  // planner scanned the space's every key for each key).
  return stmt(
    db,
    `SELECT w.source_id AS id, w.key, w.target FROM json_each(@keys) j
    CROSS JOIN wikilink_keys w ON w.space = @space AND w.key = j.value
    JOIN pages p ON p.id = w.source_id AND p.deleted_at IS NULL ORDER BY w.source_id`,
  ).all({ space, keys: JSON.stringify(keys) }) as never;
}

export function countOrgLinks(db: Db, orgId: number): number {
  return (
    stmt(
      db,
      `SELECT count(*) AS n FROM links l JOIN pages p ON p.id = l.source_id JOIN spaces s ON s.id = p.space_id
    WHERE s.org_id = ?`,
    ).get(orgId) as { n: number }
  ).n;
}

/** Of these addresses, those holding a live page the caller may read (`space/path` keys). */
export function readableTargets(db: Db, caller: Caller, targets: PageRef[]): Set<string> {
  if (targets.length === 0) return new Set();
  const rows = stmt(
    db,
    `SELECT s.slug AS space, p.path
    FROM json_each(@targets) j
    JOIN spaces s ON s.slug = json_extract(j.value, '$[0]')
    JOIN pages p ON p.space_id = s.id AND p.path = json_extract(j.value, '$[1]')
    WHERE ${READABLE_PAGE}`,
  ).all({ ...callerParams(caller), targets: JSON.stringify(targets.map((t) => [t.space, t.path])) }) as PageRef[];
  return new Set(rows.map((r) => `${r.space}/${r.path}`));
}

/**
 * Of these addresses, the live pages the caller may read (as readableTargets), each with its
 * content when it is at most `maxChars` characters long, else null (read on its own when needed:
 * the batch holds no large page); `space/path` keys.
 */
export function readableContents(db: Db, caller: Caller, targets: PageRef[], maxChars: number): Map<string, string | null> {
  if (targets.length === 0) return new Map();
  const rows = stmt(
    db,
    `SELECT s.slug AS space, p.path, CASE WHEN length(p.content) <= @maxChars THEN p.content END AS content
    FROM json_each(@targets) j
    JOIN spaces s ON s.slug = json_extract(j.value, '$[0]')
    JOIN pages p ON p.space_id = s.id AND p.path = json_extract(j.value, '$[1]')
    WHERE ${READABLE_PAGE}`,
  ).all({ ...callerParams(caller), maxChars, targets: JSON.stringify(targets.map((t) => [t.space, t.path])) }) as Array<
    PageRef & { content: string | null }
  >;
  return new Map(rows.map((r) => [`${r.space}/${r.path}`, r.content]));
}
