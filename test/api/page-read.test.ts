// GET of a page: the ETag, the conditional GET (304), and the direct path of src/http/page-read.ts
// giving the same answers as the endpoint behind h3.
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.ts';

const { srv, alice, bob } = useServer({
  // Over the port only: the direct page read is on the Node side of h3 (docs/testing.md).
  transport: 'port',
  agents: ['alice', 'bob'],
  spaces: [{ slug: 'wiki', name: 'Wiki' }],
});

const ETAG = /^"\d+-[A-Za-z0-9_-]{10}"$/;

describe('conditional GET of a page', () => {
  it('answers 304 with the ETag and no body while the page is unchanged, 200 once it changes', async () => {
    await alice.put('/pages/wiki/cond/a', { title: 'A', content: 'one', metadata: { stage: 'draft' } });
    const first = await alice.get('/pages/wiki/cond/a');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(ETAG);
    expect(etag.startsWith('"1-')).toBe(true);
    for (const inm of [etag, `W/${etag}`, `"x", ${etag}`, '*']) {
      const again = await alice.get('/pages/wiki/cond/a', { 'if-none-match': inm });
      expect(again.status, inm).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    expect((await alice.get('/pages/wiki/cond/a', { 'if-none-match': '"1"' })).status).toBe(200); // a bare version is not the ETag
    // Another reader gets the same ETag: the answer does not depend on who reads it.
    expect((await bob.get('/pages/wiki/cond/a', { 'if-none-match': etag })).status).toBe(304);
    await alice.put('/pages/wiki/cond/a', { title: 'A', content: 'two' });
    const changed = await alice.get('/pages/wiki/cond/a', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.content).toBe('two');
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.headers.get('etag')!.startsWith('"2-')).toBe(true);
  });

  it('gives the Markdown form its own ETag', async () => {
    await alice.put('/pages/wiki/cond/md', { title: 'M', content: 'body' });
    const json = await alice.get('/pages/wiki/cond/md');
    const md = await alice.get('/pages/wiki/cond/md', { accept: 'text/markdown' });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('etag')).toBe(json.headers.get('etag')!.replace(/"$/, '-md"'));
    expect((await alice.get('/pages/wiki/cond/md', { accept: 'text/markdown', 'if-none-match': json.headers.get('etag')! })).status).toBe(
      200,
    );
    expect((await alice.get('/pages/wiki/cond/md', { accept: 'text/markdown', 'if-none-match': md.headers.get('etag')! })).status).toBe(
      304,
    );
    // ?render=html depends on other pages: no ETag, never 304.
    const rendered = await alice.get('/pages/wiki/cond/md?render=html', { 'if-none-match': '*' });
    expect(rendered.status).toBe(200);
    expect(rendered.headers.get('etag')).toBeNull();
  });

  it('takes the ETag of a GET in If-Match', async () => {
    await alice.put('/pages/wiki/cond/m', { title: 'M' });
    const etag = (await alice.get('/pages/wiki/cond/m')).headers.get('etag')!;
    expect((await alice.put('/pages/wiki/cond/m', { title: 'M2' }, { 'if-match': etag })).status).toBe(200);
    expect((await alice.put('/pages/wiki/cond/m', { title: 'M3' }, { 'if-match': etag })).status).toBe(409);
  });

  it('tells apart another page written at the address of a moved one, at the same version', async () => {
    await alice.put('/pages/wiki/cond/old', { title: 'Old', content: 'first page' });
    const etag = (await alice.get('/pages/wiki/cond/old')).headers.get('etag')!;
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'cond/old', to: 'cond/new' })).status).toBe(200);
    await alice.put('/pages/wiki/cond/old', { title: 'Other', content: 'second page' });
    const r = await alice.get('/pages/wiki/cond/old', { 'if-none-match': etag });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'Other', version: 1 });
  });

  it('never leaks: an unreadable, absent or deleted page answers 404 whatever If-None-Match says', async () => {
    await alice.put('/pages/wiki/cond/closed', { title: 'Closed', content: 'secret' });
    const etag = (await alice.get('/pages/wiki/cond/closed')).headers.get('etag')!;
    expect((await alice.put('/pages/wiki/cond/closed/acl', { read: [], write: [alice.id] })).status).toBe(200);
    for (const inm of [etag, '*', '"1"']) {
      const r = await bob.get('/pages/wiki/cond/closed', { 'if-none-match': inm });
      expect(r.status, inm).toBe(404);
      expect(r.headers.get('etag')).toBeNull();
      expect(r.text).not.toContain('secret');
    }
    expect((await alice.get('/pages/wiki/cond/closed', { 'if-none-match': etag })).status).toBe(304);
    expect((await alice.get('/pages/wiki/cond/none', { 'if-none-match': '*' })).status).toBe(404);
    expect((await srv.admin.del('/pages/wiki/cond/closed')).status).toBe(204);
    expect((await alice.get('/pages/wiki/cond/closed', { 'if-none-match': etag })).status).toBe(404);
    expect((await alice.get('/pages/wiki/cond/closed', { 'if-none-match': '*' })).status).toBe(404);
    // A personal space is its owner's alone, whatever the request says.
    await alice.put('/pages/~alice/mine', { title: 'Mine' });
    expect((await bob.get('/pages/~alice/mine', { 'if-none-match': '*' })).status).toBe(404);
    expect((await client401('/pages/wiki/cond/a', { 'if-none-match': '*' })).status).toBe(401);
  });
});

describe('the direct path', () => {
  it('answers as the endpoint behind h3 does (a query string takes the h3 path)', async () => {
    await alice.put('/pages/wiki/same/ünï', {
      title: 'Ü "q"',
      content: 'line\n\t"quoted" \\ é 😀',
      frontmatter: { tags: ['a'], n: 1.5 },
      metadata: { stage: 'draft', n: 3, on: true, l: ['x', 'y'] },
    });
    const direct = await alice.get('/pages/wiki/same/%C3%BCn%C3%AF');
    const viaH3 = await alice.get('/pages/wiki/same/%C3%BCn%C3%AF?x=1');
    expect(direct.status).toBe(200);
    expect(direct.text).toBe(viaH3.text);
    for (const h of ['content-type', 'etag', 'content-length']) expect(direct.headers.get(h), h).toBe(viaH3.headers.get(h));
    expect(direct.headers.get('x-request-id')).toBeTruthy();
    expect(direct.body).toEqual({
      space: 'wiki',
      path: 'same/ünï',
      title: 'Ü "q"',
      content: 'line\n\t"quoted" \\ é 😀',
      frontmatter: { tags: ['a'], n: 1.5 },
      metadata: { stage: 'draft', n: 3, on: true, l: ['x', 'y'] },
      template: null,
      version: 1,
      updatedAt: expect.any(String),
    });
    const md = await alice.get('/pages/wiki/same/%C3%BCn%C3%AF', { accept: 'text/markdown' });
    const mdViaH3 = await alice.get('/pages/wiki/same/%C3%BCn%C3%AF?x=1', { accept: 'text/markdown' });
    expect(md.text).toBe(mdViaH3.text);
    expect(md.headers.get('etag')).toBe(mdViaH3.headers.get('etag'));
  });

  it('leaves dot segments, moved pages and HEAD to h3', async () => {
    await alice.put('/pages/wiki/dots/b', { title: 'B' });
    for (const raw of ['/pages/wiki/dots/x/../b', '/pages/wiki/dots/x/%2E%2E/b', '/pages/wiki/dots/./b']) {
      const r = await rawGet(raw, { authorization: `Bearer ${alice.key}` }); // fetch would resolve the dots itself
      expect(r.status, raw).toBe(200); // h3's URL parsing resolved the dot segment, as before
      expect(JSON.parse(r.body).path).toBe('dots/b');
    }
    await alice.put('/pages/wiki/dots/from', { title: 'F' });
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'dots/from', to: 'dots/to' })).status).toBe(200);
    const moved = await fetch(`${srv.url}/pages/wiki/dots/from`, { headers: { authorization: `Bearer ${alice.key}` }, redirect: 'manual' });
    expect(moved.status).toBe(308);
    const head = await fetch(`${srv.url}/pages/wiki/dots/b`, { method: 'HEAD', headers: { authorization: `Bearer ${alice.key}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(ETAG);
  });
});

describe('the direct path, many requests at once', () => {
  // Requests the server reads in one turn of its event loop, pipelined or on several connections.
  it('answers every request of a burst, in order on each connection', async () => {
    const paths = Array.from({ length: 7 }, (_, i) => `burst/p${i}`);
    for (const p of paths) expect((await alice.put(`/pages/wiki/${p}`, { title: p, content: `body of ${p}` })).status).toBe(201);
    const auth = `Bearer ${alice.key}`;
    // Seven requests in one write on one connection: the answers come back in the order asked.
    const one = await rawExchange(
      paths.map((p) => `GET /pages/wiki/${p} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`).join(''),
      paths.length,
    );
    expect(one.map((a) => a.status)).toEqual(paths.map(() => 200));
    expect(one.map((a) => JSON.parse(a.body).path)).toEqual(paths);
    // Ten connections at once, one request each; and one that closes its sending side after asking.
    const many = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rawExchange(`GET /pages/wiki/${paths[i % 7]} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`, 1, i === 9),
      ),
    );
    expect(many.map(([a]) => JSON.parse(a.body).path)).toEqual(Array.from({ length: 10 }, (_, i) => paths[i % 7]));
    // A conditional GET in a burst gets its 304 between the others' 200s.
    const etag = (await alice.get(`/pages/wiki/${paths[1]}`)).headers.get('etag')!;
    const mixed = await rawExchange(
      paths
        .slice(0, 3)
        .map((p) => `GET /pages/wiki/${p} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nIf-None-Match: ${etag}\r\n\r\n`)
        .join(''),
      3,
    );
    expect(mixed.map((a) => a.status)).toEqual([200, 304, 200]);
  });
});

/** Sends `request` (one or more) on a new connection and reads `count` answers (with Content-Length), or fails after 5 s. */
function rawExchange(request: string, count: number, halfClose = false): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(srv.url).port), '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${got.length} of ${count} answers within 5 s`));
    }, 5000);
    const got: { status: number; body: string }[] = [];
    let buf = Buffer.alloc(0);
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = buf.subarray(0, end).toString('latin1');
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) break;
        got.push({ status: Number(head.split(' ')[1]), body: buf.subarray(end + 4, end + 4 + length).toString('utf8') });
        buf = buf.subarray(end + 4 + length);
      }
      if (got.length === count) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    if (halfClose) socket.end(request);
    else socket.write(request);
  });
}

function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${srv.url}${path}`, { headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

function client401(path: string, headers: Record<string, string>) {
  return fetch(`${srv.url}${path}`, { headers: { authorization: 'Bearer ks_not_a_key_at_all_0000', ...headers } });
}
