// Metadata filters: `filters` is a JSON array of {key, op, value}, AND-ed. Pure: parseFilters
// validates and types the values the way the metadata index stores them (typed(): dates as
// epoch ms, booleans as 0/1), and compileFilters turns them into SQL over page_meta whose only
// variable parts are bound parameters. No user text ever becomes SQL.
import type { Issue } from '../issues.ts';
import { checkKey, typed } from '../metadata.ts';

export const FILTER_OPS = ['eq', 'neq', 'exists', 'missing', 'gt', 'gte', 'lt', 'lte', 'contains', 'in'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
export const MAX_FILTERS = 20;
export const MAX_IN_VALUES = 100;

export type { Condition, MetaType, Params, TypedValue } from '../../model.ts';
import type { Condition, Params, TypedValue } from '../../model.ts';

const FILTER_FIELDS = new Set(['key', 'op', 'value']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Parses `filters` (null or blank: none); each problem is an issue naming its filter, e.g. `filters[1].op`. */
export function parseFilters(raw: string | null): { conditions: Condition[]; issues: Issue[] } {
  const conditions: Condition[] = [];
  if (raw === null || raw.trim() === '') return { conditions, issues: [] };
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { conditions, issues: [{ key: 'filters', code: 'format', message: 'filters is a URL-encoded JSON array of {key, op, value}' }] };
  }
  if (!Array.isArray(data)) return { conditions, issues: [{ key: 'filters', code: 'type', message: 'filters is a JSON array of {key, op, value}' }] };
  if (data.length > MAX_FILTERS) return { conditions, issues: [{ key: 'filters', code: 'max', message: `at most ${MAX_FILTERS} filters` }] };
  const issues: Issue[] = [];
  data.forEach((f, i) => {
    const c = parseFilter(f, `filters[${i}]`, issues);
    if (c) conditions.push(c);
  });
  return { conditions: issues.length ? [] : conditions, issues };
}

function parseFilter(f: unknown, at: string, issues: Issue[]): Condition | null {
  if (!isObject(f)) {
    issues.push({ key: at, code: 'type', message: 'a filter is an object {key, op, value}' });
    return null;
  }
  const before = issues.length;
  for (const name of Object.keys(f)) {
    if (!FILTER_FIELDS.has(name)) issues.push({ key: `${at}.${name}`, code: 'undeclared', message: 'a filter has only key, op and value' });
  }
  const { key, op, value } = f;
  if (typeof key !== 'string') {
    issues.push({ key: `${at}.key`, code: key === undefined ? 'required' : 'type', message: 'key names a metadata key' });
  } else {
    const issue = checkKey(key, `${at}.key`);
    if (issue) issues.push(issue);
  }
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
    issues.push({ key: `${at}.op`, code: op === undefined ? 'required' : 'option', message: `op is one of ${FILTER_OPS.join(', ')}` });
    return null;
  }
  const bad = (message: string) => issues.push({ key: `${at}.value`, code: value === undefined ? 'required' : 'type', message });
  let c: Condition | null = null;
  const k = key as string;
  switch (op as FilterOp) {
    case 'exists':
    case 'missing':
      // No operand; `true` and null are tolerated as "no value", anything else is a mistake.
      if (value !== undefined && value !== null && value !== true) {
        issues.push({ key: `${at}.value`, code: 'type', message: `${op} takes no value` });
      } else c = { op: op as 'exists' | 'missing', key: k };
      break;
    case 'eq':
    case 'neq':
    case 'contains':
      if (!isScalar(value)) bad(`${op} compares with a string, number, boolean or ISO date`);
      else c = { op: op as 'eq', key: k, value: typed(value) };
      break;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (typeof value === 'boolean' || !isScalar(value)) bad(`${op} compares with a number, an ISO date or a string`);
      else c = { op: op as 'gt', key: k, value: typed(value) };
      break;
    case 'in':
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) {
        bad('in takes a non-empty list of strings, numbers, booleans or ISO dates');
      } else if (value.length > MAX_IN_VALUES) {
        issues.push({ key: `${at}.value`, code: 'max', message: `in takes at most ${MAX_IN_VALUES} values` });
      } else c = { op: 'in', key: k, values: dedupe(value.map(typed)) };
      break;
  }
  return issues.length > before ? null : c;
}

function dedupe(values: TypedValue[]): TypedValue[] {
  const seen = new Set<string>();
  return values.filter((tv) => {
    const id = `${tv.t}:${typeof tv.v}:${tv.v}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

type ValueCondition = Exclude<Condition, { op: 'exists' | 'missing' }>;
const isKeyOnly = (c: Condition): c is Extract<Condition, { op: 'exists' | 'missing' }> => c.op === 'exists' || c.op === 'missing';
const CMP = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * The rows of page_meta (alias `alias`) that satisfy a condition on their own, as SQL whose
 * values are bound into `params` under names starting with `name`. Semantics:
 * eq/in/gt…: the key's scalar value (pos -1), compared within its type, so numbers compare
 * numerically and dates chronologically; contains: an item of the key's list (pos ≥ 0).
 */
function rowCondition(c: ValueCondition, alias: string, name: string, params: Params): string {
  params[`${name}k`] = c.key;
  const head = `${alias}.key = @${name}k`;
  const bind = (tv: TypedValue, n: string) => {
    params[`${n}t`] = tv.t;
    params[`${n}v`] = tv.v;
    return `${alias}.t = @${n}t AND ${alias}.v = @${n}v`;
  };
  switch (c.op) {
    case 'eq':
    case 'neq':
      return `${head} AND ${alias}.pos = -1 AND ${bind(c.value, name)}`;
    case 'contains':
      return `${head} AND ${alias}.pos >= 0 AND ${bind(c.value, name)}`;
    case 'in':
      // Each alternative whole, so that SQLite can look each one up in the (key, t, v) index.
      return `(${c.values.map((tv, j) => `(${head} AND ${alias}.pos = -1 AND ${bind(tv, `${name}_${j}`)})`).join(' OR ')})`;
    default:
      params[`${name}t`] = c.value.t;
      params[`${name}v`] = c.value.v;
      return `${head} AND ${alias}.pos = -1 AND ${alias}.t = @${name}t AND ${alias}.v ${CMP[c.op]} @${name}v`;
  }
}

/**
 * SQL (`AND …` per filter) that the page whose id is `pageId` satisfies every condition; values
 * bound into `params`. Naming the id of the walk's driving row (not `p.id`) lets SQLite check
 * the filters on the small metadata rows before it reads a page row. Each check must stay a
 * primary-key lookup (page_id, key, pos): NOT INDEXED keeps the (key, t, v) index out, and
 * LIMIT 1 keeps SQLite from turning the EXISTS into a join that scans that index instead.
 */
export function compileFilters(conditions: Condition[], params: Params, pageId = 'p.id'): string {
  return conditions.map((c, i) => {
    const name = `f${i}`;
    if (isKeyOnly(c)) {
      params[`${name}k`] = c.key;
      const has = `EXISTS (SELECT 1 FROM page_meta m NOT INDEXED WHERE m.page_id = ${pageId} AND m.key = @${name}k LIMIT 1)`;
      return ` AND ${c.op === 'missing' ? 'NOT ' : ''}${has}`;
    }
    const has = `EXISTS (SELECT 1 FROM page_meta m NOT INDEXED WHERE m.page_id = ${pageId} AND ${rowCondition(c, 'm', name, params)} LIMIT 1)`;
    // neq is the exact negation of eq: it also holds when the key is missing.
    return ` AND ${c.op === 'neq' ? 'NOT ' : ''}${has}`;
  }).join('');
}

/**
 * A condition that can drive a query from the (key, t, v) index: the page_meta rows (alias `d`)
 * it selects. null for neq and missing, which hold for pages without rows.
 */
export function compileDriver(c: Condition, params: Params, name = 'drv'): string | null {
  if (c.op === 'neq' || c.op === 'missing') return null;
  if (isKeyOnly(c)) {
    params[`${name}k`] = c.key;
    return `d.key = @${name}k`;
  }
  return rowCondition(c, 'd', name, params);
}
