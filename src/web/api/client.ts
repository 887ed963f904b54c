// The web app's API calls: same origin, the session's cookie, its CSRF token on every request
// that changes something, and a 401 announced so the app shows sign-in. Requests, addresses and
// problem parsing are the shared client's (src/client/).
import { request, readJson, ApiError, type RequestOptions as SendOptions } from '../../client/request.ts';

export { ApiError } from '../../client/request.ts';
export { problemOf } from '../../client/problem.ts';
export { encodePath, pagePath as pageApi, spacePath as spaceApi, queryString as query } from '../../client/paths.ts';

let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Fired when an API call answers 401: the session ended, the app shows sign-in. */
export const UNAUTHORIZED_EVENT = 'kspace:unauthorized';

interface RequestOptions {
  quiet401?: boolean;
  signal?: AbortSignal;
}

const settings = {
  base: '',
  credentials: 'same-origin' as const,
  headers: (method: string): Record<string, string> =>
    method !== 'GET' && method !== 'HEAD' && csrfToken ? { 'x-csrf-token': csrfToken } : {},
};

async function send<T>(method: string, path: string, opts: SendOptions, quiet401 = false): Promise<T> {
  try {
    return await readJson<T>(await request(settings, method, path, opts));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && !quiet401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    throw err;
  }
}

export function api<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  return send<T>(method, path, { body, signal: opts.signal }, opts.quiet401);
}

// GETs started at load, before the session is read (main.tsx): the first view's requests then
// overlap the session's round trip instead of following it. Each is taken once by the first
// get() of the same address; a failed one is dropped, so that the view asks again (after a
// sign-in, say) instead of receiving the old failure.
const early = new Map<string, Promise<unknown>>();

/** Starts a GET now; the next get() of the same address receives its answer. */
export function prefetch(path: string): void {
  const p = api('GET', path, undefined, { quiet401: true });
  p.catch(() => {
    if (early.get(path) === p) early.delete(path);
  });
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
export function putBytes<T>(path: string, data: Blob): Promise<T> {
  return send<T>('PUT', path, { bytes: data, headers: { 'content-type': data.type || 'application/octet-stream' } });
}
