import type { H3 } from 'h3';
import type { Services } from '../../services.ts';
import { listRecordTypes } from '../../domain/records/listing.ts';
import { isRecordCursor, listNonconforming, listRecords } from '../../domain/records/query.ts';
import { encodeCursor, readCursor, readLimit } from '../query.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

export function registerRecordRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/spaces/:slug/record-types', ({ caller, params }) => json(listRecordTypes(svc, caller, params.slug)));

  on(app, svc, 'GET', '/spaces/:slug/records/:type', ({ caller, params, url }) => {
    const q = url.searchParams;
    const { pages, next } = listRecords(svc, caller, params.slug, params.type, {
      filters: q.get('filters'),
      orderBy: q.get('orderBy') || null,
      order: q.get('order') || null,
      limit: readLimit(url),
      cursor: readCursor(url, isRecordCursor),
    });
    return json({ pages, nextCursor: next === null ? null : encodeCursor(next) });
  });

  on(app, svc, 'GET', '/spaces/:slug/records/:type/nonconforming', ({ caller, params }) =>
    json(listNonconforming(svc, caller, params.slug, params.type)));
}
