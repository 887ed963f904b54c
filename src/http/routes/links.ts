import type { H3 } from 'h3';
import type { Services } from '../../services.ts';
import { brokenLinksOf, pageLinks } from '../../domain/links/link-index.ts';
import { rebuildIndexes } from '../../domain/links/rebuild.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';
import { pageSubresources } from './pages.ts';

export function registerLinkRoutes(app: H3, svc: Services): void {
  pageSubresources.set('links', {
    GET: (ctx, t) => json(pageLinks(ctx.svc, ctx.caller, t.space, t.path)),
  });
  on(app, svc, 'GET', '/spaces/:slug/links/broken', ({ caller, params }) => json(brokenLinksOf(svc, caller, params.slug)));
  on(app, svc, 'POST', '/links/rebuild', async ({ caller }) => json(await rebuildIndexes(svc, caller)));
}
