import { FastResponse } from 'srvx';
import * as v from 'valibot';
import { invalid } from '../../domain/errors.ts';
import { deleteAcl, getAcl, setAcl } from '../../domain/page-acl.ts';
import { patchMetadata } from '../../domain/page-metadata.ts';
import { prepareLinks } from '../../domain/links/prepare.ts';
import { deletePage, loadReadablePage, presentPage, putPage } from '../../domain/pages.ts';
import { renderForCaller } from '../../domain/rendering.ts';
import { getRevision, listRevisions } from '../../domain/revisions.ts';
import { Acl, PageWithChanges, RenderedPage, Revision, RevisionList, WrittenPage } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { prefersMarkdown, readPageAnswer } from '../page-read.ts';
import { PAGE_PREFIX } from '../page-paths.ts';
import { json, noContentAfter, text, writeWithBody } from '../respond.ts';
import { documentAs } from '../json-schema.ts';
import { cursor, isNumber, JsonObject, jsonObject, Limit, META_KEY_PATTERN, MetadataField, SLUG_PATTERN } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';

const PutPage = v.strictObject({
  title: v.optional(v.string()),
  content: v.optional(v.string()),
  frontmatter: v.optional(JsonObject),
  template: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  metadata: v.optional(MetadataField),
  baseVersion: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const MetaKeys = documentAs(jsonObject(), { type: 'object', propertyNames: { pattern: META_KEY_PATTERN } });
const MetaPatch = v.strictObject({ set: v.optional(MetaKeys), appendUnique: v.optional(MetaKeys) });
const Ids = v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.maxLength(1000));
const AclBody = v.strictObject({ read: v.optional(Ids, []), write: v.optional(Ids, []) });

/** `space` and the page path (any depth, decoded segment by segment: src/http/page-paths.ts). */
export const PageParams = v.object({
  space: documentAs(v.string(), { type: 'string', pattern: SLUG_PATTERN }),
  path: documentAs(v.string(), { type: 'string', minLength: 1 }),
});
const RevisionParams = v.object({
  ...PageParams.entries,
  version: v.pipe(v.string(), v.regex(/^\d{1,15}$/), v.transform(Number)),
});
const Paged = v.object({ limit: Limit, cursor: cursor(isNumber) });
/** `?render=html`: the web app's rendered form (docs/web.md) beside the page. */
const Render = v.object({ render: v.optional(v.picklist(['html'], "render is 'html' or absent")) });

const pageExample = { title: 'Start here', content: '# Hello', frontmatter: { tags: ['intro'] }, metadata: { stage: 'draft', points: 3 } };

export const pageEndpoints = [
  endpoint({
    method: 'GET',
    path: PAGE_PREFIX,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    query: Render,
    summary: 'Read a page',
    description:
      'The page with an ETag `"<version>-<tag>"`; `If-None-Match` with it answers 304 while the page is unchanged. ' +
      'With `Accept: text/markdown`, the page as a Markdown document; with `?render=html`, also its `html` (no ETag).',
    responses: [
      { status: 200, schema: RenderedPage },
      { status: 200, contentType: 'text/markdown', description: 'with Accept: text/markdown' },
      { status: 304, description: 'If-None-Match names the current ETag' },
    ],
    handler: ({ svc, caller, params, query, event }) => {
      // The same answer as the direct path of src/http/page-read.ts, which serves most page reads.
      if (query.render) {
        const { space, page } = loadReadablePage(svc, caller, params.space, params.path);
        return renderForCaller(svc, caller, { space: space.slug, path: page.path }, page.content).then((html) =>
          json({ ...presentPage(space, page), html }),
        );
      }
      const a = readPageAnswer(
        svc,
        caller,
        params.space,
        params.path,
        event.req.headers.get('if-none-match'),
        prefersMarkdown(event.req.headers.get('accept')),
      );
      if (a.status === 304) return new FastResponse(null, { status: 304, headers: { etag: a.etag } });
      return text(a.body!, a.contentType!, { etag: a.etag });
    },
  }),
  endpoint({
    method: 'PUT',
    path: PAGE_PREFIX,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    body: PutPage,
    bodyExample: pageExample,
    summary: 'Create a page or write a new revision',
    description:
      '201 when created, 200 otherwise. `If-Match: "<version>"` or `baseVersion` makes the write conditional (409 when stale). A new title rewrites the `[[Old title]]` wikilinks that meant the page, in the same transaction: the answer then lists `rewritten` and `notRewritten` pages (docs/api.md, Renaming a page). At the path of a page in the trash the write brings that page back with its ACL and files, for those who may restore it (409 for anyone else; docs/api.md, Trash).',
    responses: [
      { status: 201, schema: WrittenPage },
      { status: 200, schema: WrittenPage },
    ],
    handler: async ({ svc, caller, params, event, body }) => {
      const input = await body();
      const ifMatch = event.req.headers.get('if-match');
      if (ifMatch !== null) {
        // A version, or an ETag of a GET ("<version>-<tag>"): the version is compared.
        const m = /^\s*(?:W\/)?"?(\d+)(?:-[A-Za-z0-9_-]+)?"?\s*$/.exec(ifMatch);
        if (!m) throw invalid([{ key: 'If-Match', code: 'format', message: 'If-Match holds the version number the write expects' }]);
        input.baseVersion = Number(m[1]);
      }
      // A large page's links are read on the worker first (links/prepare.ts), not in the transaction.
      const links = await prepareLinks(svc, params.space, params.path, input.content);
      const r = await svc.writes.run(() => putPage(svc, caller, params.space, params.path, input, { links }));
      return json(r.renamed ? { ...r.page, ...r.renamed } : r.page, r.created ? 201 : 200, { etag: `"${r.page.version}"` });
    },
  }),
  endpoint({
    method: 'DELETE',
    path: PAGE_PREFIX,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    summary: 'Delete a page (its revisions stay)',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => deletePage(svc, caller, params.space, params.path)),
  }),
  endpoint({
    method: 'PATCH',
    path: `${PAGE_PREFIX}/metadata`,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    body: MetaPatch,
    bodyExample: { set: { stage: 'doing', obsolete: null }, appendUnique: { tags: ['urgent'] } },
    summary: 'Patch metadata keys',
    responses: [{ status: 200, schema: PageWithChanges }],
    handler: async ({ svc, caller, params, body }) => {
      const patch = await body();
      const { page, changedKeys } = await svc.writes.run(() => patchMetadata(svc, caller, params.space, params.path, patch as never));
      return json({ ...page, changedKeys });
    },
  }),
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/acl`,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    summary: "Read a page's ACL",
    responses: [{ status: 200, schema: Acl }],
    handler: ({ svc, caller, params }) => json(getAcl(svc, caller, params.space, params.path)),
  }),
  endpoint({
    method: 'PUT',
    path: `${PAGE_PREFIX}/acl`,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    body: AclBody,
    bodyExample: { read: ['p_reader'], write: ['p_writer'] },
    summary: "Set a page's ACL (write implies read)",
    responses: [{ status: 200, schema: Acl }],
    handler: async ({ svc, caller, params, body }) =>
      json(await writeWithBody(svc, body, (acl) => setAcl(svc, caller, params.space, params.path, acl))),
  }),
  endpoint({
    method: 'DELETE',
    path: `${PAGE_PREFIX}/acl`,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    summary: "Drop a page's ACL (back to the space default)",
    responses: [{ status: 200, schema: Acl }],
    handler: async ({ svc, caller, params }) => json(await svc.writes.run(() => deleteAcl(svc, caller, params.space, params.path))),
  }),
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/revisions`,
    tag: 'pages',
    auth: 'key',
    params: PageParams,
    query: Paged,
    summary: "List a page's revisions, newest first",
    responses: [{ status: 200, schema: RevisionList }],
    handler: ({ svc, caller, params, query }) => {
      const before = query.cursor ?? Number.MAX_SAFE_INTEGER;
      const { revisions, last } = listRevisions(svc, caller, params.space, params.path, { before, limit: query.limit });
      return json({ revisions, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/revisions/:version`,
    tag: 'pages',
    auth: 'key',
    params: RevisionParams,
    query: Render,
    summary: 'Read one revision',
    responses: [{ status: 200, schema: Revision }],
    handler: ({ svc, caller, params, query }) => {
      const rev = getRevision(svc, caller, params.space, params.path, params.version);
      if (!query.render) return json(rev);
      return renderForCaller(svc, caller, { space: rev.space, path: rev.path }, rev.content).then((html) => json({ ...rev, html }));
    },
  }),
];
