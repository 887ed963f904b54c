// What an MCP tool calls: the HTTP API, through one function per door. Over stdio it is a real
// HTTP request to SERVICE_URL; at /mcp it is an in-process request into the same h3 app with the
// caller's own Authorization header. Either way the API does the validating, the authorizing and
// the events, so both doors behave exactly like HTTP.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Issue } from '../model.ts';
import { pagePath } from '../client/paths.ts';
import { nextCursorOf } from '../client/problem.ts';
import { ApiError, request, type ClientSettings } from '../client/request.ts';

/** `next`: the cursor of a `Link: <…>; rel="next"` header (a bare-array answer's next page). */
type ApiAnswer = { status: number; body: unknown; next?: string | null };
export type CallApi = (method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

type Problem = { code?: string; title?: string; detail?: string; issues?: Issue[] };

// A tool argument becomes part of an API path. A `.` or `..` segment, a `/` inside a single
// segment, or text that decodes to one of those (`%2e%2e`, `%252e`) would make the request leave
// the route the tool is for (`space: ".."` reached `/spaces` instead of a page): refused, naming
// the argument, as an isError result (the SDK turns a tool's exception into one).
function escapesRoute(segment: string): boolean {
  let s = segment;
  for (let i = 0; i < 4; i++) {
    if (s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\')) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      return false; // not decodable: the API reads it as plain text
    }
    if (decoded === s) return false;
    s = decoded;
  }
  return true;
}

/** One path segment from the tool argument `key`, percent-encoded; throws when it would escape its route. */
export function routeSegment(key: string, value: string): string {
  if (escapesRoute(value)) {
    throw new Error(
      `${key}: ${JSON.stringify(value)} is not valid here: it may not be empty, ".", "..", contain "/" or "\\", or encode any of those`,
    );
  }
  return encodeURIComponent(value);
}

/** `/pages/<space>/<path>` (and an optional sub-resource); throws when a segment would escape its route. */
export function pageApiPath(space: string, path: string, sub?: string): string {
  for (const seg of path.split('/')) {
    if (escapesRoute(seg)) {
      throw new Error(
        `path: ${JSON.stringify(path)} is not valid: no segment may be empty, ".", "..", contain "\\" or encode any of those`,
      );
    }
  }
  routeSegment('space', space);
  return pagePath(space, path, sub);
}

/**
 * A tool result from an API answer. Success: the JSON as text. Any error answer is an `isError`
 * result (never a protocol error) whose text names the status, the code and each issue, so an
 * agent can fix its input and try again.
 */
export function toToolResult(answer: ApiAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) {
    return { content: [{ type: 'text', text: answer.body === null ? '{"ok":true}' : JSON.stringify(answer.body, null, 2) }] };
  }
  const p = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as Problem;
  const lines = [
    answer.status === 0
      ? (p.detail ?? 'the server could not be reached')
      : `${answer.status} ${p.code ?? 'error'}: ${p.detail ?? p.title ?? ''}`.trim(),
  ];
  if (Array.isArray(p.issues) && p.issues.length) {
    lines.push('Issues:');
    for (const i of p.issues) lines.push(`- ${i.key}: ${i.message} (${i.code})`);
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

/** The stdio door's callApi: HTTP to a running server with an API key. */
export function httpCallApi(baseUrl: string, key: string | undefined): CallApi {
  const settings: ClientSettings = {
    base: baseUrl,
    headers: (): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {}),
  };
  return async (method, path, body) => {
    try {
      const res = await request(settings, method, path, { body });
      return { status: res.status, body: await readBody(res), next: nextCursorOf(res.headers.get('link')) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const p = err.problem;
      if (p.status === 0) return { status: 0, body: { detail: `cannot reach ${baseUrl.replace(/\/+$/, '')} (${String(p.body.cause)})` } };
      return { status: p.status, body: p.body };
    }
  };
}

export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 500) };
  }
}
