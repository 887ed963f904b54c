// POST /mcp: MCP Streamable HTTP (src/mcp/http.ts answers it). GET and DELETE (SSE stream,
// session end) are not declared, so they answer 405 with `Allow: POST`.
import * as v from 'valibot';
import type { H3Event } from 'h3';
import { AppError } from '../../domain/errors.ts';
import { serveMcp, type Fetcher } from '../../mcp/http.ts';
import { readText } from '../body.ts';
import { endpoint } from '../endpoint.ts';
import { documentAs } from '../json-schema.ts';

/** The origin the in-process sub-requests carry; a Host header that makes no URL (`x:99999`) is a 400. */
function originOf(event: H3Event): string {
  try {
    return new URL(event.req.url).origin;
  } catch {
    throw new AppError('bad_request', 'the Host header is not a valid host and port');
  }
}

const JsonRpc = v.looseObject({ jsonrpc: v.literal('2.0') });
const JsonRpcMessages = documentAs(v.union([JsonRpc, v.array(JsonRpc)]), {
  description: 'one JSON-RPC 2.0 message (MCP Streamable HTTP); batches (arrays) are refused with 400',
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'number', 'null'] },
    method: { type: 'string' },
    params: { type: 'object' },
    result: {},
    error: { type: 'object' },
  },
});

export const mcpEndpoints = [
  endpoint({
    method: 'POST',
    path: '/mcp',
    tag: 'mcp',
    auth: 'key',
    bearerOnly: true,
    body: JsonRpcMessages,
    bodyExample: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    summary: 'MCP Streamable HTTP (stateless, JSON answers)',
    description:
      'The body is read by the MCP transport itself; JSON-RPC errors are JSON-RPC answers, not problem+json. ' +
      '`Accept` must list both application/json and text/event-stream (406 otherwise); the answers are JSON.',
    headers: [
      {
        name: 'Accept',
        description: 'both application/json and text/event-stream (MCP Streamable HTTP); 406 otherwise',
        schema: {
          type: 'string',
          pattern: '(?=.*application/json)(?=.*text/event-stream)',
          example: 'application/json, text/event-stream',
        },
      },
    ],
    responses: [
      { status: 200, schema: JsonRpcMessages },
      { status: 202, description: 'notifications and responses only: accepted, no body' },
      { status: 400, schema: JsonRpcMessages, description: 'a JSON-RPC parse or protocol error, or a batch' },
      { status: 406, schema: JsonRpcMessages, description: 'Accept does not include application/json and text/event-stream' },
      { status: 415, schema: JsonRpcMessages, description: 'not application/json' },
    ],
    handler: async ({ svc, event }) =>
      serveMcp({
        app: event.app as Fetcher, // the h3 app this request came through
        url: event.req.url,
        headers: event.req.headers,
        origin: originOf(event),
        text: await readText(event.req, svc.config.limits.bodyBytes),
        bodyBytes: svc.config.limits.bodyBytes,
      }),
  }),
];
