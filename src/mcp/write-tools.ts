// The MCP tools that write: put_page, patch_metadata, create_record. The API validates (a record
// against its type), authorizes and records the events; a 400 comes back as an isError result
// listing each issue.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { slugify } from '../text/slug.ts';
import { pageApiPath, routeSegment, toToolResult, type CallApi } from './api.ts';

const space = z.string().min(1).describe('the space slug');
const pagePath = z.string().min(1).describe('the page path inside the space, e.g. "notes/2025-06-01"');
// Loose on purpose: the API checks metadata values and names the offending key in its issues.
const metadata = z.record(z.string(), z.unknown()).describe('metadata: key → string, number, boolean, ISO date string, or a list of those');

async function recordPath(api: CallApi, spaceSlug: string, type: string, title: string): Promise<string> {
  let prefix = '';
  if (!type.includes(':')) {
    const r = await api('GET', `/spaces/${routeSegment('space', spaceSlug)}/record-types`);
    const t = Array.isArray(r.body)
      ? (r.body as Array<{ name: string; defaultPathPrefix: string | null }>).find((x) => x.name === type)
      : undefined;
    if (t?.defaultPathPrefix) prefix = t.defaultPathPrefix.endsWith('/') ? t.defaultPathPrefix : `${t.defaultPathPrefix}/`;
  }
  return `${prefix}${slugify(title) || `record-${Date.now()}`}`;
}

export function registerWriteTools(server: McpServer, api: CallApi): void {
  server.registerTool(
    'put_page',
    {
      title: 'Create or replace a page',
      description:
        'Creates the page or writes a new revision. title is required for a new page; on an existing page leave it out to keep the current title. content and frontmatter replace the current ones when given (left out: kept). metadata, when given, replaces ALL of the page\'s metadata: to change some keys use patch_metadata. template names a page template or record type ("name", or "space:name" for another space). baseVersion makes the write conditional (0: only if the page does not exist). Needs: write access to the page, or permission to create pages in the space.',
      inputSchema: {
        space,
        path: pagePath,
        title: z.string().optional().describe('the page title (required for a new page; absent: an existing page keeps its title)'),
        content: z.string().optional().describe('the Markdown body'),
        frontmatter: z.record(z.string(), z.unknown()).optional().describe('free-form frontmatter object'),
        metadata: metadata.optional(),
        template: z.string().optional().describe('template or record type name'),
        baseVersion: z.number().int().min(0).optional().describe('only write if the page is at this version'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ space: s, path, ...body }) => toToolResult(await api('PUT', pageApiPath(s, path), body)),
  );

  server.registerTool(
    'patch_metadata',
    {
      title: "Patch a page's metadata",
      description:
        'Changes some metadata keys and leaves the others: set assigns values (null removes the key); appendUnique adds list items not already present. Answers the page with changedKeys. A record is validated against its type.',
      inputSchema: {
        space,
        path: pagePath,
        set: z.record(z.string(), z.unknown()).optional().describe('key → new value, or null to remove the key'),
        appendUnique: z.record(z.string(), z.array(z.unknown())).optional().describe('key → items to append to that list key'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ space: s, path, ...patch }) => toToolResult(await api('PATCH', pageApiPath(s, path, 'metadata'), patch)),
  );

  server.registerTool(
    'create_record',
    {
      title: 'Create a record',
      description:
        "Creates a new page as a record of a type (see list_record_types for its fields). metadata is validated against the type: on any violation nothing is written and the result lists each issue by field. path defaults to the type's defaultPathPrefix plus a slug of the title. Never overwrites: an existing page at the path is an error.",
      inputSchema: {
        space,
        type: z.string().min(1).describe('the record type name ("space:name" for a type of another space)'),
        title: z.string().min(1).describe('the record title'),
        metadata: metadata.optional(),
        content: z.string().optional().describe("Markdown body (default: the type template's content)"),
        path: pagePath.optional().describe('where to create it (default: defaultPathPrefix + slug of the title)'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (a) => {
      const path = a.path ?? (await recordPath(api, a.space, a.type, a.title));
      const answer = await api('PUT', pageApiPath(a.space, path), {
        title: a.title,
        template: a.type,
        metadata: a.metadata ?? {},
        ...(a.content !== undefined ? { content: a.content } : {}),
        baseVersion: 0,
      });
      if (answer.status === 409) {
        return {
          content: [{ type: 'text' as const, text: `409 conflict: a page already exists at ${a.space}/${path}; give another path` }],
          isError: true,
        };
      }
      return toToolResult(answer);
    },
  );
}
