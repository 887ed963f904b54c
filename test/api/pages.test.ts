import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.ts';
import { newAgent } from '../support/server.ts';

const { srv } = useServer({ spaces: [{ slug: 'wiki', name: 'Wiki' }] });

describe('PUT /pages/:space/:path', () => {
  it('creates with 201, replaces with 200, and an identical PUT writes nothing', async () => {
    const a = await srv.admin.put('/pages/wiki/guide/start', {
      title: 'Start',
      content: '# Hi',
      frontmatter: { tags: ['x'] },
      metadata: { stage: 'draft' },
    });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      space: 'wiki',
      path: 'guide/start',
      title: 'Start',
      content: '# Hi',
      version: 1,
      metadata: { stage: 'draft' },
      frontmatter: { tags: ['x'] },
    });
    expect(a.body.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const b = await srv.admin.put('/pages/wiki/guide/start', { title: 'Start', content: '# Hello' });
    expect(b.status).toBe(200);
    expect(b.body.version).toBe(2);
    expect(b.body.metadata).toEqual({ stage: 'draft' }); // metadata kept when not given
    const c = await srv.admin.put('/pages/wiki/guide/start', { title: 'Start', content: '# Hello' });
    expect(c.status).toBe(200);
    expect(c.body.version).toBe(2);
    const revs = await srv.admin.get('/pages/wiki/guide/start/revisions');
    expect(revs.body.revisions.map((r: any) => r.version)).toEqual([2, 1]);
  });

  it('honours If-Match and baseVersion with 409', async () => {
    await srv.admin.put('/pages/wiki/cond', { title: 'C' });
    const stale = await srv.admin.put('/pages/wiki/cond', { title: 'C2' }, { 'if-match': '"7"' });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('version_conflict');
    expect(stale.headers.get('content-type')).toBe('application/problem+json');
    const ok = await srv.admin.put('/pages/wiki/cond', { title: 'C2' }, { 'if-match': '"1"' });
    expect(ok.status).toBe(200);
    expect((await srv.admin.put('/pages/wiki/cond', { title: 'C3', baseVersion: 1 })).status).toBe(409);
    expect((await srv.admin.put('/pages/wiki/cond', { title: 'C3', baseVersion: 2 })).status).toBe(200);
    expect((await srv.admin.put('/pages/wiki/fresh', { title: 'F', baseVersion: 0 })).status).toBe(201);
  });

  it.each([
    ['a//b', 'format'],
    ['a%2F.%2Fb', 'format'],
    ['a%2F..%2Fb', 'format'],
    ['a%01b', 'format'],
    ['a'.repeat(513), 'format'],
  ])('refuses the path %s with 400 (%s)', async (path, code) => {
    // A PUT on a sub-resource without PUT (…/metadata, …/links, …/revisions) is a 405 (test/api/routing.test.ts).
    const r = await srv.admin.put(`/pages/wiki/${path}`, { title: 'T' });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'path', code });
  });

  it('accepts Unicode paths, case-sensitively', async () => {
    expect((await srv.admin.put(`/pages/wiki/${encodeURIComponent('Café')}/Ünï`, { title: 'U' })).status).toBe(201);
    expect((await srv.admin.get(`/pages/wiki/${encodeURIComponent('Café')}/Ünï`)).body.path).toBe('Café/Ünï');
    expect((await srv.admin.get(`/pages/wiki/${encodeURIComponent('café')}/Ünï`)).status).toBe(404);
  });

  it.each([
    [{}, 'title', 'required'],
    [{ title: 5 }, 'title', 'type'],
    [{ title: '  ' }, 'title', 'format'],
    [{ title: 'T', content: 3 }, 'content', 'type'],
    [{ title: 'T', frontmatter: [1] }, 'frontmatter', 'type'],
    [{ title: 'T', metadata: { a: { b: 1 } } }, 'metadata.a', 'type'],
    [{ title: 'T', metadata: { a: [[1]] } }, 'metadata.a', 'type'],
    [{ title: 'T', metadata: { 'bad key': 1 } }, 'metadata.bad key', 'format'],
    [{ title: 'T', metadata: { a: null } }, 'metadata.a', 'type'],
    [{ title: 'T', extra: 1 }, 'extra', 'undeclared'],
  ])('rejects bad body %j naming %s', async (body, key, code) => {
    const r = await srv.admin.put('/pages/wiki/bad', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key, code }));
    expect((await srv.admin.get('/pages/wiki/bad')).status).toBe(404);
  });

  it('refuses non-JSON (415), bad JSON (400), deep JSON (400), big bodies (413)', async () => {
    expect((await srv.admin.req('PUT', '/pages/wiki/x', 'title=x', { 'content-type': 'text/plain' })).status).toBe(415);
    const bad = await srv.admin.req('PUT', '/pages/wiki/x', '{"title":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    const deep = await srv.admin.put('/pages/wiki/x', { title: 'x', frontmatter: JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) });
    expect(deep.status).toBe(400);
    const big = await srv.admin.put('/pages/wiki/x', { title: 'x', content: 'a'.repeat(3 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect((await srv.admin.put('/pages/wiki/x', { title: 'x', content: 'a'.repeat(11 * 1024 * 1024) })).status).toBe(413);
    expect((await srv.admin.get('/pages/wiki/x')).status).toBe(404);
  });

  it('writes nothing for a body its client stops sending, and goes on answering', async () => {
    const { hostname, port } = new URL(srv.url);
    const head =
      `PUT /pages/wiki/cut HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${srv.admin.key}\r\n` +
      'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"title":"Cut","content":"part"}';
    // What arrived is valid JSON: a reader that took it as the whole body would write the page.
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(head);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server is reading the body
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await srv.admin.get('/pages/wiki/cut')).status).toBe(404);
    expect((await srv.admin.put('/pages/wiki/cut', { title: 'Cut', content: 'whole' })).status).toBe(201);
    // A body past the cap without a Content-Length (chunked): refused while it is read, and the
    // 413 still reaches the client (the request is dropped, not its connection). On a socket of its
    // own: a client connection left with an unsent body is no use to the requests after it.
    const chunked = net.connect(Number(port), hostname);
    await new Promise((resolve) => chunked.once('connect', resolve));
    let answer = '';
    chunked.on('data', (d) => (answer += d));
    chunked.on('error', () => {}); // the server may stop reading before the last chunk is sent
    chunked.write(
      `PUT /pages/wiki/huge HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${srv.admin.key}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    );
    const mb = 'a'.repeat(1024 * 1024);
    const first = `{"content":"${mb}`;
    chunked.write(`${first.length.toString(16)}\r\n${first}\r\n`);
    for (let i = 0; i < 11 && !answer; i++) {
      chunked.write(`${mb.length.toString(16)}\r\n${mb}\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let i = 0; i < 100 && !answer.includes('\r\n\r\n'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    chunked.destroy();
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 413\b/);
    expect((await srv.admin.get('/pages/wiki/huge')).status).toBe(404);
  });

  it('cannot be polluted through __proto__ or constructor keys', async () => {
    const r = await srv.admin.req(
      'PUT',
      '/pages/wiki/proto',
      '{"title":"P","frontmatter":{"__proto__":{"polluted":1}},"metadata":{"constructor":1}}',
      { 'content-type': 'application/json' },
    );
    expect(r.status).toBe(400);
    expect(r.body.issues).toContainEqual(expect.objectContaining({ key: 'metadata.constructor' }));
    const ok = await srv.admin.req('PUT', '/pages/wiki/proto', '{"title":"P","frontmatter":{"__proto__":{"polluted":1}}}', {
      'content-type': 'application/json',
    });
    expect(ok.status).toBe(201);
    expect(({} as any).polluted).toBeUndefined();
    expect((await srv.admin.get('/pages/wiki/proto')).body.frontmatter).toEqual(JSON.parse('{"__proto__":{"polluted":1}}'));
  });
});

describe('GET /pages/:space/:path', () => {
  it('returns Markdown with YAML frontmatter on Accept: text/markdown', async () => {
    await srv.admin.put('/pages/wiki/md', { title: 'Doc', content: 'Body text\n', frontmatter: { tags: ['a', 'b'] } });
    const r = await srv.admin.get('/pages/wiki/md', { accept: 'text/markdown' });
    expect(r.headers.get('content-type')).toContain('text/markdown');
    expect(r.text).toBe('---\ntitle: Doc\ntags:\n  - a\n  - b\n---\n\nBody text\n');
  });

  it('answers 404 problem+json for a missing page, space or route', async () => {
    for (const p of ['/pages/wiki/nope', '/pages/nospace/x', '/nothing-here']) {
      const r = await srv.admin.get(p);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
  });

  it('shows revisions with their author and each revision on its own', async () => {
    await srv.admin.put('/pages/wiki/rev', { title: 'R1', content: 'one' });
    await srv.admin.put('/pages/wiki/rev', { title: 'R2', content: 'two' });
    const list = await srv.admin.get('/pages/wiki/rev/revisions?limit=1');
    expect(list.body.revisions).toEqual([
      { version: 2, title: 'R2', author: { id: expect.any(String), kind: 'agent', name: 'admin' }, createdAt: expect.any(String) },
    ]);
    const next = await srv.admin.get(`/pages/wiki/rev/revisions?limit=1&cursor=${list.body.nextCursor}`);
    expect(next.body.revisions[0].version).toBe(1);
    expect(next.body.nextCursor).toBeNull();
    const one = await srv.admin.get('/pages/wiki/rev/revisions/1');
    expect(one.body).toMatchObject({ version: 1, title: 'R1', content: 'one', author: { name: 'admin' } });
    expect((await srv.admin.get('/pages/wiki/rev/revisions/9')).status).toBe(404);
  });
});

describe('DELETE /pages/:space/:path', () => {
  it('keeps revisions and continues the numbering on a later write', async () => {
    await srv.admin.put('/pages/wiki/gone', { title: 'G' });
    await srv.admin.put('/pages/wiki/gone', { title: 'G2' });
    expect((await srv.admin.del('/pages/wiki/gone')).status).toBe(204);
    expect((await srv.admin.get('/pages/wiki/gone')).status).toBe(404);
    expect((await srv.admin.del('/pages/wiki/gone')).status).toBe(404);
    const again = await srv.admin.put('/pages/wiki/gone', { title: 'G3' });
    expect(again.status).toBe(201);
    expect(again.body.version).toBe(3);
    const revs = await srv.admin.get('/pages/wiki/gone/revisions');
    expect(revs.body.revisions.map((r: any) => r.version)).toEqual([3, 2, 1]);
  });

  // A write answers with the page as it is stored (built from what it wrote, not read back).
  it('answers every write with the page a read then returns: create, replace, with an ACL, revival', async () => {
    const same = async (res: { status: number; body: unknown }) => {
      expect(res.status).toBeLessThan(300);
      expect((await srv.admin.get('/pages/wiki/echo')).body).toEqual(res.body);
    };
    await same(
      await srv.admin.put('/pages/wiki/echo', { title: 'E', content: 'see [[start]]', frontmatter: { a: 1 }, metadata: { n: 2 } }),
    );
    await same(await srv.admin.put('/pages/wiki/echo', { title: 'E2', content: 'again' }));
    expect((await srv.admin.put('/pages/wiki/echo/acl', { read: [], write: [] })).status).toBe(200);
    await same(await srv.admin.put('/pages/wiki/echo', { title: 'E3', metadata: { n: 3 } }));
    expect((await srv.admin.del('/pages/wiki/echo')).status).toBe(204);
    const revived = await srv.admin.put('/pages/wiki/echo', { title: 'E4' });
    expect(revived.status).toBe(201);
    await same(revived);
    // A write over a trashed page brings it back as a restore does: its ACL with it (docs/security.md).
    expect((await srv.admin.get('/pages/wiki/echo/acl')).body).toMatchObject({ restricted: true });
  });
});

describe('GET /spaces/:slug/pages', () => {
  it('lists by prefix with limit and cursor', async () => {
    await srv.admin.post('/spaces', { slug: 'list', name: 'List' });
    for (const p of ['a/1', 'a/2', 'a/3', 'b/1', 'a-x']) await srv.admin.put(`/pages/list/${p}`, { title: p });
    const first = await srv.admin.get('/spaces/list/pages?prefix=a/&limit=2');
    expect(first.body.pages.map((p: any) => p.path)).toEqual(['a/1', 'a/2']);
    expect(first.body.pages[0]).toEqual({ path: 'a/1', title: 'a/1', version: 1, updatedAt: expect.any(String) });
    const second = await srv.admin.get(`/spaces/list/pages?prefix=a/&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.pages.map((p: any) => p.path)).toEqual(['a/3']);
    expect(second.body.nextCursor).toBeNull();
    expect((await srv.admin.get('/spaces/list/pages?limit=0')).status).toBe(400);
    expect((await srv.admin.get('/spaces/list/pages?cursor=garbage')).status).toBe(400);
  });

  it('lists one folder level with depth=1: pages, then subfolders, one entry per subfolder', async () => {
    await srv.admin.post('/spaces', { slug: 'level', name: 'Level' });
    for (const p of ['guide', 'guide-old', 'guide/setup', 'guide/deep/a', 'guide/deep/b', 'notes/x/y', 'zeta', 'secret/only']) {
      expect((await srv.admin.put(`/pages/level/${p}`, { title: `T ${p}` })).status).toBe(201);
    }
    // A folder is listed only while it holds a page the caller may read.
    expect((await srv.admin.put('/pages/level/secret/only/acl', { read: [], write: [] })).status).toBe(200);
    const member = await newAgent(srv, 'level-reader');
    const paths = (b: any) => ({ pages: b.pages.map((p: any) => p.path), folders: b.folders.map((f: any) => f.path) });

    const root = await member.get('/spaces/level/pages?depth=1');
    expect(root.status).toBe(200);
    expect(paths(root.body)).toEqual({ pages: ['guide', 'guide-old', 'zeta'], folders: ['guide', 'notes'] });
    expect(root.body.nextCursor).toBeNull();
    expect(root.body.pages[0]).toEqual({ path: 'guide', title: 'T guide', version: 1, updatedAt: expect.any(String) });
    expect(paths((await srv.admin.get('/spaces/level/pages?depth=1')).body).folders).toEqual(['guide', 'notes', 'secret']);

    const guide = await member.get('/spaces/level/pages?depth=1&prefix=guide/');
    expect(paths(guide.body)).toEqual({ pages: ['guide/setup'], folders: ['guide/deep'] });

    // limit counts entries (pages and folders); the cursor resumes past a whole folder.
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const r = await member.get(`/spaces/level/pages?depth=1&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.pages.length + r.body.folders.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.pages.map((p: any) => `page ${p.path}`), ...r.body.folders.map((f: any) => `folder ${f.path}`));
      if (!r.body.nextCursor) break;
      cursor = r.body.nextCursor;
    }
    expect(seen.sort()).toEqual(['folder guide', 'folder notes', 'page guide', 'page guide-old', 'page zeta']);

    // Without depth the answer is as before: every page under the prefix, no folders field.
    const flat = await member.get('/spaces/level/pages?prefix=guide/');
    expect(flat.body.pages.map((p: any) => p.path)).toEqual(['guide/deep/a', 'guide/deep/b', 'guide/setup']);
    expect(flat.body).not.toHaveProperty('folders');
    const bad = await member.get('/spaces/level/pages?depth=2');
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].key).toBe('depth');
  });
});
