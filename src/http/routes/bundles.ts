import * as v from 'valibot';
import { FastResponse } from 'srvx';
import { parseBundle } from '../../domain/bundles/bundle.ts';
import { openExportStream } from '../../domain/bundles/export.ts';
import { openWorkerExport } from '../../domain/bundles/export-thread.ts';
import { IMPORT_MODES, importBundle } from '../../domain/bundles/import.ts';
import { gatedImport } from '../../domain/bundles/import-gate.ts';
import { resolveSpace } from '../../domain/spaces.ts';
import { ImportResult } from '../answers.ts';
import { endpoint } from '../endpoint.ts';
import { documentAs } from '../json-schema.ts';
import { json } from '../respond.ts';
import { META_KEY_PATTERN, SlugParams } from '../schemas.ts';

/** A query parameter that is one of `values`; `dflt` when absent or empty. */
const oneOf = <T extends string>(name: string, values: readonly T[], dflt: T) =>
  documentAs(
    v.pipe(
      v.optional(v.string(), ''),
      v.transform((s) => (s === '' ? dflt : s)),
      v.picklist(values, `${name} is one of: ${values.join(', ')}`),
    ),
    { type: 'string', enum: [...values], default: dflt },
  );
const Mode = oneOf('mode', IMPORT_MODES, 'skip');
const Format = oneOf('format', ['json', 'zip'] as const, 'json');
/** A bundle as export writes it; checked in full by parseBundle, which names each bad field. */
const Bundle = documentAs(v.unknown(), {
  type: 'object',
  description: 'an export bundle (docs/export-import.md); unknown fields are ignored',
  required: ['format', 'formatVersion', 'space', 'pages'],
  properties: {
    format: { const: 'service-space-export' },
    formatVersion: { enum: [1, 2], description: '2 carries attachments and blobs' },
    exportedAt: { type: 'string', format: 'date-time' },
    space: {
      type: 'object',
      properties: { slug: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' } },
    },
    pages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'title'],
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 512 },
          title: { type: 'string', minLength: 1, maxLength: 1024 },
          content: { type: 'string' },
          frontmatter: { type: 'object' },
          metadata: { type: 'object', propertyNames: { pattern: META_KEY_PATTERN } },
          version: { type: 'number' },
          updatedAt: { type: 'string' },
        },
      },
    },
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'name', 'sha256'],
        properties: {
          path: { type: 'string' },
          name: { type: 'string' },
          contentType: { type: 'string' },
          sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          size: { type: 'number' },
          source: {
            type: 'string',
            maxLength: 1024,
            description: "the file's path in the folder an import read it from; a Markdown export writes it there",
          },
        },
      },
    },
    blobs: { type: 'object', additionalProperties: { type: 'string', contentEncoding: 'base64' }, description: 'file bytes by sha256' },
  },
});

export const bundleEndpoints = [
  // Requires list access (the space is visible); only pages the caller may read are written.
  endpoint({
    method: 'GET',
    path: '/spaces/:slug/export',
    tag: 'bundles',
    auth: 'key',
    params: SlugParams,
    query: v.object({ format: Format }),
    summary: 'Export the pages you can read as a bundle (streamed JSON), or as a zip of Markdown files',
    responses: [
      { status: 200, schema: Bundle, streamed: true },
      {
        status: 200,
        contentType: 'application/zip',
        streamed: true,
        description: 'format=zip: one .md file per page (docs/export-import.md)',
      },
    ],
    // The stream is made before the answer starts: a failure before its first byte is problem+json.
    handler: async ({ svc, caller, params, query }) => {
      const space = resolveSpace(svc, caller, params.slug);
      const base = space.slug.replace(/[^a-z0-9-]/g, '_');
      // Made on a worker thread of its own; on the event loop in steps when no worker may run it (export-thread.ts).
      if (query.format === 'zip') {
        const stream = await (openWorkerExport(svc, 'zip export', 'zip', caller, space) ??
          // Loaded at the first such export: fflate's tables were ~5 ms of a profiled start.
          (await import('../../domain/bundles/zip-export.ts')).openZipExportStream(svc, caller, space));
        return new FastResponse(stream as never, {
          headers: {
            'content-type': 'application/zip',
            'content-disposition': `attachment; filename="${base}-export.zip"`,
            'cache-control': 'no-store',
          },
        });
      }
      return new FastResponse(
        (await (openWorkerExport(svc, 'export', 'json', caller, space) ?? openExportStream(svc, caller, space))) as never,
        {
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'content-disposition': `attachment; filename="${base}-export.json"`,
            'cache-control': 'no-store',
          },
        },
      );
    },
  }),
  endpoint({
    method: 'POST',
    path: '/spaces/:slug/import',
    tag: 'bundles',
    auth: 'key',
    params: SlugParams,
    query: v.object({ mode: Mode }),
    body: Bundle,
    bodyExample: {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'wiki', name: 'Wiki' },
      pages: [{ path: 'start', title: 'Start here', content: '# Hello', metadata: { stage: 'draft' } }],
    },
    summary: 'Import a bundle into a space (created when absent)',
    responses: [{ status: 200, schema: ImportResult }],
    // One import at a time per principal (429), within the server's import budget (503).
    errors: [429, 503],
    handler: ({ event, svc, caller, params, query, body }) =>
      gatedImport(svc, caller, event.req.headers.get('content-length'), async () => {
        const bundle = parseBundle(await body(svc.config.limits.importBytes), svc.config.limits);
        const { result } = await importBundle(svc, caller, { slug: params.slug }, bundle, query.mode);
        return json(result);
      }),
  }),
];
