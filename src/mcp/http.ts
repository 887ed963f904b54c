// MCP over Streamable HTTP at /mcp. Stateless: every POST gets a fresh McpServer and transport,
// answered as plain JSON. Tools reach the API in-process through the same h3 app with the
// caller's own Authorization header, so ACLs, validation and events are exactly those of HTTP.
// GET and DELETE (SSE stream, session end) are not declared, so they answer 405 with `Allow: POST`.
import * as v from 'valibot';
import type { H3Event } from 'h3';
import type { Services } from '../services.ts';
import { AppError } from '../domain/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { documentAs } from '../http/json-schema.ts';
import { readText } from '../http/body.ts';
import { nextCursorOf } from '../client/problem.ts';
import { readBody, type CallApi } from './api.ts';

type Fetcher = { fetch(req: Request): Response | Promise<Response> };

/** The /mcp door's callApi: a sub-request into `app` carrying the caller's credentials. */
export function inProcessCallApi(app: Fetcher, origin: string, authorization: string): CallApi {
  return async (method, path, body) => {
    const headers: Record<string, string> = { authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.fetch(new Request(origin + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    return { status: res.status, body: await readBody(res), next: nextCursorOf(res.headers.get('link')) };
  };
}

async function handleMcp(svc: Services, event: H3Event): Promise<Response> {
  const app = event.app as Fetcher; // the h3 app this request came through
  const authorization = event.req.headers.get('authorization')!; // checked by the endpoint's auth (Bearer only)
  const origin = originOf(event);
  const text = await readText(event.req, svc.config.limits.bodyBytes);
  // A JSON-RPC batch (an array) runs every call in it within one request, so one small POST could
  // hold the server for seconds. MCP 2025-06-18 dropped batches: refused.
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

/** The origin the in-process sub-requests carry; a Host header that makes no URL (`x:99999`) is a 400. */
function originOf(event: H3Event): string {
  try {
    return new URL(event.req.url).origin;
  } catch {
    throw new AppError('bad_request', 'the Host header is not a valid host and port');
  }
}

function batchRefused(): Response {
  const error = { code: -32600, message: 'JSON-RPC batches (arrays) are not accepted: send one JSON-RPC message per request' };
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error }), { status: 400, headers: { 'content-type': 'application/json' } });
}

const JsonRpc = v.looseObject({ jsonrpc: v.literal('2.0') });
const JsonRpcMessages = documentAs(v.union([JsonRpc, v.array(JsonRpc)]), {
  description: 'one JSON-RPC 2.0 message (MCP Streamable HTTP); batches (arrays) are refused with 400',
  type: 'object', required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' }, id: { type: ['string', 'number', 'null'] }, method: { type: 'string' },
    params: { type: 'object' }, result: {}, error: { type: 'object' },
  },
});

export const mcpEndpoints = [
  endpoint({
    method: 'POST', path: '/mcp', tag: 'mcp', auth: 'key', bearerOnly: true, body: JsonRpcMessages,
    bodyExample: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    summary: 'MCP Streamable HTTP (stateless, JSON answers)',
    description: 'The body is read by the MCP transport itself; JSON-RPC errors are JSON-RPC answers, not problem+json. '
      + '`Accept` must list both application/json and text/event-stream (406 otherwise); the answers are JSON.',
    headers: [{
      name: 'Accept', description: 'both application/json and text/event-stream (MCP Streamable HTTP); 406 otherwise',
      schema: { type: 'string', pattern: '(?=.*application/json)(?=.*text/event-stream)', example: 'application/json, text/event-stream' },
    }],
    responses: [
      { status: 200, schema: JsonRpcMessages },
      { status: 202, description: 'notifications and responses only: accepted, no body' },
      { status: 400, schema: JsonRpcMessages, description: 'a JSON-RPC parse or protocol error, or a batch' },
      { status: 406, schema: JsonRpcMessages, description: 'Accept does not include application/json and text/event-stream' },
      { status: 415, schema: JsonRpcMessages, description: 'not application/json' },
    ],
    handler: ({ svc, event }) => handleMcp(svc, event),
  }),
];
