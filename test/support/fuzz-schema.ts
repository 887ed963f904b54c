// Values generated from the JSON Schemas of /openapi.json, for the fuzzer (test/support/fuzz.ts):
// `valid` gives values the declaration accepts, `invalid` values that break one declared
// constraint (a type, a pattern, an enum, a length or range, a required or undeclared property).
import fc from 'fast-check';

export type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: { pattern?: string };
  example?: unknown;
  default?: unknown;
};

const MAX_STRING = 40;

/** A string matching `pattern` (and the length bounds), or null when fast-check cannot generate from it. */
function matching(pattern: string, min: number, max: number): fc.Arbitrary<string> | null {
  try {
    const re = new RegExp(pattern);
    return fc.stringMatching(re, { size: 'small' }).filter((s) => s.length >= min && s.length <= max);
  } catch {
    return null; // a pattern fast-check cannot read (a lookahead)
  }
}

function typesOf(s: JsonSchema): string[] | null {
  return Array.isArray(s.type) ? s.type : s.type ? [s.type] : null;
}

/** Values the schema accepts. */
export function valid(s: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x) => valid(x, depth)));
  const types = typesOf(s);
  if (!types) return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((t) => validOfType(t, s, depth)));
}

function validOfType(t: string, s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (t) {
    case 'string': {
      const min = s.minLength ?? 0;
      const max = Math.min(s.maxLength ?? MAX_STRING, Math.max(MAX_STRING, min));
      if (s.format === 'date-time')
        return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.pattern) {
        const m = matching(s.pattern, min, s.maxLength ?? Infinity);
        if (m) return m;
        return s.example === undefined ? fc.string({ minLength: Math.max(min, 1), maxLength: max }) : fc.constant(s.example);
      }
      return fc.string({ minLength: min, maxLength: max });
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
    case 'number':
      return fc.oneof(
        fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: s.minimum, max: s.maximum }),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(s.items ? valid(s.items, depth + 1) : fc.jsonValue({ maxDepth: 1 }), { maxLength: Math.min(s.maxItems ?? 3, 3) });
    case 'object':
      return validObject(s, depth);
    default:
      return fc.constant(null);
  }
}

function validObject(s: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (depth > 3) return fc.constant({});
  const props = s.properties ?? {};
  const required = s.required ?? [];
  const known = fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, depth + 1)])), {
    requiredKeys: required.filter((k) => k in props),
  });
  const extraValue = typeof s.additionalProperties === 'object' ? valid(s.additionalProperties, depth + 1) : fc.jsonValue({ maxDepth: 1 });
  const extraKey = s.propertyNames?.pattern ? matching(s.propertyNames.pattern, 1, 64) : fc.string({ minLength: 1, maxLength: 12 });
  const extra =
    s.additionalProperties === false || !extraKey
      ? fc.constant({})
      : fc.dictionary(
          extraKey.filter((k) => !(k in props) && k !== '__proto__'),
          extraValue,
          { maxKeys: Object.keys(props).length ? 2 : 4 },
        );
  return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }));
}

/** Values that break one declared constraint of the schema (empty when it declares none to break). */
export function invalid(s: JsonSchema): Array<fc.Arbitrary<unknown>> {
  const out: Array<fc.Arbitrary<unknown>> = [];
  const types = typesOf(s) ?? [];
  if (s.enum) out.push(fc.string({ maxLength: 12 }).filter((x) => !s.enum!.includes(x)));
  if (s.const !== undefined) out.push(fc.constant(typeof s.const === 'string' ? `${s.const}x` : 'x'));
  if (types.length && !types.includes('string')) out.push(fc.constantFrom('x', 'true', '1.5'));
  else if (types.length && !types.includes('number') && !types.includes('integer')) out.push(fc.constantFrom(7, -1.5));
  if (s.pattern) {
    const re = new RegExp(s.pattern);
    out.push(
      fc
        .oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', ' ', 'A B', '../x', '~', '-x', 'x'.repeat(200)))
        .filter((x) => !re.test(x)),
    );
  }
  if (s.minLength) out.push(fc.constant(''));
  if (s.maxLength !== undefined && s.maxLength < 10_000) out.push(fc.constant('x'.repeat(s.maxLength + 1)));
  if (types.includes('integer')) {
    out.push(fc.constant(1.5));
    if (s.minimum !== undefined) out.push(fc.integer({ min: s.minimum - 1000, max: s.minimum - 1 }));
    if (s.maximum !== undefined) out.push(fc.integer({ min: s.maximum + 1, max: s.maximum + 1000 }));
  }
  if (types.includes('object') && s.properties) {
    const base = validObject(s, 1);
    for (const k of s.required ?? []) out.push(base.map((o) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k))));
    if (s.additionalProperties === false) out.push(base.map((o) => ({ ...o, undeclaredField: 1 })));
    for (const [k, v] of Object.entries(s.properties)) {
      const bad = invalid(v);
      if (bad.length) out.push(fc.tuple(base, fc.oneof(...bad)).map(([o, x]) => ({ ...o, [k]: x })));
    }
  }
  if (types.includes('object') && s.propertyNames?.pattern) {
    const re = new RegExp(s.propertyNames.pattern);
    out.push(
      fc
        .constantFrom('bad key', 'a/b', 'x'.repeat(65), 'é')
        .filter((k) => !re.test(k))
        .map((k) => ({ [k]: 1 })),
    );
  }
  return out;
}

/** A parameter's value as it travels in a URL or a header. */
export function asParam(x: unknown): string {
  return typeof x === 'string' ? x : JSON.stringify(x);
}
