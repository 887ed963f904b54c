import { describe, expect, it } from 'vitest';
import { newAgent, type Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { callTool, connectHttp } from '../support/mcp.ts';

// Contract: "Revisions written while a page had its own ACL are readable only by those that ACL
// let read", whatever happens to the path later (issue 18, finding 1).

const { srv, bob, carol } = useServer({ agents: ['bob', 'carol'], spaces: [{ slug: 'wiki', name: 'Wiki' }] });

const versions = async (c: Client, page: string) =>
  ((await c.get(`/pages/${page}/revisions`)).body.revisions ?? []).map((r: { version: number }) => r.version);

describe('old revisions of a restricted page', () => {
  it('stay hidden after the page is deleted, written again and opened', async () => {
    expect((await srv.admin.put('/pages/wiki/hr/salaries', { title: 'Salaries', content: 'alice 100k' })).status).toBe(201);
    expect((await srv.admin.put('/pages/wiki/hr/salaries/acl', { read: [carol.id] })).status).toBe(200);
    expect((await srv.admin.put('/pages/wiki/hr/salaries', { title: 'Salaries', content: 'alice 120k' })).status).toBe(200);
    expect((await srv.admin.del('/pages/wiki/hr/salaries')).status).toBe(204);
    // Only those who may restore it write over it (docs/security.md: trash), and the write
    // brings its ACL back; once that is removed, the history it governed keeps its readers.
    expect((await bob.put('/pages/wiki/hr/salaries', { title: 'Mine', content: 'bob was here' })).status).toBe(409);
    const mine = await srv.admin.put('/pages/wiki/hr/salaries', { title: 'Mine', content: 'bob was here' });
    expect(mine.status).toBe(201);
    expect(mine.body.version).toBe(3);
    expect((await bob.get('/pages/wiki/hr/salaries')).status).toBe(404);
    expect((await srv.admin.del('/pages/wiki/hr/salaries/acl')).status).toBe(200);
    await srv.admin.put('/pages/wiki/hr/salaries', { title: 'Mine', content: 'open now' });
    expect((await bob.get('/pages/wiki/hr/salaries/revisions/1')).status).toBe(404);
    expect((await bob.get('/pages/wiki/hr/salaries/revisions/2')).status).toBe(404);
    expect((await bob.get('/pages/wiki/hr/salaries/revisions/3')).status).toBe(404);
    expect((await bob.get('/pages/wiki/hr/salaries/revisions/4')).body.content).toBe('open now');
    expect(await versions(bob, 'wiki/hr/salaries')).toEqual([4]);
    // Those the ACL listed, and org admins, still read them.
    expect((await carol.get('/pages/wiki/hr/salaries/revisions/2')).body.content).toBe('alice 120k');
    expect((await carol.get('/pages/wiki/hr/salaries/revisions/1')).body.content).toBe('alice 100k');
    expect(await versions(carol, 'wiki/hr/salaries')).toEqual([4, 3, 2, 1]);
    expect(await versions(srv.admin, 'wiki/hr/salaries')).toEqual([4, 3, 2, 1]);
  });

  it('stay hidden through MCP get_page with a version', async () => {
    await srv.admin.put('/pages/wiki/mcp/secret', { title: 'S', content: 'the secret' });
    await srv.admin.put('/pages/wiki/mcp/secret/acl', { read: [] });
    await srv.admin.del('/pages/wiki/mcp/secret');
    await srv.admin.put('/pages/wiki/mcp/secret', { title: 'Mine' });
    await srv.admin.del('/pages/wiki/mcp/secret/acl');
    const mcp = await connectHttp(srv.url, bob.key!);
    try {
      const r = await callTool(mcp, 'get_page', { space: 'wiki', path: 'mcp/secret', version: 1 });
      expect(r.isError).toBe(true);
      expect(r.text).not.toContain('the secret');
    } finally {
      await mcp.close();
    }
  });

  it('written under an ACL stay with that ACL when it is removed or widened; the live ACL still covers all history', async () => {
    await srv.admin.put('/pages/wiki/plan', { title: 'Plan', content: 'public draft' });
    await srv.admin.put('/pages/wiki/plan/acl', { read: [carol.id] });
    await srv.admin.put('/pages/wiki/plan', { title: 'Plan', content: 'restricted text' });
    // While the ACL lives it covers every revision, the earlier public one too.
    expect((await bob.get('/pages/wiki/plan/revisions/1')).status).toBe(404);
    // Widening the ACL: bob reads the page now, but not what was written while he was not listed.
    await srv.admin.put('/pages/wiki/plan/acl', { read: [carol.id, bob.id] });
    expect((await bob.get('/pages/wiki/plan')).status).toBe(200);
    expect((await bob.get('/pages/wiki/plan/revisions/2')).status).toBe(404);
    expect((await carol.get('/pages/wiki/plan/revisions/2')).status).toBe(200);
    // Removing the ACL: the page and its new revisions follow the space default again, the
    // history it governed stays with the readers it had.
    await srv.admin.del('/pages/wiki/plan/acl');
    await srv.admin.put('/pages/wiki/plan', { title: 'Plan', content: 'public again' });
    expect((await bob.get('/pages/wiki/plan/revisions/3')).status).toBe(200);
    expect((await bob.get('/pages/wiki/plan/revisions/2')).status).toBe(404);
    // Version 1 was governed by the ACL that listed bob and carol when it was removed.
    expect((await bob.get('/pages/wiki/plan/revisions/1')).status).toBe(200);
    expect(await versions(bob, 'wiki/plan')).toEqual([3, 1]);
    const unlisted = await newAgent(srv, 'dave');
    expect(await versions(unlisted, 'wiki/plan')).toEqual([3]);
    expect(await versions(carol, 'wiki/plan')).toEqual([3, 2, 1]);
  });

  it('pages the revision list over the readable revisions only', async () => {
    await srv.admin.put('/pages/wiki/paged', { title: 'P', content: 'v1' });
    await srv.admin.put('/pages/wiki/paged/acl', { read: [] });
    for (let i = 2; i <= 5; i++) await srv.admin.put('/pages/wiki/paged', { title: 'P', content: `v${i}` });
    await srv.admin.del('/pages/wiki/paged/acl');
    for (let i = 6; i <= 8; i++) await srv.admin.put('/pages/wiki/paged', { title: 'P', content: `v${i}` });
    const first = await bob.get('/pages/wiki/paged/revisions?limit=2');
    expect(first.body.revisions.map((r: { version: number }) => r.version)).toEqual([8, 7]);
    const second = await bob.get(`/pages/wiki/paged/revisions?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.revisions.map((r: { version: number }) => r.version)).toEqual([6]);
    expect(second.body.nextCursor).toBeNull();
  });
});
