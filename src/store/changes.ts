// The change feed's rows (schema.sql, `changes`): written in the transaction of each change,
// read in commit order with the access rules applied inside the SQL (so limits stay right), and
// pruned after the retention period. domain/changes.ts presents them.
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { callerParams, readableGroup } from './access-sql.ts';
import type { Caller } from '../model.ts';

export const CHANGES_SQL = `CREATE TABLE changes (
    id INTEGER PRIMARY KEY, txid INTEGER NOT NULL, at TEXT NOT NULL, event TEXT NOT NULL, page_id INTEGER NOT NULL,
    space_id INTEGER NOT NULL, path TEXT NOT NULL, version INTEGER, readers TEXT,
    from_space_id INTEGER, from_path TEXT, from_readers TEXT, actor_id TEXT NOT NULL, actor_kind TEXT NOT NULL);
  CREATE INDEX changes_txid ON changes(txid);
  CREATE INDEX changes_at ON changes(at);
  INSERT INTO derived_state (name, value) SELECT 'changes_floor', CAST(n AS TEXT) FROM txid WHERE id = 1
    ON CONFLICT (name) DO UPDATE SET value = excluded.value;`;

type ChangeInsert = {
  at: string;
  event: string;
  pageId: number;
  spaceId: number;
  path: string;
  version: number | null;
  /** Who reads the page after the change (key-stats format), null: nobody. */
  readers: string | null;
  fromSpaceId: number | null;
  fromPath: string | null;
  /** Who read it before (a delete, a move, an ACL change), null: not judged by it. */
  fromReaders: string | null;
  actorId: string;
  actorKind: string;
};

/**
 * One change row, numbered with the txid its transaction commits as: `tx` advances the txid row
 * just before COMMIT of any transaction that changed a row (store/txid.ts), and this insert is
 * such a change, so inside the transaction that number is the row's value plus one.
 */
export function insertChange(db: Db, c: ChangeInsert): void {
  stmt(
    db,
    `INSERT INTO changes (txid, at, event, page_id, space_id, path, version, readers, from_space_id, from_path, from_readers, actor_id, actor_kind)
            SELECT n + 1, @at, @event, @pageId, @spaceId, @path, @version, @readers, @fromSpaceId, @fromPath, @fromReaders, @actorId, @actorKind
            FROM txid WHERE id = 1`,
  ).run(c);
}

export type ChangeRow = {
  id: number;
  txid: number;
  at: string;
  event: string;
  path: string;
  version: number | null;
  space_id: number;
  space_slug: string;
  from_space_id: number | null;
  from_slug: string | null;
  from_path: string | null;
  actor_id: string;
  actor_kind: string;
  /** The caller may read the page after the change (1) or before it (1). */
  after: number;
  before: number;
};

// A change the caller may see: after it, before it (a delete, a move away), or, for an ACL change,
// on exactly one side of it (let in or let out). `@space`: only changes in (or out of) that space.
const VISIBLE = `SELECT * FROM (
    SELECT c.id, c.txid, c.at, c.event, c.path, c.version, c.space_id, sa.slug AS space_slug,
           c.from_space_id, sb.slug AS from_slug, c.from_path, c.actor_id, c.actor_kind,
           coalesce(c.readers IS NOT NULL AND ${readableGroup('sa', 'c.readers')}, 0) AS after,
           coalesce(c.from_readers IS NOT NULL AND ${readableGroup('sb', 'c.from_readers')}, 0) AS before
    FROM changes c JOIN spaces sa ON sa.id = c.space_id LEFT JOIN spaces sb ON sb.id = c.from_space_id
    WHERE %RANGE%)
  WHERE (CASE WHEN event = 'page.access' THEN after <> before ELSE after OR before END)
    AND (@space IS NULL OR (space_id = @space AND after) OR (from_space_id = @space AND before))
  ORDER BY txid, id`;

/** Changes with `since` < txid ≤ `upto` the caller may see, in commit order, at most `limit`. */
export function visibleChanges(
  db: Db,
  caller: Caller,
  q: { since: number; upto: number; spaceId: number | null; limit: number },
): ChangeRow[] {
  return stmt(db, `${VISIBLE.replace('%RANGE%', 'c.txid > @since AND c.txid <= @upto')} LIMIT @limit`).all({
    ...callerParams(caller),
    since: q.since,
    upto: q.upto,
    space: q.spaceId,
    limit: q.limit,
  }) as ChangeRow[];
}

/** Every change of one txid the caller may see (a transaction larger than a page of the feed). */
export function visibleChangesOf(db: Db, caller: Caller, txid: number, spaceId: number | null): ChangeRow[] {
  return stmt(db, VISIBLE.replace('%RANGE%', 'c.txid = @txid')).all({ ...callerParams(caller), txid, space: spaceId }) as ChangeRow[];
}

/** The highest txid whose changes were pruned (a `since` below it has lost changes). */
export function changesFloor(db: Db): number {
  return Number(stmt(db, "SELECT value FROM derived_state WHERE name = 'changes_floor'").pluck().get() ?? 0);
}

/**
 * Removes the changes of up to `limit` rows' txids older than `beforeIso`, whole txids only (a
 * `since` is a txid: half of one gone could not be told), and raises the floor. Returns the rows removed.
 */
export function pruneChanges(db: Db, beforeIso: string, limit: number): number {
  const upto = stmt(db, 'SELECT max(txid) FROM (SELECT txid FROM changes WHERE at < ? ORDER BY id LIMIT ?)')
    .pluck()
    .get(beforeIso, limit) as number | null;
  if (upto === null) return 0;
  // A txid's rows share one `at` only within one write; a batch's later rows may be newer: kept whole when any is.
  const keepFrom = stmt(db, 'SELECT min(txid) FROM changes WHERE txid <= ? AND at >= ?').pluck().get(upto, beforeIso) as number | null;
  const last = keepFrom === null ? upto : keepFrom - 1;
  const removed = stmt(db, 'DELETE FROM changes WHERE txid <= ?').run(last).changes;
  stmt(db, `UPDATE derived_state SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT) WHERE name = 'changes_floor'`).run(last);
  return removed;
}
