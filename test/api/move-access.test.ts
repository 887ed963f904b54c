// Moves that would widen or hide (issue 34, H4 and M1; docs/security.md "Moves"): a move never
// widens who reads a revision, a shared page goes into a personal space only with the right to
// delete it for every reader, the move is announced to the space it left, and the old address
// redirects only those who could read the page there.
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const {
  srv,
  agents: { bob, carol, dave },
  outbox: docsHook,
} = useServer({
  agents: ['bob', 'carol', 'dave'],
  spaces: [{ slug: 'eng' }, { slug: 'docs' }, { slug: 'vault', defaultAccess: 'none' }],
  outbox: { events: ['page.moved'], spaceSlug: 'docs' }, // only what happens in (or leaves) docs reaches it
  noErrors: true,
});

const put = async (c: Client, at: string, body: Record<string, unknown>) => {
  const r = await c.put(`/pages/${at}`, body);
  expect([200, 201], `${at}: ${r.text}`).toContain(r.status);
  return r.body;
};
const acl = async (at: string, read: string[], write: string[]) => {
  const r = await srv.admin.put(`/pages/${at}/acl`, { read, write });
  expect(r.status, r.text).toBe(200);
};
const move = (c: Client, slug: string, body: Record<string, unknown>) => c.post(`/spaces/${slug}/moves`, body);
const revision = async (c: Client, at: string, n: number) => (await c.get(`/pages/${at}/revisions/${n}`)).status;
const versions = async (c: Client, at: string) =>
  ((await c.get(`/pages/${at}/revisions`)).body.revisions ?? []).map((r: { version: number }) => r.version);
/** The docs subscription's delivery of the move away from `from` (deliveries arrive in any order). */
async function movedFrom(from: { space: string; path: string }): Promise<Record<string, unknown>> {
  const bodies = () => docsHook.rx.received.map((r) => JSON.parse(r.body.toString()));
  const match = (b: { from?: { space: string; path: string } }) => b.from?.space === from.space && b.from?.path === from.path;
  await docsHook.rx.waitFor(() => bodies().some(match));
  return bodies().find(match);
}
/** A GET that does not follow redirects. */
const raw = (c: Client, p: string) => fetch(srv.url + p, { headers: { authorization: `Bearer ${c.key}` }, redirect: 'manual' });

describe('a move never widens who reads a revision', () => {
  it('keeps a revision written under a stricter ACL from the writer who takes the page into their space', async () => {
    // bob wrote the page alone; an ACL that left him out governed v1 and was dropped again, so
    // v1 stays with carol (docs/security.md, Old revisions).
    await put(bob, 'eng/pay', { title: 'Pay', content: 'carol: 100k' });
    await acl('eng/pay', [carol.id], []);
    expect((await srv.admin.del('/pages/eng/pay/acl')).status).toBe(200);
    await put(bob, 'eng/pay', { content: 'cleared' }); // v2
    expect(await revision(bob, 'eng/pay', 1)).toBe(404);
    // As the page's only writer and its only author, bob may take it into his own space.
    expect((await bob.put('/pages/eng/pay/acl', { read: [], write: [bob.id] })).status).toBe(200);
    const r = await move(bob, 'eng', { from: 'pay', to: 'pay', toSpace: '~bob' });
    expect(r.status, r.text).toBe(200);
    expect((await bob.get('/pages/~bob/pay')).body.content).toBe('cleared');
    expect(await revision(bob, '~bob/pay', 1)).toBe(404); // the owner of a personal space no longer reads all of it
    expect(await revision(bob, '~bob/pay', 2)).toBe(200);
    expect(await versions(bob, '~bob/pay')).toEqual([2]);
    // Dropping the ACL there, or moving the page on, opens nothing either.
    expect((await bob.del('/pages/~bob/pay/acl')).status).toBe(200);
    expect(await versions(bob, '~bob/pay')).toEqual([2]);
    expect((await move(bob, '~bob', { from: 'pay', to: 'pay2', toSpace: 'eng' })).status).toBe(200);
    expect(await versions(bob, 'eng/pay2')).toEqual([2]);
    expect(await versions(carol, 'eng/pay2')).toEqual([]); // v1 was hers in eng, but ~bob was bob's alone
    expect(await versions(srv.admin, 'eng/pay2')).toEqual([]);
  });

  it('keeps revisions written under an ACL that left a writer out from that writer, who may not take the page either', async () => {
    await put(srv.admin, 'eng/bonus', { title: 'Bonus', content: 'draft' });
    await acl('eng/bonus', [carol.id], []);
    await put(srv.admin, 'eng/bonus', { content: 'carol only: 100k' }); // v2, written under {carol}
    await acl('eng/bonus', [carol.id], [bob.id]);
    await put(bob, 'eng/bonus', { content: 'bob edits' }); // v3
    expect(await revision(bob, 'eng/bonus', 2)).toBe(404);
    // bob is its only writer, but others wrote it: not his to take away.
    expect((await move(bob, 'eng', { from: 'bonus', to: 'bonus', toSpace: '~bob' })).status).toBe(403);
    expect((await move(bob, 'eng', { from: 'bonus', to: 'bonus', toSpace: 'docs' })).status).toBe(200);
    expect(await revision(bob, 'docs/bonus', 2)).toBe(404);
    expect(await versions(bob, 'docs/bonus')).toEqual([3, 1]);
  });

  it('keeps the history of an admins-only page from the members of the space it is moved to', async () => {
    await put(srv.admin, 'vault/plan', { title: 'Plan', content: 'classified' });
    await put(srv.admin, 'vault/plan', { content: 'announced' });
    expect((await bob.get('/pages/vault/plan')).status).toBe(404);
    expect((await move(srv.admin, 'vault', { from: 'plan', to: 'plan', toSpace: 'eng' })).status).toBe(200);
    expect((await bob.get('/pages/eng/plan')).body.content).toBe('announced'); // the live page is published
    expect(await revision(bob, 'eng/plan', 1)).toBe(404);
    expect(await versions(bob, 'eng/plan')).toEqual([]);
    expect(await versions(srv.admin, 'eng/plan')).toEqual([2, 1]);
    // Written after the move: readable by the new space's readers.
    await put(bob, 'eng/plan', { content: 'bob adds' });
    expect(await versions(bob, 'eng/plan')).toEqual([3]);
  });

  it('keeps the drafts of a personal page with their owner when it is moved into a shared space', async () => {
    await put(carol, '~carol/essay', { title: 'Essay', content: 'embarrassing first try' });
    await put(carol, '~carol/essay', { content: 'final' });
    const r = await move(carol, '~carol', { from: 'essay', to: 'essay', toSpace: 'docs' });
    expect(r.status, r.text).toBe(200);
    expect((await bob.get('/pages/docs/essay')).body.content).toBe('final');
    expect(await revision(bob, 'docs/essay', 1)).toBe(404);
    expect(await revision(srv.admin, 'docs/essay', 1)).toBe(404); // org admins do not see into personal spaces
    expect(await versions(carol, 'docs/essay')).toEqual([2, 1]);
    // Moving it on, and back, never reopens them.
    expect((await move(carol, 'docs', { from: 'essay', to: 'essay', toSpace: 'eng' })).status).toBe(200);
    expect(await revision(srv.admin, 'eng/essay', 1)).toBe(404);
    expect(await versions(carol, 'eng/essay')).toEqual([2, 1]);
  });
});

describe('a move into a personal space', () => {
  it('needs the right to delete the page for every reader: org admins, or its only writer', async () => {
    await put(bob, 'eng/team/a', { title: 'A', content: 'a' });
    await put(bob, 'eng/team/b', { title: 'B', content: 'b' });
    // Any member may write these, so no member takes them (or their folder) away from the rest.
    expect((await move(carol, 'eng', { from: 'team/a', to: 'a', toSpace: '~carol' })).status).toBe(403);
    expect((await move(carol, 'eng', { from: 'team', to: 'team', toSpace: '~carol', prefix: true })).status).toBe(403);
    expect((await bob.get('/pages/eng/team/a')).status).toBe(200);
    expect((await carol.get('/spaces/~carol/pages')).body.pages).toEqual([]);
    // One of two writers may not either, nor one who makes themselves the only writer of a page
    // others wrote.
    await acl('eng/team/b', [], [bob.id, carol.id]);
    expect((await move(bob, 'eng', { from: 'team/b', to: 'b', toSpace: '~bob' })).status).toBe(403);
    await put(carol, 'eng/team/b', { content: 'carol too' });
    expect((await bob.put('/pages/eng/team/b/acl', { read: [], write: [bob.id] })).status).toBe(200);
    expect((await move(bob, 'eng', { from: 'team/b', to: 'b', toSpace: '~bob' })).status).toBe(403);
    // Moves between shared spaces stay with the page's writers.
    expect((await move(carol, 'eng', { from: 'team/a', to: 'team/a', toSpace: 'docs' })).status).toBe(200);
    // An org admin may.
    const r = await move(srv.admin, 'eng', { from: 'team', to: 'took', toSpace: '~admin', prefix: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.moved).toEqual([{ from: 'team/b', to: 'took/b' }]);
  });

  it('is announced to the space it left, and its old address tells nobody else where it went', async () => {
    await put(bob, 'docs/notes', { title: 'Notes', content: 'n' });
    const r = await move(srv.admin, 'docs', { from: 'notes', to: 'notes', toSpace: '~admin' });
    expect(r.status, r.text).toBe(200);
    expect(await movedFrom({ space: 'docs', path: 'notes' })).toMatchObject({
      event: 'page.moved',
      page: { space: '~admin', path: 'notes' },
      from: { space: 'docs', path: 'notes' },
    });
    // The old address: 404 to everyone who may not read the page now.
    expect((await raw(bob, '/pages/docs/notes')).status).toBe(404);
    expect((await raw(srv.admin, '/pages/docs/notes')).status).toBe(308);
  });
});

describe('a move between shared spaces', () => {
  it('is announced to the subscriptions of the space it left', async () => {
    await put(bob, 'docs/guide', { title: 'Guide', content: 'g' });
    expect((await move(bob, 'docs', { from: 'guide', to: 'guide', toSpace: 'eng' })).status).toBe(200);
    expect(await movedFrom({ space: 'docs', path: 'guide' })).toMatchObject({
      event: 'page.moved',
      page: { space: 'eng', path: 'guide' },
      from: { space: 'docs', path: 'guide' },
    });
  });

  it('redirects the old address only for those who could read the page there', async () => {
    // dave sees vault through a page granted to him; the admins-only page he cannot read.
    await put(srv.admin, 'vault/granted', { title: 'G', content: '' });
    await acl('vault/granted', [dave.id], []);
    await put(srv.admin, 'vault/memo', { title: 'Memo', content: 'm' });
    expect((await raw(dave, '/pages/vault/memo')).status).toBe(404);
    expect((await move(srv.admin, 'vault', { from: 'memo', to: 'memo', toSpace: 'eng' })).status).toBe(200);
    expect((await dave.get('/pages/eng/memo')).status).toBe(200);
    expect((await raw(dave, '/pages/vault/memo')).status).toBe(404); // never learns what was there
    const admin = await raw(srv.admin, '/pages/vault/memo');
    expect(admin.status).toBe(308);
    expect(admin.headers.get('location')).toBe('/pages/eng/memo');
  });
});
