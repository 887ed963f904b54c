import type { Issue } from '../issues.ts';
import { checkKey, typed } from '../metadata.ts';
import type { Condition, TypedValue } from '../../store/records.ts';

// The `filters` parameter of the records query: a JSON array of {key, op, value}, AND-ed.
// Pure: it validates and types the values as the metadata index stores them (dates as epoch
// ms), and store/records.ts binds them. A stand-in with the same ops as GET /search/metadata
// until the shared filter compiler replaces it.

export const FILTER_OPS = ['eq', 'neq', 'exists', 'missing', 'gt', 'gte', 'lt', 'lte', 'contains', 'in'] as const;
export const MAX_FILTERS = 20;
export const MAX_IN_VALUES = 100;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Parses and checks `filters` (null or '' means none); every problem is an issue naming its element. */
export function parseFilters(raw: string | null): { conditions: Condition[]; issues: Issue[] } {
  const conditions: Condition[] = [];
  const issues: Issue[] = [];
  if (raw === null || raw.trim() === '') return { conditions, issues };
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { conditions, issues: [{ key: 'filters', code: 'format', message: 'filters is a JSON array of {key, op, value}' }] };
  }
  if (!Array.isArray(data)) return { conditions, issues: [{ key: 'filters', code: 'type', message: 'filters is a JSON array of {key, op, value}' }] };
  if (data.length > MAX_FILTERS) return { conditions, issues: [{ key: 'filters', code: 'max', message: `at most ${MAX_FILTERS} filters` }] };
  data.forEach((f, i) => {
    const at = `filters[${i}]`;
    if (!isObject(f)) {
      issues.push({ key: at, code: 'type', message: 'a filter is an object {key, op, value}' });
      return;
    }
    const c = parseFilter(f, at, issues);
    if (c) conditions.push(c);
  });
  return { conditions, issues };
}

function parseFilter(f: Record<string, unknown>, at: string, issues: Issue[]): Condition | null {
  const before = issues.length;
  const key = f.key;
  if (typeof key !== 'string') issues.push({ key: `${at}.key`, code: key === undefined ? 'required' : 'type', message: 'key names a metadata key' });
  else {
    const issue = checkKey(key, `${at}.key`);
    if (issue) issues.push(issue);
  }
  const op = f.op;
  if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
    issues.push({ key: `${at}.op`, code: op === undefined ? 'required' : 'option', message: `op is one of: ${FILTER_OPS.join(', ')}` });
    return null;
  }
  const value = f.value;
  const bad = (message: string) => issues.push({ key: `${at}.value`, code: value === undefined ? 'required' : 'type', message });
  let condition: Condition | null = null;
  switch (op) {
    case 'exists':
    case 'missing':
      condition = { op, key: key as string };
      break;
    case 'eq':
    case 'neq':
    case 'contains':
      if (!isScalar(value)) bad(`${op} compares with a string, number, boolean or ISO date`);
      else condition = { op, key: key as string, value: typed(value) };
      break;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (typeof value === 'boolean' || !isScalar(value)) bad(`${op} compares with a number, an ISO date or a string`);
      else condition = { op, key: key as string, value: typed(value) };
      break;
    case 'in': {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) {
        bad('in takes a non-empty list of strings, numbers, booleans or ISO dates');
      } else if (value.length > MAX_IN_VALUES) {
        issues.push({ key: `${at}.value`, code: 'max', message: `in takes at most ${MAX_IN_VALUES} values` });
      } else {
        condition = { op, key: key as string, values: dedupe(value.map(typed)) };
      }
      break;
    }
  }
  return issues.length > before ? null : condition;
}

function dedupe(values: TypedValue[]): TypedValue[] {
  const seen = new Set<string>();
  return values.filter((tv) => {
    const id = `${tv.t}:${tv.v}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
