// The key/type pairs a page contributes to key discovery (meta_key_stats). Pure.
import type { MetaType } from '../../model.ts';

const TYPE_NAMES: Record<MetaType, string> = { s: 'string', n: 'number', b: 'boolean', d: 'date' };

/**
 * `key\ntype` for each key of a page's metadata index rows: type '' (the page has the key), the
 * value's type, and 'list' for a list (whose items add their own types).
 */
export function keyTypes(rows: ReadonlyArray<{ key: string; pos: number; t: string }>): Set<string> {
  const out = new Set<string>();
  for (const r of rows) {
    out.add(`${r.key}\n`);
    out.add(`${r.key}\n${TYPE_NAMES[r.t as MetaType] ?? r.t}`);
    if (r.pos >= 0) out.add(`${r.key}\nlist`);
  }
  return out;
}

/** Pairs in `a` and not in `b`, as [key, type]. */
export function minus(a: Set<string>, b: Set<string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const e of a) {
    if (b.has(e)) continue;
    const nl = e.indexOf('\n');
    out.push([e.slice(0, nl), e.slice(nl + 1)]);
  }
  return out;
}
