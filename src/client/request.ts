// One request function for every client of the HTTP API: JSON, raw bytes or a stream as the
// body, the read-your-writes txid (docs/scale-out.md), and every error answer (and a network
// failure, status 0) thrown as an ApiError carrying its Problem.
import { parseProblem, type Problem } from './problem.ts';
import { withQuery, type Query } from './paths.ts';

export class ApiError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail ?? problem.title);
    this.problem = problem;
  }
  get status(): number {
    return this.problem.status;
  }
  get code(): string {
    return this.problem.code;
  }
  get issues(): Problem['issues'] {
    return this.problem.issues;
  }
}

export type RequestOptions = {
  query?: Query;
  /** A JSON body. */
  body?: unknown;
  /** A raw body (an attachment), sent with `headers['content-type']`. */
  bytes?: Uint8Array | Blob;
  /** A streamed body (an import upload), sent as it is read. */
  stream?: ReadableStream<Uint8Array>;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

export type ClientSettings = {
  /** The server's base URL; `''` for the same origin (the web app). */
  base: string;
  /** Headers every request carries (Authorization); `method` lets a client add its CSRF token to writes. */
  headers?: (method: string) => Record<string, string>;
  /** The highest `X-Service-Txid` seen, sent back as `X-Service-Min-Txid`; absent: not tracked. */
  txid?: { get(): number; seen(txid: number): void };
  credentials?: RequestCredentials;
};

/** Sends one request; resolves with a 2xx Response, throws ApiError otherwise. */
export async function request(settings: ClientSettings, method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json', ...settings.headers?.(method), ...opts.headers };
  const minTxid = settings.txid?.get() ?? 0;
  if (minTxid > 0) headers['x-service-min-txid'] = String(minTxid);
  let body: BodyInit | undefined;
  if (opts.bytes !== undefined) {
    body = opts.bytes as BodyInit;
    headers['content-type'] ??= 'application/octet-stream';
  } else if (opts.stream) {
    body = opts.stream;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal: opts.signal, credentials: settings.credentials };
  if (opts.stream) init.duplex = 'half';
  let res: Response;
  try {
    res = await fetch(settings.base.replace(/\/+$/, '') + withQuery(path, opts.query ?? {}), init);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError({
      status: 0,
      code: 'network',
      title: 'The server cannot be reached',
      detail: 'The server cannot be reached. Check the connection and try again.',
      issues: [],
      body: { cause: networkErrorText(err) },
    });
  }
  if (!res.ok) throw new ApiError(parseProblem(res.status, await res.text().catch(() => ''), res.headers.get('retry-after')));
  const txid = Number(res.headers.get('x-service-txid'));
  if (settings.txid && Number.isSafeInteger(txid) && txid > minTxid) settings.txid.seen(txid);
  return res;
}

/** The JSON of a 2xx answer (`null` for 204 or an empty body). */
export async function readJson<T>(res: Response): Promise<T> {
  if (res.status === 204) return null as T;
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : null) as T;
  } catch {
    throw new ApiError({
      status: res.status,
      code: 'not_json',
      title: 'The answer is not JSON',
      detail: `the server answered ${res.status} with something that is not JSON`,
      issues: [],
      body: {},
    });
  }
}

/** One short phrase for a failed connection (Node's fetch puts the socket error in `cause`). */
function networkErrorText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'network unreachable';
    default:
      return cause?.message ?? (err instanceof Error ? err.message : String(err));
  }
}
