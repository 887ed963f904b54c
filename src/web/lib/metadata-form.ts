// Metadata as form controls hold it (strings while typing) and back. A value the person typed is
// sent as typed when it cannot be converted, so the server names the problem and nothing is lost.
import type { FieldDef } from '../../model.ts';
import type { Metadata, MetaValue } from '../../model.ts';

export type RawValue = string | boolean | string[];
export type RawValues = Record<string, RawValue>;

function toRaw(field: FieldDef, v: MetaValue | undefined): RawValue {
  switch (field.type) {
    case 'boolean':
      return v === true;
    case 'multiselect':
      return Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)];
    case 'list':
      return Array.isArray(v) ? v.map(String).join('\n') : v === undefined ? '' : String(v);
    case 'date':
      return typeof v === 'string' ? v : '';
    default:
      return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v);
  }
}

/** Initial control values: the page's metadata, else the template's defaults, else the field's default. */
export function initialRaw(fields: FieldDef[], metadata: Metadata = {}, defaults: Metadata = {}): RawValues {
  const out: RawValues = {};
  for (const f of fields) out[f.key] = toRaw(f, metadata[f.key] ?? defaults[f.key] ?? f.default);
  return out;
}

/** Control values → metadata; empty controls are left out (so required fields are reported as such). */
export function fromRaw(fields: FieldDef[], raw: RawValues): Metadata {
  const out: Metadata = {};
  for (const f of fields) {
    const v = raw[f.key];
    if (v === undefined) continue;
    switch (f.type) {
      case 'boolean':
        out[f.key] = v === true;
        break;
      case 'multiselect':
        if (Array.isArray(v) && v.length) out[f.key] = v;
        break;
      case 'list': {
        const items = String(v)
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean);
        if (items.length) out[f.key] = items;
        break;
      }
      case 'number': {
        const s = String(v).trim();
        if (s === '') break;
        const n = Number(s);
        out[f.key] = Number.isFinite(n) ? n : s;
        break;
      }
      default: {
        const s = String(v);
        if (s.trim() !== '') out[f.key] = s;
      }
    }
  }
  return out;
}

// Free metadata (pages that are not records): rows of key, type and value.
export type FreeType = 'text' | 'number' | 'boolean' | 'date' | 'list';
export interface FreeRow {
  key: string;
  type: FreeType;
  value: string;
}

export function toRows(meta: Metadata, skip: string[] = []): FreeRow[] {
  return Object.entries(meta)
    .filter(([k]) => !skip.includes(k))
    .map(([key, v]): FreeRow => {
      if (Array.isArray(v)) return { key, type: 'list', value: v.map(String).join('\n') };
      if (typeof v === 'number') return { key, type: 'number', value: String(v) };
      if (typeof v === 'boolean') return { key, type: 'boolean', value: v ? 'true' : 'false' };
      if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return { key, type: 'date', value: v };
      return { key, type: 'text', value: v };
    });
}

export function fromRows(rows: FreeRow[]): Metadata {
  const out: Metadata = {};
  for (const r of rows) {
    const key = r.key.trim();
    if (!key) continue;
    switch (r.type) {
      case 'number': {
        const n = Number(r.value);
        out[key] = r.value.trim() !== '' && Number.isFinite(n) ? n : r.value;
        break;
      }
      case 'boolean':
        out[key] = r.value === 'true';
        break;
      case 'list':
        out[key] = r.value
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      default:
        out[key] = r.value;
    }
  }
  return out;
}
