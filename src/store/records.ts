import { dynamicStmt, stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller, Condition, MetaType, Params, TypedValue } from '../model.ts';
import { compileFilters, inListSql } from './meta-filter-sql.ts';

// Template pages and record rows. Template pages are `templates/<name>`: the range
// ['templates/', 'templates0') holds every path under the prefix ('0' follows '/'), so the walk
// stays on the (space_id, path) index; the one-segment rule is checked in the same query.
const TEMPLATE_PATHS = `p.path >= 'templates/' AND p.path < 'templates0' AND instr(substr(p.path, 11), '/') = 0`;

// The records of a type are found through their stamp's row in the metadata index
// (key 'template', value the type's name), which every record has anyway: walked in page id
// (creation) order, it needs no index of its own, and each hit is then checked for the space and
// the full type reference in pages.template (a same-named type of another space shares the stamp).
const STAMP_WALK = `FROM page_meta r CROSS JOIN pages p ON p.id = r.page_id CROSS JOIN spaces s ON s.id = p.space_id
  WHERE r.key = 'template' AND r.pos = -1 AND r.t = @stampT AND r.v = @stampV`;

type TemplatePageRow = {
  id: number;
  version: number;
  space: string;
  path: string;
  title: string;
  frontmatter: string;
  content: string | null;
};

/** Template pages the caller can read in the caller's organisation, optionally in one space. */
export function listReadableTemplates(db: Db, caller: Caller, spaceId: number | null, withContent: boolean): TemplatePageRow[] {
  return stmt(
    db,
    `SELECT p.id, p.version, s.slug AS space, p.path, p.title, p.frontmatter,
                          CASE WHEN @withContent = 1 THEN p.content END AS content
                   FROM spaces s JOIN pages p ON p.space_id = s.id
                   WHERE s.org_id = @callerOrg AND (@spaceId IS NULL OR s.id = @spaceId) AND ${TEMPLATE_PATHS}
                     AND ${READABLE_PAGE}
                   ORDER BY s.slug, p.path`,
  ).all({ ...callerParams(caller), spaceId, withContent: withContent ? 1 : 0 }) as never;
}

type RecordRow = { id: number; space: string; path: string; title: string; version: number; updated_at: string; metadata: string };

/** Every readable record of one type in one space, in creation order (the nonconforming report). */
export function iterateReadableRecords(
  db: Db,
  caller: Caller,
  spaceId: number,
  template: string,
  stamp: TypedValue,
): IterableIterator<RecordRow> {
  return stmt(
    db,
    `SELECT p.id, s.slug AS space, p.path, p.title, p.version, p.updated_at, p.metadata
                   ${STAMP_WALK} AND p.space_id = @spaceId AND p.template = @template AND ${READABLE_PAGE}
                   ORDER BY r.page_id`,
  ).iterate({ ...callerParams(caller), spaceId, template, stampT: stamp.t, stampV: stamp.v }) as never;
}

// ---- the records query -------------------------------------------------------------------

/** Keyset position: phase 1 walks rows holding the order key, phase 2 the rows without it. */
export type RecordCursor = { phase: 1; t: MetaType; v: string | number; id: number } | { phase: 2; id: number };

type RecordsQuery = {
  spaceId: number;
  /** The type as pages.template holds it ("N" or "space:N"). */
  template: string;
  /** The record stamp (metadata.template) as the metadata index types it. */
  stamp: TypedValue;
  conditions: Condition[];
  orderBy: string | null;
  desc: boolean;
  limit: number;
  after: RecordCursor | null;
  /** Largest seed filter (in index rows) worth reading whole; SEED_CAP unless a test sets it. */
  seedCap?: number;
};

export type RecordHit = RecordRow & { ot?: MetaType; ov?: string | number };

const CMP = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The conditions on the page `idCol` (store/meta-filter-sql.ts), their parameters added to `params`. */
function compileConditions(conds: Condition[], params: Record<string, unknown>, idCol: string): string {
  const bound: Params = {};
  const sql = compileFilters(conds, bound, idCol);
  Object.assign(params, bound);
  return sql;
}

/**
 * Conditions on the order key itself, repeated on the walked index rows so that the walk starts
 * and stops at their bounds instead of stepping over every non-matching value.
 */
function walkBounds(q: RecordsQuery): string {
  // The values are bound by compileConditions (compileFilters) under the same parameter names.
  let sql = '';
  q.conditions.forEach((c, i) => {
    if (c.key !== q.orderBy) return;
    if (c.op === 'in') {
      sql += ` AND (o.t, o.v) IN ${inListSql(`f${i}in`)}`;
    } else if (c.op === 'eq') {
      sql += ` AND o.t = @f${i}t AND o.v = @f${i}v`;
    } else if (c.op === 'gt' || c.op === 'gte' || c.op === 'lt' || c.op === 'lte') {
      sql += ` AND o.t = @f${i}t AND o.v ${CMP[c.op]} @f${i}v`;
    }
  });
  return sql;
}

const COLUMNS = 'p.id, s.slug AS space, p.path, p.title, p.version, p.updated_at, p.metadata';

/**
 * One page of records of a type, ACL applied inside the query. When an eq/in filter matches few
 * index rows, those rows are the candidates and SQLite sorts them (querySeeded). Otherwise,
 * without `orderBy` the walk is the stamp's index rows in creation order; with it, the order
 * key's page_meta_kv rows in (t, v, page_id) order, then the records lacking the key in
 * creation order. Both plans give the same order and read the same cursors.
 */
export function queryRecords(db: Db, caller: Caller, q: RecordsQuery): RecordHit[] {
  const base: Record<string, unknown> = {
    ...callerParams(caller),
    spaceId: q.spaceId,
    template: q.template,
    stampT: q.stamp.t,
    stampV: q.stamp.v,
  };
  // Probes name the walked index row's page_id, not p.id, so that SQLite runs them before it
  // joins the page: a row that fails a filter costs one primary-key probe.
  const scope = (idCol: string) =>
    `p.space_id = @spaceId AND p.template = @template AND ${READABLE_PAGE}${compileConditions(q.conditions, base, idCol)}`;
  const seed = pickSeed(db, q.conditions, q.seedCap ?? SEED_CAP);
  if (seed !== null) return querySeeded(db, q, base, seed, scope('f.page_id'));
  if (q.orderBy === null) {
    const dir = q.desc ? 'DESC' : 'ASC';
    const after = q.after?.phase === 2 ? ` AND r.page_id ${q.desc ? '<' : '>'} @afterId` : '';
    const sql = `SELECT ${COLUMNS} ${STAMP_WALK}${after} AND ${scope('r.page_id')} ORDER BY r.page_id ${dir} LIMIT @limit`;
    return dynamicStmt(db, sql).all({ ...base, afterId: q.after?.phase === 2 ? q.after.id : null, limit: q.limit }) as never;
  }
  const rows: RecordHit[] = [];
  if (q.after === null || q.after.phase === 1) {
    const dir = q.desc ? 'DESC' : 'ASC';
    const after = q.after ? ` AND (o.t, o.v, o.page_id) ${q.desc ? '<' : '>'} (@ct, @cv, @cid)` : '';
    // CROSS JOIN keeps page_meta as the outer loop: the index walk delivers the order, LIMIT stops it.
    const sql = `SELECT ${COLUMNS}, o.t AS ot, o.v AS ov
                 FROM page_meta o CROSS JOIN pages p ON p.id = o.page_id CROSS JOIN spaces s ON s.id = p.space_id
                 WHERE o.key = @orderKey AND o.pos = -1${after}${walkBounds(q)} AND ${scope('o.page_id')}
                 ORDER BY o.t ${dir}, o.v ${dir}, o.page_id ${dir} LIMIT @limit`;
    const c = q.after;
    rows.push(
      ...(dynamicStmt(db, sql).all({
        ...base,
        orderKey: q.orderBy,
        limit: q.limit,
        ...(c ? { ct: c.t, cv: c.v, cid: c.id } : {}),
      }) as RecordHit[]),
    );
    if (rows.length >= q.limit) return rows;
  }
  const sql = `SELECT ${COLUMNS} ${STAMP_WALK} AND r.page_id > @afterId AND ${scope('r.page_id')}
                 AND NOT EXISTS (SELECT 1 FROM page_meta m WHERE m.page_id = r.page_id AND m.key = @orderKey AND m.pos = -1)
               ORDER BY r.page_id LIMIT @limit`;
  const afterId = q.after?.phase === 2 ? q.after.id : 0;
  rows.push(...(dynamicStmt(db, sql).all({ ...base, orderKey: q.orderBy, afterId, limit: q.limit - rows.length }) as RecordHit[]));
  return rows;
}

// A filter matching at most this many index rows (in any space) seeds the query: reading and
// sorting that many candidates costs a few milliseconds, while an ordered walk that rarely hits
// a match could read every record of the type.
const SEED_CAP = 1000;

/** The index of the eq/in condition with the fewest index rows, when that is at most SEED_CAP. */
function pickSeed(db: Db, conds: Condition[], cap: number): number | null {
  let best: number | null = null;
  let bestCount = cap + 1;
  const count = stmt(db, 'SELECT count(*) AS n FROM (SELECT 1 FROM page_meta WHERE key = ? AND t = ? AND v = ? LIMIT ?)');
  conds.forEach((c, i) => {
    if (c.op !== 'eq' && c.op !== 'in') return;
    const values = c.op === 'in' ? c.values : [c.value];
    let n = 0;
    for (const tv of values) {
      if (n >= bestCount) return;
      n += (count.get(c.key, tv.t, tv.v, bestCount - n) as { n: number }).n;
    }
    if (n < bestCount) {
      best = i;
      bestCount = n;
    }
  });
  return best;
}

/**
 * The seeded plan: candidates from one selective filter's index rows, every condition checked,
 * then sorted as the walks would deliver them (keyed rows by (t, v, id), rows lacking the order
 * key last by id) and cut at the cursor.
 */
function querySeeded(db: Db, q: RecordsQuery, base: Record<string, unknown>, seed: number, scope: string): RecordHit[] {
  // The seed's values are bound by compileConditions (via `scope`) under these names.
  const c = q.conditions[seed];
  const match = c.op === 'in' ? `(f.t, f.v) IN ${inListSql(`f${seed}in`)}` : `f.t = @f${seed}t AND f.v = @f${seed}v`;
  const from = `FROM page_meta f CROSS JOIN pages p ON p.id = f.page_id CROSS JOIN spaces s ON s.id = p.space_id`;
  const where = `f.key = @f${seed}k AND f.pos = -1 AND (${match}) AND ${scope}`;
  const cmp = q.desc ? '<' : '>';
  const dir = q.desc ? 'DESC' : 'ASC';
  if (q.orderBy === null) {
    const after = q.after?.phase === 2 ? ` AND f.page_id ${cmp} @afterId` : '';
    const sql = `SELECT ${COLUMNS} ${from} WHERE ${where}${after} ORDER BY f.page_id ${dir} LIMIT @limit`;
    return dynamicStmt(db, sql).all({ ...base, afterId: q.after?.phase === 2 ? q.after.id : null, limit: q.limit }) as never;
  }
  const after =
    q.after === null
      ? ''
      : q.after.phase === 1
        ? ` AND ((o.t, o.v, o.page_id) ${cmp} (@ct, @cv, @cid) OR o.page_id IS NULL)`
        : ' AND o.page_id IS NULL AND f.page_id > @afterId';
  const sql = `SELECT ${COLUMNS}, o.t AS ot, o.v AS ov ${from}
               LEFT JOIN page_meta o ON o.page_id = f.page_id AND o.key = @orderKey AND o.pos = -1
               WHERE ${where}${after}
               ORDER BY o.page_id IS NULL, o.t ${dir}, o.v ${dir}, CASE WHEN o.page_id IS NULL THEN f.page_id END, f.page_id ${dir}
               LIMIT @limit`;
  const a = q.after;
  const rows = dynamicStmt(db, sql).all({
    ...base,
    orderKey: q.orderBy,
    limit: q.limit,
    ...(a?.phase === 1 ? { ct: a.t, cv: a.v, cid: a.id } : a?.phase === 2 ? { afterId: a.id } : {}),
  }) as RecordHit[];
  // Rows lacking the order key carry null t/v; the cursor tells them apart by their absence.
  for (const r of rows) {
    if (r.ot === null) delete r.ot;
    if (r.ov === null) delete r.ov;
  }
  return rows;
}
