import { stmt, type Db, type Statement } from './db.ts';
import { READABLE_PAGE, callerParams, type Caller } from '../domain/access.ts';

// Template pages and record rows. Template pages are `templates/<name>`: the range
// ['templates/', 'templates0') holds every path under the prefix ('0' follows '/'), so the walk
// stays on the (space_id, path) index; the one-segment rule is checked in the same query.
const TEMPLATE_PATHS = `p.path >= 'templates/' AND p.path < 'templates0' AND instr(substr(p.path, 11), '/') = 0`;

export type TemplatePageRow = {
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
  return stmt(db, `SELECT p.id, p.version, s.slug AS space, p.path, p.title, p.frontmatter,
                          CASE WHEN @withContent = 1 THEN p.content END AS content
                   FROM spaces s JOIN pages p ON p.space_id = s.id
                   WHERE s.org_id = @callerOrg AND (@spaceId IS NULL OR s.id = @spaceId) AND ${TEMPLATE_PATHS}
                     AND ${READABLE_PAGE}
                   ORDER BY s.slug, p.path`)
    .all({ ...callerParams(caller), spaceId, withContent: withContent ? 1 : 0 }) as never;
}

export type RecordRow = { id: number; space: string; path: string; title: string; version: number; updated_at: string; metadata: string };

/** Every readable record of one type in one space, in path order (the nonconforming report). */
export function iterateReadableRecords(db: Db, caller: Caller, spaceId: number, template: string): IterableIterator<RecordRow> {
  return stmt(db, `SELECT p.id, s.slug AS space, p.path, p.title, p.version, p.updated_at, p.metadata
                   FROM pages p JOIN spaces s ON s.id = p.space_id
                   WHERE p.space_id = @spaceId AND p.template = @template AND ${READABLE_PAGE}
                   ORDER BY p.path`)
    .iterate({ ...callerParams(caller), spaceId, template }) as never;
}

// ---- the records query -------------------------------------------------------------------

export type MetaType = 's' | 'n' | 'b' | 'd';
export type TypedValue = { t: MetaType; v: string | number };

/** One validated filter; values are already typed as the metadata index stores them. */
export type Condition =
  | { op: 'eq' | 'neq' | 'contains'; key: string; value: TypedValue }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; key: string; value: TypedValue }
  | { op: 'exists' | 'missing'; key: string }
  | { op: 'in'; key: string; values: TypedValue[] };

/** Keyset position: phase 1 walks rows holding the order key, phase 2 the rows without it. */
export type RecordCursor = { phase: 1; t: MetaType; v: string | number; id: number } | { phase: 2; path: string };

export type RecordsQuery = {
  spaceId: number;
  template: string;
  conditions: Condition[];
  orderBy: string | null;
  desc: boolean;
  limit: number;
  after: RecordCursor | null;
};

export type RecordHit = RecordRow & { ot?: MetaType; ov?: string | number };

const CMP = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** SQL for the conditions, with their parameters appended to `params` (never inlined). */
function compileConditions(conds: Condition[], params: Record<string, unknown>): string {
  const parts: string[] = [];
  conds.forEach((c, i) => {
    const k = `k${i}`;
    params[k] = c.key;
    const has = (extra: string) => `EXISTS (SELECT 1 FROM page_meta m WHERE m.page_id = p.id AND m.key = @${k}${extra})`;
    const bind = (tv: TypedValue, name: string) => {
      params[`${name}t`] = tv.t;
      params[`${name}v`] = tv.v;
      return `m.t = @${name}t AND m.v = @${name}v`;
    };
    switch (c.op) {
      case 'exists': parts.push(has('')); break;
      case 'missing': parts.push(`NOT ${has('')}`); break;
      case 'eq': parts.push(has(` AND m.pos = -1 AND ${bind(c.value, `f${i}`)}`)); break;
      case 'neq': parts.push(`NOT ${has(` AND m.pos = -1 AND ${bind(c.value, `f${i}`)}`)}`); break;
      case 'contains': parts.push(has(` AND m.pos >= 0 AND ${bind(c.value, `f${i}`)}`)); break;
      case 'in': {
        const alts = c.values.map((tv, j) => `(${bind(tv, `f${i}_${j}`)})`).join(' OR ');
        parts.push(has(` AND m.pos = -1 AND (${alts})`));
        break;
      }
      default: {
        params[`f${i}t`] = c.value.t;
        params[`f${i}v`] = c.value.v;
        parts.push(has(` AND m.pos = -1 AND m.t = @f${i}t AND m.v ${CMP[c.op]} @f${i}v`));
      }
    }
  });
  return parts.length ? parts.map((p) => ` AND ${p}`).join('') : '';
}

// Filter combinations make many distinct statements: keep the most recent ones prepared.
const dynamicCache = new WeakMap<Db, Map<string, Statement>>();
function dynamicStmt(db: Db, sql: string): Statement {
  let m = dynamicCache.get(db);
  if (!m) dynamicCache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (s) {
    m.delete(sql);
  } else {
    s = db.prepare(sql);
    if (m.size >= 256) m.delete(m.keys().next().value!);
  }
  m.set(sql, s);
  return s;
}

const COLUMNS = 'p.id, s.slug AS space, p.path, p.title, p.version, p.updated_at, p.metadata';

/**
 * One page of records of a type, ACL applied inside the query. Without `orderBy` the walk is
 * the (space_id, template, path) index; with it, the page_meta_kv index in (t, v, page_id)
 * order, then the records lacking the key by path.
 */
export function queryRecords(db: Db, caller: Caller, q: RecordsQuery): RecordHit[] {
  const base: Record<string, unknown> = { ...callerParams(caller), spaceId: q.spaceId, template: q.template };
  const conds = compileConditions(q.conditions, base);
  const scope = `p.space_id = @spaceId AND p.template = @template AND ${READABLE_PAGE}${conds}`;
  if (q.orderBy === null) {
    const dir = q.desc ? 'DESC' : 'ASC';
    const after = q.after?.phase === 2 ? ` AND p.path ${q.desc ? '<' : '>'} @after` : '';
    const sql = `SELECT ${COLUMNS} FROM pages p JOIN spaces s ON s.id = p.space_id
                 WHERE ${scope}${after} ORDER BY p.path ${dir} LIMIT @limit`;
    return dynamicStmt(db, sql).all({ ...base, after: q.after?.phase === 2 ? q.after.path : null, limit: q.limit }) as never;
  }
  const rows: RecordHit[] = [];
  if (q.after === null || q.after.phase === 1) {
    const dir = q.desc ? 'DESC' : 'ASC';
    const after = q.after ? ` AND (o.t, o.v, o.page_id) ${q.desc ? '<' : '>'} (@ct, @cv, @cid)` : '';
    // CROSS JOIN keeps page_meta as the outer loop: the index walk delivers the order, LIMIT stops it.
    const sql = `SELECT ${COLUMNS}, o.t AS ot, o.v AS ov
                 FROM page_meta o CROSS JOIN pages p ON p.id = o.page_id CROSS JOIN spaces s ON s.id = p.space_id
                 WHERE o.key = @orderKey AND o.pos = -1${after} AND ${scope}
                 ORDER BY o.t ${dir}, o.v ${dir}, o.page_id ${dir} LIMIT @limit`;
    const c = q.after;
    rows.push(...(dynamicStmt(db, sql).all({
      ...base, orderKey: q.orderBy, limit: q.limit,
      ...(c ? { ct: c.t, cv: c.v, cid: c.id } : {}),
    }) as RecordHit[]));
    if (rows.length >= q.limit) return rows;
  }
  const afterPath = q.after?.phase === 2 ? q.after.path : null;
  const sql = `SELECT ${COLUMNS} FROM pages p JOIN spaces s ON s.id = p.space_id
               WHERE ${scope} AND p.path > @afterPath
                 AND NOT EXISTS (SELECT 1 FROM page_meta m WHERE m.page_id = p.id AND m.key = @orderKey AND m.pos = -1)
               ORDER BY p.path LIMIT @limit`;
  rows.push(...(dynamicStmt(db, sql).all({ ...base, orderKey: q.orderBy, afterPath: afterPath ?? '', limit: q.limit - rows.length }) as RecordHit[]));
  return rows;
}
