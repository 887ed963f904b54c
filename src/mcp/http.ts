// MCP over Streamable HTTP at /mcp. Stateless: every POST gets a fresh McpServer and transport,
// answered as plain JSON. Tools reach the API in-process through the same h3 app with the
// caller's own Authorization header, so ACLs, validation and events are exactly those of HTTP.
import type { H3, H3Event } from 'h3';
import type { Services } from '../services.ts';
import { AppError } from '../domain/errors.ts';
import { requireCaller } from '../http/auth.ts';
import { readText } from '../http/body.ts';
import { problem } from '../http/respond.ts';
import { nextCursorOf, readBody, type CallApi } from './api.ts';

/** The /mcp door's callApi: a sub-request into `app` carrying the caller's credentials. */
export function inProcessCallApi(app: H3, origin: string, authorization: string): CallApi {
  return async (method, path, body) => {
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.fetch(new Request(origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    return { status: res.status, body: await readBody(res), next: nextCursorOf(res) };
  };
}

async function handleMcp(app: H3, svc: Services, event: H3Event): Promise<Response> {
  const authorization = event.req.headers.get('authorization');
  // Bearer keys only (the web app's cookie is for the web app); 401 before any MCP parsing.
  if (!authorization) throw new AppError('unauthorized', 'send Authorization: Bearer <API key>');
  requireCaller(event, svc);
  if (event.req.method !== 'POST') {
    // Stateless: no server-initiated messages, so no standalone SSE stream (the spec allows 405).
    throw new AppError('method_not_allowed', 'this MCP endpoint is stateless: send JSON-RPC with POST', undefined, undefined);
  }
  let origin: string;
  try {
    origin = new URL(event.req.url).origin; // built from the Host header, which may be anything
  } catch {
    throw new AppError('bad_request', 'the Host header is not a valid host and port');
  }
  const text = await readText(event.req, svc.config.limits.bodyBytes);
  // A JSON-RPC batch (an array) runs every call in it within one request: one 872-byte POST of
  // four searches held the server 3.6 s (issue 18). MCP 2025-06-18 dropped batches: refused.
  if (/^\s*\[/.test(text)) return batchRefused();
  // Loaded on first use: a server that never sees an MCP client never pays for the SDK.
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./tools.ts'),
  ]);
  const server = createMcpServer(inProcessCallApi(app, origin, authorization));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: svc.config.limits.bodyBytes,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(new Request(event.req.url, { method: 'POST', headers: event.req.headers, body: text }));
  } finally {
    // JSON mode answers only when every response is ready, so the server can go now.
    void server.close().catch(() => {});
  }
}

function batchRefused(): Response {
  const error = { code: -32600, message: 'JSON-RPC batches (arrays) are not accepted: send one JSON-RPC message per request' };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error }), { status: 400, headers: { 'content-type': 'application/json' } });
}

export function registerMcpRoutes(app: H3, svc: Services): void {
  const handler = async (event: H3Event) => {
    try {
      return await handleMcp(app, svc, event);
    } catch (err) {
      const res = problem(err, svc.log, '/mcp');
      if (err instanceof AppError && err.code === 'method_not_allowed') res.headers.set('allow', 'POST');
      return res;
    }
  };
  app.on('POST', '/mcp', handler);
  app.on('GET', '/mcp', handler);
  app.on('DELETE', '/mcp', handler);
}
