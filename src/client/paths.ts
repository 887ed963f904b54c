// API addresses, built one way for every client (the CLI, MCP over stdio, the web app, sync):
// each segment percent-encoded, the slashes of a page path kept, empty query values left out.

/** A query string's values; `undefined`, `null` and `''` are left out. */
export type Query = Record<string, string | number | boolean | null | undefined>;

/** `a/b c` → `a/b%20c`: each segment encoded, the slashes kept. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `/pages/<space>/<path>`, and a sub-resource (`metadata`, `revisions/3`…) after it. */
export function pagePath(space: string, path: string, sub?: string): string {
  return `/pages/${encodeURIComponent(space)}/${encodePath(path)}${sub ? `/${sub}` : ''}`;
}

/** `/spaces/<slug>`, and a sub-resource after it. */
export function spacePath(slug: string, sub?: string): string {
  return `/spaces/${encodeURIComponent(slug)}${sub ? `/${sub}` : ''}`;
}

/** `?a=1&b=x`, or `''` when no value is set. */
export function queryString(query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A path with its query string. */
export function withQuery(path: string, query: Query): string {
  return path + queryString(query);
}
