import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KSPACE_BIN } from './cli.ts';

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
export async function connectStdio(baseUrl: string, key: string, command = KSPACE_BIN): Promise<Client & { stderr: () => string }> {
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
