import * as v from 'valibot';
import { FastResponse } from 'srvx';
import {
  attachmentTooLarge,
  authorizeUpload,
  checkFileSize,
  deleteAttachment,
  fileBody,
  fileHref,
  findFile,
  listFiles,
  putAttachment,
  splitFileAddress,
  uploadHasher,
} from '../../domain/attachments.ts';
import { AppError } from '../../domain/errors.ts';
import { contentDisposition, etagMatches, parseRange, servedInline, servedType } from '../../domain/file-rules.ts';
import { redirectFor } from '../../domain/moves.ts';
import { endpoint } from '../endpoint.ts';
import { PAGE_PREFIX } from '../page-paths.ts';
import { json, noContentAfter, problem } from '../respond.ts';
import { cursor, isString, Limit, Slug } from '../schemas.ts';
import { encodeCursor } from '../cursor-seal.ts';
import { PageParams } from './pages.ts';

// Attachments (docs/api.md "Attachments"): `/files/<space>/<page path>/<name>`, the last segment
// the file's name, the rest the page's path. The page's ACL applies.

const FILE_PATH = '/files/:space/**:path';
const FileParams = v.object({ space: Slug, path: v.pipe(v.string(), v.minLength(1)) });
const FileInfo = v.strictObject({ name: v.string(), size: v.number(), contentType: v.string(), sha256: v.string() });
const FileList = v.strictObject({
  files: v.array(v.strictObject({ ...FileInfo.entries, createdAt: v.string(), url: v.string() })),
  nextCursor: v.nullable(v.string()),
});

/** Every file answer: never sniffed, never run, never cached by a shared cache (the page's ACL decides who sees it). */
const SAFE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'",
  'cache-control': 'private, no-cache',
  'accept-ranges': 'bytes',
};

export const fileEndpoints = [
  endpoint({
    method: 'PUT',
    path: FILE_PATH,
    tag: 'files',
    auth: 'key',
    params: FileParams,
    rawBody: {
      description: "the file's bytes; `Content-Type` is a hint (the stored type is sniffed from the bytes when they say what they are)",
    },
    summary: 'Attach a file to a page (or replace it)',
    description:
      "The page must exist and the caller may write it. 413 past SERVICE_MAX_ATTACHMENT_BYTES, the space's SERVICE_SPACE_QUOTA_BYTES or the organisation's SERVICE_ORG_QUOTA_BYTES (the problem names the setting).",
    responses: [
      { status: 201, schema: FileInfo },
      { status: 200, schema: FileInfo },
    ],
    handler: async ({ svc, caller, params, event, raw }) => {
      const { pagePath, name } = splitFileAddress(params.path);
      authorizeUpload(svc, caller, params.space, pagePath, name);
      const hasher = uploadHasher();
      let data: Buffer;
      try {
        const declared = Number(event.req.headers.get('content-length') ?? NaN);
        if (Number.isFinite(declared)) checkFileSize(svc, declared);
        const cap = svc.config.limits.attachmentBytes;
        data = await raw(cap, { tooLarge: () => attachmentTooLarge(cap), onChunk: hasher.add });
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        // Refused before the body was read whole: the rest of it is still on its way, so this
        // connection cannot carry another request.
        const res = problem(e, svc.log, event.url.pathname);
        res.headers.set('connection', 'close');
        return res;
      }
      const upload = hasher.finish(data);
      const r = await svc.writes.run(() =>
        putAttachment(svc, caller, params.space, pagePath, name, upload, event.req.headers.get('content-type')),
      );
      return json(r.file, r.created ? 201 : 200, { etag: `"${r.file.sha256}"`, location: fileHref(params.space, pagePath, name) });
    },
  }),
  endpoint({
    method: 'GET',
    path: FILE_PATH,
    tag: 'files',
    auth: 'key',
    params: FileParams,
    summary: 'Download an attached file',
    description:
      'ETag is the quoted sha256; If-None-Match → 304; one `Range: bytes=…` → 206 (416 past the end). Images, audio, video and plain text are served inline, everything else (HTML and SVG among them) as a download.',
    responses: [
      { status: 200, contentType: 'application/octet-stream', description: 'the file, with its stored Content-Type' },
      { status: 206, contentType: 'application/octet-stream', description: 'the requested range (Content-Range)' },
      { status: 304, description: 'If-None-Match matched the ETag' },
      { status: 308, description: "the page moved: Location is the file at the page's new address" },
    ],
    errors: [416],
    handler: ({ svc, caller, params, event }) => {
      const { pagePath, name } = splitFileAddress(params.path);
      let row;
      try {
        row = findFile(svc, caller, params.space, pagePath, name);
      } catch (e) {
        const moved = e instanceof AppError && e.code === 'not_found' ? movedFileLocation(svc, caller, params.space, pagePath, name) : null;
        if (moved) return new FastResponse(null, { status: 308, headers: { location: moved } });
        throw e;
      }
      const etag = `"${row.sha256}"`;
      const headers: Record<string, string> = { ...SAFE_HEADERS, etag };
      if (etagMatches(event.req.headers.get('if-none-match'), etag)) return new FastResponse(null, { status: 304, headers });
      headers['content-type'] = servedType(row.content_type);
      headers['content-disposition'] = contentDisposition(row.name, servedInline(row.content_type));
      const ifRange = event.req.headers.get('if-range');
      const range = ifRange !== null && ifRange.trim() !== etag ? null : parseRange(event.req.headers.get('range'), row.size);
      if (range === 'unsatisfiable') {
        const res = problem(new AppError('range_not_satisfiable', `the file has ${row.size} bytes`), svc.log, event.url.pathname);
        res.headers.set('content-range', `bytes */${row.size}`);
        return res;
      }
      const { start, end } = range ?? { start: 0, end: row.size - 1 };
      if (range) headers['content-range'] = `bytes ${start}-${end}/${row.size}`;
      const status = range ? 206 : 200;
      headers['content-length'] = String(end - start + 1);
      return new FastResponse(fileBody(svc, row, start, end) as never, { status, headers });
    },
  }),
  endpoint({
    method: 'DELETE',
    path: FILE_PATH,
    tag: 'files',
    auth: 'key',
    params: FileParams,
    summary: 'Remove an attached file',
    responses: [{ status: 204 }],
    handler: async ({ svc, caller, params }) => {
      const { pagePath, name } = splitFileAddress(params.path);
      return noContentAfter(svc, () => deleteAttachment(svc, caller, params.space, pagePath, name));
    },
  }),
  endpoint({
    method: 'GET',
    path: `${PAGE_PREFIX}/files`,
    tag: 'files',
    auth: 'key',
    params: PageParams,
    query: v.object({ limit: Limit, cursor: cursor(isString) }),
    summary: "List a page's attached files",
    responses: [{ status: 200, schema: FileList }],
    handler: ({ svc, caller, params, query }) => {
      const { files, last } = listFiles(svc, caller, params.space, params.path, { after: query.cursor ?? '', limit: query.limit });
      return json({ files, nextCursor: last === null ? null : encodeCursor(svc, last) });
    },
  }),
];

/** A file of a page that moved: its address under the page's new one (only for a caller who may read it). */
function movedFileLocation(
  svc: Parameters<typeof redirectFor>[0],
  caller: Parameters<typeof redirectFor>[1],
  space: string,
  pagePath: string,
  name: string,
): string | null {
  const to = redirectFor(svc, caller, space, pagePath.split('/'));
  return to === null ? null : `/files/${to.slice('/pages/'.length)}/${encodeURIComponent(name)}`;
}
