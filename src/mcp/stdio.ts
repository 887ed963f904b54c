// `kspace mcp`: MCP over stdio for clients that launch a command (Claude Desktop and the like).
// Every tool call is an HTTP request to SERVICE_URL with SERVICE_API_KEY, so this door sees and
// does exactly what that key may over HTTP. stdout carries only the protocol.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { httpCallApi } from './api.ts';
import { createMcpServer } from './tools.ts';

/** Serves MCP on stdin/stdout until stdin closes. */
export async function runStdioServer(url: string, key: string | undefined): Promise<void> {
  const server = createMcpServer(httpCallApi(url, key));
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  await server.close().catch(() => {});
}
