import type { Command } from 'commander';
import { Option } from 'commander';
import { connectionOf, DEFAULT_URL } from './client.ts';
import { ExitError } from './exit-error.ts';

const HELP = `
An MCP client launches this command and talks JSON-RPC over stdin/stdout; every tool call becomes
a request to the kspace server at SERVICE_URL with SERVICE_API_KEY (so it may see and do exactly
what that key may). Servers also speak MCP themselves at POST /mcp (Streamable HTTP, Bearer key).

Example (Claude Desktop, claude_desktop_config.json):
  { "mcpServers": { "kspace": { "command": "/usr/local/bin/kspace", "args": ["mcp"],
      "env": { "SERVICE_URL": "http://127.0.0.1:8080", "SERVICE_API_KEY": "ks_..." } } } }
`;

/** `kspace mcp`: the stdio MCP door. */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('MCP over stdio, forwarding to the server')
    .helpGroup('Server:')
    .addOption(new Option('--url <url>', `server URL (default: $SERVICE_URL or ${DEFAULT_URL})`).helpGroup('Connection:'))
    .addOption(new Option('--key <key>', 'API key (default: $SERVICE_API_KEY)').helpGroup('Connection:'))
    .addHelpText('after', HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      const conn = connectionOf(cmd);
      try {
        new URL(conn.url);
      } catch {
        throw new ExitError(`the server URL '${conn.url}' is not a valid URL (set SERVICE_URL or --url)`);
      }
      if (!conn.key) process.stderr.write('kspace mcp: no API key (SERVICE_API_KEY); every tool call will answer 401\n');
      const { runStdioServer } = await import('../mcp/stdio.ts');
      await runStdioServer(conn.url, conn.key);
    });
}
