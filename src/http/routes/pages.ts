import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { AppError, invalid, notFound } from '../../domain/errors.ts';
import { toMarkdownDocument } from '../../domain/markdown-doc.ts';
import { deleteAcl, getAcl, setAcl } from '../../domain/page-acl.ts';
import { patchMetadata } from '../../domain/page-metadata.ts';
import { deletePage, loadReadablePage, presentPage, putPage } from '../../domain/pages.ts';
import { renderForCaller } from '../../domain/rendering.ts';
import { diffRevisions, getRevision, listRevisions, restoreRevision } from '../../domain/revisions.ts';
import { redirectFor } from '../../domain/moves.ts';
import { parse } from '../body.ts';
import { encodeCursor, isNumber, readCursor, readLimit } from '../query.ts';
import { json, noContent, text } from '../respond.ts';
import { on, type Method, type RouteContext } from '../route.ts';

const Obj = v.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'must be an object');
const PutPage = v.strictObject({
  title: v.optional(v.string()),
  content: v.optional(v.string()),
  frontmatter: v.optional(Obj),
  template: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  metadata: v.optional(Obj),
  baseVersion: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const MetaPatch = v.strictObject({ set: v.optional(Obj), appendUnique: v.optional(Obj) });
const Ids = v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.maxLength(1000));
const AclBody = v.strictObject({ read: v.optional(Ids, []), write: v.optional(Ids, []) });

export type PageTarget = { space: string; path: string };
export type PageSubHandler = (ctx: RouteContext, target: PageTarget) => Response | Promise<Response>;

/** Sub-resources of a page (`/pages/:space/<path>/<name>`); other modules add their own. */
export const pageSubresources = new Map<string, Partial<Record<Method, PageSubHandler>>>();

pageSubresources.set('metadata', {
  PATCH: async (ctx, t) => {
    const patch = parse(MetaPatch, await ctx.body());
    const { page, changedKeys } = await ctx.svc.writes.run(() => patchMetadata(ctx.svc, ctx.caller, t.space, t.path, patch as never));
    return json({ ...page, changedKeys });
  },
});
pageSubresources.set('acl', {
  GET: (ctx, t) => json(getAcl(ctx.svc, ctx.caller, t.space, t.path)),
  PUT: async (ctx, t) => {
    const body = parse(AclBody, await ctx.body());
    return json(await ctx.svc.writes.run(() => setAcl(ctx.svc, ctx.caller, t.space, t.path, body)));
  },
  DELETE: async (ctx, t) => json(await ctx.svc.writes.run(() => deleteAcl(ctx.svc, ctx.caller, t.space, t.path))),
});
pageSubresources.set('revisions', {
  GET: (ctx, t) => {
    const limit = readLimit(ctx.url);
    const before = readCursor(ctx.url, isNumber) ?? Number.MAX_SAFE_INTEGER;
    const { revisions, last } = listRevisions(ctx.svc, ctx.caller, t.space, t.path, { before, limit });
    return json({ revisions, nextCursor: last === null ? null : encodeCursor(last) });
  },
});

/** Splits `/pages/<space>/<path…>` into its decoded parts. */
export function splitPagePath(pathname: string): { space: string; segments: string[] } {
  const parts = pathname.split('/').slice(2); // ['', 'pages', space, ...]
  try {
    const [space, ...segments] = parts.map((p) => decodeURIComponent(p));
    return { space: space ?? '', segments };
  } catch {
    throw invalid([{ key: 'path', code: 'format', message: 'the URL path is not valid percent-encoding' }]);
  }
}

async function dispatch(method: Method, ctx: RouteContext): Promise<Response> {
  const { space, segments } = splitPagePath(ctx.url.pathname);
  if (segments.length === 0 || segments.every((s) => s === '')) throw notFound('page');
  const n = segments.length;
  // …/revisions/<a>/diff/<b> and …/revisions/<n>/restore.
  if (n >= 5 && segments[n - 4] === 'revisions' && segments[n - 2] === 'diff' && /^\d+$/.test(segments[n - 3]) && /^\d+$/.test(segments[n - 1])) {
    if (method !== 'GET') throw new AppError('method_not_allowed', 'a diff is read-only');
    return json(diffRevisions(ctx.svc, ctx.caller, space, segments.slice(0, -4).join('/'), Number(segments[n - 3]), Number(segments[n - 1])));
  }
  if (n >= 4 && segments[n - 3] === 'revisions' && segments[n - 1] === 'restore' && /^\d+$/.test(segments[n - 2])) {
    if (method !== 'POST') throw new AppError('method_not_allowed', 'restore a revision with POST');
    const path = segments.slice(0, -3).join('/');
    return json(await ctx.svc.writes.run(() => restoreRevision(ctx.svc, ctx.caller, space, path, Number(segments[n - 2]))));
  }
  // …/revisions/<n>: one revision.
  if (n >= 3 && segments[n - 2] === 'revisions' && /^\d+$/.test(segments[n - 1])) {
    if (method !== 'GET') throw new AppError('method_not_allowed', 'revisions are read-only');
    const rev = getRevision(ctx.svc, ctx.caller, space, segments.slice(0, -2).join('/'), Number(segments[n - 1]));
    return json(wantsHtml(ctx) ? { ...rev, html: renderForCaller(ctx.svc, ctx.caller, { space: rev.space, path: rev.path }, rev.content) } : rev);
  }
  const sub = n >= 2 ? pageSubresources.get(segments[n - 1]) : undefined;
  if (sub) {
    const handler = sub[method];
    if (!handler) throw new AppError('method_not_allowed', `${method} is not supported on ${segments[n - 1]}`);
    return handler(ctx, { space, path: segments.slice(0, -1).join('/') });
  }
  const path = segments.join('/');
  switch (method) {
    case 'GET': {
      const { space: s, page } = loadReadablePage(ctx.svc, ctx.caller, space, path);
      if (prefersMarkdown(ctx.event.req.headers.get('accept'))) {
        const p = presentPage(s, page);
        return text(toMarkdownDocument(p.title, p.frontmatter, p.content), 'text/markdown; charset=utf-8', { etag: `"${p.version}"` });
      }
      const p = presentPage(s, page);
      if (wantsHtml(ctx)) return json({ ...p, html: renderForCaller(ctx.svc, ctx.caller, { space: s.slug, path: page.path }, p.content) });
      return json(p, 200, { etag: `"${page.version}"` });
    }
    case 'PUT': {
      const input = parse(PutPage, await ctx.body());
      const ifMatch = ctx.event.req.headers.get('if-match');
      if (ifMatch !== null) {
        const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(ifMatch);
        if (!m) throw invalid([{ key: 'If-Match', code: 'format', message: 'If-Match holds the version number the write expects' }]);
        input.baseVersion = Number(m[1]);
      }
      const r = await ctx.svc.writes.run(() => putPage(ctx.svc, ctx.caller, space, path, input));
      return json(r.page, r.created ? 201 : 200, { etag: `"${r.page.version}"` });
    }
    case 'DELETE':
      await ctx.svc.writes.run(() => deletePage(ctx.svc, ctx.caller, space, path));
      return noContent();
    default:
      throw new AppError('method_not_allowed', `${method} is not supported on a page`);
  }
}

/** `?render=html`: the web app's rendered form (docs/web.md); any other value is a 400. */
function wantsHtml(ctx: RouteContext): boolean {
  const render = ctx.url.searchParams.get('render');
  if (render === null) return false;
  if (render !== 'html') throw invalid([{ key: 'render', code: 'option', message: "render is 'html' or absent" }]);
  return true;
}

function prefersMarkdown(accept: string | null): boolean {
  if (!accept) return false;
  const md = accept.indexOf('text/markdown');
  const js = accept.indexOf('application/json');
  return md !== -1 && (js === -1 || md < js);
}

/**
 * GET of an address a page was moved away from (no page there now): 308 to the page's current
 * address, with the same sub-resource and query, when the caller may read the page; otherwise
 * the 404 stands, so a caller who may not read a moved page learns nothing about it.
 */
async function followMoves(ctx: RouteContext): Promise<Response> {
  try {
    return await dispatch('GET', ctx);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
    const { space, segments } = splitPagePath(ctx.url.pathname);
    const location = redirectFor(ctx.svc, ctx.caller, space, segments);
    if (location === null) throw err;
    return new Response(null, { status: 308, headers: { location: location + ctx.url.search } });
  }
}

export function registerPageRoutes(app: H3, svc: Services): void {
  for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'POST'] as const) {
    on(app, svc, method, '/pages/**', method === 'GET' ? followMoves : (ctx) => dispatch(method, ctx));
  }
}
