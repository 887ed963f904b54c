// The change feed's rows (schema.sql, `changes`): written in the transaction of each change,
// read in commit order with the access rules applied inside the SQL (so limits stay right), and
// pruned after the retention period. domain/changes.ts presents them.
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { callerParams, readableGroup } from './access-sql.ts';
import { epochMs } from './time-sql.ts';
import type { Caller } from '../model.ts';

/**
 * The events a row's `event` holds, by number: the stored format, so only ever appended to.
 * 'page.access' is an ACL change, shown as page.created or page.deleted (domain/changes.ts).
 */
const EVENTS = ['page.created', 'page.updated', 'page.deleted', 'page.moved', 'page.restored', 'page.access', 'file.put', 'file.deleted'];
const ACCESS = EVENTS.indexOf('page.access');
function eventIndex(event: string): number {
  const i = EVENTS.indexOf(event);
  if (i < 0) throw new Error(`no change event ${event}`);
  return i;
}
/** An event's name (SQL over `col`) as its number. */
const eventNumber = (col: string) => `CASE ${col} ${EVENTS.map((e, i) => `WHEN '${e}' THEN ${i}`).join(' ')} END`;

/**
 * The table, keyed by commit: (txid, seq), seq numbering a transaction's changes from 0, so that
 * the feed's txid ranges and the pruning read the key itself (no index beside it), and rows,
 * written in txid order, append to it. `at` is in epoch milliseconds (an ISO string at the
 * edges), `event` a number of EVENTS.
 */
const CHANGES_TABLE = `CREATE TABLE changes (
    txid INTEGER NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, event INTEGER NOT NULL, page_id INTEGER NOT NULL,
    space_id INTEGER NOT NULL, path TEXT NOT NULL, version INTEGER, readers TEXT,
    from_space_id INTEGER, from_path TEXT, from_readers TEXT, actor_id TEXT NOT NULL, actor_kind TEXT NOT NULL,
    PRIMARY KEY (txid, seq)) WITHOUT ROWID;`;

/** The change feed from schema version 15 on: kept from here on, an older `since` is 410. */
export const CHANGES_SQL = `${CHANGES_TABLE}
  INSERT INTO derived_state (name, value) SELECT 'changes_floor', CAST(n AS TEXT) FROM txid WHERE id = 1
    ON CONFLICT (name) DO UPDATE SET value = excluded.value;`;

/**
 * Schema versions 21 and 23: the table rewritten as CHANGES_TABLE, its rows in the same order
 * with the same times and events, from the layout of version 15 (a rowid `id`, `at` an ISO
 * string, `event` its name, indexes on txid and on at) or of 21 (keyed by (txid, seq), `event`
 * its name). A table of the current layout (made at 15 by this kspace, or rewritten already) stays.
 */
export function rewriteChanges(db: Db): void {
  const columns = new Map(
    (db.prepare("SELECT name, type FROM pragma_table_info('changes')").all() as Array<{ name: string; type: string }>).map((c) => [
      c.name,
      c.type,
    ]),
  );
  const v15 = columns.has('id');
  if (!v15 && columns.get('event') === 'INTEGER') return;
  const [seq, at, order] = v15
    ? ['row_number() OVER (PARTITION BY txid ORDER BY id) - 1', epochMs('at'), 'txid, id']
    : ['seq', 'at', 'txid, seq'];
  db.exec(`ALTER TABLE changes RENAME TO changes_old;
    ${CHANGES_TABLE}
    INSERT INTO changes (txid, seq, at, event, page_id, space_id, path, version, readers, from_space_id, from_path, from_readers, actor_id, actor_kind)
      SELECT txid, ${seq}, ${at}, ${eventNumber('event')},
        page_id, space_id, path, version, readers, from_space_id, from_path, from_readers, actor_id, actor_kind
      FROM changes_old ORDER BY ${order};
    DROP TABLE changes_old;`);
}

type ChangeInsert = {
  /** ISO 8601 (svc.now()). */
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
    `INSERT INTO changes (txid, seq, at, event, page_id, space_id, path, version, readers, from_space_id, from_path, from_readers, actor_id, actor_kind)
            SELECT t.n + 1, coalesce((SELECT max(seq) + 1 FROM changes WHERE txid = t.n + 1), 0), @at, @event, @pageId, @spaceId,
                   @path, @version, @readers, @fromSpaceId, @fromPath, @fromReaders, @actorId, @actorKind
            FROM txid t WHERE t.id = 1`,
  ).run({ ...c, at: Date.parse(c.at), event: eventIndex(c.event) });
}

export type ChangeRow = {
  txid: number;
  seq: number;
  /** ISO 8601, from the stored milliseconds. */
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
    SELECT c.txid, c.seq, c.at, c.event, c.path, c.version, c.space_id, sa.slug AS space_slug,
           c.from_space_id, sb.slug AS from_slug, c.from_path, c.actor_id, c.actor_kind,
           coalesce(c.readers IS NOT NULL AND ${readableGroup('sa', 'c.readers')}, 0) AS after,
           coalesce(c.from_readers IS NOT NULL AND ${readableGroup('sb', 'c.from_readers')}, 0) AS before
    FROM changes c JOIN spaces sa ON sa.id = c.space_id LEFT JOIN spaces sb ON sb.id = c.from_space_id
    WHERE %RANGE%)
  WHERE (CASE WHEN event = ${ACCESS} THEN after <> before ELSE after OR before END)
    AND (@space IS NULL OR (space_id = @space AND after) OR (from_space_id = @space AND before))
  ORDER BY txid, seq`;

/** The rows as read, `at` in milliseconds, `event` a number. */
const rowsOf = (rows: unknown[]): ChangeRow[] =>
  (rows as Array<Omit<ChangeRow, 'at' | 'event'> & { at: number; event: number }>).map((r) => ({
    ...r,
    at: new Date(r.at).toISOString(),
    event: EVENTS[r.event],
  }));

/** Changes with `since` < txid ≤ `upto` the caller may see, in commit order, at most `limit`. */
export function visibleChanges(
  db: Db,
  caller: Caller,
  q: { since: number; upto: number; spaceId: number | null; limit: number },
): ChangeRow[] {
  return rowsOf(
    stmt(db, `${VISIBLE.replace('%RANGE%', 'c.txid > @since AND c.txid <= @upto')} LIMIT @limit`).all({
      ...callerParams(caller),
      since: q.since,
      upto: q.upto,
      space: q.spaceId,
      limit: q.limit,
    }),
  );
}

/** Every change of one txid the caller may see (a transaction larger than a page of the feed). */
export function visibleChangesOf(db: Db, caller: Caller, txid: number, spaceId: number | null): ChangeRow[] {
  return rowsOf(stmt(db, VISIBLE.replace('%RANGE%', 'c.txid = @txid')).all({ ...callerParams(caller), txid, space: spaceId }));
}

/** The highest txid whose changes were pruned (a `since` below it has lost changes). */
export function changesFloor(db: Db): number {
  return Number(stmt(db, "SELECT value FROM derived_state WHERE name = 'changes_floor'").pluck().get() ?? 0);
}

/**
 * Removes the changes of up to `limit` rows' txids older than `beforeIso`, whole txids only (a
 * `since` is a txid: half of one gone could not be told), and raises the floor. Returns the rows
 * removed. The rows are read from the oldest, up to the first that is not old enough: txids grow
 * with time (a txid's rows share one `at` only within one write; a batch's later rows may be
 * newer, and a txid is kept whole when any of its rows is), so a database with nothing to prune
 * reads one row; an older row after a newer one (the clock set back) waits for it.
 */
export function pruneChanges(db: Db, beforeIso: string, limit: number): number {
  const before = Date.parse(beforeIso);
  let upto: number | null = null;
  let stopped: number | null = null;
  for (const r of stmt(db, 'SELECT txid, at FROM changes ORDER BY txid, seq LIMIT ?').iterate(limit) as Iterable<{
    txid: number;
    at: number;
  }>) {
    if (r.at >= before) {
      stopped = r.txid;
      break;
    }
    upto = r.txid;
  }
  if (upto === null) return 0;
  // The last old txid goes only if none of its rows is newer, here or past the rows read.
  const newer = stopped === upto || (stopped === null && stmt(db, 'SELECT 1 FROM changes WHERE txid = ? AND at >= ?').get(upto, before));
  const last = newer ? upto - 1 : upto;
  const removed = stmt(db, 'DELETE FROM changes WHERE txid <= ?').run(last).changes;
  stmt(db, `UPDATE derived_state SET value = CAST(max(CAST(value AS INTEGER), ?) AS TEXT) WHERE name = 'changes_floor'`).run(last);
  return removed;
}
