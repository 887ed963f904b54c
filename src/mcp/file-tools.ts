// MCP tools for attached files: list them (name, size, type, sha256, url). Reading a file's
// bytes stays with HTTP (`GET /files/…`, the `url` of each item): a tool answer is text.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { pageApiPath, toToolResult, type CallApi } from './api.ts';
import { withQuery } from '../client/paths.ts';

export function registerFileTools(server: McpServer, api: CallApi): void {
  server.registerTool(
    'list_files',
    {
      title: "List a page's attached files",
      description:
        'The files attached to a page, in name order: name, size (bytes), contentType, sha256, createdAt and url (`/files/<space>/<page path>/<name>`, which Markdown in the page may link or embed, also as `files/<name>`). Needs: read access to the page.',
      inputSchema: {
        space: z.string().min(1).describe('the space slug, e.g. "wiki" (a personal space is "~name")'),
        path: z.string().min(1).describe('the page path inside the space, e.g. "projects/alpha/notes"'),
        limit: z.number().int().min(1).max(200).optional(),
        cursor: z.string().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ space, path, ...q }) => toToolResult(await api('GET', withQuery(pageApiPath(space, path, 'files'), q))),
  );
}
