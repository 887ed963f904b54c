import { H3 } from 'h3';
import type { Services } from './services.ts';
import { AppError } from './domain/errors.ts';
import { problem } from './http/respond.ts';
import { registerAdminRoutes } from './http/routes/admin.ts';
import { registerBundleRoutes } from './http/routes/bundles.ts';
import { registerLinkRoutes } from './http/routes/links.ts';
import { registerPageRoutes } from './http/routes/pages.ts';
import { registerRecordRoutes } from './http/routes/records.ts';
import { registerRenderRoutes } from './http/routes/render.ts';
import { registerSearchRoutes } from './http/routes/search.ts';
import { registerSessionRoutes } from './http/routes/sessions.ts';
import { registerMoveAndTrashRoutes, registerSpaceRoutes } from './http/routes/spaces.ts';
import { registerSpaceTemplateRoutes } from './http/routes/space-templates.ts';
import { registerTemplateRoutes } from './http/routes/templates.ts';
import { registerWebAppRoutes } from './http/routes/web-app.ts';
import { registerWebhookRoutes } from './http/routes/webhooks.ts';
import { registerMcpRoutes } from './mcp/http.ts';
import { noteEvent } from './ops/front.ts';
import { registerOpsRoutes } from './http/routes/ops.ts';

export type RouteModule = (app: H3, svc: Services) => void;

/** Route modules in registration order; each feature adds its own. */
export const routeModules: RouteModule[] = [
  registerOpsRoutes, registerAdminRoutes, registerSpaceRoutes, registerMoveAndTrashRoutes, registerPageRoutes, registerBundleRoutes, registerSpaceTemplateRoutes,
  registerTemplateRoutes, registerRecordRoutes, registerWebhookRoutes, registerSearchRoutes, registerLinkRoutes, registerMcpRoutes,
  registerSessionRoutes, registerRenderRoutes, registerWebAppRoutes,
];

/** The HTTP application over injected services; no side effects on import. */
export function createApp(svc: Services): H3 {
  const app = new H3({ onRequest: noteEvent }); // the request log's route and principal (ops/front.ts)
  for (const register of routeModules) register(app, svc);
  app.all('/**', (event) => problem(new AppError('not_found', `no route ${event.req.method} ${event.url.pathname}`), svc.log));
  return app;
}
