import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { backlinksOf as back, brokenLinksOf as broken, contentOf, putPage, setAcl } from '../support/links.ts';

const { srv, bob, carol, dave } = useServer({
  agents: ['bob', 'carol', 'dave'],
  spaces: [{ slug: 'eng' }, { slug: 'docs' }, { slug: 'pfx' }],
  outbox: { events: ['page.moved'] }, // org-wide: moves record their events
  noErrors: true,
});

const put = (c: Client, at: string, content: string, title = at) => putPage(c, at, content, title);
const acl = (at: string, read: string[], write: string[]) => setAcl(srv.admin, at, read, write);
/** A GET that does not follow redirects. */
const raw = (c: Client, p: string) => fetch(srv.url + p, { headers: { authorization: `Bearer ${c.key}` }, redirect: 'manual' });

describe('moving a page', () => {
  it('rewrites the links the mover may write, reports the rest, redirects, and keeps identity', async () => {
    // A team area: the page and two of its linkers are readable by bob and carol only.
    await put(bob, 'eng/team/plan', 'The plan.', 'Plan');
    await acl('eng/team/plan', [], [bob.id, carol.id]);
    await put(bob, 'eng/team/plan', 'The plan, v2.', 'Plan');
    await put(bob, 'eng/team/a', 'See [plan](/pages/eng/team/plan#goals).');
    await acl('eng/team/a', [], [bob.id]);
    await put(bob, 'eng/team/b', 'Also [the plan](./plan) and [ref][p].\n\n[p]: /pages/eng/team/plan');
    await acl('eng/team/b', [], [bob.id, carol.id]);
    await put(bob, 'eng/team/c', 'Carol keeps [this](/pages/eng/team/plan).');
    await acl('eng/team/c', [bob.id], [carol.id]); // bob reads it but may not write it
    const before = await bob.get('/pages/eng/team/plan/revisions');

    const r = await bob.post('/spaces/eng/moves', { from: 'team/plan', to: 'team/roadmap' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      moved: [{ from: 'team/plan', to: 'team/roadmap' }],
      rewritten: [
        { space: 'eng', path: 'team/a' },
        { space: 'eng', path: 'team/b' },
      ],
      notRewritten: [{ space: 'eng', path: 'team/c' }],
    });
    // Two rewritten as new revisions by the mover, one left as it was.
    const a = await bob.get('/pages/eng/team/a');
    expect(a.body.content).toBe('See [plan](/pages/eng/team/roadmap#goals).');
    expect(a.body.version).toBe(2);
    expect((await bob.get('/pages/eng/team/a/revisions')).body.revisions[0].author.name).toBe('bob');
    expect(await contentOf(bob, 'eng/team/b')).toBe(
      'Also [the plan](/pages/eng/team/roadmap) and [ref][p].\n\n[p]: /pages/eng/team/roadmap',
    );
    expect(await contentOf(carol, 'eng/team/c')).toBe('Carol keeps [this](/pages/eng/team/plan).');
    // Same page: history, version, ACL.
    const moved = await bob.get('/pages/eng/team/roadmap');
    expect(moved.body).toMatchObject({ title: 'Plan', content: 'The plan, v2.', version: 2 });
    expect((await bob.get('/pages/eng/team/roadmap/revisions')).body.revisions).toEqual(before.body.revisions);
    expect(
      (await bob.get('/pages/eng/team/roadmap/acl')).body.write
        .map((e: { id?: string } | string) => (typeof e === 'string' ? e : e.id))
        .sort(),
    ).toEqual([bob.id, carol.id].sort());
    // The old address answers 308 to the new one, sub-resources and query included.
    const old = await raw(bob, '/pages/eng/team/plan/revisions?limit=1');
    expect(old.status).toBe(308);
    expect(old.headers.get('location')).toBe('/pages/eng/team/roadmap/revisions?limit=1');
    // Backlinks follow: the rewritten two and the one still pointing at the old address.
    expect(await back(bob, 'eng/team/roadmap')).toEqual(['eng/team/a', 'eng/team/b', 'eng/team/c']);
    expect(await broken(carol, 'eng')).toEqual([]);

    // dave may read none of it: no redirect, no backlinks, nothing listed.
    expect((await raw(dave, '/pages/eng/team/plan')).status).toBe(404);
    expect((await raw(dave, '/pages/eng/team/roadmap')).status).toBe(404);
    expect((await dave.get('/spaces/eng/pages?prefix=team/')).body.pages).toEqual([]);
    expect((await dave.post('/spaces/eng/moves', { from: 'team/roadmap', to: 'x' })).status).toBe(404);
  });

  it('leaves a link in a page readable by someone who may not read the moved page, and tells that reader nothing', async () => {
    await put(bob, 'eng/secret/doc', 'Hidden.');
    await acl('eng/secret/doc', [], [bob.id]);
    await put(bob, 'eng/open', 'Points at [doc](/pages/eng/secret/doc).');
    const r = await bob.post('/spaces/eng/moves', { from: 'secret/doc', to: 'secret/renamed' });
    expect(r.body.rewritten).toEqual([]);
    expect(r.body.notRewritten).toEqual([{ space: 'eng', path: 'open' }]);
    expect(await contentOf(dave, 'eng/open')).toBe('Points at [doc](/pages/eng/secret/doc).');
    expect((await dave.get('/pages/eng/open/links')).body.outbound).toEqual([{ space: 'eng', path: 'secret/doc', exists: false }]);
    expect(await broken(dave, 'eng')).toContain('open -> eng/secret/doc');
    expect((await raw(dave, '/pages/eng/secret/doc')).status).toBe(404);
    expect(await broken(bob, 'eng')).not.toContain('open -> eng/secret/doc');
    expect((await raw(bob, '/pages/eng/secret/doc')).headers.get('location')).toBe('/pages/eng/secret/renamed');
  });

  it('moves a prefix, keeps relative links among its pages, and a write at an old address ends its redirect', async () => {
    await put(bob, 'pfx/guide/intro', 'Next: [setup](./setup).');
    await put(bob, 'pfx/guide/setup', 'Back to [intro](/pages/pfx/guide/intro).');
    await put(bob, 'pfx/guide/deep/x', 'x');
    await put(bob, 'pfx/guidebook', 'not under guide/');
    await put(bob, 'pfx/home', 'Start at [intro](guide/intro) or [x](guide/deep/x).');
    const r = await bob.post('/spaces/pfx/moves', { from: 'guide', to: 'manual', prefix: true });
    expect(r.status, r.text).toBe(200);
    expect(r.body.moved).toEqual([
      { from: 'guide/deep/x', to: 'manual/deep/x' },
      { from: 'guide/intro', to: 'manual/intro' },
      { from: 'guide/setup', to: 'manual/setup' },
    ]);
    expect(r.body.rewritten).toEqual([
      { space: 'pfx', path: 'home' },
      { space: 'pfx', path: 'manual/setup' },
    ]);
    expect(await contentOf(bob, 'pfx/home')).toBe('Start at [intro](/pages/pfx/manual/intro) or [x](/pages/pfx/manual/deep/x).');
    expect(await contentOf(bob, 'pfx/manual/intro')).toBe('Next: [setup](./setup).');
    expect(await back(bob, 'pfx/manual/setup')).toEqual(['pfx/manual/intro']);
    expect((await bob.get('/pages/pfx/guidebook')).status).toBe(200);
    expect(await broken(bob, 'pfx')).toEqual([]);
    // A page written at an old address is a new page there; the redirect ends.
    await put(bob, 'pfx/guide/intro', 'A new intro.');
    expect((await raw(bob, '/pages/pfx/guide/intro')).status).toBe(200);
    expect((await bob.get('/pages/pfx/guide/intro')).body.version).toBe(1);
    expect(await contentOf(bob, 'pfx/manual/intro')).toBe('Next: [setup](./setup).');
  });

  it('moves to another space, refuses occupied targets and bad input, and emits page.moved', async () => {
    await put(bob, 'docs/a', 'a');
    await put(bob, 'docs/b', 'b');
    expect((await bob.post('/spaces/docs/moves', { from: 'a', to: 'b' })).status).toBe(409);
    const bad = await bob.post('/spaces/docs/moves', { from: 'a', to: 'x/../y' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].key).toBe('to');
    expect((await bob.post('/spaces/docs/moves', { from: 'a' })).status).toBe(400);
    expect((await bob.post('/spaces/docs/moves', { from: 'nope', to: 'z' })).status).toBe(404);
    const r = await bob.post('/spaces/docs/moves', { from: 'a', to: 'moved/a', toSpace: 'eng' });
    expect(r.status, r.text).toBe(200);
    expect(await contentOf(bob, 'eng/moved/a')).toBe('a');
    expect((await raw(bob, '/pages/docs/a')).headers.get('location')).toBe('/pages/eng/moved/a');
    const events = srv.svc.db
      .prepare("SELECT payload FROM events WHERE event = 'page.moved' ORDER BY id DESC LIMIT 1")
      .pluck()
      .get() as string;
    expect(JSON.parse(events)).toMatchObject({
      event: 'page.moved',
      page: { space: 'eng', path: 'moved/a' },
      from: { space: 'docs', path: 'a' },
    });
    // Personal spaces stay silent: no outbox row, even for an org-wide subscription.
    await put(bob, '~bob/p', 'mine');
    expect((await bob.post('/spaces/~bob/moves', { from: 'p', to: 'q' })).status).toBe(200);
    expect((await bob.get('/pages/~bob/q')).status).toBe(200);
    const personal = srv.svc.db.prepare("SELECT count(*) FROM events WHERE json_extract(payload, '$.page.space') = '~bob'").pluck().get();
    expect(personal).toBe(0);
  });
});
