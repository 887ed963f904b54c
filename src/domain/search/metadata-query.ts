import type { Services } from '../../services.ts';
import { invalid } from '../errors.ts';
import { checkKey } from '../metadata.ts';
import { resolveSpace } from '../spaces.ts';
import { maxPageId } from '../../store/search.ts';
import {
  countMetaRows,
  pagesWithKey,
  queryByEdit,
  queryById,
  queryByOrderKey,
  queryDriven,
  type MetaCursor,
  type MetaHit,
  type MetaQuery,
} from '../../store/metadata-search.ts';
import { compileDriver, compileFilters } from '../../store/meta-filter-sql.ts';
import { parseFilters } from './filters.ts';
import type { Caller, Condition, Issue, Metadata, Params } from '../../model.ts';

// GET /search/metadata: AND-ed filters over the metadata index, ordered by any key (missing
// values last, page id as the tie-breaker), in keyset pages.
//
// The planner picks one of three walks, all index-driven and all stopping at the limit:
// - driven: a filter selective enough that its few pages can be fetched, checked and sorted;
// - by order key: walk the (key, t, v, page_id) index of `orderBy` in order, checking filters
//   per row, then the pages missing the key;
// - by id: walk pages in id order (no `orderBy`).
// A walk in order costs about limit / selectivity rows, a driven query costs its driver's row
// count, so a driver wins below √(limit × walk length) rows (≈ 2,300 for 50 of 100k).

/** Tests pin the driver threshold to exercise each walk on a few pages; null = computed. */
export const planner: { threshold: number | null } = { threshold: null };

type MetadataSearch = {
  filters: string | null;
  orderBy: string | null;
  order: string | null;
  space: string | null;
  limit: number;
  cursor: MetaCursor | null;
  /** `edited`: by last edit (the page's newest revision), `order` desc (the default) or asc. */
  sort?: string | null;
};

type MetadataHit = { space: string; path: string; title: string; version: number; updatedAt: string; metadata: Metadata };

export function searchMetadata(svc: Services, caller: Caller, q: MetadataSearch): { pages: MetadataHit[]; next: MetaCursor | null } {
  const { conditions, issues } = parseFilters(q.filters);
  const more: Issue[] = [];
  if (q.orderBy !== null) {
    const issue = checkKey(q.orderBy, 'orderBy');
    if (issue) more.push(issue);
  }
  if (q.order !== null && q.order !== 'asc' && q.order !== 'desc')
    more.push({ key: 'order', code: 'option', message: 'order is asc or desc' });
  const edited = q.sort !== null && q.sort !== undefined;
  if (edited && q.sort !== 'edited') more.push({ key: 'sort', code: 'option', message: 'sort is edited (by last edit)' });
  if (edited && q.orderBy !== null)
    more.push({ key: 'orderBy', code: 'format', message: 'orderBy and sort do not combine: sort=edited orders by last edit' });
  if (q.cursor?.m === 0 && q.orderBy === null)
    more.push({ key: 'cursor', code: 'format', message: 'the cursor belongs to a query with orderBy' });
  if (q.cursor && (q.cursor.m === 2) !== edited)
    more.push({ key: 'cursor', code: 'format', message: 'the cursor belongs to a query with another order' });
  if (issues.length || more.length) throw invalid([...issues, ...more]);

  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const filters = (pageId: string) => {
    const params: Params = {};
    return { sql: compileFilters(conditions, params, pageId), params };
  };
  const base: MetaQuery = {
    filters,
    spaceId,
    orderKey: q.orderBy,
    desc: edited ? q.order !== 'asc' : q.order === 'desc',
    limit: q.limit + 1,
    after: q.cursor,
  };
  const rows = edited
    ? queryByEdit(svc.db, caller, base, pickDriver(svc, conditions, driverThreshold(base.limit, maxPageId(svc.db))))
    : runPlan(svc, caller, conditions, base);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  let next: MetaCursor | null = null;
  if (rows.length > q.limit && last) {
    next = edited
      ? { m: 2, i: Number(last.ov) }
      : q.orderBy !== null && last.ot !== null
        ? { m: 0, t: last.ot, v: last.ov!, i: last.id }
        : { m: 1, i: last.id };
  }
  return { pages: page.map(presentHit), next };
}

function runPlan(svc: Services, caller: Caller, conditions: Condition[], q: MetaQuery): MetaHit[] {
  const db = svc.db;
  const walk = q.orderKey !== null ? pagesWithKey(db, q.orderKey) : maxPageId(db);
  const driver = pickDriver(svc, conditions, driverThreshold(q.limit, walk));
  if (driver) return queryDriven(db, caller, driver, q);
  if (q.orderKey === null) return queryById(db, caller, q, null);
  const rows = q.after?.m === 1 ? [] : queryByOrderKey(db, caller, { ...q, orderKey: q.orderKey });
  if (rows.length < q.limit) {
    // The order key's index is exhausted: the pages without the key follow, in id order.
    const rest = queryById(db, caller, { ...q, limit: q.limit - rows.length, after: q.after?.m === 1 ? q.after : null }, q.orderKey);
    rows.push(...rest);
  }
  return rows;
}

/** Up to how many index rows a driven query beats a walk in order of `walk` rows. */
function driverThreshold(limit: number, walk: number): number {
  return planner.threshold ?? Math.max(256, Math.ceil(Math.sqrt(limit * Math.max(walk, 1))));
}

/** The most selective drivable filter, if it selects at most `threshold` index rows (0: never drive). */
function pickDriver(svc: Services, conditions: Condition[], threshold: number): { sql: string; params: Params } | null {
  if (threshold <= 0) return null;
  let best: { sql: string; params: Params; n: number } | null = null;
  for (let i = 0; i < conditions.length && best?.n !== 0; i++) {
    const params: Params = {};
    const sql = compileDriver(conditions[i], params, `d${i}`);
    if (sql === null) continue;
    const n = countMetaRows(svc.db, sql, params, threshold + 1);
    if (n <= threshold && (best === null || n < best.n)) best = { sql, params, n };
  }
  return best;
}

function presentHit(r: MetaHit): MetadataHit {
  return { space: r.space, path: r.path, title: r.title, version: r.version, updatedAt: r.updated_at, metadata: JSON.parse(r.metadata) };
}

/** Checks a cursor read back from a client (see readCursor). */
export function isMetaCursor(v: unknown): v is MetaCursor {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  if (typeof c.i !== 'number' || !Number.isSafeInteger(c.i)) return false;
  if (c.m === 1 || c.m === 2) return true;
  return (
    c.m === 0 &&
    typeof c.t === 'string' &&
    ['s', 'n', 'b', 'd'].includes(c.t) &&
    (typeof c.v === 'string' || (typeof c.v === 'number' && Number.isFinite(c.v)))
  );
}
