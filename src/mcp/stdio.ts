// `kspace mcp`: MCP over stdio for clients that launch a command (Claude Desktop and the like).
// Every tool call is an HTTP request to SERVICE_URL with SERVICE_API_KEY, so this door sees and
// does exactly what that key may over HTTP. stdout carries only the protocol.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { httpCallApi } from './api.ts';
import { enableSubscriptions } from './subscriptions.ts';
import { createMcpServer } from './tools.ts';

const isRequest = (m: JSONRPCMessage) => 'method' in m && 'id' in m;
const isResponse = (m: JSONRPCMessage) => 'id' in m && ('result' in m || 'error' in m);

/**
 * Serves MCP on stdin/stdout until stdin closes and every request read before that has been
 * answered (a client may write its requests and close its end at once).
 */
export async function runStdioServer(url: string, key: string | undefined): Promise<void> {
  const server = createMcpServer(httpCallApi(url, key));
  // Page resources may be subscribed to here (a long-lived session); the stateless /mcp door does not offer it.
  const subscriptions = enableSubscriptions(
    server,
    {
      base: url,
      headers: (): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}),
    },
    (line) => process.stderr.write(`${line}\n`),
  );
  const transport = new StdioServerTransport();
  await server.connect(transport);

  let inFlight = 0;
  let stdinEnded = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const maybeFinish = () => {
    if (stdinEnded && inFlight === 0) finish();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (...args: Parameters<NonNullable<typeof onmessage>>) => {
    if (isRequest(args[0])) inFlight++;
    onmessage?.(...args);
  };
  const send = transport.send.bind(transport);
  transport.send = async (...args: Parameters<typeof send>) => {
    await send(...args);
    if (isResponse(args[0])) {
      inFlight = Math.max(0, inFlight - 1);
      maybeFinish();
    }
  };
  const ended = () => {
    stdinEnded = true;
    maybeFinish();
  };
  process.stdin.once('end', ended);
  process.stdin.once('close', ended);
  server.server.onclose = finish;

  await finished;
  subscriptions.stop();
  await server.close().catch(() => {});
}
