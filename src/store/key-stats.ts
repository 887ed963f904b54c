import { stmt, type Db } from './db.ts';
import { READABLE_GROUP, callerParams, type Caller } from '../domain/access.ts';

// meta_key_stats: pages per (space, reader set, key, type), kept by the write path so that key
// discovery sums a few rows per key instead of scanning the metadata index.

/** The metadata index rows of a page, as the key/type pairs are derived from them. */
export function metaRowsOf(db: Db, pageId: number): Array<{ key: string; pos: number; t: string }> {
  return stmt(db, 'SELECT key, pos, t FROM page_meta WHERE page_id = ?').all(pageId) as never;
}

// '' without a page ACL; ',id1,id2,' (sorted) with one, ',' when it lists nobody.
const READERS = `CASE WHEN p.has_acl = 0 THEN '' ELSE ',' || coalesce(
  (SELECT group_concat(a.principal_id || ',', '' ORDER BY a.principal_id) FROM page_acl a WHERE a.page_id = p.id), '') END`;

/** The page's space and reader set (see meta_key_stats in schema.sql). */
export function readersOf(db: Db, pageId: number): { spaceId: number; readers: string } | undefined {
  return stmt(db, `SELECT p.space_id AS spaceId, ${READERS} AS readers FROM pages p WHERE p.id = ?`).get(pageId) as never;
}

/** Adds `delta` pages to each (key, type) of one space and reader set. */
export function bumpKeyStats(db: Db, spaceId: number, readers: string, pairs: Array<[string, string]>, delta: number): void {
  const up = stmt(db, `INSERT INTO meta_key_stats (space_id, readers, key, type, pages) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (space_id, readers, key, type) DO UPDATE SET pages = pages + excluded.pages`);
  for (const [key, type] of pairs) up.run(spaceId, readers, key, type, delta);
  if (delta < 0) {
    const drop = stmt(db, 'DELETE FROM meta_key_stats WHERE space_id = ? AND readers = ? AND key = ? AND type = ? AND pages <= 0');
    for (const [key, type] of pairs) drop.run(spaceId, readers, key, type);
  }
}

export type KeyStatRow = { key: string; type: string; pages: number };

/** Page counts per key and type over the reader groups the caller may read. */
export function readableKeyStats(db: Db, caller: Caller, spaceId: number | null): KeyStatRow[] {
  return stmt(db, `SELECT g.key, g.type, sum(g.pages) AS pages
    FROM meta_key_stats g JOIN spaces s ON s.id = g.space_id
    WHERE ${READABLE_GROUP} AND (@spaceId IS NULL OR g.space_id = @spaceId)
    GROUP BY g.key, g.type ORDER BY g.key, g.type`).all({ ...callerParams(caller), spaceId }) as never;
}

/** Recounts the organisation's key stats from the metadata index. */
export function rebuildKeyStats(db: Db, orgId: number): void {
  stmt(db, 'DELETE FROM meta_key_stats WHERE space_id IN (SELECT id FROM spaces WHERE org_id = ?)').run(orgId);
  stmt(db, `WITH pr AS (
      SELECT p.id, p.space_id, ${READERS} AS readers FROM pages p JOIN spaces s ON s.id = p.space_id
      WHERE s.org_id = ? AND p.deleted_at IS NULL),
    pairs AS (
      SELECT page_id, key, '' AS type FROM page_meta
      UNION SELECT page_id, key, CASE t WHEN 's' THEN 'string' WHEN 'n' THEN 'number' WHEN 'b' THEN 'boolean' ELSE 'date' END FROM page_meta
      UNION SELECT page_id, key, 'list' FROM page_meta WHERE pos >= 0)
    INSERT INTO meta_key_stats (space_id, readers, key, type, pages)
    SELECT pr.space_id, pr.readers, pairs.key, pairs.type, count(*) FROM pairs JOIN pr ON pr.id = pairs.page_id
    GROUP BY pr.space_id, pr.readers, pairs.key, pairs.type`).run(orgId);
}
