// Metadata filters: `filters` is a JSON array of {key, op, value}, AND-ed. Pure: parseFilters
// validates and types the values the way the metadata index stores them (typed(): dates as
// epoch ms, booleans as 0/1); store/meta-filter-sql.ts turns the conditions into SQL over
// page_meta whose only variable parts are bound parameters. No user text ever becomes SQL.
import { checkKey, typed } from '../metadata.ts';

const FILTER_OPS = ['eq', 'neq', 'exists', 'missing', 'gt', 'gte', 'lt', 'lte', 'contains', 'in'] as const;
type FilterOp = (typeof FILTER_OPS)[number];
const MAX_FILTERS = 20;
const MAX_IN_VALUES = 100;

import type { Condition, Issue, TypedValue } from '../../model.ts';

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
  if (!Array.isArray(data))
    return { conditions, issues: [{ key: 'filters', code: 'type', message: 'filters is a JSON array of {key, op, value}' }] };
  if (data.length > MAX_FILTERS)
    return { conditions, issues: [{ key: 'filters', code: 'max', message: `at most ${MAX_FILTERS} filters` }] };
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
