import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { serve, type Running } from '../../src/server.ts';
import type { Logger } from '../../src/services.ts';
import type { RequestFields } from '../../src/config/log.ts';

export const ADMIN_KEY = 'ks_test_admin_key_0123456789abcdef';

/** `requests`: the server's request log lines (src/front/front.ts); `infos`: its other info lines. */
export type TestServer = Running & { dataDir: string; admin: Client; errors: string[]; requests: RequestFields[]; infos: string[] };

/** The real server on a random port over a fresh SQLite file in a temp dir. */
export async function startServer(
  env: Record<string, string> = {},
  opts: { dataDir?: string; keepData?: boolean } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-test-'));
  // SERVICE_VALIDATE_RESPONSES: every answer is checked against the endpoint table's schemas
  // (src/http/response-check.ts): a violation is a 500 and a logged error, so the test fails.
  const config = loadConfig(
    { data: dataDir, port: 0 },
    { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, SERVICE_VALIDATE_RESPONSES: '1', ...env },
  );
  const errors: string[] = [];
  const requests: RequestFields[] = [];
  const infos: string[] = [];
  const log: Logger = {
    info: (m, f) => infos.push(`${m} ${JSON.stringify(f ?? {})}`),
    warn() {},
    error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`),
    request: (f) => requests.push(f),
  };
  const running = await serve(config, log);
  const close = running.close;
  return Object.assign(running, {
    dataDir,
    errors,
    requests,
    infos,
    admin: client(running.url, ADMIN_KEY),
    async close() {
      await close();
      if (!opts.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

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

/** A new principal with its own key (agents only hold keys). */
export async function newAgent(srv: TestServer, name: string, orgAdmin = false): Promise<Client & { id: string }> {
  const p = await srv.admin.post('/admin/principals', { name, kind: 'agent', orgAdmin });
  if (p.status !== 201) throw new Error(`create principal: ${p.status} ${p.text}`);
  const k = await srv.admin.post(`/admin/principals/${p.body.id}/keys`);
  if (k.status !== 201) throw new Error(`create key: ${k.status} ${k.text}`);
  return Object.assign(client(srv.url, k.body.key), { id: p.body.id as string });
}
