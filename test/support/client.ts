// The tests' HTTP client: one API key, JSON in and out, the answer read whole.
// Its requests go through the global `fetch`, so a server started with transport 'fetch'
// (in-process-fetch.ts) answers them without a socket.

export type Res<T = any> = { status: number; body: T; headers: Headers; text: string };
export type Client = {
  key: string | undefined;
  req<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Res<T>>;
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  post<T = any>(path: string, body?: unknown): Promise<Res<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<Res<T>>;
  del<T = any>(path: string): Promise<Res<T>>;
};

export function client(base: string, key?: string): Client {
  const req = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const r = await fetch(base + p, { method, headers: h, body: payload });
    // An event stream (GET /changes/stream) does not end: its status and headers are the answer.
    const streaming = (r.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (streaming) await r.body?.cancel();
    const text = streaming ? '' : await r.text();
    let parsed: unknown = text;
    if ((r.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: r.status, body: parsed as any, headers: r.headers, text };
  };
  return {
    key,
    req,
    get: (p, h) => req('GET', p, undefined, h),
    put: (p, b, h) => req('PUT', p, b, h),
    post: (p, b) => req('POST', p, b),
    patch: (p, b) => req('PATCH', p, b),
    del: (p) => req('DELETE', p),
  };
}
