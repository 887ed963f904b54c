import * as v from 'valibot';
import { createSpace, listSpaces, patchSpace, presentSpace, resolveSpace } from '../../domain/spaces.ts';
import { listPageLevel, listPages } from '../../domain/page-list.ts';
import { PageList, Space, SpaceList } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { json, writeWithBody } from '../respond.ts';
import { cursor, DisplayName, isString, Limit, SlugParams } from '../schemas.ts';
import { documentAs } from '../json-schema.ts';
import { encodeCursor } from '../cursor-seal.ts';

const Access = v.picklist(['write', 'read', 'none']);
const CreateSpace = v.strictObject({
  slug: documentAs(v.string(), { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
  name: DisplayName,
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  defaultAccess: v.optional(Access),
});
const PatchSpace = v.strictObject({
  name: v.optional(DisplayName),
  description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  defaultAccess: v.optional(Access),
});

/** `depth=1`: only the level right under `prefix` (the web app's tree loads one folder at a time). */
const Depth = v.optional(v.picklist(['1']));

export const spaceEndpoints = [
  endpoint({
    method: 'GET',
    path: '/spaces',
    tag: 'spaces',
    auth: 'key',
    query: v.object({ limit: Limit, cursor: cursor(isString) }),
    summary: 'List the spaces you can see',
    responses: [{ status: 200, schema: SpaceList }],
    handler: ({ svc, caller, query }) => {
      const rows = listSpaces(svc, caller, query.cursor ?? '', query.limit + 1);
      const spaces = rows.slice(0, query.limit).map(presentSpace);
      return json({ spaces, nextCursor: rows.length > query.limit ? encodeCursor(svc, spaces[spaces.length - 1].slug) : null });
    },
  }),
  endpoint({
    method: 'POST',
    path: '/spaces',
    tag: 'spaces',
    auth: 'key',
    body: CreateSpace,
    bodyExample: { slug: 'wiki', name: 'Wiki', description: 'Team notes', defaultAccess: 'write' },
    summary: 'Create a space',
    responses: [{ status: 201, schema: Space }],
    handler: async ({ svc, caller, body }) =>
      json(presentSpace(await writeWithBody(svc, body, (input) => createSpace(svc, caller, input))), 201),
  }),
  endpoint({
    method: 'GET',
    path: '/spaces/:slug',
    tag: 'spaces',
    auth: 'key',
    params: SlugParams,
    summary: 'Read a space',
    responses: [{ status: 200, schema: Space }],
    handler: ({ svc, caller, params }) => json(presentSpace(resolveSpace(svc, caller, params.slug))),
  }),
  endpoint({
    method: 'PATCH',
    path: '/spaces/:slug',
    tag: 'spaces',
    auth: 'key',
    params: SlugParams,
    body: PatchSpace,
    bodyExample: { name: 'Team wiki', defaultAccess: 'read' },
    summary: 'Rename a space or change its default access',
    responses: [{ status: 200, schema: Space }],
    handler: async ({ svc, caller, params, body }) =>
      json(presentSpace(await writeWithBody(svc, body, (input) => patchSpace(svc, caller, params.slug, input)))),
  }),
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/pages',
    tag: 'spaces',
    auth: 'key',
    params: SlugParams,
    query: v.object({ prefix: v.optional(v.string(), ''), depth: Depth, limit: Limit, cursor: cursor(isString) }),
    summary: 'List the pages you can read, in path order; with depth=1 one folder level (pages and subfolders)',
    responses: [{ status: 200, schema: PageList }],
    handler: ({ svc, caller, params, query }) => {
      if (query.depth !== undefined) {
        const { pages, folders, last } = listPageLevel(svc, caller, params.slug, {
          prefix: query.prefix,
          after: query.cursor ?? '',
          limit: query.limit,
        });
        return json({ pages, folders, nextCursor: last === null ? null : encodeCursor(svc, last) });
      }
      const { pages, last } = listPages(svc, caller, params.slug, { prefix: query.prefix, after: query.cursor ?? '', limit: query.limit });
      return json({ pages, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
];
