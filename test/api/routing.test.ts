import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem.ts';
import { startServer, type TestServer } from '../support/server.ts';

// The router built from the endpoint table (src/http/router.ts, src/http/page-paths.ts).
let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  expect((await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' })).status).toBe(201);
  expect((await srv.admin.put('/pages/wiki/a/b', { title: 'AB' })).status).toBe(201);
});
afterAll(() => srv.close());

const isProblem = (r: { headers: Headers }) => r.headers.get('content-type') === 'application/problem+json';

describe('routing', () => {
  it.each(['/pages/wiki/%ZZ', '/pages/wiki/a%E0%A4%A', '/spaces/%ZZ', '/nowhere/%'])(
    'answers problem+json 400 naming path for %s',
    async (p) => {
      const r = await srv.admin.get(p);
      expect(r.status).toBe(400);
      expect(isProblem(r)).toBe(true);
      expect(r.body).toMatchObject({ code: 'validation_failed', issues: [{ key: 'path', code: 'format' }] });
    },
  );

  it('answers unknown routes with 404 problem+json', async () => {
    for (const p of ['/nowhere', '/spaces/wiki/nothing/here', '/pages', '/pages/wiki']) {
      const r = await srv.admin.get(p);
      expect(r.status, p).toBe(404);
      expect(isProblem(r), p).toBe(true);
      expect(r.body.code).toBe('not_found');
    }
  });

  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const allowOf = {
      'PUT /spaces/wiki': 'GET, PATCH, DELETE, HEAD',
      'PUT /spaces': 'GET, POST, HEAD',
      'POST /pages/wiki/a/b': 'GET, PUT, DELETE, HEAD',
      'DELETE /pages/wiki/a/b/metadata': 'PATCH',
      'POST /pages/wiki/a/b/revisions/1': 'GET, HEAD',
      'GET /mcp': 'POST',
    };
    for (const [request, allow] of Object.entries(allowOf)) {
      const [method, p] = request.split(' ');
      const r = await srv.admin.req(method, p);
      expectProblem(r, 405, undefined, request);
      expect(r.body.code).toBe('method_not_allowed');
      expect(r.headers.get('allow')).toBe(allow);
    }
  });

  it('answers a PUT on a sub-resource without PUT with 405 and Allow (not a page write)', async () => {
    const allowOf = { 'GET, HEAD': ['revisions', 'links', 'files', 'revisions/2'], PATCH: ['metadata'] };
    for (const [allow, sub] of Object.entries(allowOf).flatMap(([a, subs]) => subs.map((s) => [a, s]))) {
      const r = await srv.admin.put(`/pages/wiki/a/b/${sub}`, { title: 'T' });
      expect(r.status, sub).toBe(405);
      expect(r.body.code, sub).toBe('method_not_allowed');
      expect(r.headers.get('allow'), sub).toBe(allow);
    }
    expect((await srv.admin.get('/pages/wiki/a/b/links')).status).toBe(200); // the page is untouched
  });

  it('answers HEAD wherever GET is allowed', async () => {
    for (const p of ['/spaces', '/spaces/wiki', '/pages/wiki/a/b', '/pages/wiki/a/b/revisions/1']) {
      expect((await srv.admin.req('HEAD', p)).status, p).toBe(200);
    }
  });

  it('matches sub-resources by the longest declared suffix, else the page itself', async () => {
    expect((await srv.admin.get('/pages/wiki/a/b/revisions/1')).body).toMatchObject({ path: 'a/b', version: 1 });
    expect((await srv.admin.get('/pages/wiki/a/b/revisions')).body.revisions).toHaveLength(1);
    // `revisions/x` is not a revision number, so it is a (missing) page path.
    const r = await srv.admin.get('/pages/wiki/a/b/revisions/x');
    expect(r.status).toBe(404);
    expect(r.body.detail).toContain('a/b/revisions/x');
    // An encoded slash never hides a suffix: `a%2Fb%2Frevisions` is the page path a/b/revisions.
    expect((await srv.admin.get('/pages/wiki/a%2Fb%2Frevisions')).status).toBe(404);
  });

  it('validates query parameters by their declared schemas', async () => {
    const r = await srv.admin.get('/spaces?limit=0');
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'limit', code: 'format' });
    const c = await srv.admin.get('/spaces/wiki/pages?cursor=nonsense');
    expect(c.status).toBe(400);
    expect(c.body.issues[0]).toMatchObject({ key: 'cursor', code: 'format' });
  });
});

describe('a Host header that makes no URL', () => {
  it('is a 400 problem+json and the server stays up (it ended the process)', async () => {
    const { default: http } = await import('node:http');
    const u = new URL(srv.url);
    const send = (path: string) =>
      new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
        const r = http.request(
          { host: u.hostname, port: u.port, path, headers: { host: 'x:99999', authorization: `Bearer ${srv.admin.key}` } },
          (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
          },
        );
        r.on('error', reject);
        r.end();
      });
    for (const path of ['/admin/principals/../keys', '/pages/wiki/a/./b']) {
      const r = await send(path);
      expect(r.status, path).toBe(400);
      expect(r.type).toBe('application/problem+json');
      expect(JSON.parse(r.body).issues[0]).toMatchObject({ key: 'Host' });
    }
    expect((await srv.admin.get('/me')).status).toBe(200);
  });
});

describe('HEAD', () => {
  it('answers as GET without a body, on any route', async () => {
    for (const p of ['/spaces/wiki', '/pages/wiki/a/b', '/me']) {
      const r = await fetch(srv.url + p, { method: 'HEAD', headers: { authorization: `Bearer ${srv.admin.key}` } });
      expect(r.status, p).toBe(200);
      expect(await r.text()).toBe('');
    }
  });
});
