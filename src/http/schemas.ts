// Schemas shared by many endpoints: the list parameters (limit, cursor), query flags, path
// parameters and the answers several endpoints give. A query value arrives as a string (the first
// one when a name repeats); an empty value counts as absent.
import * as v from 'valibot';
import type { JsonSchema } from '@valibot/to-json-schema';
import { documentAs } from './json-schema.ts';
import { findInvisible } from '../domain/paths.ts';

/** `limit` 1–`max`, default `byDefault` (50). */
export function limit(max: number, byDefault = 50) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.check((s) => s === '' || (/^\d{1,7}$/.test(s) && Number(s) >= 1 && Number(s) <= max), `limit is a whole number from 1 to ${max}`),
      v.transform((s) => (s === '' ? byDefault : Number(s))),
    ),
    { type: 'integer', minimum: 1, maximum: max, default: byDefault, description: 'page size' },
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

/**
 * `cursor`: the `nextCursor` of the previous answer, checked by `check`; absent → null. The
 * router has opened the sealed cursor by then (src/http/cursor-seal.ts): the value here is the
 * position's JSON.
 */
export function cursor<T>(check: (x: unknown) => x is T) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.rawTransform(({ dataset, addIssue, NEVER }): T | null => {
        const raw = dataset.value;
        if (raw === '') return null;
        try {
          const decoded: unknown = JSON.parse(raw);
          if (check(decoded)) return decoded;
        } catch {
          // falls through to the issue
        }
        addIssue({ message: 'the cursor is not one this server issued' });
        return NEVER;
      }),
    ),
    { type: 'string', description: 'the `nextCursor` of the previous page (opaque)' },
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

/** An optional text parameter: absent or empty → null; `json` is what the document shows of it. */
export function optionalText(json: JsonSchema = { type: 'string' }) {
  return documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.transform((s) => (s === '' ? null : s)),
    ),
    json,
  );
}

/** A path parameter: a non-empty text (what it names is looked up, so a bad one is a 404). */
export const Segment = v.pipe(v.string(), v.minLength(1));

/**
 * What a space slug looks like (src/domain/paths.ts): a shared space's slug, or `~` and a
 * principal's name for a personal space. A slug of another shape names no space: 404.
 */
export const SLUG_PATTERN = '^(?:[a-z0-9][a-z0-9-]{0,62}|~[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$';
/** A `space` filter of a query: a slug, or empty (the same as absent: every space). */
export const SPACE_FILTER_PATTERN = '^(?:|[a-z0-9][a-z0-9-]{0,62}|~[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$';
/** What the server's ids look like: `p_…`, `k_…`, `wh_…` and template ids. Another shape names nothing: 404. */
const ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
/** A metadata key (src/domain/metadata.ts META_KEY). */
export const META_KEY_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

export const Slug = documentAs(v.pipe(v.string(), v.minLength(1)), { type: 'string', pattern: SLUG_PATTERN });
const Id = documentAs(v.pipe(v.string(), v.minLength(1)), { type: 'string', pattern: ID_PATTERN });
export const SlugParams = v.object({ slug: Slug });
export const IdParams = v.object({ id: Id });

/** A page path in a body (`from`, `to`, `path`): checked by the page-path rules, which name the field. */
export const PagePathField = documentAs(v.string(), {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  description: "a page path: '/'-separated segments, no empty, '.' or '..' segment",
});

/** A metadata object in a body: keys match META_KEY_PATTERN; values scalars or lists of scalars. */
export const MetadataField = documentAs(jsonObject(), {
  type: 'object',
  propertyNames: { pattern: META_KEY_PATTERN },
  additionalProperties: {
    anyOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array', items: { type: ['string', 'number', 'boolean'] } }],
  },
});
/** A display name (a space's, an org template's): 1–200 characters once trimmed, none of them invisible (paths.ts). */
export const DisplayName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1),
  v.maxLength(200),
  v.check(
    (s) => findInvisible(s) === null,
    (i) => `a name may not contain invisible characters (${findInvisible(String(i.input))})`,
  ),
);

/** A JSON object (not an array, not null). */
export const JsonObject = jsonObject();

/** A fresh JSON-object schema, for a field the document shows more of (documentAs is per schema object). */
export function jsonObject() {
  return documentAs(
    v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object'),
    { type: 'object' },
  );
}

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

/** `filters`: a URL-encoded JSON array of {key, op, value}, AND-ed (src/domain/search/filters.ts). */
export const Filters = documentAs(v.optional(v.string()), {
  type: 'string',
  description:
    'a URL-encoded JSON array of {key, op, value} (op: eq, neq, exists, missing, gt, gte, lt, lte, contains, in), at most 20, AND-ed',
  contentMediaType: 'application/json',
  contentSchema: {
    type: 'array',
    maxItems: 20,
    items: {
      type: 'object',
      required: ['key', 'op'],
      additionalProperties: false,
      properties: {
        key: { type: 'string', pattern: META_KEY_PATTERN },
        op: { enum: ['eq', 'neq', 'exists', 'missing', 'gt', 'gte', 'lt', 'lte', 'contains', 'in'] },
        value: {},
      },
    },
  },
} as JsonSchema);
/** `orderBy`: a metadata key. */
export const OrderBy = documentAs(v.optional(v.string()), {
  type: 'string',
  pattern: META_KEY_PATTERN,
  description: 'the metadata key to order by',
});
/** `order`: asc (the default) or desc. */
export const Order = documentAs(v.optional(v.string()), { type: 'string', enum: ['asc', 'desc'], description: 'asc (default) or desc' });
