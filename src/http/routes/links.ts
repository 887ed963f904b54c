import type { H3 } from 'h3';
import type { Services } from '../../services.ts';
import { MAX_LINK_LIMIT, brokenLinksOf, isBrokenCursor, isLinksCursor, pageLinks } from '../../domain/links/link-index.ts';
import { rebuildIndexes } from '../../domain/links/rebuild.ts';
import { encodeCursor, nextLink, readCursor, readLimit } from '../query.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';
import { pageSubresources } from './pages.ts';

export function registerLinkRoutes(app: H3, svc: Services): void {
  pageSubresources.set('links', {
    GET: (ctx, t) => {
      const r = pageLinks(ctx.svc, ctx.caller, t.space, t.path, { limit: readLimit(ctx.url, 50, MAX_LINK_LIMIT), after: readCursor(ctx.url, isLinksCursor) });
      const nextCursor = r.next && encodeCursor(r.next);
      return json({ outbound: r.outbound, backlinks: r.backlinks, nextCursor }, 200, nextCursor ? { link: nextLink(ctx.url, nextCursor) } : undefined);
    },
  });
  // The contract fixes this answer as a bare array: the next page is in a Link header.
  on(app, svc, 'GET', '/spaces/:slug/links/broken', ({ caller, params, url }) => {
    const r = brokenLinksOf(svc, caller, params.slug, { limit: readLimit(url, 50, MAX_LINK_LIMIT), after: readCursor(url, isBrokenCursor) });
    return json(r.links, 200, r.next ? { link: nextLink(url, encodeCursor(r.next)) } : undefined);
  });
  on(app, svc, 'POST', '/links/rebuild', async ({ caller }) => json(await rebuildIndexes(svc, caller)));
}
