// The endpoint table: every route of the HTTP API, declared once (src/http/endpoint.ts). The app
// (src/http/router.ts), /openapi.json, the response check of the tests and the fuzzer read it.
// A feature adds its own array here.
import { mcpEndpoints } from '../mcp/http.ts';
import type { AnyEndpoint } from './endpoint.ts';
import { adminEndpoints } from './routes/admin.ts';
import { bundleEndpoints } from './routes/bundles.ts';
import { linkEndpoints } from './routes/links.ts';
import { pageEndpoints } from './routes/pages.ts';
import { recordEndpoints } from './routes/records.ts';
import { searchEndpoints } from './routes/search.ts';
import { spaceEndpoints } from './routes/spaces.ts';
import { spaceTemplateEndpoints } from './routes/space-templates.ts';
import { templateEndpoints } from './routes/templates.ts';
import { webhookEndpoints } from './routes/webhooks.ts';

export const endpoints: AnyEndpoint[] = [
  ...adminEndpoints, ...spaceEndpoints, ...pageEndpoints, ...bundleEndpoints, ...spaceTemplateEndpoints,
  ...templateEndpoints, ...recordEndpoints, ...webhookEndpoints, ...searchEndpoints, ...linkEndpoints, ...mcpEndpoints,
];
