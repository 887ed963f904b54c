// Schemas shared by many endpoints: the list parameters (limit, cursor), query flags, path
// parameters and the answers several endpoints give. A query value arrives as a string (the first
// one when a name repeats); an empty value counts as absent.
import * as v from 'valibot';
import { documentAs } from './json-schema.ts';

/** `limit` 1–`max`, default 50. */
export function limit(max: number) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.check((s) => s === '' || (/^\d{1,7}$/.test(s) && Number(s) >= 1 && Number(s) <= max), `limit is a whole number from 1 to ${max}`),
      v.transform((s) => (s === '' ? 50 : Number(s))),
    ),
    { type: 'integer', minimum: 1, maximum: max, default: 50, description: 'page size' },
  );
}

/** `limit` 1–200, default 50 (contract: Search limits apply to every list). */
export const Limit = limit(200);

/** An RFC 8288 `Link` header value for the next page: this request's URL with `cursor` replaced. */
export function nextLink(url: URL, cursorValue: string): string {
  const q = new URLSearchParams(url.searchParams);
  q.set('cursor', cursorValue);
  return `<${url.pathname}?${q}>; rel="next"`;
}

/** Opaque cursors: base64url JSON that only this server reads back. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** `cursor`: the `nextCursor` of the previous answer, decoded and checked by `check`; absent → null. */
export function cursor<T>(check: (x: unknown) => x is T) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.rawTransform(({ dataset, addIssue, NEVER }): T | null => {
        const raw = dataset.value;
        if (raw === '') return null;
        try {
          const decoded: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
          if (check(decoded)) return decoded;
        } catch {
          // falls through to the issue
        }
        addIssue({ message: 'the cursor is not one this server issued' });
        return NEVER;
      }),
    ),
    { type: 'string', description: 'the `nextCursor` of the previous page' },
  );
}

export const isString = (x: unknown): x is string => typeof x === 'string';
export const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** A flag: absent, '', `false`, `0` → false; `true`, `1` → true. */
export function flag(name: string) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.check((s) => ['', 'false', '0', 'true', '1'].includes(s), `${name} is true or false`),
      v.transform((s) => s === 'true' || s === '1'),
    ),
    { type: 'boolean', default: false },
  );
}

/** An optional text parameter: absent or empty → null. */
export const OptionalText = documentAs(
  v.pipe(v.optional(v.string(), ''), v.transform((s) => (s === '' ? null : s))),
  { type: 'string' },
);

/** A path parameter: a non-empty text (what it names is looked up, so a bad one is a 404). */
export const Segment = v.pipe(v.string(), v.minLength(1));
export const SlugParams = v.object({ slug: Segment });
export const IdParams = v.object({ id: Segment });

/** A JSON object (not an array, not null). */
export const JsonObject = documentAs(
  v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object'),
  { type: 'object' },
);

export const Iso = documentAs(v.string(), { type: 'string', format: 'date-time' });

/** `nextCursor`: pass it back as `cursor` for the next page; null when there is no more. */
export const NextCursor = v.nullable(v.string());

/** RFC 9457 problem details with the stable `code` of the catalogue (src/domain/errors.ts). */
export const Problem = v.looseObject({
  type: v.string(),
  title: v.string(),
  status: v.number(),
  code: v.string(),
  detail: v.optional(v.string()),
  instance: v.optional(v.string()),
  issues: v.optional(v.array(v.object({ key: v.string(), code: v.string(), message: v.string() }))),
});
