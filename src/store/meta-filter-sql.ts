import type { Condition, Params, TypedValue } from '../model.ts';

// The one metadata filter compiler: validated conditions (domain/search/filters.ts parses them)
// into SQL over page_meta whose only variable parts are bound parameters. Used by the metadata
// search (store/metadata-search.ts) and the records query (store/records.ts).
//
// The SQL depends only on the filters' ops and their number, never on keys or values, so a new
// combination of keys or values reuses a prepared statement. An `in` list is one bound JSON
// array, not one OR branch per value: spliced in as branches, many long `in` lists make SQL that
// takes SQLite seconds to prepare (docs/performance.md, Metadata queries).

type ValueCondition = Exclude<Condition, { op: 'exists' | 'missing' }>;
const isKeyOnly = (c: Condition): c is Extract<Condition, { op: 'exists' | 'missing' }> => c.op === 'exists' || c.op === 'missing';
const CMP = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** An `in` list as its one parameter: a JSON array of [t, v] pairs. */
function inListParam(values: TypedValue[]): string {
  return JSON.stringify(values.map((tv) => [tv.t, tv.v]));
}

/** The (t, v) pairs of an `in` list bound as `@name`, as a subquery for `(t, v) IN (…)`. */
export function inListSql(name: string): string {
  return `(SELECT value ->> 0, value ->> 1 FROM json_each(@${name}))`;
}

/**
 * The rows of page_meta (alias `alias`) that satisfy a condition on their own, as SQL whose
 * values are bound into `params` under names starting with `name`: `<name>k` the key, `<name>t`
 * and `<name>v` the value, `<name>in` an `in` list. Semantics: eq/in/gt…: the key's scalar value
 * (pos -1), compared within its type, so numbers compare numerically and dates chronologically;
 * contains: an item of the key's list (pos ≥ 0).
 */
function rowCondition(c: ValueCondition, alias: string, name: string, params: Params): string {
  params[`${name}k`] = c.key;
  const head = `${alias}.key = @${name}k`;
  if (c.op === 'in') {
    params[`${name}in`] = inListParam(c.values);
    return `${head} AND ${alias}.pos = -1 AND (${alias}.t, ${alias}.v) IN ${inListSql(`${name}in`)}`;
  }
  params[`${name}t`] = c.value.t;
  params[`${name}v`] = c.value.v;
  const value = (cmp: string) => `${alias}.t = @${name}t AND ${alias}.v ${cmp} @${name}v`;
  switch (c.op) {
    case 'eq':
    case 'neq':
      return `${head} AND ${alias}.pos = -1 AND ${value('=')}`;
    case 'contains':
      return `${head} AND ${alias}.pos >= 0 AND ${value('=')}`;
    default:
      return `${head} AND ${alias}.pos = -1 AND ${value(CMP[c.op])}`;
  }
}

/**
 * SQL (`AND …` per filter) that the page whose id is `pageId` satisfies every condition; values
 * bound into `params` under `f<i>…`. Naming the id of the walk's driving row (not `p.id`) lets
 * SQLite check the filters on the small metadata rows before it reads a page row. Each check
 * must stay a primary-key lookup (page_id, key, pos): NOT INDEXED keeps the (key, t, v) index
 * out, and LIMIT 1 keeps SQLite from turning the EXISTS into a join that scans that index instead.
 */
export function compileFilters(conditions: Condition[], params: Params, pageId = 'p.id'): string {
  return conditions
    .map((c, i) => {
      const name = `f${i}`;
      if (isKeyOnly(c)) {
        params[`${name}k`] = c.key;
        const has = `EXISTS (SELECT 1 FROM page_meta m NOT INDEXED WHERE m.page_id = ${pageId} AND m.key = @${name}k LIMIT 1)`;
        return ` AND ${c.op === 'missing' ? 'NOT ' : ''}${has}`;
      }
      const has = `EXISTS (SELECT 1 FROM page_meta m NOT INDEXED WHERE m.page_id = ${pageId} AND ${rowCondition(c, 'm', name, params)} LIMIT 1)`;
      // neq is the exact negation of eq: it also holds when the key is missing.
      return ` AND ${c.op === 'neq' ? 'NOT ' : ''}${has}`;
    })
    .join('');
}

/**
 * A condition that can drive a query from the (key, t, v) index: the page_meta rows (alias `d`)
 * it selects. null for neq and missing, which hold for pages without rows.
 */
export function compileDriver(c: Condition, params: Params, name = 'drv', alias = 'd'): string | null {
  if (c.op === 'neq' || c.op === 'missing') return null;
  if (isKeyOnly(c)) {
    params[`${name}k`] = c.key;
    return `${alias}.key = @${name}k`;
  }
  return rowCondition(c, alias, name, params);
}
