import type { H3 } from 'h3';
import type { Services } from '../../services.ts';
import { listTemplates } from '../../domain/records/listing.ts';
import { readBool } from '../query.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

export function registerTemplateRoutes(app: H3, svc: Services): void {
  // Page templates the caller can read across the organisation (a hidden one is never listed).
  on(app, svc, 'GET', '/templates', ({ caller, url }) => {
    const space = url.searchParams.get('space');
    return json(listTemplates(svc, caller, { space: space === null || space === '' ? null : space, includeContent: readBool(url, 'includeContent') }));
  });
}
