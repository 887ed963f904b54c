import type { H3Event } from 'h3';
import * as v from 'valibot';
import type { Services } from '../services.ts';
import type { Caller } from '../model.ts';
import type { RawOptions } from './body.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** `key`: a Bearer key, whoever's it is; `admin`: an org admin's (403 otherwise); `public`: no credentials. */
type Auth = 'key' | 'admin' | 'public';

type Schema = v.GenericSchema;
type ObjSchema =
  | v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>
  | v.StrictObjectSchema<v.ObjectEntries, v.ErrorMessage<v.StrictObjectIssue> | undefined>;

/** One answer an endpoint gives: its status, and for JSON its schema (validated in tests). */
export type Answer = {
  status: number;
  /** Omitted: no body (204). */
  schema?: Schema;
  /** Defaults to application/json. */
  contentType?: string;
  description?: string;
  example?: unknown;
  /** A streamed body (not checked by the response check). */
  streamed?: boolean;
};

type EndpointContext<P, Q, B> = {
  event: H3Event;
  svc: Services;
  /** The authenticated principal (a `public` endpoint gets none). */
  caller: Caller;
  /** Path parameters, decoded and validated by `params`. */
  params: P;
  /** The query string, validated by `query`. */
  query: Q;
  /**
   * The JSON body validated by `body`; read on demand, so a handler may authorize first
   * (a 403 or 404 is answered before the body is judged). `maxBytes` overrides the body cap.
   */
  body(maxBytes?: number): Promise<B>;
  /**
   * The raw body of an endpoint that declares `rawBody` (any content type), read into one
   * buffer: 413 before reading when Content-Length is over `maxBytes`, and while reading past it.
   */
  raw(maxBytes: number, opts?: RawOptions): Promise<Buffer>;
};

/**
 * One endpoint, as data: the router, the OpenAPI document (/openapi.json), the response check of
 * the tests and the fuzzer all read these. Paths use h3's `:param`; a page path of any depth is
 * written `**:path` and may be followed by a fixed sub-resource suffix (src/http/page-paths.ts).
 */
type Endpoint<P = Record<string, string>, Q = Record<string, never>, B = undefined> = {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: Auth;
  /** Only a Bearer key, never the web app's session cookie (MCP). */
  bearerOnly?: boolean;
  params?: ObjSchema;
  query?: ObjSchema;
  body?: Schema;
  bodyExample?: unknown;
  /** A body of any content type, read as bytes by `raw()` (OpenAPI: `*\/*`, binary). */
  rawBody?: { description: string };
  /** Answers on success; errors are problem+json (documented for every operation). */
  responses: Answer[];
  /** Error statuses beyond the usual ones (src/http/openapi.ts), e.g. 416 for a range. */
  errors?: number[];
  /** Request headers the endpoint reads (OpenAPI header parameters), e.g. MCP's Accept; required unless `required: false`. */
  headers?: Array<{ name: string; description: string; schema: Record<string, unknown>; required?: boolean }>;
  handler(ctx: EndpointContext<P, Q, B>): Response | Promise<Response>;
};

/**
 * The table's element type: an endpoint whose handler types were checked at its definition
 * (`handler` is a method, so its parameter is compared bivariantly and any endpoint fits).
 */
export type AnyEndpoint = Endpoint<unknown, unknown, unknown>;

type Out<S, D> = S extends Schema ? v.InferOutput<S> : D;

/** Declares an endpoint; the handler's params, query and body are typed by their schemas. */
export function endpoint<
  PS extends ObjSchema | undefined = undefined,
  QS extends ObjSchema | undefined = undefined,
  BS extends Schema | undefined = undefined,
>(
  e: Omit<Endpoint, 'params' | 'query' | 'body' | 'handler'> & {
    params?: PS;
    query?: QS;
    body?: BS;
    handler(
      ctx: EndpointContext<Out<PS, Record<string, string>>, Out<QS, Record<string, never>>, Out<BS, unknown>>,
    ): Response | Promise<Response>;
  },
): AnyEndpoint {
  return e as AnyEndpoint;
}
