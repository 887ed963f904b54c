import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { createSpace, listSpaces, patchSpace, presentSpace, resolveSpace } from '../../domain/spaces.ts';
import { listPages } from '../../domain/pages.ts';
import { parse } from '../body.ts';
import { encodeCursor, isString, readCursor, readLimit } from '../query.ts';
import { json } from '../respond.ts';
import { on } from '../route.ts';

const Access = v.picklist(['write', 'read', 'none']);
const CreateSpace = v.strictObject({
  slug: v.string(),
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  defaultAccess: v.optional(Access),
});
const PatchSpace = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  defaultAccess: v.optional(Access),
});

export function registerSpaceRoutes(app: H3, svc: Services): void {
  on(app, svc, 'GET', '/spaces', ({ caller, url }) => {
    const limit = readLimit(url);
    const after = readCursor(url, isString) ?? '';
    const rows = listSpaces(svc, caller, after, limit + 1);
    const spaces = rows.slice(0, limit).map(presentSpace);
    return json({ spaces, nextCursor: rows.length > limit ? encodeCursor(spaces[spaces.length - 1].slug) : null });
  });

  on(app, svc, 'POST', '/spaces', async ({ caller, body }) => {
    const input = parse(CreateSpace, await body());
    return json(presentSpace(createSpace(svc, caller, input)), 201);
  });

  on(app, svc, 'GET', '/spaces/:slug', ({ caller, params }) => json(presentSpace(resolveSpace(svc, caller, params.slug))));

  on(app, svc, 'PATCH', '/spaces/:slug', async ({ caller, params, body }) => {
    const input = parse(PatchSpace, await body());
    return json(presentSpace(patchSpace(svc, caller, params.slug, input)));
  });

  on(app, svc, 'GET', '/spaces/:slug/pages', ({ caller, params, url }) => {
    const limit = readLimit(url);
    const after = readCursor(url, isString) ?? '';
    const prefix = url.searchParams.get('prefix') ?? '';
    const { pages, last } = listPages(svc, caller, params.slug, { prefix, after, limit });
    return json({ pages, nextCursor: last === null ? null : encodeCursor(last) });
  });
}
