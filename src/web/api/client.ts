// The typed API client: same origin, JSON in and out, the session's CSRF token on every
// request that changes something, and problem+json turned into ApiError with its issues.
import type { Issue } from './types.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly issues: Issue[];
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    const detail = typeof body.detail === 'string' ? body.detail : undefined;
    const title = typeof body.title === 'string' ? body.title : `Request failed (${status})`;
    super(detail ?? title);
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'error';
    this.title = title;
    this.issues = Array.isArray(body.issues) ? (body.issues as Issue[]) : [];
    this.body = body;
  }
}

let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void { csrfToken = token; }

/** Fired when an API call answers 401: the session ended, the app shows sign-in. */
export const UNAUTHORIZED_EVENT = 'kspace:unauthorized';

export interface RequestOptions { quiet401?: boolean; signal?: AbortSignal }

export async function api<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method, headers, credentials: 'same-origin', signal: opts.signal,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, { code: 'network', title: 'The server cannot be reached', detail: 'The server cannot be reached. Check the connection and try again.' });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = { detail: text.slice(0, 200) }; }
  }
  if (!res.ok) {
    if (res.status === 401 && !opts.quiet401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    const body = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
    const retryAfter = res.headers.get('retry-after');
    if (retryAfter && body.retryAfter === undefined) body.retryAfter = Number(retryAfter);
    throw new ApiError(res.status, body);
  }
  return data as T;
}

// GETs started at load, before the session is read (main.tsx): the first view's requests then
// overlap the session's round trip instead of following it. Each is taken once by the first
// get() of the same address; a failed one is dropped, so that the view asks again (after a
// sign-in, say) instead of receiving the old failure.
const early = new Map<string, Promise<unknown>>();

/** Starts a GET now; the next get() of the same address receives its answer. */
export function prefetch(path: string): void {
  const p = api('GET', path, undefined, { quiet401: true });
  p.catch(() => { if (early.get(path) === p) early.delete(path); });
  early.set(path, p);
}

export const get = <T>(path: string, opts?: RequestOptions): Promise<T> => {
  const p = opts?.signal ? undefined : early.get(path);
  if (p) {
    early.delete(path);
    return p as Promise<T>;
  }
  return api<T>('GET', path, undefined, opts);
};
export const post = <T>(path: string, body?: unknown): Promise<T> => api<T>('POST', path, body ?? {});
export const put = <T>(path: string, body: unknown): Promise<T> => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown): Promise<T> => api<T>('PATCH', path, body);
export const del = (path: string): Promise<void> => api<void>('DELETE', path);

/** PUT of raw bytes (an attachment), with its own content type and the CSRF token. */
export async function putBytes<T>(path: string, data: Blob): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': data.type || 'application/octet-stream' };
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method: 'PUT', headers, credentials: 'same-origin', body: data });
  } catch {
    throw new ApiError(0, { code: 'network', title: 'The server cannot be reached', detail: 'The server cannot be reached. Check the connection and try again.' });
  }
  const body = await res.json().catch(() => ({})) as Record<string, unknown>;
  if (!res.ok) {
    if (res.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    throw new ApiError(res.status, body);
  }
  return body as T;
}

/** `a/b c` → `a/b%20c`: each segment encoded, the slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
export const pageApi = (space: string, path: string): string => `/pages/${encodeURIComponent(space)}/${encodePath(path)}`;
export const spaceApi = (space: string): string => `/spaces/${encodeURIComponent(space)}`;

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
