// MCP over Streamable HTTP at /mcp (declared in src/http/routes/mcp.ts). Stateless: every POST
// gets a fresh McpServer and transport, answered as plain JSON. Tools reach the API in-process
// through the same h3 app with the caller's own Authorization header, so ACLs, validation and
// events are exactly those of HTTP.
import { nextCursorOf } from '../client/problem.ts';
import { readBody, type CallApi } from './api.ts';

export type Fetcher = { fetch(req: Request): Response | Promise<Response> };

/** The /mcp door's callApi: a sub-request into `app` carrying the caller's credentials. */
function inProcessCallApi(app: Fetcher, origin: string, authorization: string): CallApi {
  return async (method, path, body) => {
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.fetch(
      new Request(origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    return { status: res.status, body: await readBody(res), next: nextCursorOf(res.headers.get('link')) };
  };
}

/** One POST to /mcp: `text` is its body, `origin` where the in-process sub-requests go. */
type McpRequest = { app: Fetcher; url: string; headers: Headers; text: string; origin: string; bodyBytes: number };

/** Answers one MCP POST (its JSON-RPC message) with a fresh server and transport. */
export async function serveMcp({ app, url, headers, text, origin, bodyBytes }: McpRequest): Promise<Response> {
  const authorization = headers.get('authorization')!; // checked by the endpoint's auth (Bearer only)
  // A JSON-RPC batch (an array) runs every call in it within one request, so one small POST could
  // hold the server for seconds. the MCP revisions this server speaks have no batches: refused.
  if (/^\s*\[/.test(text)) return batchRefused();
  // Loaded on first use: a server that never sees an MCP client never pays for the SDK.
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./tools.ts'),
  ]);
  const server = createMcpServer(inProcessCallApi(app, origin, authorization));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: bodyBytes,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(new Request(url, { method: 'POST', headers, body: text }));
  } finally {
    // JSON mode answers only when every response is ready, so the server can go now.
    void server.close().catch(() => {});
  }
}

function batchRefused(): Response {
  const error = { code: -32600, message: 'JSON-RPC batches (arrays) are not accepted: send one JSON-RPC message per request' };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error }), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}
