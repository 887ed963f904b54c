import * as v from 'valibot';
import { searchFullText, isSearchCursor } from '../../domain/search/full-text.ts';
import { discoverKeys } from '../../domain/search/keys.ts';
import { isMetaCursor, searchMetadata } from '../../domain/search/metadata-query.ts';
import { searchTitles } from '../../domain/search/titles.ts';
import { KeyList, MetaPageList, SearchHits, TitleHits } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json } from '../respond.ts';
import { documentAs, requiredParam } from '../json-schema.ts';
import { cursor, Filters, limit, Limit, Order, OrderBy, SPACE_FILTER_PATTERN } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';

/** `sort=edited`: by last edit, newest first (docs/search.md). */
const Sort = documentAs(v.optional(v.string()), {
  type: 'string',
  enum: ['edited'],
  description: "edited: by last edit (each page's newest revision), newest first unless order=asc; not with orderBy",
});
const Space = documentAs(v.optional(v.string()), {
  type: 'string',
  pattern: SPACE_FILTER_PATTERN,
  description: 'only this space (empty or absent: every space you can read)',
});
/** A required `q` (400 naming q when absent or blank), documented with its longest length. */
const requiredQ = (maxLength: number, description: string) =>
  requiredParam(documentAs(v.optional(v.string()), { type: 'string', minLength: 1, maxLength, pattern: '\\S', description }));
/** `q`: words, "phrases" and prefix* words. */
const Q = requiredQ(1000, 'the words to search for: words, "quoted phrases", prefix* words');
/** `q` of /search/titles: what the person typed so far. */
const TitleQ = requiredQ(200, 'word prefixes of a title, alias or path, as typed');

export const searchEndpoints = [
  endpoint({
    method: 'GET',
    path: '/search/titles',
    tag: 'search',
    auth: 'key',
    query: v.object({ q: TitleQ, space: Space, limit: limit(50, 20) }),
    summary: 'Pages you can read whose title, alias or path words start with the typed words',
    responses: [{ status: 200, schema: TitleHits }],
    handler: ({ svc, caller, query }) =>
      json(searchTitles(svc, caller, { q: query.q ?? null, space: query.space ?? null, limit: query.limit })),
  }),
  endpoint({
    method: 'GET',
    path: '/search',
    tag: 'search',
    auth: 'key',
    query: v.object({ q: Q, space: Space, limit: Limit, cursor: cursor(isSearchCursor) }),
    summary: 'Full-text search over the pages you can read',
    responses: [{ status: 200, schema: SearchHits }],
    handler: async ({ svc, caller, query }) => {
      await svc.fts.synced(); // every write acknowledged before this request is in the index
      const r = await searchFullText(svc, caller, {
        q: query.q ?? null,
        space: query.space ?? null,
        limit: query.limit,
        cursor: query.cursor,
      });
      return json({ hits: r.hits, nextCursor: r.next ? encodeCursor(svc, r.next) : null });
    },
  }),
  endpoint({
    method: 'GET',
    path: '/search/metadata',
    tag: 'search',
    auth: 'key',
    query: v.object({
      filters: Filters,
      orderBy: OrderBy,
      order: Order,
      sort: Sort,
      space: Space,
      limit: Limit,
      cursor: cursor(isMetaCursor),
    }),
    summary: 'Pages whose metadata match filters',
    responses: [{ status: 200, schema: MetaPageList }],
    handler: ({ svc, caller, query }) => {
      const r = searchMetadata(svc, caller, {
        filters: query.filters ?? null,
        orderBy: query.orderBy ?? null,
        order: query.order ?? null,
        space: query.space ?? null,
        limit: query.limit,
        cursor: query.cursor,
        sort: query.sort ?? null,
      });
      return json({ pages: r.pages, nextCursor: r.next ? encodeCursor(svc, r.next) : null });
    },
  }),
  endpoint({
    method: 'GET',
    path: '/search/metadata/keys',
    tag: 'search',
    auth: 'key',
    query: v.object({ space: Space }),
    summary: 'The metadata keys on pages you can read',
    responses: [{ status: 200, schema: KeyList }],
    handler: ({ svc, caller, query }) => json(discoverKeys(svc, caller, query.space ?? null)),
  }),
];
