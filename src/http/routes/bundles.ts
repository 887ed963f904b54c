import type { H3 } from 'h3';
import { FastResponse } from 'srvx';
import type { Services } from '../../services.ts';
import { parseBundle } from '../../domain/bundles/bundle.ts';
import { openExportStream } from '../../domain/bundles/export.ts';
import { IMPORT_MODES, importBundle, type ImportMode } from '../../domain/bundles/import.ts';
import { invalid } from '../../domain/errors.ts';
import { resolveSpace } from '../../domain/spaces.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

export function registerBundleRoutes(app: H3, svc: Services): void {
  // Requires list access (the space is visible); only pages the caller may read are written.
  on(app, svc, 'GET', '/spaces/:slug/export', ({ caller, params }) => {
    const space = resolveSpace(svc, caller, params.slug);
    const filename = `${space.slug.replace(/[^a-z0-9-]/g, '_')}-export.json`;
    return new FastResponse(openExportStream(svc, caller, space) as never, {
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="${filename}"`,
        'cache-control': 'no-store',
      },
    });
  });

  on(app, svc, 'POST', '/spaces/:slug/import', async ({ caller, params, url, body }) => {
    const mode = readMode(url);
    const bundle = parseBundle(await body(svc.config.limits.importBytes), svc.config.limits);
    const { result } = await importBundle(svc, caller, { slug: params.slug }, bundle, mode);
    return json(result);
  });
}

function readMode(url: URL): ImportMode {
  const raw = url.searchParams.get('mode');
  if (raw === null || raw === '') return 'skip';
  if (!(IMPORT_MODES as readonly string[]).includes(raw)) {
    throw invalid([{ key: 'mode', code: 'option', message: `mode is one of: ${IMPORT_MODES.join(', ')}` }]);
  }
  return raw as ImportMode;
}
