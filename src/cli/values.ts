// Pure parsing of what people type on the command line: `key=value` metadata assignments and
// `--where` expressions for metadata queries.

export type MetaScalar = string | number | boolean;
type MetaValue = MetaScalar | MetaScalar[];
export type Filter = { key: string; op: string; value?: MetaValue };

export class ParseError extends Error {}

const KEY = /^[A-Za-z0-9_.-]{1,64}$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * A value typed by its look: integers and decimals become numbers, `true`/`false` booleans, a
 * JSON array a list; anything else — dates included, which the server recognises itself — stays a
 * string. Quotes force a string: `"42"` is the text 42. Leading zeros (`007`) stay text.
 */
export function typeValue(raw: string): MetaValue {
  const quoted = /^"(.*)"$|^'(.*)'$/s.exec(raw);
  if (quoted) return quoted[1] ?? quoted[2];
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (NUMBER.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  if (raw.startsWith('[') && raw.endsWith(']')) {
    try {
      const list: unknown = JSON.parse(raw);
      if (Array.isArray(list) && list.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) return list as MetaScalar[];
    } catch {
      // not JSON: the text itself
    }
  }
  return raw;
}

function checkKey(key: string, source: string): string {
  if (!KEY.test(key)) throw new ParseError(`'${source}': a key is 1–64 letters, digits, '_', '.' or '-'`);
  return key;
}

/** `key=value` → [key, typed value]. */
export function parseAssignment(text: string): [string, MetaValue] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new ParseError(`'${text}' is not key=value`);
  return [checkKey(text.slice(0, eq).trim(), text), typeValue(text.slice(eq + 1))];
}

/** Many `key=value` into one object; a later key wins. */
export function parseAssignments(texts: string[]): Record<string, MetaValue> {
  const out: Record<string, MetaValue> = {};
  for (const t of texts) {
    const [k, v] = parseAssignment(t);
    out[k] = v;
  }
  return out;
}

const COMPARISON = /^\s*([^\s=!<>]+)\s*(!=|>=|<=|==|=|>|<)\s*(.*?)\s*$/s;
const WORD = /^\s*([A-Za-z0-9_.-]+)\s+(in|contains|exists|missing)(?:\s+(.*?))?\s*$/is;
const SYMBOL_OPS: Record<string, string> = { '=': 'eq', '==': 'eq', '!=': 'neq', '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' };

/**
 * One `--where` expression as a metadata filter `{key, op, value}`:
 * `stage=todo`, `stage!=done`, `points>=3` (also `>`, `<`, `<=`), `stage in todo,doing`,
 * `tags contains x`, `due exists`, `due missing`.
 */
export function parseWhere(expr: string): Filter {
  const word = WORD.exec(expr);
  if (word) {
    const key = checkKey(word[1], expr);
    const op = word[2].toLowerCase();
    const rest = word[3] ?? '';
    if (op === 'exists' || op === 'missing') {
      if (rest !== '') throw new ParseError(`'${expr}': ${op} takes no value`);
      return { key, op };
    }
    if (rest === '') throw new ParseError(`'${expr}': ${op} needs a value`);
    if (op === 'contains') return { key, op, value: typeValue(rest) as MetaScalar };
    const values = splitList(rest);
    if (values.length === 0) throw new ParseError(`'${expr}': in needs a comma-separated list of values`);
    return { key, op: 'in', value: values.map((v) => typeValue(v) as MetaScalar) };
  }
  const cmp = COMPARISON.exec(expr);
  if (cmp) {
    const key = checkKey(cmp[1], expr);
    if (cmp[3] === '') throw new ParseError(`'${expr}': nothing to compare with after '${cmp[2]}'`);
    return { key, op: SYMBOL_OPS[cmp[2]], value: typeValue(cmp[3]) };
  }
  throw new ParseError(
    `'${expr}' is not a filter; try key=value, key!=value, key>=3, 'key in a,b', 'key contains x', 'key exists' or 'key missing'`,
  );
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
