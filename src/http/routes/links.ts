import { brokenLinksOf, pageLinks } from '../../domain/links/link-index.ts';
import { rebuildIndexes } from '../../domain/links/rebuild.ts';
import { BrokenLinks, PageLinks, RebuildResult } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { PAGE_PREFIX } from '../page-paths.ts';
import { json } from '../respond.ts';
import { SlugParams } from '../schemas.ts';
import { PageParams } from './pages.ts';

export const linkEndpoints = [
  endpoint({
    method: 'GET', path: `${PAGE_PREFIX}/links`, tag: 'links', auth: 'key', params: PageParams,
    summary: "A page's outbound links and backlinks",
    responses: [{ status: 200, schema: PageLinks }],
    handler: ({ svc, caller, params }) => json(pageLinks(svc, caller, params.space, params.path)),
  }),
  endpoint({
    method: 'GET', path: '/spaces/:slug/links/broken', tag: 'links', auth: 'key', params: SlugParams,
    summary: "Links from a space's readable pages to absent pages",
    responses: [{ status: 200, schema: BrokenLinks }],
    handler: ({ svc, caller, params }) => json(brokenLinksOf(svc, caller, params.slug)),
  }),
  endpoint({
    method: 'POST', path: '/links/rebuild', tag: 'links', auth: 'admin',
    summary: 'Rebuild the link, metadata and full-text indexes of the organisation',
    responses: [{ status: 200, schema: RebuildResult }],
    handler: async ({ svc, caller }) => json(await rebuildIndexes(svc, caller)),
  }),
];
