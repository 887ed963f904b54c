// The endpoint table: every route of the HTTP API, declared once (src/http/endpoint.ts). The app
// (src/http/router.ts), /openapi.json, the response check of the tests and the fuzzer read it.
// A feature adds its own array here.
import * as v from 'valibot';
import { FastResponse } from 'srvx';
import { mcpEndpoints } from './routes/mcp.ts';
import { endpoint, type AnyEndpoint } from './endpoint.ts';
import { openApiDocument } from './openapi.ts';
import { adminEndpoints } from './routes/admin.ts';
import { bundleEndpoints } from './routes/bundles.ts';
import { changeEndpoints } from './routes/changes.ts';
import { favouriteEndpoints } from './routes/favourites.ts';
import { fileEndpoints } from './routes/files.ts';
import { linkEndpoints } from './routes/links.ts';
import { moveEndpoints } from './routes/moves.ts';
import { opsEndpoints } from './routes/ops.ts';
import { pageEndpoints } from './routes/pages.ts';
import { recordEndpoints } from './routes/records.ts';
import { renderEndpoints } from './routes/render.ts';
import { searchEndpoints } from './routes/search.ts';
import { sessionEndpoints } from './routes/sessions.ts';
import { spaceEndpoints } from './routes/spaces.ts';
import { spaceTemplateEndpoints } from './routes/space-templates.ts';
import { templateEndpoints } from './routes/templates.ts';
import { webhookEndpoints } from './routes/webhooks.ts';

/** The API's version in the document (the package's). */
const API_VERSION = '0.1.0';

let document: string | null = null;

const openApiEndpoint = endpoint({
  method: 'GET',
  path: '/openapi.json',
  tag: 'meta',
  auth: 'public',
  summary: 'This OpenAPI 3.1 document, generated from the endpoint table',
  responses: [{ status: 200, schema: v.looseObject({ openapi: v.literal('3.1.0'), paths: v.record(v.string(), v.unknown()) }) }],
  handler: () => {
    document ??= JSON.stringify(openApiDocument(endpoints, API_VERSION)); // built on first request, then kept
    return new FastResponse(document, { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' } });
  },
});

export const endpoints: AnyEndpoint[] = [
  openApiEndpoint,
  ...opsEndpoints,
  ...adminEndpoints,
  ...spaceEndpoints,
  ...moveEndpoints,
  ...pageEndpoints,
  ...fileEndpoints,
  ...bundleEndpoints,
  ...spaceTemplateEndpoints,
  ...templateEndpoints,
  ...recordEndpoints,
  ...webhookEndpoints,
  ...searchEndpoints,
  ...linkEndpoints,
  ...mcpEndpoints,
  ...sessionEndpoints,
  ...renderEndpoints,
  ...favouriteEndpoints,
  ...changeEndpoints,
];
