import type { H3, H3Event } from 'h3';
import type { Services } from '../services.ts';
import type { Caller } from '../domain/access.ts';
import { requireCaller } from './auth.ts';
import { readJson } from './body.ts';
import { problem } from './respond.ts';

export type RouteContext = {
  event: H3Event;
  svc: Services;
  url: URL;
  params: Record<string, string>;
  /** The authenticated principal (401 otherwise). */
  caller: Caller;
  /** The JSON body, read with the request size cap. */
  body(maxBytes?: number): Promise<unknown>;
};

export type RouteHandler = (ctx: RouteContext) => Response | Promise<Response>;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Registers an authenticated route; every error becomes problem+json. */
export function on(app: H3, svc: Services, method: Method, path: string, fn: RouteHandler, opts: { public?: boolean } = {}): void {
  app.on(method, path, async (event) => {
    try {
      const caller = opts.public ? (null as unknown as Caller) : requireCaller(event, svc);
      const ctx: RouteContext = {
        event, svc, caller,
        url: event.url,
        params: decodeParams(event.context.params ?? {}),
        body: (maxBytes) => readJson(event.req, maxBytes ?? svc.config.limits.bodyBytes, svc.config.limits.jsonDepth),
      };
      return await fn(ctx);
    } catch (err) {
      return problem(err, svc.log, event.url.pathname);
    }
  });
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v; // not valid percent-encoding: matches nothing, so the lookup answers 404
    }
  }
  return out;
}
