// GET /changes: commit order, since and paging, every event, the ACL (a delete, a move away and
// an ACL change judged by who could read before), 410 past the retention, bad parameters.
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem.ts';
import { startServer, type Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import type { Change } from '../../src/model.ts';

const { srv, bob, carol } = useServer({
  // Over the port only: each write's X-Service-Txid is stamped by the Node front (docs/testing.md).
  transport: 'port',
  agents: ['bob', 'carol'],
  spaces: [
    { slug: 'wiki', name: 'Wiki', defaultAccess: 'write' },
    { slug: 'vault', name: 'Vault', defaultAccess: 'none' },
  ],
  noErrors: true,
});

const txidOf = (r: { headers: Headers }) => Number(r.headers.get('x-service-txid'));

async function feed(c: Client, query = ''): Promise<{ changes: Change[]; nextSince: number }> {
  const r = await c.get(`/changes${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** Every change after `since` the client sees, following nextSince page by page. */
async function all(c: Client, since: number, extra = ''): Promise<Change[]> {
  const out: Change[] = [];
  let at = since;
  for (;;) {
    const page = await feed(c, `?since=${at}&limit=2${extra}`);
    out.push(...page.changes);
    if (page.changes.length === 0) return out;
    at = page.nextSince;
  }
}

const brief = (cs: Change[]) => cs.map((c) => `${c.event} ${c.space}/${c.path}${c.from ? ` from ${c.from.space}/${c.from.path}` : ''}`);

describe('GET /changes', () => {
  it('lists every kind of change in commit order, with its txid, version and actor, and pages by nextSince', async () => {
    const start = (await feed(bob)).nextSince;
    const created = await bob.put('/pages/wiki/one', { title: 'One', content: 'a' });
    expect(created.status).toBe(201);
    const updated = await bob.put('/pages/wiki/one', { content: 'b' });
    expect((await bob.req('PUT', '/files/wiki/one/pic.txt', 'hello', { 'content-type': 'text/plain' })).status).toBe(201);
    expect((await bob.del('/files/wiki/one/pic.txt')).status).toBe(204);
    expect((await bob.post('/spaces/wiki/moves', { from: 'one', to: 'two' })).status).toBe(200);
    expect((await srv.admin.del('/pages/wiki/two')).status).toBe(204);
    expect((await srv.admin.post('/spaces/wiki/trash/restore', { path: 'two' })).status).toBe(200);
    const seen = await all(bob, start);
    expect(brief(seen)).toEqual([
      'page.created wiki/one',
      'page.updated wiki/one',
      'file.put wiki/one/pic.txt',
      'file.deleted wiki/one/pic.txt',
      'page.moved wiki/two from wiki/one',
      'page.deleted wiki/two',
      'page.restored wiki/two',
    ]);
    expect(seen[0]).toMatchObject({ txid: txidOf(created), version: 1, actor: { id: bob.id, kind: 'agent' } });
    expect(seen[1]).toMatchObject({ txid: txidOf(updated), version: 2 });
    expect(seen[5].actor.id).not.toBe(bob.id); // the admin deleted it
    for (let i = 1; i < seen.length; i++) expect(seen[i].txid).toBeGreaterThan(seen[i - 1].txid);
    expect(Date.parse(seen[0].at)).toBeGreaterThan(0);
    // Caught up: nextSince is the newest txid, and asking from it gives nothing.
    const rest = await feed(bob, `?since=${seen.at(-1)!.txid}`);
    expect(rest.changes).toEqual([]);
    expect(rest.nextSince).toBeGreaterThanOrEqual(seen.at(-1)!.txid);
    // A limit cuts the page, and nextSince continues after it.
    const first = await feed(bob, `?since=${start}&limit=3`);
    expect(first.changes.length).toBe(3);
    expect(first.nextSince).toBe(first.changes[2].txid);
  });

  it('filters by space, and 404s a space the caller cannot see', async () => {
    const start = (await feed(srv.admin)).nextSince;
    await srv.admin.put('/pages/wiki/f1', { title: 'F', content: '' });
    await srv.admin.put('/pages/vault/f2', { title: 'F', content: '' });
    expect(brief(await all(srv.admin, start, '&space=vault'))).toEqual(['page.created vault/f2']);
    expect(brief(await all(srv.admin, start, '&space=wiki'))).toEqual(['page.created wiki/f1']);
    expect((await bob.get('/changes?space=vault')).status).toBe(404);
    expect((await bob.get('/changes?space=no-such')).status).toBe(404);
  });

  it('shows a reader only what they may read: before a delete or a move away, and an ACL change as leaving or arriving', async () => {
    const start = (await feed(carol)).nextSince;
    await srv.admin.put('/pages/wiki/open', { title: 'Open', content: '' });
    await srv.admin.put('/pages/vault/hidden', { title: 'Hidden', content: '' });
    await srv.admin.put('/pages/vault/hidden', { title: 'Hidden', content: 'v2' });
    // Moved from where carol reads it to where she cannot: she sees it leave, not where it went.
    await srv.admin.put('/pages/wiki/leaving', { title: 'Leaving', content: '' });
    expect((await srv.admin.post('/spaces/wiki/moves', { from: 'leaving', to: 'gone-here', toSpace: 'vault' })).status).toBe(200);
    // And the other way: it arrives.
    expect((await srv.admin.post('/spaces/vault/moves', { from: 'hidden', to: 'arrived', toSpace: 'wiki' })).status).toBe(200);
    // Restricted to bob: carol sees it leave; given back to everyone: she sees it arrive.
    expect((await srv.admin.put('/pages/wiki/open/acl', { read: [bob.id], write: [] })).status).toBe(200);
    await srv.admin.put('/pages/wiki/open', { title: 'Open', content: 'while restricted' });
    expect((await srv.admin.del('/pages/wiki/open/acl')).status).toBe(200);
    // Deleted while restricted to bob: carol never sees it; bob does.
    await srv.admin.put('/pages/wiki/bobs', { title: 'Bobs', content: '' });
    expect((await srv.admin.put('/pages/wiki/bobs/acl', { read: [bob.id], write: [] })).status).toBe(200);
    expect((await srv.admin.del('/pages/wiki/bobs')).status).toBe(204);
    expect(brief(await all(carol, start))).toEqual([
      'page.created wiki/open',
      'page.created wiki/leaving',
      'page.deleted wiki/leaving',
      'page.created wiki/arrived',
      'page.deleted wiki/open',
      'page.created wiki/open',
      'page.created wiki/bobs',
      'page.deleted wiki/bobs', // the ACL let her out; the delete after it is not hers
    ]);
    // Bob reads the page on both sides of each ACL change: no leaving or arriving, the update between, and the delete.
    expect(brief(await all(bob, start)).filter((l) => l.includes('wiki/open') || l.includes('wiki/bobs'))).toEqual([
      'page.created wiki/open',
      'page.updated wiki/open',
      'page.created wiki/bobs',
      'page.deleted wiki/bobs',
    ]);
    // The admin reads both ends of each move.
    const admin = brief(await all(srv.admin, start));
    expect(admin).toContain('page.moved vault/gone-here from wiki/leaving');
    expect(admin).toContain('page.moved wiki/arrived from vault/hidden');
    expect(admin).not.toContain('page.created wiki/arrived');
  });

  it('refuses bad parameters with 400 naming the field', async () => {
    const refused = { since: ['-1', 'abc'], limit: ['0', '1001', 'x'] };
    for (const [key, values] of Object.entries(refused))
      for (const v of values) expectProblem(await bob.get(`/changes?${key}=${v}`), 400, { key }, `${key}=${v}`);
    expect((await bob.get('/changes?limit=1000')).status).toBe(200);
    expect((await fetch(`${srv.url}/changes`)).status).toBe(401);
  });
});

describe('retention', () => {
  it('drops changes past SERVICE_CHANGES_RETENTION_DAYS and answers an older since with 410 changes_expired', async () => {
    const short = await startServer({ SERVICE_CHANGES_RETENTION_DAYS: String(1.5 / 86_400) }); // 1.5 s
    try {
      const first = await short.admin.put('/pages/~admin/old', { title: 'Old', content: '' });
      expect(first.status).toBe(201);
      const since = txidOf(first) - 1;
      expect((await short.admin.get(`/changes?since=${since}`)).body.changes.length).toBe(1);
      await new Promise((r) => setTimeout(r, 1600));
      await short.admin.put('/pages/~admin/new', { title: 'New', content: '' });
      let r = await short.admin.get(`/changes?since=${since}`);
      const deadline = Date.now() + 10_000;
      while (r.status === 200 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 100));
        r = await short.admin.get(`/changes?since=${since}`);
      }
      expect(r.status, r.text).toBe(410);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('changes_expired');
      expect(r.body.nextSince).toBeGreaterThan(since); // where to follow from after reading the state again
      // From the oldest kept (0) still answers, without the pruned change.
      const kept = await short.admin.get('/changes');
      expect(kept.status).toBe(200);
      expect(kept.body.changes.map((c: Change) => c.path)).not.toContain('old');
    } finally {
      await short.close();
    }
  });
});
