import type * as v from 'valibot';
import type { Issue } from '../model.ts';

// valibot issues → issues written for people. valibot's own messages ("Invalid key: Expected
// never but received \"sett\"") describe the validator, not the request; every 400 says what is
// wrong with the field in the request's own terms, and for an unknown field which ones exist.
// A message the schema spelled out itself (not valibot's default "Invalid …") is kept.

type SchemaLike = {
  type?: string;
  entries?: Record<string, SchemaLike>;
  item?: SchemaLike;
  wrapped?: SchemaLike;
  options?: unknown[];
  requirement?: unknown;
};

/** One issue of parsing `root` (the schema the whole input was parsed with, when known). */
export function toIssue(i: v.BaseIssue<unknown>, root?: v.GenericSchema): Issue {
  const path = i.path ?? [];
  const key = path.map((p) => String(p.key)).join('.') || 'body';
  const own = i.message.startsWith('Invalid ') ? null : i.message;
  if (i.kind === 'schema' && i.expected === 'never' && path.length > 0 && path[path.length - 1].origin === 'key') {
    const name = String(path[path.length - 1].key);
    const allowed = Object.keys(schemaAt(root as SchemaLike | undefined, path.slice(0, -1))?.entries ?? {});
    return { key, code: 'undeclared', message: `unknown field \`${name}\`${allowed.length ? `; expected ${listOf(allowed)}` : ''}` };
  }
  if (i.received === 'undefined') return { key, code: 'required', message: own ?? 'is required' };
  if (i.kind === 'schema') {
    const code = i.type === 'picklist' || i.type === 'literal' || i.type === 'enum' ? 'option' : 'type';
    return { key, code, message: own ?? typeMessage(i) };
  }
  const code = i.type.startsWith('min_') ? 'min' : i.type.startsWith('max_') ? 'max' : 'format';
  return { key, code, message: own ?? validationMessage(i) };
}

function typeMessage(i: v.BaseIssue<unknown>): string {
  switch (i.type) {
    case 'string':
      return 'must be a string';
    case 'number':
      return 'must be a number';
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return 'must be a list';
    case 'object':
    case 'strict_object':
    case 'loose_object':
    case 'record':
      return 'must be an object';
    case 'picklist':
    case 'literal':
    case 'enum': {
      // valibot writes the options as '("a" | "b")'.
      const options = (i.expected ?? '')
        .replace(/^\((.*)\)$/, '$1')
        .split(' | ')
        .filter(Boolean);
      return options.length === 1
        ? `must be ${options[0]}`
        : options.length
          ? `must be one of ${options.join(', ')}`
          : 'is not one of the allowed values';
    }
    default:
      return `has the wrong type${i.expected ? ` (expected ${i.expected})` : ''}`;
  }
}

function validationMessage(i: v.BaseIssue<unknown>): string {
  const n = i.requirement;
  const text = typeof i.input === 'string';
  switch (i.type) {
    case 'min_value':
      return `must be at least ${String(n)}`;
    case 'max_value':
      return `must be at most ${String(n)}`;
    case 'min_length':
      return `must have at least ${plural(Number(n), text ? 'character' : 'item')}`;
    case 'max_length':
      return `must have at most ${plural(Number(n), text ? 'character' : 'item')}`;
    case 'length':
      return `must have exactly ${plural(Number(n), text ? 'character' : 'item')}`;
    case 'integer':
      return 'must be a whole number';
    case 'url':
      return 'must be a URL';
    case 'email':
      return 'must be an email address';
    case 'regex':
      return 'has the wrong format';
    default:
      return 'is not valid';
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "`a`", "`a` or `b`", "one of `a`, `b`, `c`". */
function listOf(names: string[]): string {
  const q = names.map((n) => `\`${n}\``);
  if (q.length <= 2) return q.join(' or ');
  return `one of ${q.join(', ')}`;
}

/** The object or array schema at `path` below `root`, through optional/nullable wrappers. */
function schemaAt(root: SchemaLike | undefined, path: ReadonlyArray<{ key?: unknown }>): SchemaLike | undefined {
  let s = unwrap(root);
  for (const p of path) {
    if (!s) return undefined;
    s = unwrap(s.entries ? s.entries[String(p.key)] : s.item);
  }
  return s;
}

function unwrap(s: SchemaLike | undefined): SchemaLike | undefined {
  while (s && s.wrapped) s = s.wrapped;
  return s;
}
