import type { H3 } from 'h3';
import type { Services } from '../../services.ts';
import { searchFullText, isSearchCursor } from '../../domain/search/full-text.ts';
import { discoverKeys } from '../../domain/search/keys.ts';
import { isMetaCursor, searchMetadata } from '../../domain/search/metadata-query.ts';
import { encodeCursor, readCursor, readLimit } from '../query.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

export function registerSearchRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/search', async ({ caller, url }) => {
    const q = url.searchParams;
    await svc.fts.synced(); // every write acknowledged before this request is in the index
    const r = searchFullText(svc, caller, { q: q.get('q'), space: q.get('space'), limit: readLimit(url), cursor: readCursor(url, isSearchCursor) });
    return json({ hits: r.hits, nextCursor: r.next ? encodeCursor(r.next) : null });
  });

  on(app, svc, 'GET', '/search/metadata', ({ caller, url }) => {
    const q = url.searchParams;
    const r = searchMetadata(svc, caller, {
      filters: q.get('filters'), orderBy: q.get('orderBy'), order: q.get('order'), space: q.get('space'),
      limit: readLimit(url), cursor: readCursor(url, isMetaCursor),
    });
    return json({ pages: r.pages, nextCursor: r.next ? encodeCursor(r.next) : null });
  });

  on(app, svc, 'GET', '/search/metadata/keys', ({ caller, url }) => json(discoverKeys(svc, caller, url.searchParams.get('space'))));
}
