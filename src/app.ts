import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler, type H3 } from 'h3';
import type { Services } from './services.ts';
import { endpoints } from './http/endpoints.ts';
import { directPageRead } from './http/page-read.ts';
import { buildApp } from './http/router.ts';
import { registerWebAppRoutes } from './http/routes/web-app.ts';
import { noteEvent } from './http/request-notes.ts';

/** The HTTP application over injected services, built from the endpoint table; no side effects on import. */
export function createApp(svc: Services): H3 {
  // The web app's files (/, /app/…) are not API endpoints: served beside the table, not in /openapi.json.
  return buildApp(svc, endpoints, { onRequest: noteEvent, files: (app) => registerWebAppRoutes(app, svc) });
}

/**
 * The Node request handler: page reads answered directly where they can be (src/http/page-read.ts),
 * everything else by the h3 app. `wrap` guards the h3 handler (server.ts).
 */
export function createNodeHandler(
  svc: Services,
  wrap: (h: (req: IncomingMessage, res: ServerResponse) => unknown) => (req: IncomingMessage, res: ServerResponse) => unknown = (h) => h,
) {
  const app = wrap(toNodeHandler(createApp(svc)));
  const direct = directPageRead(svc, endpoints);
  return (req: IncomingMessage, res: ServerResponse): unknown => direct(req, res) || app(req, res);
}
