// Moves, the page trash, the org trash of spaces, and revision diff/restore (issue 21).
import * as v from 'valibot';
import { movePages } from '../../domain/moves.ts';
import { diffRevisionsAnswer, restoreRevision } from '../../domain/revisions.ts';
import { listTrash, listTrashedSpaces, restoreFromTrash, restoreSpace, trashSpace } from '../../domain/trash.ts';
import { Page, Space } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { PAGE_PREFIX } from '../page-paths.ts';
import { json, jsonText, noContentAfter, writeWithBody } from '../respond.ts';
import { cursor, Iso, isString, Limit, NextCursor, PagePathField, SLUG_PATTERN, SlugParams } from '../schemas.ts';
import { documentAs } from '../json-schema.ts';
import { encodeCursor } from '../cursor-seal.ts';
import { PageParams } from './pages.ts';

const Ref = v.strictObject({ space: v.string(), path: v.string() });
const Move = v.strictObject({
  from: PagePathField,
  to: PagePathField,
  toSpace: v.optional(documentAs(v.string(), { type: 'string', pattern: SLUG_PATTERN })),
  prefix: v.optional(v.boolean()),
});
const MoveResult = v.strictObject({
  moved: v.array(v.strictObject({ from: v.string(), to: v.string() })),
  rewritten: v.array(Ref),
  notRewritten: v.array(Ref),
});
const Restore = v.strictObject({ path: PagePathField, to: v.optional(PagePathField) });
const Who = v.nullable(v.strictObject({ id: v.string(), name: v.string() }));
const TrashList = v.strictObject({
  pages: v.array(v.strictObject({ path: v.string(), title: v.string(), version: v.number(), deletedAt: Iso, deletedBy: Who })),
  nextCursor: NextCursor,
});
const TrashedSpaceList = v.strictObject({
  spaces: v.array(v.strictObject({ ...Space.entries, deletedAt: Iso, deletedBy: Who })),
  nextCursor: NextCursor,
});
const Version = v.pipe(v.string(), v.regex(/^\d{1,15}$/), v.transform(Number));
const DiffParams = v.object({ ...PageParams.entries, a: Version, b: Version });
const RestoreParams = v.object({ ...PageParams.entries, version: Version });
const RevisionDiff = v.strictObject({
  from: v.number(),
  to: v.number(),
  title: v.optional(v.strictObject({ from: v.string(), to: v.string() })),
  contentDiff: v.string(),
  truncated: v.pipe(
    v.boolean(),
    v.description(
      'true when contentDiff is coarser than minimal (every line between the first and the last change removed, then added) or empty, because the minimal diff would take too long',
    ),
  ),
  frontmatterChanged: v.array(v.string()),
  metadataChanged: v.array(v.string()),
});
const Paged = v.object({ limit: Limit, cursor: cursor(isString) });

export const moveEndpoints = [
  endpoint({
    method: 'POST',
    path: '/spaces/:slug/moves',
    tag: 'pages',
    auth: 'key',
    params: SlugParams,
    body: Move,
    bodyExample: { from: 'drafts/plan', to: 'plans/2027' },
    summary: 'Move or rename a page, or every page under a prefix',
    description:
      "Identity, history, metadata and ACL move with the page; links in pages you may write are rewritten; the old address answers 308 until a page is written there. Out of a shared space into a personal one: org admins or the page's only writer (403 otherwise). The history before a move into another space stays readable only by those who read it there (docs/api.md, Moving and renaming; docs/security.md, Moves).",
    responses: [{ status: 200, schema: MoveResult }],
    // Alone: a folder move writes many pages, each in savepoints of its own (group-commit.ts).
    handler: async ({ svc, caller, params, body }) =>
      json(await writeWithBody(svc, body, (input) => movePages(svc, caller, params.slug, input), { alone: true })),
  }),
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/trash',
    tag: 'pages',
    auth: 'key',
    params: SlugParams,
    query: Paged,
    summary: "A space's deleted pages that you could read",
    responses: [{ status: 200, schema: TrashList }],
    handler: ({ svc, caller, params, query }) => {
      const { pages, last } = listTrash(svc, caller, params.slug, { after: query.cursor ?? '', limit: query.limit });
      return json({ pages, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
  endpoint({
    method: 'POST',
    path: '/spaces/:slug/trash/restore',
    tag: 'pages',
    auth: 'key',
    params: SlugParams,
    body: Restore,
    bodyExample: { path: 'notes/old', to: 'archive/old' },
    summary: 'Restore a deleted page (a new revision, with its ACL)',
    responses: [{ status: 200, schema: Page }],
    handler: async ({ svc, caller, params, body }) =>
      json(await writeWithBody(svc, body, (input) => restoreFromTrash(svc, caller, params.slug, input))),
  }),
  endpoint({
    method: 'DELETE',
    path: '/spaces/:slug',
    tag: 'spaces',
    auth: 'key',
    params: SlugParams,
    summary: 'Move a shared space to the org trash (org admins)',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => trashSpace(svc, caller, params.slug)),
  }),
  endpoint({
    method: 'GET',
    path: '/admin/trash/spaces',
    tag: 'spaces',
    auth: 'admin',
    query: Paged,
    summary: 'Spaces in the org trash',
    responses: [{ status: 200, schema: TrashedSpaceList }],
    handler: ({ svc, caller, query }) => {
      const { spaces, last } = listTrashedSpaces(svc, caller, { after: query.cursor ?? '', limit: query.limit });
      return json({ spaces, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admin/trash/spaces/:slug/restore',
    tag: 'spaces',
    auth: 'admin',
    params: SlugParams,
    summary: 'Restore a space from the org trash',
    responses: [{ status: 200, schema: Space }],
    handler: async ({ svc, caller, params }) => json(await svc.writes.run(() => restoreSpace(svc, caller, params.slug))),
  }),
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/revisions/:a/diff/:b`,
    tag: 'pages',
    auth: 'key',
    params: DiffParams,
    summary: 'What changed between two revisions',
    responses: [{ status: 200, schema: RevisionDiff }],
    handler: async ({ svc, caller, params }) =>
      jsonText(await diffRevisionsAnswer(svc, caller, params.space, params.path, params.a, params.b)),
  }),
  endpoint({
    method: 'POST',
    path: `${PAGE_PREFIX}/revisions/:version/restore`,
    tag: 'pages',
    auth: 'key',
    params: RestoreParams,
    summary: 'Write an earlier revision again as a new revision',
    responses: [{ status: 200, schema: Page }],
    handler: async ({ svc, caller, params }) =>
      json(await svc.writes.run(() => restoreRevision(svc, caller, params.space, params.path, params.version))),
  }),
];
