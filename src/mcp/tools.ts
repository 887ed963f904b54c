// The MCP tools: each is a thin adapter that turns its arguments into one (rarely two) calls of
// the HTTP API and its answer into a tool result. Nothing here validates metadata, checks access
// or writes: the API does, identically for every door.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { pageApiPath, routeSegment, toToolResult, type CallApi } from './api.ts';
import { withQuery } from '../client/paths.ts';
import { registerWriteTools } from './write-tools.ts';
import { registerFileTools } from './file-tools.ts';
import { registerPageTools } from './page-tools.ts';

export const SERVER_INFO = { name: 'kspace', version: '0.1.0' };

const INSTRUCTIONS = `kspace is a knowledge base of spaces holding Markdown pages with typed metadata.
Start with list_spaces; find pages with search (full text) or query_metadata / query_records (structured);
read with get_page. Record types (list_record_types) declare the metadata fields of records; create_record
validates against them and reports each violated field. You only see pages your key may read.`;

const ro = { readOnlyHint: true, openWorldHint: false } as const;
const space = z.string().min(1).describe('the space slug, e.g. "wiki" (a personal space is "~name")');
const pagePath = z.string().min(1).describe('the page path inside the space, e.g. "projects/alpha/notes"');
const limit = z.number().int().min(1).max(200).optional().describe('at most this many results (1–200, default 50)');
const linkLimit = z.number().int().min(1).max(1000).optional().describe('at most this many links (1–1000, default 50)');
const cursor = z.string().optional().describe('nextCursor from a previous answer, to get the next results');
const scalar = z.union([z.string(), z.number(), z.boolean()]);
export const filterSchema = z.object({
  key: z.string().describe('metadata key'),
  op: z
    .enum(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'in', 'exists', 'missing'])
    .describe(
      'eq/neq equality; gt/gte/lt/lte compare numbers and ISO dates; contains: a list holds the value; in: the value is one of an array; exists/missing: key present/absent (no value)',
    ),
  value: z
    .union([scalar, z.array(scalar)])
    .optional()
    .describe('the operand; an array for "in"; omit for exists/missing'),
});
const filters = z.array(filterSchema).max(20).describe('filters, all of which must hold');
const order = z.enum(['asc', 'desc']).optional().describe('sort direction for orderBy (default asc)');

/** A fresh MCP server with every kspace tool, calling the API through `callApi`. */
export function createMcpServer(callApi: CallApi): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } });
  registerReadTools(server, callApi);
  registerWriteTools(server, callApi);
  registerPageTools(server, callApi);
  registerFileTools(server, callApi);
  return server;
}

const call = async (callApi: CallApi, method: string, path: string, body?: unknown) => toToolResult(await callApi(method, path, body));

function registerReadTools(server: McpServer, api: CallApi): void {
  server.registerTool(
    'list_spaces',
    {
      title: 'List spaces',
      description: 'The spaces you can see (your personal space included): slug, name, description, default access.',
      inputSchema: { limit, cursor },
      annotations: ro,
    },
    (a) => call(api, 'GET', withQuery('/spaces', a)),
  );

  server.registerTool(
    'list_pages',
    {
      title: 'List pages',
      description: 'Pages of a space in path order (path, title, version, updatedAt, record type). Use prefix for a folder.',
      inputSchema: { space, prefix: z.string().optional().describe('only paths starting with this, e.g. "projects/"'), limit, cursor },
      annotations: ro,
    },
    ({ space: s, ...q }) => call(api, 'GET', withQuery(`/spaces/${routeSegment('space', s)}/pages`, q)),
  );

  server.registerTool(
    'get_page',
    {
      title: 'Get a page',
      description:
        'One page: title, Markdown content, frontmatter, metadata, record type (template) and version. Give version for an earlier revision.',
      inputSchema: { space, path: pagePath, version: z.number().int().min(1).optional().describe('an earlier revision number') },
      annotations: ro,
    },
    (a) => call(api, 'GET', pageApiPath(a.space, a.path, a.version === undefined ? undefined : `revisions/${a.version}`)),
  );

  server.registerTool(
    'search',
    {
      title: 'Full-text search',
      description:
        'Full-text search over titles and content, ranked by relevance: pages holding every word first, then pages holding some; English word forms match (notes finds note); "quoted phrases" and prefix* work, and the last word is a prefix unless followed by a space. Hits: space, path, title, snippet (matches in <mark>), score.',
      inputSchema: {
        query: z.string().min(1).describe('the search text'),
        space: space.optional().describe('only this space'),
        limit,
        cursor,
      },
      annotations: ro,
    },
    ({ query, ...q }) => call(api, 'GET', withQuery('/search', { q: query, ...q })),
  );

  server.registerTool(
    'query_metadata',
    {
      title: 'Query pages by metadata',
      description:
        'Pages whose metadata matches every filter, across spaces (or one), with their metadata. E.g. filters [{"key":"stage","op":"in","value":["todo","doing"]},{"key":"points","op":"gte","value":3}], orderBy "due". Records of a type: add {"key":"template","op":"eq","value":"<type>"} or use query_records.',
      inputSchema: {
        filters,
        space: space.optional().describe('only this space'),
        orderBy: z.string().optional().describe('sort by this metadata key'),
        order,
        limit,
        cursor,
      },
      annotations: ro,
    },
    ({ filters: f, ...q }) => call(api, 'GET', withQuery('/search/metadata', { filters: JSON.stringify(f), ...q })),
  );

  server.registerTool(
    'list_record_types',
    {
      title: 'List record types',
      description:
        "A space's record types with their fields (key, type, required, options, min/max, default), defaultPathPrefix and whether undeclared keys are allowed. Read this before create_record.",
      inputSchema: { space },
      annotations: ro,
    },
    (a) => call(api, 'GET', `/spaces/${routeSegment('space', a.space)}/record-types`),
  );

  server.registerTool(
    'query_records',
    {
      title: 'Query records of a type',
      description:
        'Records of one type in a space, as rows with their metadata; filters as in query_metadata (in included), optional order.',
      inputSchema: {
        space,
        type: z.string().min(1).describe('the record type name'),
        filters: filters.optional(),
        orderBy: z.string().optional().describe('sort by this metadata key'),
        order,
        limit,
        cursor,
      },
      annotations: ro,
    },
    ({ space: s, type, filters: f, ...q }) =>
      call(
        api,
        'GET',
        withQuery(`/spaces/${routeSegment('space', s)}/records/${routeSegment('type', type)}`, {
          filters: f?.length ? JSON.stringify(f) : undefined,
          ...q,
        }),
      ),
  );

  server.registerTool(
    'get_links',
    {
      title: 'Links and backlinks of a page',
      description:
        "A page's outbound internal links (space, path, exists) and its backlinks (pages linking to it that you can read), up to limit of each; nextCursor continues both.",
      inputSchema: { space, path: pagePath, limit: linkLimit, cursor },
      annotations: ro,
    },
    ({ space: s, path: p, ...q }) => call(api, 'GET', withQuery(pageApiPath(s, p, 'links'), q)),
  );

  server.registerTool(
    'broken_links',
    {
      title: 'Broken links of a space',
      description:
        'Links in a space whose target page does not exist: {links: [{source: {space, path}, target: {space, path}}], nextCursor}.',
      inputSchema: { space, limit: linkLimit, cursor },
      annotations: ro,
    },
    async ({ space: s, ...q }) => {
      // The API answers a bare array and names the next page in a Link header.
      const answer = await api('GET', withQuery(`/spaces/${routeSegment('space', s)}/links/broken`, q));
      return toToolResult(answer.status === 200 ? { status: 200, body: { links: answer.body, nextCursor: answer.next ?? null } } : answer);
    },
  );

  server.registerTool(
    'list_templates',
    {
      title: 'List templates',
      description:
        'Page templates and record types you can read, across the organisation (or one space): space, name, title, description, recordType, fields.',
      inputSchema: {
        space: space.optional().describe('only this space'),
        includeContent: z.boolean().optional().describe("include each template's Markdown content"),
      },
      annotations: ro,
    },
    (a) => call(api, 'GET', withQuery('/templates', a)),
  );
}
