import { describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const { srv, alice, bob } = useServer({ agents: ['alice', 'bob'] });

const paths = async (c: Client, slug: string) => ((await c.get(`/spaces/${slug}/pages`)).body.pages ?? []).map((p: any) => p.path);

describe('spaces', () => {
  it('creates, reads and patches spaces; validates the slug', async () => {
    const r = await alice.post('/spaces', { slug: 'team', name: 'Team', description: 'ours' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ slug: 'team', name: 'Team', description: 'ours', defaultAccess: 'write', personal: false });
    expect((await alice.post('/spaces', { slug: 'team', name: 'Again' })).status).toBe(409);
    for (const slug of ['Team', '-x', 'a_b', '~x', 'a'.repeat(64)]) {
      const bad = await alice.post('/spaces', { slug, name: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.body.issues[0].key).toBe('slug');
    }
    expect((await bob.patch('/spaces/team', { name: 'Mine' })).status).toBe(403);
    expect((await alice.patch('/spaces/team', { name: 'Team 2' })).body.name).toBe('Team 2');
    expect((await bob.get('/spaces/team')).body.name).toBe('Team 2');
  });

  it('makes a personal space with its principal, and at start for principals that have none, so that no read writes it', async () => {
    const spaceOf = (name: string) => srv.svc.db.prepare('SELECT owner_id FROM spaces WHERE slug = ?').pluck().get(`~${name}`);
    const made = await srv.admin.post('/admin/principals', { name: 'cleo', kind: 'agent' });
    expect(made.status).toBe(201);
    expect(spaceOf('cleo')).toBe(made.body.id); // before cleo sent any request
    // A principal of an older kspace (inserted as it did, without the space): made at the next start.
    const old = await startServer({}, { keepData: true });
    const oldId = 'p_olderkspace0001';
    old.svc.db
      .prepare(
        "INSERT INTO principals (id, org_id, name, kind, org_admin, password_hash, created_at) VALUES (?, 1, 'dora', 'agent', 0, NULL, '2026-01-01T00:00:00.000Z')",
      )
      .run(oldId);
    expect(old.svc.db.prepare("SELECT count(*) FROM spaces WHERE slug = '~dora'").pluck().get()).toBe(0);
    await old.close();
    const again = await startServer({}, { dataDir: old.dataDir });
    try {
      expect(again.svc.db.prepare("SELECT owner_id FROM spaces WHERE slug = '~dora'").pluck().get()).toBe(oldId);
    } finally {
      await again.close();
    }
  });

  it('gives everyone a personal space that only its owner sees, admins included', async () => {
    const mine = await alice.get('/spaces/~alice');
    expect(mine.status).toBe(200);
    expect(mine.body.personal).toBe(true);
    expect((await alice.put('/pages/~alice/diary', { title: 'Dear diary' })).status).toBe(201);
    expect((await bob.get('/spaces/~alice')).status).toBe(404);
    expect((await srv.admin.get('/spaces/~alice')).status).toBe(404);
    expect((await srv.admin.get('/pages/~alice/diary')).status).toBe(404);
    expect((await srv.admin.put('/pages/~alice/diary', { title: 'x' })).status).toBe(404);
    expect((await srv.admin.del('/pages/~alice/diary')).status).toBe(404);
    const slugs = (await srv.admin.get('/spaces')).body.spaces.map((s: any) => s.slug);
    expect(slugs).not.toContain('~alice');
    expect((await alice.get('/spaces')).body.spaces.map((s: any) => s.slug)).toContain('~alice');
    expect((await alice.del('/pages/~alice/diary')).status).toBe(204);
  });

  it('a personal space made by a write that failed is not remembered (space rows are cached)', async () => {
    const carol = await newAgent(srv, 'carol');
    // The space is created inside the write's transaction, read back, then rolled back with it.
    expect((await carol.put('/pages/~carol/a', { title: 'A', baseVersion: 3 })).status).toBe(409);
    expect((await carol.put('/pages/~carol/b', { title: 'B' })).status).toBe(201);
    expect((await carol.get('/pages/~carol/b')).status).toBe(200);
  });

  it('a space patch is seen by the next request (space rows are cached)', async () => {
    await srv.admin.post('/spaces', { slug: 'flip', name: 'Flip' });
    await srv.admin.put('/pages/flip/p', { title: 'P' });
    expect((await bob.get('/pages/flip/p')).status).toBe(200);
    expect((await srv.admin.patch('/spaces/flip', { defaultAccess: 'none' })).status).toBe(200);
    expect((await bob.get('/pages/flip/p')).status).toBe(404);
    expect((await srv.admin.patch('/spaces/flip', { defaultAccess: 'read', name: 'Flipped' })).status).toBe(200);
    expect((await bob.get('/pages/flip/p')).status).toBe(200);
    expect((await bob.put('/pages/flip/p', { title: 'x' })).status).toBe(403);
    expect((await bob.get('/spaces/flip')).body.name).toBe('Flipped');
  });

  it('applies defaultAccess read and none', async () => {
    await srv.admin.post('/spaces', { slug: 'handbook', name: 'Handbook', defaultAccess: 'read' });
    await srv.admin.put('/pages/handbook/rules', { title: 'Rules' });
    expect((await bob.get('/pages/handbook/rules')).status).toBe(200);
    expect((await bob.put('/pages/handbook/rules', { title: 'Mine now' })).status).toBe(403);
    expect((await bob.put('/pages/handbook/new', { title: 'New' })).status).toBe(403);
    await srv.admin.post('/spaces', { slug: 'secret', name: 'Secret', defaultAccess: 'none' });
    await srv.admin.put('/pages/secret/plan', { title: 'Plan' });
    expect((await bob.get('/spaces/secret')).status).toBe(404);
    expect((await bob.get('/pages/secret/plan')).status).toBe(404);
    expect((await bob.get('/spaces')).body.spaces.map((s: any) => s.slug)).not.toContain('secret');
    // A grant on one page makes the space (and only that page) visible.
    await srv.admin.put('/pages/secret/plan/acl', { read: [bob.id] });
    expect((await bob.get('/spaces/secret')).status).toBe(200);
    await srv.admin.put('/pages/secret/other', { title: 'Other' });
    expect(await paths(bob, 'secret')).toEqual(['plan']);
  });
});

describe('page ACLs', () => {
  it('hides an ACL’d page from everyone not listed, everywhere, and 403s read-only writers', async () => {
    await srv.admin.post('/spaces', { slug: 'acl', name: 'ACL' });
    await alice.put('/pages/acl/open', { title: 'Open' });
    await alice.put('/pages/acl/closed', { title: 'Closed' });
    expect((await alice.put('/pages/acl/closed/acl', { read: [], write: [alice.id] })).body).toEqual({
      restricted: true,
      read: [alice.id],
      write: [alice.id],
    });
    expect((await bob.get('/pages/acl/closed')).status).toBe(404);
    expect((await bob.get('/pages/acl/closed/revisions')).status).toBe(404);
    expect((await bob.get('/pages/acl/closed/revisions/1')).status).toBe(404);
    expect((await bob.get('/pages/acl/closed/acl')).status).toBe(404);
    expect((await bob.put('/pages/acl/closed', { title: 'x' })).status).toBe(404);
    expect((await bob.patch('/pages/acl/closed/metadata', { set: { a: 1 } })).status).toBe(404);
    expect(await paths(bob, 'acl')).toEqual(['open']);
    expect(await paths(alice, 'acl')).toEqual(['closed', 'open']);
    expect(await paths(srv.admin, 'acl')).toEqual(['closed', 'open']); // org admins see shared ACL'd pages
    // read-only grant
    await alice.put('/pages/acl/closed/acl', { read: [bob.id], write: [alice.id] });
    expect((await bob.get('/pages/acl/closed')).status).toBe(200);
    expect((await bob.put('/pages/acl/closed', { title: 'x' })).status).toBe(403);
    expect((await bob.patch('/pages/acl/closed/metadata', { set: { a: 1 } })).status).toBe(403);
    expect((await bob.put('/pages/acl/closed/acl', { read: [bob.id], write: [bob.id] })).status).toBe(403);
    // back to the space default
    expect((await alice.del('/pages/acl/closed/acl')).body.restricted).toBe(false);
    expect((await bob.put('/pages/acl/closed', { title: 'Now bob can' })).status).toBe(200);
  });

  it('validates ACL bodies and principal ids', async () => {
    await alice.put('/pages/acl/v', { title: 'V' });
    const r = await alice.put('/pages/acl/v/acl', { read: ['p_nobody'] });
    expect(r.status).toBe(400);
    expect(r.body.issues[0]).toMatchObject({ key: 'read[0]' });
    expect((await alice.put('/pages/acl/v/acl', { read: 'x' })).status).toBe(400);
  });

  it('lets only org admins delete in shared spaces', async () => {
    await alice.put('/pages/acl/del', { title: 'D' });
    expect((await alice.del('/pages/acl/del')).status).toBe(403);
    expect((await srv.admin.del('/pages/acl/del')).status).toBe(204);
  });
});
