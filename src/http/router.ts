// Builds the h3 app from the endpoint table: each endpoint is registered with h3's router (page
// endpoints through src/http/page-paths.ts), authenticated, its params and query validated by
// their schemas, and every error, wherever thrown, turned into problem+json by one onError hook.
import { H3, type H3Event, type HTTPError } from 'h3';
import type { Services } from '../services.ts';
import type { Caller } from '../model.ts';
import { AppError, NeedsPrimary, invalid, type ErrorCode } from '../domain/errors.ts';
import { forwardToPrimary } from './replica-mark.ts';
import { requireOrgAdmin } from '../domain/principals.ts';
import { requireCaller } from './auth.ts';
import { parse, readBytes, readJson, type RawOptions } from './body.ts';
import type { AnyEndpoint, Method } from './endpoint.ts';
import { isPageEndpoint, pageMatcher, pageSegments } from './page-paths.ts';
import { problem } from './respond.ts';
import { redirectFor } from '../domain/moves.ts';
import { checkResponse } from './response-check.ts';
import { openCursor } from './cursor-seal.ts';

/** Who a `public` endpoint runs as: nobody, with no rights anywhere. */
const ANONYMOUS: Caller = { id: '', name: '', kind: 'agent', orgId: -1, orgAdmin: false };

/** Finds the endpoint for a method and a URL path, or the methods the path allows. */
type EndpointFinder = (
  method: string,
  pathname: string,
) => { endpoint: AnyEndpoint; params: Record<string, string> } | { allow: Method[] } | null;

/** Matches method + path against the table without h3 (the 405 answer, the response check, tests). */
export function endpointFinder(table: AnyEndpoint[]): EndpointFinder {
  const matchPage = pageMatcher(table);
  const others = table.filter((e) => !isPageEndpoint(e)).map((e) => ({ e, re: routeRegExp(e.path) }));
  return (method, pathname) => {
    let candidates: Array<{ endpoint: AnyEndpoint; params: Record<string, string> }> = [];
    if (pathname.startsWith('/pages/')) {
      const segments = pageSegments(pathname);
      const m = segments && matchPage(segments);
      if (!m) return null;
      const endpoint = m.endpoints.find((e) => e.method === method);
      if (endpoint) return { endpoint, params: m.params };
      candidates = m.endpoints.map((e) => ({ endpoint: e, params: m.params }));
    } else {
      for (const { e, re } of others) {
        const m = re.exec(pathname);
        if (m) candidates.push({ endpoint: e, params: decodeParams(m.groups ?? {}) });
      }
    }
    if (!candidates.length) return null;
    return candidates.find((c) => c.endpoint.method === method) ?? { allow: [...new Set(candidates.map((c) => c.endpoint.method))] };
  };
}

function routeRegExp(path: string): RegExp {
  const src = path
    .split('/')
    .map((seg) =>
      seg.startsWith('**:')
        ? `(?<${seg.slice(3)}>.+)`
        : seg.startsWith(':')
          ? `(?<${seg.slice(1)}>[^/]+)`
          : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${src}$`);
}

/** The HTTP application over the endpoint table; no side effects beyond the returned app. */
export function buildApp(
  svc: Services,
  table: AnyEndpoint[],
  opts: {
    onRequest?: (event: H3Event) => void /** Routes that are not API endpoints (the web app's files). */;
    files?: (app: H3) => void;
  } = {},
): H3 {
  const app = new H3({ silent: true, onRequest: opts.onRequest, onError: (error, event) => errorResponse(error, event, svc) });
  const find = endpointFinder(table);
  opts.files?.(app);
  for (const e of table) {
    if (!isPageEndpoint(e)) app.on(e.method, e.path, (event) => run(e, event, svc, decodeParams(event.context.params ?? {})));
  }
  // Every method on /pages/**: the table's page matcher picks the endpoint, or answers 404/405/400.
  app.all('/pages/**', (event) => {
    const found = find(method(event), event.url.pathname);
    if (found && 'endpoint' in found) {
      return found.endpoint.method === 'GET'
        ? followMoves(() => run(found.endpoint, event, svc, found.params), event, svc)
        : run(found.endpoint, event, svc, found.params);
    }
    if (!found) throw new AppError('not_found', 'page not found');
    // A PUT on a sub-resource without PUT (…/links, …/metadata, …/revisions) is refused like any
    // other method it lacks: 405 with Allow (a page path may not end in a sub-resource's name).
    return methodNotAllowed(event, found.allow, svc);
  });
  app.all('/**', (event) => {
    const found = find(method(event), event.url.pathname);
    if (found && 'endpoint' in found) return run(found.endpoint, event, svc, found.params); // HEAD of a GET endpoint
    if (found && 'allow' in found) return methodNotAllowed(event, found.allow, svc);
    throw new AppError('not_found', `no route ${event.req.method} ${event.url.pathname}`);
  });
  return app;
}

/**
 * A GET of an address a page was moved away from (no page there now) answers 308 to the page's
 * current address, sub-resource and query kept, when the caller may read the page; otherwise
 * the 404 stands, so a caller who may not read a moved page learns nothing about it.
 */
async function followMoves(fn: () => Promise<Response>, event: H3Event, svc: Services): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
    const segments = pageSegments(event.url.pathname);
    if (!segments || segments.length < 2) throw err;
    const location = redirectFor(svc, requireCaller(event, svc), segments[0], segments.slice(1));
    if (location === null) throw err;
    return new Response(null, { status: 308, headers: { location: location + event.url.search } });
  }
}

const method = (event: H3Event) => (event.req.method === 'HEAD' ? 'GET' : event.req.method);

/** 405 with `Allow`: the methods of this path, HEAD with GET (a GET endpoint answers HEAD too). */
function methodNotAllowed(event: H3Event, allow: Method[], svc: Services): Response {
  const methods: string[] = allow.includes('GET') ? [...allow, 'HEAD'] : [...allow];
  const res = problem(
    new AppError('method_not_allowed', `${event.req.method} is not supported here; use ${methods.join(', ')}`),
    svc.log,
    event.url.pathname,
  );
  res.headers.set('allow', methods.join(', '));
  return res;
}

async function run(e: AnyEndpoint, event: H3Event, svc: Services, rawParams: Record<string, string>): Promise<Response> {
  const caller = e.auth === 'public' ? ANONYMOUS : requireCaller(event, svc, { bearerOnly: e.bearerOnly });
  if (e.auth === 'admin') requireOrgAdmin(caller);
  const params = e.params ? parse(e.params, rawParams) : rawParams;
  const query = e.query ? parse(e.query, openedQuery(e, event.url, svc)) : {};
  const body = async (maxBytes?: number) => {
    const data = await readJson(event.req, maxBytes ?? svc.config.limits.bodyBytes, svc.config.limits.jsonDepth);
    return e.body ? parse(e.body, data) : data;
  };
  const raw = (maxBytes: number, opts?: RawOptions) => readBytes(event.req, maxBytes, opts);
  const res = await e.handler({ event, svc, caller, params, query, body, raw });
  return svc.config.validateResponses ? checkResponse(e, res, svc.log) : res;
}

/** The query string as an object, with a list's sealed `cursor` opened (src/http/cursor-seal.ts). */
function openedQuery(e: AnyEndpoint, url: URL, svc: Services): Record<string, string> {
  const q = queryObject(url);
  if (e.query && 'cursor' in e.query.entries && q.cursor) q.cursor = openCursor(svc, q.cursor);
  return q;
}

/** The query string as an object; a repeated name keeps its first value. */
function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of url.searchParams) if (!Object.hasOwn(out, k)) out[k] = val;
  return out;
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  // h3 refuses malformed percent-encoding before routing (a 400 from errorResponse).
  for (const [k, val] of Object.entries(params)) out[k] = decodeURIComponent(val);
  return out;
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** The one error hook: an AppError is its problem+json; h3's own errors get their catalogue code; the rest a logged 500. */
function errorResponse(error: HTTPError, event: H3Event, svc: Services): Response {
  const instance = event.url.pathname;
  if (error.cause instanceof AppError) return problem(error.cause, svc.log, instance);
  // A read on a replica that would have to write goes to the primary (src/front/replica.ts).
  if (svc.config.replication.role === 'replica' && needsPrimary(error.cause)) return forwardToPrimary();
  if (!isDecodable(instance)) {
    return problem(invalid([{ key: 'path', code: 'format', message: 'the URL path is not valid percent-encoding' }]), svc.log, instance);
  }
  const code = error.unhandled ? undefined : STATUS_CODES[error.status];
  return problem(code ? new AppError(code, error.message) : (error.cause ?? error), svc.log, instance);
}

function isDecodable(pathname: string): boolean {
  try {
    decodeURI(pathname);
    return true;
  } catch {
    return false;
  }
}

/** A NeedsPrimary, or SQLite refusing a write to the replica's read-only database (any read path that writes). */
function needsPrimary(cause: unknown): boolean {
  return cause instanceof NeedsPrimary || (cause as { code?: unknown } | null)?.code === 'SQLITE_READONLY';
}
