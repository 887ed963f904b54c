import { commitLog } from './db/transactions.ts';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { ACL_READERS, READABLE_GROUP, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';

// meta_key_stats: pages per (space, reader set, key, type), kept by the write path so that key
// discovery sums a few rows per key instead of scanning the metadata index.

/** The metadata index rows of a page, as the key/type pairs are derived from them. */
export function metaRowsOf(db: Db, pageId: number): Array<{ key: string; pos: number; t: string }> {
  return stmt(db, 'SELECT key, pos, t FROM page_meta WHERE page_id = ?').all(pageId) as never;
}

// '' without a page ACL; ',id1,id2,' (sorted) with one, ',' when it lists nobody.
const READERS = `coalesce(${ACL_READERS}, '')`;

/** The metadata index rows of some keys of a page. */
export function metaRowsOfKeys(db: Db, pageId: number, keys: string[]): Array<{ key: string; pos: number; t: string }> {
  return stmt(db, 'SELECT key, pos, t FROM page_meta WHERE page_id = ? AND key IN (SELECT value FROM json_each(?))').all(
    pageId,
    JSON.stringify(keys),
  ) as never;
}

/** The page's space and reader set (see meta_key_stats in schema.sql). */
export function readersOf(db: Db, pageId: number): { spaceId: number; readers: string } | undefined {
  return stmt(db, `SELECT p.space_id AS spaceId, ${READERS} AS readers FROM pages p WHERE p.id = ?`).get(pageId) as never;
}

type Bump = { spaceId: number; readers: string; key: string; type: string; delta: number };

// A batch of page writes (group commit: 8–16 writes) mostly adds to the same few (key, type)
// counts: they are summed in the transaction and written once before its COMMIT, one statement
// per count instead of one per page and count (~10 per page write with five keys).
const log = commitLog<Bump>((db, bumps) => {
  const net = new Map<string, Bump>();
  for (const b of bumps) {
    const id = `${b.spaceId}\n${b.readers}\n${b.key}\n${b.type}`;
    const sum = net.get(id);
    if (sum) sum.delta += b.delta;
    else net.set(id, { ...b });
  }
  for (const b of net.values()) if (b.delta !== 0) write(db, b);
});

/** Adds `delta` pages to each (key, type) of one space and reader set. */
export function bumpKeyStats(db: Db, spaceId: number, readers: string, pairs: Array<[string, string]>, delta: number): void {
  for (const [key, type] of pairs) {
    const bump = { spaceId, readers, key, type, delta };
    if (!log.add(db, bump)) write(db, bump);
  }
}

function write(db: Db, { spaceId, readers, key, type, delta }: Bump): void {
  stmt(
    db,
    `INSERT INTO meta_key_stats (space_id, readers, key, type, pages) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (space_id, readers, key, type) DO UPDATE SET pages = pages + excluded.pages`,
  ).run(spaceId, readers, key, type, delta);
  if (delta < 0) {
    stmt(db, 'DELETE FROM meta_key_stats WHERE space_id = ? AND readers = ? AND key = ? AND type = ? AND pages <= 0').run(
      spaceId,
      readers,
      key,
      type,
    );
  }
}

type KeyStatRow = { key: string; type: string; pages: number };

/** Page counts per key and type over the reader groups the caller may read. */
export function readableKeyStats(db: Db, caller: Caller, spaceId: number | null): KeyStatRow[] {
  return stmt(
    db,
    `SELECT g.key, g.type, sum(g.pages) AS pages
    FROM meta_key_stats g JOIN spaces s ON s.id = g.space_id
    WHERE ${READABLE_GROUP} AND (@spaceId IS NULL OR g.space_id = @spaceId)
    GROUP BY g.key, g.type ORDER BY g.key, g.type`,
  ).all({ ...callerParams(caller), spaceId }) as never;
}

/** Recounts the organisation's key stats from the metadata index, in one ordered pass over it. */
export function rebuildKeyStats(db: Db, orgId: number): void {
  // Counts summed earlier in this transaction would be added again on top of the recount.
  if (log.pending(db) > 0) throw new Error('rebuildKeyStats: key stats of this transaction are not written yet');
  stmt(db, 'DELETE FROM meta_key_stats WHERE space_id IN (SELECT id FROM spaces WHERE org_id = ?)').run(orgId);
  // Per page and key (page_meta's primary-key order, so no sort): which types its values have.
  // Then per space, reader set and key: how many pages have each.
  const groups = stmt(
    db,
    `WITH acl AS MATERIALIZED (
      SELECT page_id, ',' || group_concat(principal_id || ',', '' ORDER BY principal_id) AS readers FROM page_acl GROUP BY page_id),
    keys AS (
      SELECT page_id, key, max(pos >= 0) AS l, max(t = 's') AS ts, max(t = 'n') AS tn, max(t = 'b') AS tb, max(t = 'd') AS td
      FROM page_meta GROUP BY page_id, key)
    SELECT p.space_id AS spaceId, CASE WHEN p.has_acl = 0 THEN '' ELSE coalesce(acl.readers, ',') END AS readers, k.key,
      count(*) AS pages, sum(k.l) AS list, sum(k.ts) AS string, sum(k.tn) AS number, sum(k.tb) AS boolean, sum(k.td) AS date
    FROM keys k JOIN pages p ON p.id = k.page_id JOIN spaces s ON s.id = p.space_id LEFT JOIN acl ON acl.page_id = p.id
    WHERE s.org_id = ? AND p.deleted_at IS NULL
    GROUP BY 1, 2, 3`,
  ).all(orgId) as Array<Record<string, number | string> & { spaceId: number; readers: string; key: string }>;
  const ins = stmt(db, 'INSERT INTO meta_key_stats (space_id, readers, key, type, pages) VALUES (?, ?, ?, ?, ?)');
  for (const g of groups) {
    ins.run(g.spaceId, g.readers, g.key, '', g.pages);
    for (const type of ['list', 'string', 'number', 'boolean', 'date']) {
      if ((g[type] as number) > 0) ins.run(g.spaceId, g.readers, g.key, type, g[type]);
    }
  }
}
