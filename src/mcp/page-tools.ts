// MCP tools for a page's life (issue 21): delete, move, revisions (list, read, diff, restore),
// the trash, metadata key discovery and space creation; and every page as an MCP resource
// (kspace://pages/{space}/{+path}). Like every tool, each is one call of the HTTP API.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { toMarkdownDocument } from '../domain/markdown-doc.ts';
import { pageApiPath, routeSegment, toToolResult, type CallApi } from './api.ts';
import { withQuery } from '../client/paths.ts';

const space = z.string().min(1).describe('the space slug, e.g. "wiki" (a personal space is "~name")');
const pagePath = z.string().min(1).describe('the page path inside the space, e.g. "projects/alpha/notes"');
const version = (what: string) => z.number().int().min(1).describe(what);
const write = { readOnlyHint: false, openWorldHint: false } as const;
const ro = { readOnlyHint: true, openWorldHint: false } as const;

const PAGE_URI = 'kspace://pages/{space}/{+path}';

export function registerPageTools(server: McpServer, api: CallApi): void {
  const call = async (method: string, path: string, body?: unknown) => toToolResult(await api(method, path, body));

  server.registerTool(
    'delete_page',
    {
      title: 'Delete a page',
      description:
        "Moves a page to its space's trash (restore_from_trash brings it back; its revisions stay). Needs: in a shared space an org admin key; in a personal space its owner.",
      inputSchema: { space, path: pagePath },
      annotations: { ...write, destructiveHint: true, idempotentHint: true },
    },
    ({ space: s, path }) => call('DELETE', pageApiPath(s, path)),
  );

  server.registerTool(
    'move_page',
    {
      title: 'Move or rename a page',
      description:
        'Moves a page (or with prefix: true every page under from/) to a new path, optionally into another space. The page keeps its history, metadata and ACL; links to it in pages you may write are rewritten (rewritten), others are left and keep working through a redirect (notRewritten). Needs: write access to the page(s) and permission to create pages in the target space. Fails with 409 when a page exists at the target.',
      inputSchema: {
        space,
        from: pagePath.describe('the current path (with prefix: the folder)'),
        to: pagePath.describe('the new path (with prefix: the new folder)'),
        toSpace: z.string().min(1).optional().describe('another space slug to move into'),
        prefix: z.boolean().optional().describe('move every page under from/ to to/'),
      },
      annotations: { ...write, destructiveHint: false, idempotentHint: false },
    },
    ({ space: s, ...body }) => call('POST', `/spaces/${routeSegment('space', s)}/moves`, body),
  );

  server.registerTool(
    'list_revisions',
    {
      title: "List a page's revisions",
      description:
        'Revisions you may read, newest first: version, title, author, createdAt. Read one with get_revision (or get_page with version). Needs: read access to the page.',
      inputSchema: { space, path: pagePath, limit: z.number().int().min(1).max(200).optional(), cursor: z.string().optional() },
      annotations: ro,
    },
    ({ space: s, path, ...q }) => call('GET', withQuery(pageApiPath(s, path, 'revisions'), q)),
  );

  server.registerTool(
    'get_revision',
    {
      title: 'Read a revision',
      description:
        'One earlier revision of a page: title, content, frontmatter, metadata, author. Needs: read access to the page and to that revision (revisions written under a page ACL stay with that ACL).',
      inputSchema: { space, path: pagePath, version: version('the revision number') },
      annotations: ro,
    },
    ({ space: s, path, version: v }) => call('GET', pageApiPath(s, path, `revisions/${v}`)),
  );

  server.registerTool(
    'diff_revisions',
    {
      title: 'Diff two revisions',
      description:
        'What changed from revision `from` to revision `to`: a unified diff of the content (contentDiff), the title change if any, and the changed frontmatter and metadata keys. Needs: read access to both revisions.',
      inputSchema: { space, path: pagePath, from: version('the older revision'), to: version('the newer revision') },
      annotations: ro,
    },
    ({ space: s, path, from, to }) => call('GET', pageApiPath(s, path, `revisions/${from}/diff/${to}`)),
  );

  server.registerTool(
    'restore_revision',
    {
      title: 'Restore a revision',
      description:
        "Writes an earlier revision's title, content, frontmatter and metadata again as a new revision (nothing is lost). Needs: write access to the page and read access to that revision.",
      inputSchema: { space, path: pagePath, version: version('the revision to bring back') },
      annotations: { ...write, destructiveHint: false, idempotentHint: false },
    },
    ({ space: s, path, version: v }) => call('POST', pageApiPath(s, path, `revisions/${v}/restore`)),
  );

  server.registerTool(
    'list_trash',
    {
      title: "List a space's trash",
      description: 'Deleted pages of a space that you could read: path, title, version, deletedAt, deletedBy. Needs: access to the space.',
      inputSchema: { space, limit: z.number().int().min(1).max(200).optional(), cursor: z.string().optional() },
      annotations: ro,
    },
    ({ space: s, ...q }) => call('GET', withQuery(`/spaces/${routeSegment('space', s)}/trash`, q)),
  );

  server.registerTool(
    'restore_from_trash',
    {
      title: 'Restore a deleted page',
      description:
        'Brings a deleted page back as a new revision, at its path or at `to`, with the ACL it had. Needs: you could write the page when it was deleted, and may create pages in the space.',
      inputSchema: { space, path: pagePath, to: pagePath.optional().describe('restore at this path instead') },
      annotations: { ...write, destructiveHint: false, idempotentHint: false },
    },
    ({ space: s, ...body }) => call('POST', `/spaces/${routeSegment('space', s)}/trash/restore`, body),
  );

  server.registerTool(
    'list_metadata_keys',
    {
      title: 'Discover metadata keys',
      description:
        'The metadata keys used by the pages you can read (optionally in one space), with how many pages use each and their value types: use them to build query_metadata filters. Needs: nothing beyond read access.',
      inputSchema: { space: space.optional() },
      annotations: ro,
    },
    ({ space: s }) => call('GET', withQuery('/search/metadata/keys', { space: s })),
  );

  server.registerTool(
    'create_space',
    {
      title: 'Create a space',
      description:
        'A new shared space. slug: 1–63 characters of a-z, 0-9 and -, starting with a letter or digit. defaultAccess (write, read or none) is what every org member gets; default write. Needs: org membership (every member may create a space).',
      inputSchema: {
        slug: z.string().min(1).describe('the new space slug'),
        name: z.string().min(1).describe('display name'),
        description: z.string().optional(),
        defaultAccess: z.enum(['write', 'read', 'none']).optional(),
      },
      annotations: { ...write, destructiveHint: false, idempotentHint: false },
    },
    (body) => call('POST', '/spaces', body),
  );

  // Every page is a resource: clients attach it as context by its address. Listing shows the
  // first pages of each space you can see (at most 200 in all); any page is readable by URI.
  server.registerResource(
    'page',
    new ResourceTemplate(PAGE_URI, {
      list: async () => {
        const spaces = await api('GET', '/spaces?limit=50');
        const out: Array<{ uri: string; name: string; mimeType: string }> = [];
        for (const s of (spaces.body as { spaces?: Array<{ slug: string }> }).spaces ?? []) {
          if (out.length >= 200) break;
          const pages = await api('GET', `/spaces/${encodeURIComponent(s.slug)}/pages?limit=50`);
          for (const p of (pages.body as { pages?: Array<{ path: string; title: string }> }).pages ?? []) {
            if (out.length < 200)
              out.push({ uri: pageUri(s.slug, p.path), name: `${s.slug}/${p.path}: ${p.title}`, mimeType: 'text/markdown' });
          }
        }
        return { resources: out };
      },
    }),
    {
      title: 'A kspace page',
      description: 'A page as Markdown with YAML frontmatter (title, frontmatter and metadata). Address: kspace://pages/<space>/<path>.',
      mimeType: 'text/markdown',
    },
    async (uri, vars) => {
      const s = String(vars.space);
      const path = decodeURIComponent(String(vars.path));
      const r = await api('GET', pageApiPath(decodeURIComponent(s), path));
      if (r.status !== 200)
        throw new Error(`${uri.href}: ${r.status === 404 ? 'no such page (or not readable with this key)' : `error ${r.status}`}`);
      const p = r.body as { title: string; content: string; frontmatter: Record<string, unknown>; metadata: Record<string, unknown> };
      const fm = Object.keys(p.metadata ?? {}).length ? { ...p.frontmatter, metadata: p.metadata } : p.frontmatter;
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: toMarkdownDocument(p.title, fm, p.content) }] };
    },
  );
}

export function pageUri(space: string, path: string): string {
  return `kspace://pages/${encodeURIComponent(space)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}
