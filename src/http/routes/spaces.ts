import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Services } from '../../services.ts';
import { createSpace, listSpaces, patchSpace, presentSpace, resolveSpace } from '../../domain/spaces.ts';
import { listPages } from '../../domain/pages.ts';
import { parse } from '../body.ts';
import { encodeCursor, isString, readCursor, readLimit } from '../query.ts';
import { json, noContent } from '../respond.ts';
import { movePages } from '../../domain/moves.ts';
import { listTrash, listTrashedSpaces, restoreFromTrash, restoreSpace, trashSpace } from '../../domain/trash.ts';
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

const Move = v.strictObject({
  from: v.string(),
  to: v.string(),
  toSpace: v.optional(v.string()),
  prefix: v.optional(v.boolean()),
});
const Restore = v.strictObject({ path: v.string(), to: v.optional(v.string()) });

/** Moves and the page trash of a space; the org trash of spaces (docs/pages.md). */
export function registerMoveAndTrashRoutes(app: H3, svc: Services): void {
  on(app, svc, 'POST', '/spaces/:slug/moves', async ({ caller, params, body }) => {
    const input = parse(Move, await body());
    return json(await svc.writes.run(() => movePages(svc, caller, params.slug, input)));
  });

  on(app, svc, 'GET', '/spaces/:slug/trash', ({ caller, params, url }) => {
    const limit = readLimit(url);
    const after = readCursor(url, isString) ?? '';
    const { pages, last } = listTrash(svc, caller, params.slug, { after, limit });
    return json({ pages, nextCursor: last === null ? null : encodeCursor(last) });
  });

  on(app, svc, 'POST', '/spaces/:slug/trash/restore', async ({ caller, params, body }) => {
    const input = parse(Restore, await body());
    return json(await svc.writes.run(() => restoreFromTrash(svc, caller, params.slug, input)));
  });

  on(app, svc, 'DELETE', '/spaces/:slug', async ({ caller, params }) => {
    await svc.writes.run(() => trashSpace(svc, caller, params.slug));
    return noContent();
  });

  on(app, svc, 'GET', '/admin/trash/spaces', ({ caller, url }) => {
    const limit = readLimit(url);
    const after = readCursor(url, isString) ?? '';
    const { spaces, last } = listTrashedSpaces(svc, caller, { after, limit });
    return json({ spaces, nextCursor: last === null ? null : encodeCursor(last) });
  });

  on(app, svc, 'POST', '/admin/trash/spaces/:slug/restore', async ({ caller, params }) =>
    json(await svc.writes.run(() => restoreSpace(svc, caller, params.slug))));
}
