// A fast reader for the frontmatter most notes have: one `key: value` a line, values plain or
// quoted scalars, `[a, b]` flow lists or `- item` block lists. It answers what the `yaml`
// package (core schema) answers for those, or null for anything else, which the caller then
// hands to `yaml` itself: that library takes ~0.25 ms a note, most of a folder import's time.

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_ .-]*?)[ \t]*:(?:[ \t]+(.*))?$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// A plain scalar this reader may take as it is: no indicator first, no `: ` or ` #` inside.
const PLAIN = /^(?![-?:,[\]{}#&*!|>'"%@`\s])(?:[^:#]|:(?!\s|$)|(?<!\s)#)*(?<![\s])$/;

type Value = string | number | boolean | null | Value[];

/** The frontmatter's properties, or null when it needs the full YAML parser. */
export function parseSimpleYaml(text: string): Record<string, Value> | null {
  const out: Record<string, Value> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = KEY.exec(line);
    if (!m || m[1] === '__proto__' || Object.hasOwn(out, m[1])) return null;
    const raw = m[2]?.trim() ?? '';
    if (raw === '') {
      // A block list follows, or the value is null.
      const items: Value[] = [];
      while (i + 1 < lines.length && /^\s*- /.test(lines[i + 1])) {
        const item = scalar(
          lines[++i]
            .replace(/\r$/, '')
            .replace(/^\s*- /, '')
            .trim(),
        );
        if (item === undefined) return null;
        items.push(item);
      }
      if (i + 1 < lines.length && /^\s/.test(lines[i + 1]) && lines[i + 1].trim() !== '') return null; // a nested map
      out[m[1]] = items.length ? items : null;
      continue;
    }
    if (raw.startsWith('[')) {
      if (!raw.endsWith(']')) return null;
      const inner = raw.slice(1, -1).trim();
      if (inner === '') {
        out[m[1]] = [];
        continue;
      }
      const items: Value[] = [];
      for (const part of inner.split(',')) {
        const item = scalar(part.trim());
        if (item === undefined || (typeof item === 'string' && /[[\]{}]/.test(part))) return null;
        items.push(item);
      }
      out[m[1]] = items;
      continue;
    }
    const v = scalar(raw);
    if (v === undefined) return null;
    out[m[1]] = v;
  }
  return out;
}

/** One scalar, or undefined when this reader does not know it. */
function scalar(s: string): Value | undefined {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (s.startsWith("'")) {
    if (s.length < 2 || !s.endsWith("'")) return undefined;
    const body = s.slice(1, -1);
    if (/'(?!')/.test(body.replace(/''/g, ''))) return undefined;
    return body.replace(/''/g, "'");
  }
  if (s.startsWith('"')) {
    if (s.length < 2 || !s.endsWith('"')) return undefined;
    const body = s.slice(1, -1);
    return body.includes('\\') || body.includes('"') ? undefined : body;
  }
  if (INT.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  if (FLOAT.test(s)) return Number(s);
  if (/^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(s) || /^0[xo]/.test(s)) return undefined;
  return PLAIN.test(s) ? s : undefined;
}
