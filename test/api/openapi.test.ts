import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { endpoints } from '../../src/http/endpoints.ts';
import { openApiPath } from '../../src/http/openapi.ts';
import { checkResponse } from '../../src/http/response-check.ts';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let doc: any;
beforeAll(async () => {
  srv = await startServer({ SERVICE_METRICS: '1' }); // /metrics answers (off, it is a 404 like no route)
  expect((await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' })).status).toBe(201);
  expect((await srv.admin.put('/pages/wiki/a/b', { title: 'AB' })).status).toBe(201);
  const r = await fetch(`${srv.url}/openapi.json`); // public: no key
  expect(r.status).toBe(200);
  doc = await r.json();
});
afterAll(() => srv.close());

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, ops]) =>
    Object.entries(ops).map(([m, op]) => ({ method: m.toUpperCase(), path: p, op })),
  );
const fill = (p: string) =>
  p
    .replace('{space}', 'wiki')
    .replace('{path}', 'a/b')
    .replace('{version}', '1')
    .replace(/\{\w+\}/g, 'x');
/** Did the router itself refuse (no route, or not this method)? Anything else means an endpoint answered. */
const routerRefused = (r: { status: number; body: any }) =>
  r.status === 405 || (r.status === 404 && /^no route/.test(r.body?.detail ?? ''));
const matches = (template: string, url: string) =>
  new RegExp(`^${template.replace('{path}', '.+').replace(/\{\w+\}/g, '[^/]+')}$`).test(url);

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with security schemes, unique operation ids and problem+json errors', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.kspaceKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.kspaceSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'kspace_session' });
    expect(doc.paths['/mcp'].post.security).toEqual([{ kspaceKey: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, op } of operations()) {
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(op.responses['404'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
      // A JSON body shows an example; a raw one (an attachment's bytes) is any content type, binary.
      if (op.requestBody?.content['application/json'])
        expect(op.requestBody.content['application/json'].example, `${method} ${path} example`).toBeDefined();
      else if (op.requestBody) expect(op.requestBody.content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
      const success = Object.keys(op.responses).filter((s) => s < '400');
      expect(success.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code']));
  });

  it('lists exactly the endpoints of the table', () => {
    const documented = operations()
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(documented).toEqual(endpoints.map((e) => `${e.method} ${openApiPath(e.path)}`).sort());
  });

  it('documents every route registered with h3 (the page-path routes are probed below)', () => {
    const app = createApp(srv.svc) as unknown as { '~routes': Array<{ method: string; route: string }> };
    // The web app's files (/, /app/…) are not API endpoints (src/app.ts): not in the document.
    const files = (route: string) => route === '/' || route.startsWith('/app/');
    const registered = app['~routes'].filter((r) => r.method !== '' && !files(r.route)).map((r) => `${r.method} ${openApiPath(r.route)}`);
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    for (const r of registered) expect(documented.has(r), r).toBe(true);
  });

  it('every documented operation is served', async () => {
    for (const { method, path } of operations()) {
      const r = await srv.admin.req(method, fill(path));
      expect(routerRefused(r), `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`).toBe(false);
    }
  });

  it('nothing is served that is not documented (probing page sub-resources and every prefix)', async () => {
    const urls = new Set<string>();
    for (const { path } of operations()) {
      const url = fill(path);
      urls.add(url);
      urls.add(`${url}/x`);
      for (const suffix of ['metadata', 'acl', 'revisions', 'revisions/1', 'links', 'files', 'revisions/1/diff/2', 'x'])
        urls.add(`/pages/wiki/a/b/${suffix}`);
    }
    for (const url of urls) {
      for (const method of METHODS) {
        const r = await srv.admin.req(method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
        if (routerRefused(r)) continue;
        const ops = operations().filter((o) => o.method === method && matches(o.path, url));
        expect(ops.length, `${method} ${url} answered ${r.status} but is not documented`).toBeGreaterThan(0);
      }
    }
  }, 120_000);
});

describe('what the document declares (the outside fuzzer found each of these missing)', () => {
  it('declares the statuses the server answers: 401 on /session, 308 on page GETs, 429/431/503 everywhere', async () => {
    const signedOut = await fetch(`${srv.url}/session`);
    expect(signedOut.status).toBe(401);
    expect(doc.paths['/session'].get.responses).toHaveProperty('401');
    const wrong = await fetch(`${srv.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'admin', password: 'nope-nope' }),
    });
    expect(wrong.status).toBe(401);
    expect(doc.paths['/session'].post.responses).toHaveProperty('401');
    // A GET of the address a page moved away from answers 308 to its current address.
    expect((await srv.admin.put('/pages/wiki/moving', { title: 'M' })).status).toBe(201);
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'moving', to: 'moved' })).status).toBe(200);
    const moved = await fetch(`${srv.url}/pages/wiki/moving`, {
      headers: { authorization: `Bearer ${srv.admin.key}` },
      redirect: 'manual',
    });
    expect(moved.status).toBe(308);
    for (const { method, path, op } of operations()) {
      if (method === 'GET' && path.startsWith('/pages/')) expect(op.responses, `${method} ${path}`).toHaveProperty('308');
      for (const status of ['400', '404', '405', '408', '417', '429', '431', '503'])
        expect(op.responses, `${method} ${path} ${status}`).toHaveProperty(status);
    }
  });

  it('states the constraints the server enforces: patterns, required q, filter formats, the MCP Accept header, servers, license', () => {
    const param = (p: string, m: string, name: string) => doc.paths[p][m].parameters.find((x: any) => x.name === name);
    expect(new RegExp(param('/spaces/{slug}', 'get', 'slug').schema.pattern).test('wiki')).toBe(true);
    expect(new RegExp(param('/spaces/{slug}', 'get', 'slug').schema.pattern).test('~alice')).toBe(true);
    expect(new RegExp(param('/spaces/{slug}', 'get', 'slug').schema.pattern).test('Wiki!')).toBe(false);
    expect(param('/admin/webhooks/{id}', 'get', 'id').schema.pattern).toBeDefined();
    expect(param('/search', 'get', 'q')).toMatchObject({ required: true, schema: { minLength: 1 } });
    expect(param('/search/metadata', 'get', 'order').schema.enum).toEqual(['asc', 'desc']);
    expect(param('/search/metadata', 'get', 'orderBy').schema.pattern).toBe('^[A-Za-z0-9_.-]{1,64}$');
    expect(param('/search/metadata', 'get', 'filters').schema).toMatchObject({
      contentMediaType: 'application/json',
      contentSchema: { type: 'array' },
    });
    expect(param('/mcp', 'post', 'Accept')).toMatchObject({ in: 'header', required: true });
    const move = doc.paths['/spaces/{slug}/moves'].post.requestBody.content['application/json'].schema;
    expect(move.properties.from.minLength).toBe(1);
    expect(move.properties.to.minLength).toBe(1);
    const bundle = doc.paths['/spaces/{slug}/import'].post.requestBody.content['application/json'].schema;
    for (const field of bundle.required) expect(bundle.properties, field).toHaveProperty(field);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(doc.info.license).toMatchObject({ name: 'MIT' });
  });
});

describe('the response check (SERVICE_VALIDATE_RESPONSES=1, on in every API test)', () => {
  const me = endpoints.find((e) => e.method === 'GET' && e.path === '/me')!;
  const errors: string[] = [];
  const log = { info() {}, warn() {}, error: (m: string, f?: object) => errors.push(`${m} ${JSON.stringify(f)}`) };
  const answer = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  it('passes an answer its schema accepts and turns a violation into a logged 500', async () => {
    expect((await checkResponse(me, answer({ id: 'p', name: 'n', kind: 'agent', orgAdmin: false }), log)).status).toBe(200);
    const bad = await checkResponse(me, answer({ id: 'p', name: 'n', kind: 'robot', orgAdmin: false, extra: 1 }), log);
    expect(bad.status).toBe(500);
    expect(errors.join('\n')).toMatch(/GET \/me violates its declaration: kind/);
    expect((await checkResponse(me, answer({}, 201), log)).status).toBe(500); // an undeclared status
  });

  it('is on in the test servers', () => {
    expect(srv.svc.config.validateResponses).toBe(true);
  });
});
