import * as v from 'valibot';
import { MAX_LINK_LIMIT, brokenLinksOf, isBrokenCursor, isLinksCursor, pageLinks } from '../../domain/links/link-index.ts';
import { indexList, rebuildAllForLinks, rebuildIndexes } from '../../domain/indexes/rebuild.ts';
import { BrokenLinks, IndexesRebuilt, PageLinks, RebuildResult } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { PAGE_PREFIX } from '../page-paths.ts';
import { documentAs } from '../json-schema.ts';
import { json } from '../respond.ts';
import { cursor, limit, nextLink, SlugParams } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';
import { PageParams } from './pages.ts';

const LinkLimit = limit(MAX_LINK_LIMIT);

export const linkEndpoints = [
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/links`,
    tag: 'links',
    auth: 'key',
    params: PageParams,
    query: v.object({ limit: LinkLimit, cursor: cursor(isLinksCursor) }),
    summary: "A page's outbound links and backlinks, paged together",
    description: 'The next page is in `nextCursor` and in a `Link: <…>; rel="next"` header.',
    responses: [{ status: 200, schema: PageLinks }],
    handler: ({ svc, caller, params, query, event }) => {
      const r = pageLinks(svc, caller, params.space, params.path, { limit: query.limit, after: query.cursor });
      const nextCursor = r.next && encodeCursor(svc, r.next);
      return json(
        { outbound: r.outbound, backlinks: r.backlinks, nextCursor },
        200,
        nextCursor ? { link: nextLink(event.url, nextCursor) } : undefined,
      );
    },
  }),
  // The contract fixes this answer as a bare array: the next page is in a Link header.
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/links/broken',
    tag: 'links',
    auth: 'key',
    params: SlugParams,
    query: v.object({ limit: LinkLimit, cursor: cursor(isBrokenCursor) }),
    summary: "Links from a space's readable pages to absent pages",
    description: 'A bare array; the next page is in a `Link: <…>; rel="next"` header.',
    responses: [{ status: 200, schema: BrokenLinks }],
    handler: ({ svc, caller, params, query, event }) => {
      const r = brokenLinksOf(svc, caller, params.slug, { limit: query.limit, after: query.cursor });
      return json(r.links, 200, r.next ? { link: nextLink(event.url, encodeCursor(svc, r.next)) } : undefined);
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admin/indexes/rebuild',
    tag: 'links',
    auth: 'admin',
    query: v.object({
      index: documentAs(v.optional(v.string()), {
        type: 'string',
        description: `only this index (and those derived from it): one of ${indexList()}; absent: every index`,
      }),
    }),
    summary: "Rebuild the organisation's derived indexes from its pages",
    description: 'Answers the indexes rebuilt and the live pages re-indexed page by page. An unknown `index` is a 400 naming `index`.',
    responses: [{ status: 200, schema: IndexesRebuilt }],
    handler: async ({ svc, caller, query }) => json(await rebuildIndexes(svc, caller, query.index)),
  }),
  // The older address: every index rebuilt, answered with the organisation's link count.
  endpoint({
    method: 'POST',
    path: '/links/rebuild',
    tag: 'links',
    auth: 'admin',
    summary: 'Rebuild every derived index of the organisation (POST /admin/indexes/rebuild under its older address)',
    responses: [{ status: 200, schema: RebuildResult }],
    handler: async ({ svc, caller }) => json(await rebuildAllForLinks(svc, caller)),
  }),
];
