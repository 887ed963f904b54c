import type { H3 } from 'h3';
import type { Services } from './services.ts';
import { endpoints } from './http/endpoints.ts';
import { buildApp } from './http/router.ts';
import { registerWebAppRoutes } from './http/routes/web-app.ts';
import { noteEvent } from './ops/front.ts';

/** The HTTP application over injected services, built from the endpoint table; no side effects on import. */
export function createApp(svc: Services): H3 {
  // The web app's files (/, /app/…) are not API endpoints: served beside the table, not in /openapi.json.
  return buildApp(svc, endpoints, { onRequest: noteEvent, files: (app) => registerWebAppRoutes(app, svc) });
}
