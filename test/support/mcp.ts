import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KSPACE_BIN } from './cli.ts';
import { useMade, useServer, type Agent } from './fixture.ts';
import type { TestServer } from './server.ts';
import type { OutboxSubscription } from './outbox.ts';

/** The SDK's own client over Streamable HTTP at /mcp, with a Bearer key. */
export async function connectHttp(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'kspace-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** The SDK's own client launching `kspace mcp` (stdio), pointed at a server by SERVICE_URL/SERVICE_API_KEY. */
export async function connectStdio(baseUrl: string, key: string, command = KSPACE_BIN): Promise<StdioClient> {
  const transport = new StdioClientTransport({
    command,
    args: ['mcp'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SERVICE_URL: baseUrl, SERVICE_API_KEY: key },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'kspace-test', version: '1.0.0' });
  await client.connect(transport);
  return Object.assign(client, { stderr: () => stderr });
}

/** An MCP client for the whole file: `connect` in its beforeAll, closed in its afterAll. */
export function useMcpClient<C extends Client>(connect: () => Promise<C>, what = 'the MCP client'): C {
  return useMade(what, connect, (c) => c.close());
}

type StdioClient = Client & { stderr: () => string };
export type McpWiki<D extends 'http' | 'stdio'> = {
  srv: TestServer;
  bob: Agent;
  mcp: D extends 'stdio' ? StdioClient : Client;
  outbox: OutboxSubscription;
};

/**
 * The server of an MCP suite about one space: agent bob, the space wiki and its `pages` (by path
 * in wiki), the page `hidden` (when `hidden` says so) whose ACL names the admin alone, and bob's
 * MCP client over `door` (`onConnect` sees it first).
 */
export function useMcpWiki<D extends 'http' | 'stdio'>(opts: {
  door: D;
  pages: Array<[string, Record<string, unknown>]>;
  /** Page `hidden`'s ACL: the admin alone may write it ('write'), or also read it ('read-write'). */
  hidden?: 'write' | 'read-write';
  /** A webhook subscription, so that writes record page.created (support/outbox.ts). */
  recordCreated?: boolean;
  onConnect?: (c: Client) => void;
}): McpWiki<D> {
  const {
    srv,
    agents: { bob },
    outbox,
  } = useServer({
    agents: ['bob'],
    spaces: [{ slug: 'wiki', name: 'Wiki' }],
    outbox: opts.recordCreated ? { spaceSlug: 'wiki', events: ['page.created'] } : undefined,
    pages: opts.pages.map(([p, page]) => [`wiki/${p}`, page]),
    async setup(s) {
      if (!opts.hidden) return;
      const me = (await s.admin.get('/me')).body;
      const acl = opts.hidden === 'write' ? { write: [me.id] } : { read: [me.id], write: [me.id] };
      const r = await s.admin.put('/pages/wiki/hidden/acl', acl);
      if (r.status !== 200) throw new Error(`hide wiki/hidden: ${r.status} ${r.text}`);
    },
  });
  const mcp = useMcpClient(async () => {
    const c = await (opts.door === 'http' ? connectHttp : connectStdio)(srv.url, bob.key!);
    opts.onConnect?.(c);
    return c as McpWiki<D>['mcp'];
  });
  return { srv, bob, mcp, outbox };
}

export type ToolAnswer = { isError: boolean; text: string; json: any };

/** Calls a tool and reads its one text content (JSON when it parses). */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: r.isError === true, text, json };
}

export const TOOL_NAMES = [
  'broken_links',
  'create_record',
  'create_space',
  'delete_page',
  'diff_revisions',
  'get_links',
  'get_page',
  'get_revision',
  'list_files',
  'list_metadata_keys',
  'list_pages',
  'list_record_types',
  'list_revisions',
  'list_spaces',
  'list_templates',
  'list_trash',
  'move_page',
  'patch_metadata',
  'put_page',
  'query_metadata',
  'query_records',
  'restore_from_trash',
  'restore_revision',
  'search',
];
export const WRITE_TOOLS = [
  'create_record',
  'create_space',
  'delete_page',
  'move_page',
  'patch_metadata',
  'put_page',
  'restore_from_trash',
  'restore_revision',
];

/** One tools/call as a bare JSON-RPC POST to /mcp, without the SDK or a session: fetch's answer. */
export function postToolCall(baseUrl: string, key: string, name: string, args: Record<string, unknown>): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}
