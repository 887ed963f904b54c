import { describe, expect, it } from 'vitest';
import { callTool, connectHttp, useMcpClient } from '../support/mcp.ts';
import { useServer } from '../support/fixture.ts';

const { srv, reader } = useServer({
  agents: ['reader'],
  spaces: [{ slug: 'kb', name: 'KB' }],
  pages: [
    ['kb/a', { title: 'Alpha', content: 'the quarterly roadmap, see [b](./b) and [gone](./gone)', metadata: { stage: 'todo', points: 2 } }],
    ['kb/b', { title: 'Beta', content: 'roadmap details', metadata: { stage: 'doing', points: 5 } }],
    ['kb/hidden', { title: 'Hidden roadmap', content: 'roadmap secrets, linking [b](./b)', metadata: { stage: 'todo', points: 9 } }],
  ],
  async setup(srv) {
    const me = (await srv.admin.get('/me')).body;
    await srv.admin.put('/pages/kb/hidden/acl', { write: [me.id] });
  },
});
const mcp = useMcpClient(() => connectHttp(srv.url, reader.key!));

describe('search and link tools, as another agent sees them', () => {
  it('search finds readable pages only', async () => {
    const r = await callTool(mcp, 'search', { query: 'roadmap' });
    expect(r.isError).toBe(false);
    expect(r.json.hits.map((h: { path: string }) => h.path).sort()).toEqual(['a', 'b']);
  });

  it('query_metadata takes in and orders; the hidden page is never counted', async () => {
    const r = await callTool(mcp, 'query_metadata', {
      filters: [{ key: 'stage', op: 'in', value: ['todo', 'doing'] }],
      orderBy: 'points',
      order: 'desc',
    });
    expect(r.json.pages.map((p: { path: string }) => p.path)).toEqual(['b', 'a']);
    const bad = await callTool(mcp, 'query_metadata', { filters: [{ key: 'points', op: 'gte', value: [1, 2] }] });
    expect(bad).toMatchObject({ isError: true, text: expect.stringMatching(/\n- filters\[0\]\.value: /) });
  });

  it('get_links gives outbound links and backlinks without the hidden source; broken_links lists the missing target', async () => {
    const links = await callTool(mcp, 'get_links', { space: 'kb', path: 'b' });
    expect(links.json.backlinks.map((l: { path: string }) => l.path)).toEqual(['a']);
    const broken = await callTool(mcp, 'broken_links', { space: 'kb' });
    expect(broken.json).toEqual({
      links: [{ source: { space: 'kb', path: 'a' }, target: { space: 'kb', path: 'gone' } }],
      nextCursor: null,
    });
    expect(links.json.nextCursor).toBeNull();
  });

  it('get_links and broken_links page with limit and cursor', async () => {
    await srv.admin.post('/spaces', { slug: 'paged', name: 'Paged' });
    await srv.admin.put('/pages/paged/p', { title: 'P', content: '[1](./x1) [2](./x2) [3](./x3)' });
    const targets: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await callTool(mcp, 'broken_links', { space: 'paged', limit: 2, ...(cursor ? { cursor } : {}) });
      expect(r.isError).toBe(false);
      targets.push(...r.json.links.map((l: { target: { path: string } }) => l.target.path));
      cursor = r.json.nextCursor ?? undefined;
    } while (cursor);
    expect(targets).toEqual(['x1', 'x2', 'x3']);
    const first = await callTool(mcp, 'get_links', { space: 'paged', path: 'p', limit: 2 });
    expect(first.json.outbound.map((l: { path: string }) => l.path)).toEqual(['x1', 'x2']);
    const rest = await callTool(mcp, 'get_links', { space: 'paged', path: 'p', limit: 2, cursor: first.json.nextCursor });
    expect(rest.json).toMatchObject({ outbound: [{ path: 'x3' }], nextCursor: null });
  });
});
