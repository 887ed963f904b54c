import { cached } from '../bounded-cache.ts';
import { dynamicStmt, stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';
import type { MetaType, Params } from '../model.ts';

// The metadata query shapes. The filter SQL comes from domain/search/filters.ts (bound
// parameters only); which shape runs is the planner's choice in domain/search/metadata-query.ts.
// Every shape filters with READABLE_PAGE inside the query and pages by keyset, so a limit or
// a cursor never counts a page the caller may not read.

// The planner's counts are statistics: they choose a walk, and every walk returns the same pages,
// so a count may be a little stale. Kept for COUNT_TTL_MS, they spare a repeated query (a
// dashboard, the next page) up to two index walks.
const COUNT_TTL_MS = 1000;
const counts = new WeakMap<Db, Map<string, { n: number; at: number }>>();

/** How many page_meta rows (alias d) satisfy `where`, counting no further than `cap`; may be up to a second old. */
export function countMetaRows(db: Db, where: string, params: Params, cap: number): number {
  let m = counts.get(db);
  if (!m) counts.set(db, (m = new Map()));
  const count = () =>
    (
      dynamicStmt(db, `SELECT count(*) AS n FROM (SELECT 1 FROM page_meta d INDEXED BY page_meta_kv WHERE ${where} LIMIT @cap)`).get({
        ...params,
        cap,
      }) as { n: number }
    ).n;
  const now = Date.now();
  const entry = cached(m, `${cap} ${where} ${JSON.stringify(params)}`, 512, () => ({ n: count(), at: now }));
  if (now - entry.at >= COUNT_TTL_MS) Object.assign(entry, { n: count(), at: now });
  return entry.n;
}

/** Pages that hold `key` (all reader groups): how long an ORDER BY walk over it can get. */
export function pagesWithKey(db: Db, key: string): number {
  return (stmt(db, "SELECT coalesce(sum(pages), 0) AS n FROM meta_key_stats WHERE key = ? AND type = ''").get(key) as { n: number }).n;
}

export type MetaHit = {
  id: number;
  space: string;
  path: string;
  title: string;
  version: number;
  updated_at: string;
  metadata: string;
  ot: MetaType | null;
  ov: string | number | null;
};

/**
 * Keyset position: m 0 = among pages holding the order key (t, v, id), m 1 = among the rest (id),
 * m 2 = by last edit (`sort=edited`; i: the id of the page's current revision).
 */
export type MetaCursor = { m: 0 | 1 | 2; t?: MetaType; v?: string | number; i: number };

export type MetaQuery = {
  /** `AND …` conditions on the page with id `pageId` and their parameters (compileFilters). */
  filters: (pageId: string) => { sql: string; params: Params };
  spaceId: number | null;
  orderKey: string | null;
  desc: boolean;
  limit: number;
  after: MetaCursor | null;
};

const COLUMNS = 'p.id, s.slug AS space, p.path, p.title, p.version, p.updated_at, p.metadata';
// `@spaceId IS NULL OR …` also keeps the planner off the (space_id, path) index, whose order
// none of these walks wants.
const IN_SPACE = 'AND (@spaceId IS NULL OR p.space_id = @spaceId)';

function run(db: Db, caller: Caller, sql: string, q: MetaQuery, params: Params): MetaHit[] {
  return dynamicStmt(db, sql).all({ ...callerParams(caller), ...params, spaceId: q.spaceId, limit: q.limit }) as never;
}

/**
 * Driven by one selective filter (its page_meta rows, alias d): few candidate pages, each
 * checked and sorted. Pages without the order key come last, in id order.
 */
export function queryDriven(db: Db, caller: Caller, driver: { sql: string; params: Params }, q: MetaQuery): MetaHit[] {
  const f = q.filters('dd.page_id');
  const extra: Params = { ...driver.params, ...f.params };
  const cmp = q.desc ? '<' : '>';
  let order = `p.id${q.desc ? ' DESC' : ''}`;
  let join = '';
  let select = 'NULL AS ot, NULL AS ov';
  let cursor = '';
  if (q.orderKey !== null) {
    extra.orderKey = q.orderKey;
    join = 'LEFT JOIN page_meta o ON o.page_id = p.id AND o.key = @orderKey AND o.pos <= 0';
    select = 'o.t AS ot, o.v AS ov';
    const dir = q.desc ? ' DESC' : '';
    order = `(o.t IS NULL), o.t${dir}, o.v${dir}, p.id${dir}`;
    if (q.after?.m === 0) cursor = `AND (o.t IS NULL OR (o.t, o.v, p.id) ${cmp} (@ct, @cv, @ci))`;
    else if (q.after?.m === 1) cursor = `AND o.t IS NULL AND p.id ${cmp} @ci`;
  } else if (q.after) {
    cursor = `AND p.id ${cmp} @ci`;
  }
  if (q.after) Object.assign(extra, cursorParams(q.after));
  const sql = `SELECT ${COLUMNS}, ${select}
    FROM (SELECT DISTINCT d.page_id FROM page_meta d INDEXED BY page_meta_kv WHERE ${driver.sql}) dd
    JOIN pages p ON p.id = dd.page_id JOIN spaces s ON s.id = p.space_id ${join}
    WHERE ${READABLE_PAGE} ${IN_SPACE} ${f.sql} ${cursor}
    ORDER BY ${order} LIMIT @limit`;
  return run(db, caller, sql, q, extra);
}

/** Walks the (key, t, v, page_id) index of the order key in order and stops at the limit. */
export function queryByOrderKey(db: Db, caller: Caller, q: MetaQuery & { orderKey: string }): MetaHit[] {
  const dir = q.desc ? ' DESC' : '';
  const f = q.filters('o.page_id');
  const extra: Params = { ...f.params, orderKey: q.orderKey };
  let cursor = '';
  if (q.after?.m === 0) {
    cursor = `AND (o.t, o.v, o.page_id) ${q.desc ? '<' : '>'} (@ct, @cv, @ci)`;
    Object.assign(extra, cursorParams(q.after));
  }
  const sql = `SELECT ${COLUMNS}, o.t AS ot, o.v AS ov
    FROM page_meta o INDEXED BY page_meta_kv JOIN pages p ON p.id = o.page_id JOIN spaces s ON s.id = p.space_id
    WHERE o.key = @orderKey AND o.pos <= 0 ${cursor} ${f.sql} AND ${READABLE_PAGE} ${IN_SPACE}
    ORDER BY o.t${dir}, o.v${dir}, o.page_id${dir} LIMIT @limit`;
  return run(db, caller, sql, q, extra);
}

/** Walks pages in id order (no order key, or the pages missing it) and stops at the limit. */
export function queryById(db: Db, caller: Caller, q: MetaQuery, missingKey: string | null): MetaHit[] {
  const f = q.filters('p.id');
  const extra: Params = { ...f.params, ci: q.after ? q.after.i : q.desc ? Number.MAX_SAFE_INTEGER : 0 };
  let missing = '';
  if (missingKey !== null) {
    extra.orderKey = missingKey;
    missing = 'AND NOT EXISTS (SELECT 1 FROM page_meta o WHERE o.page_id = p.id AND o.key = @orderKey AND o.pos <= 0)';
  }
  const sql = `SELECT ${COLUMNS}, NULL AS ot, NULL AS ov
    FROM pages p JOIN spaces s ON s.id = p.space_id
    WHERE p.id ${q.desc ? '<' : '>'} @ci ${missing} ${f.sql} AND ${READABLE_PAGE} ${IN_SPACE}
    ORDER BY p.id${q.desc ? ' DESC' : ''} LIMIT @limit`;
  return run(db, caller, sql, q, extra);
}

function cursorParams(c: MetaCursor): Params {
  return c.m === 0 ? { ct: c.t!, cv: c.v!, ci: c.i } : { ci: c.i };
}

/**
 * `sort=edited`: pages by their last edit, the id of their current revision (a revision's id
 * grows with each write; a move writes none). Without a driver it walks `revisions` newest first
 * (its rowid), keeping the rows that are their page's current version, and stops at the limit;
 * with one, the driver's few pages are each joined to their current revision and sorted.
 */
export function queryByEdit(db: Db, caller: Caller, q: MetaQuery, driver: { sql: string; params: Params } | null): MetaHit[] {
  const dir = q.desc ? ' DESC' : '';
  const extra: Params = { ci: q.after ? q.after.i : q.desc ? Number.MAX_SAFE_INTEGER : 0 };
  const cursor = `r.id ${q.desc ? '<' : '>'} @ci`;
  if (driver) {
    const f = q.filters('dd.page_id');
    const sql = `SELECT ${COLUMNS}, NULL AS ot, r.id AS ov
      FROM (SELECT DISTINCT d.page_id FROM page_meta d INDEXED BY page_meta_kv WHERE ${driver.sql}) dd
      JOIN pages p ON p.id = dd.page_id JOIN spaces s ON s.id = p.space_id
      JOIN revisions r ON r.page_id = p.id AND r.version = p.version
      WHERE ${cursor} AND ${READABLE_PAGE} ${IN_SPACE} ${f.sql}
      ORDER BY r.id${dir} LIMIT @limit`;
    return run(db, caller, sql, q, { ...extra, ...driver.params, ...f.params });
  }
  const f = q.filters('p.id');
  // CROSS JOIN: revisions stay the outer loop, walked in rowid order.
  const sql = `SELECT ${COLUMNS}, NULL AS ot, r.id AS ov
    FROM revisions r CROSS JOIN pages p CROSS JOIN spaces s
    WHERE ${cursor} AND p.id = r.page_id AND p.version = r.version AND s.id = p.space_id
      ${f.sql} AND ${READABLE_PAGE} ${IN_SPACE}
    ORDER BY r.id${dir} LIMIT @limit`;
  return run(db, caller, sql, q, { ...extra, ...f.params });
}
