import type { H3 } from 'h3';
import type { Services } from './services.ts';
import { endpoints } from './http/endpoints.ts';
import { buildApp } from './http/router.ts';

/** The HTTP application over injected services, built from the endpoint table; no side effects on import. */
export function createApp(svc: Services): H3 {
  return buildApp(svc, endpoints);
}
