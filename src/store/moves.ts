import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { ACL_READERS } from './access-sql.ts';
import type { PageRef } from '../model.ts';
import type { PageRow } from './pages.ts';

// Moves (domain/moves.ts): a moved page keeps its row (id, history, metadata, ACL); only its
// space and path change. Its old address goes into `redirects`.

/**
 * Before a move into another space: versions 1..current stay readable only by those who read the
 * page where it is now (schema.sql move_history; READABLE_REVISION applies it).
 */
export function sealMovedHistory(db: Db, pageId: number): void {
  stmt(
    db,
    `INSERT OR IGNORE INTO move_history (page_id, up_to, space_id, readers)
    SELECT p.id, p.version, p.space_id,
      CASE WHEN p.has_acl = 1 THEN ${ACL_READERS} WHEN s.default_access = 'none' THEN ',' ELSE '*' END
    FROM pages p JOIN spaces s ON s.id = p.space_id WHERE p.id = ?`,
  ).run(pageId);
}

/** Whether anyone but `principalId` wrote a revision of the page. */
export function wroteBesides(db: Db, pageId: number, principalId: string): boolean {
  return stmt(db, 'SELECT 1 FROM revisions WHERE page_id = ? AND author_id <> ? LIMIT 1').get(pageId, principalId) !== undefined;
}

/** Gives a page row a new address. */
export function setPageAddress(db: Db, pageId: number, spaceId: number, path: string): void {
  stmt(db, 'UPDATE pages SET space_id = ?, path = ? WHERE id = ?').run(spaceId, path, pageId);
}

/** The old address answers for the page (a second move from it replaces the row). */
export function putRedirect(db: Db, spaceId: number, path: string, pageId: number, now: string): void {
  stmt(db, 'INSERT OR REPLACE INTO redirects (space_id, path, page_id, created_at) VALUES (?, ?, ?, ?)').run(spaceId, path, pageId, now);
}

/** A page was written at the address: it no longer redirects. */
export function dropRedirect(db: Db, spaceId: number, path: string): void {
  stmt(db, 'DELETE FROM redirects WHERE space_id = ? AND path = ?').run(spaceId, path);
}

export function findRedirect(db: Db, spaceId: number, path: string): number | undefined {
  return stmt(db, 'SELECT page_id FROM redirects WHERE space_id = ? AND path = ?').pluck().get(spaceId, path) as number | undefined;
}

/** The addresses that redirect to a page (its old addresses). */
export function redirectsTo(db: Db, pageId: number): PageRef[] {
  return stmt(
    db,
    `SELECT s.slug AS space, r.path FROM redirects r JOIN spaces s ON s.id = r.space_id
    WHERE r.page_id = ? ORDER BY s.slug, r.path`,
  ).all(pageId) as never;
}

/** Every page row (live or in the trash) at `path` or under `path/`, in path order. */
export function pagesAtOrUnder(db: Db, spaceId: number, path: string, prefix: boolean): PageRow[] {
  if (!prefix) return stmt(db, 'SELECT * FROM pages WHERE space_id = ? AND path = ?').all(spaceId, path) as never;
  const under = path + '/';
  return stmt(db, 'SELECT * FROM pages WHERE space_id = ? AND path >= ? AND path < ? ORDER BY path').all(
    spaceId,
    under,
    under + '\u{10FFFF}',
  ) as never;
}

export type LinkSource = { id: number; target_space: string; target_path: string };

/** The live pages whose links point at any of these addresses, with the address each points at. */
export function linkSourcesOf(db: Db, targets: PageRef[]): LinkSource[] {
  if (targets.length === 0) return [];
  return stmt(
    db,
    `SELECT l.source_id AS id, l.target_space, l.target_path
    FROM json_each(?) j
    JOIN links l ON l.target_space = json_extract(j.value, '$[0]') AND l.target_path = json_extract(j.value, '$[1]')
    JOIN pages p ON p.id = l.source_id WHERE p.deleted_at IS NULL
    ORDER BY l.source_id`,
  ).all(JSON.stringify(targets.map((t) => [t.space, t.path]))) as never;
}

export function findPageById(db: Db, id: number): PageRow | undefined {
  return stmt(db, 'SELECT * FROM pages WHERE id = ?').get(id) as never;
}
