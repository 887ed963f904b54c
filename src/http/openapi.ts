// GET /openapi.json: the OpenAPI 3.1 document, generated from the endpoint table (never written
// by hand), so it lists exactly the routes the app serves with the schemas it validates.
import * as v from 'valibot';
import type { JsonSchema } from '@valibot/to-json-schema';
import type { AnyEndpoint, Answer } from './endpoint.ts';
import { isRequiredParam, jsonSchemaOf } from './json-schema.ts';
import { PAGE_PREFIX, isPageEndpoint } from './page-paths.ts';
import { Problem } from './schemas.ts';

type SecurityScheme = Record<string, unknown>;

/**
 * How a caller proves who it is. Every `key`/`admin` operation accepts any one of these (a
 * `bearerOnly` one, MCP, only the key); a new way in adds its scheme here.
 */
const securitySchemes: Record<string, SecurityScheme> = {
  kspaceKey: { type: 'http', scheme: 'bearer', description: 'an API key: `Authorization: Bearer ks_…`' },
  kspaceSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'kspace_session',
    description:
      "the web app's session (`__Host-kspace_session` over https), from `POST /session`; writes also need `X-CSRF-Token` and this origin",
  },
};

/** `:name` → `{name}`; the page path `**:path` → `{path}` (it may hold `/`). */
export function openApiPath(path: string): string {
  return path.replace('/**:path', '/{path}').replace(/:([A-Za-z_]+)/g, '{$1}');
}

const ERRORS: Record<string, string> = {
  400: 'validation_failed, invalid_json or bad_request; `issues` names each field (also a malformed request line or conflicting lengths, refused before routing)',
  401: 'unauthorized or invalid_credentials: no key, an unknown or a revoked key, no session, a wrong name or password',
  403: 'forbidden or csrf_failed: you may see it but not do this',
  404: 'not_found: absent, or not readable by you (never told apart)',
  405: 'method_not_allowed: `Allow` lists the methods of this path (HEAD wherever GET is)',
  408: 'request_too_slow: the headers or the body arrived too slowly; the connection closes',
  409: 'conflict or version_conflict',
  410: 'changes_expired: the `since` is older than the changes kept (SERVICE_CHANGES_RETENTION_DAYS); read the current state again',
  413: 'payload_too_large: past a size cap (the problem names the setting)',
  415: 'unsupported_media_type: the body must be application/json',
  416: 'range_not_satisfiable: the Range starts past the end (`Content-Range: bytes */<size>`)',
  417: 'expectation_failed: an `Expect` header other than 100-continue',
  429: 'too_many_requests (the per-address or per-key limit, SERVICE_RATE_LIMIT_*, or more open change streams than SERVICE_CHANGES_MAX_STREAMS) or rate_limited (failed sign-ins); `Retry-After` says when to retry',
  431: 'headers_too_large: the request line and headers are over the limit',
  503: 'request_timeout (no answer within SERVICE_MAX_REQUEST_MS), not_ready, not_configured or primary_unavailable (a replica); `Retry-After` when it may pass',
};

/**
 * The error statuses of an operation. Every request may meet the limits and the guards in front of
 * the router (400, 408, 417, 429, 431, 503), the router itself (404, 405) and its schemas (400).
 */
function errorStatuses(e: AnyEndpoint): string[] {
  const out = ['400', '404', '405', '408', '417', '429', '431', '503'];
  if (e.auth !== 'public') out.push('401', '403');
  if (e.method !== 'GET') out.push('409');
  if (e.body) out.push('413', '415');
  if (e.rawBody) out.push('413');
  for (const status of e.errors ?? []) out.push(String(status));
  return [...new Set(out)].filter((s) => !e.responses.some((a) => String(a.status) === s)).sort();
}

function operationId(e: AnyEndpoint): string {
  const words = e.path
    .replace('**:path', 'path')
    .split(/[/:-]+/)
    .filter(Boolean);
  return e.method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function parameters(e: AnyEndpoint): unknown[] {
  const out: unknown[] = [];
  for (const [name, schema] of Object.entries(e.params?.entries ?? {})) {
    const json = jsonSchemaOf(schema as v.GenericSchema);
    out.push({
      name,
      in: 'path',
      required: true,
      schema: json,
      ...(name === 'path' && e.path.startsWith(PAGE_PREFIX)
        ? { description: 'the page path: `/`-separated segments, each percent-encoded', allowReserved: true }
        : {}),
    });
  }
  for (const [name, schema] of Object.entries(e.query?.entries ?? {})) {
    out.push({ name, in: 'query', required: isRequiredParam(schema as v.GenericSchema), schema: jsonSchemaOf(schema as v.GenericSchema) });
  }
  for (const h of e.headers ?? [])
    out.push({ name: h.name, in: 'header', required: h.required ?? true, description: h.description, schema: h.schema });
  return out;
}

function responses(e: AnyEndpoint): Record<string, unknown> {
  const out: Record<string, { description: string; content?: Record<string, unknown> }> = {};
  for (const a of e.responses) {
    const r = (out[a.status] ??= { description: a.description ?? (a.status === 204 ? 'no content' : 'success') });
    if (a.schema || a.contentType) {
      r.content ??= {};
      r.content[a.contentType ?? 'application/json'] = answerContent(a);
    }
  }
  // A GET of a page address the page was moved away from answers 308 to its current address (src/http/router.ts).
  if (e.method === 'GET' && isPageEndpoint(e)) {
    out[308] = {
      description: 'the page moved: `Location` is its current address (sub-resource and query kept), for a caller who may read it',
    };
  }
  for (const s of errorStatuses(e))
    out[s] = { description: ERRORS[s], content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  return out;
}

function answerContent(a: Answer): Record<string, unknown> {
  const schema: JsonSchema = a.schema ? jsonSchemaOf(a.schema) : { type: 'string' };
  return a.example === undefined ? { schema } : { schema, example: a.example };
}

function operation(e: AnyEndpoint): Record<string, unknown> {
  const params = parameters(e);
  return {
    operationId: operationId(e),
    summary: e.summary,
    ...(e.description ? { description: e.description } : {}),
    tags: [e.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(e.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: jsonSchemaOf(e.body), ...(e.bodyExample === undefined ? {} : { example: e.bodyExample }) },
            },
          },
        }
      : {}),
    ...(e.rawBody
      ? {
          requestBody: {
            required: true,
            description: e.rawBody.description,
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
        }
      : {}),
    responses: responses(e),
    security: e.auth === 'public' ? [] : e.bearerOnly ? [{ kspaceKey: [] }] : Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
    ...(e.auth === 'admin' ? { 'x-kspace-auth': 'org admin' } : {}),
  };
}

/** The document for a table; `version` is the package's. */
export function openApiDocument(table: AnyEndpoint[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of table) (paths[openApiPath(e.path)] ??= {})[e.method.toLowerCase()] = operation(e);
  return {
    openapi: '3.1.0',
    info: {
      title: 'kspace HTTP API',
      version,
      description:
        'Errors are application/problem+json (RFC 9457) with a stable `code`. Lists page with `limit` and `cursor`. See docs/api.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: the server that serves this document (it may sit behind a proxy under another name).
    servers: [{ url: '/', description: 'this kspace server' }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas: { Problem: jsonSchemaOf(Problem) }, securitySchemes },
  };
}
