// Filters as the address keeps them (the API's JSON) and as the filter builder edits them.
import type { FieldDef } from '../../model.ts';
import type { Filter, FilterOp } from '../api/types.ts';
import type { Scalar } from '../../model.ts';

export const OPS: { op: FilterOp; label: string }[] = [
  { op: 'eq', label: 'is' },
  { op: 'neq', label: 'is not' },
  { op: 'gt', label: '>' },
  { op: 'gte', label: '≥' },
  { op: 'lt', label: '<' },
  { op: 'lte', label: '≤' },
  { op: 'in', label: 'is one of' },
  { op: 'contains', label: 'contains' },
  { op: 'exists', label: 'is set' },
  { op: 'missing', label: 'is not set' },
];

export interface FilterRow {
  key: string;
  op: FilterOp;
  value: string;
}

export function parseFilters(s: string | null): Filter[] {
  if (!s) return [];
  try {
    const v: unknown = JSON.parse(s);
    return Array.isArray(v) ? (v as Filter[]) : [];
  } catch {
    return [];
  }
}

const show = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(', ') : v === undefined ? '' : String(v));
export const toFilterRows = (fs: Filter[]): FilterRow[] => fs.map((f) => ({ key: f.key, op: f.op, value: show(f.value) }));

/** A typed value: by the field's type when known, else by its look (number, boolean, text). */
function typedScalar(s: string, type: string | undefined): Scalar {
  const t = s.trim();
  if (type === 'number') {
    const n = Number(t);
    return t !== '' && Number.isFinite(n) ? n : t;
  }
  if (type === 'boolean') return t === 'true' || t === 'yes';
  if (type === undefined || type === 'any') {
    if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
    if (t === 'true' || t === 'false') return t === 'true';
  }
  return t;
}

export function fromFilterRows(rows: FilterRow[], typeOf: (key: string) => string | undefined): Filter[] {
  return rows
    .filter((r) => r.key.trim())
    .map((r): Filter => {
      if (r.op === 'exists' || r.op === 'missing') return { key: r.key.trim(), op: r.op };
      const type = typeOf(r.key.trim());
      if (r.op === 'in')
        return {
          key: r.key.trim(),
          op: 'in',
          value: r.value
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
            .map((x) => typedScalar(x, type === 'multiselect' || type === 'list' ? 'string' : type)),
        };
      return { key: r.key.trim(), op: r.op, value: typedScalar(r.value, type === 'multiselect' || type === 'list' ? 'string' : type) };
    });
}

export const fieldType =
  (fields: FieldDef[]) =>
  (key: string): string | undefined =>
    fields.find((f) => f.key === key)?.type;
