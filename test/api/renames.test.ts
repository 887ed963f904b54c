import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob, carol } = useServer({
  agents: ['bob', 'carol'],
  spaces: [{ slug: 'eng' }],
  outbox: { events: ['page.updated'] },
  noErrors: true,
});

const put = async (c: Client, at: string, content: string, title = at) => {
  const r = await c.put(`/pages/${at}`, { title, content });
  expect([200, 201], r.text).toContain(r.status);
  return r.body;
};
const updatedEvents = (path: string) =>
  srv.svc.db
    .prepare("SELECT count(*) FROM events WHERE event = 'page.updated' AND json_extract(payload, '$.page.path') = ?")
    .pluck()
    .get(path) as number;

describe('renaming a page (PUT with a new title)', () => {
  it('rewrites the wikilinks that meant it by its old title, lists the pages it may not change, and leaves the rest', async () => {
    await put(bob, 'eng/notes/plan', 'The plan.', 'Quarterly Plan');
    await put(
      bob,
      'eng/a',
      'See [[Quarterly Plan]], [[quarterly plan#Goals|the goals]] and [[notes/plan]].\n\n```\n[[Quarterly Plan]]\n```',
    );
    await put(bob, 'eng/b', 'Carol keeps [[Quarterly Plan|this]].');
    await srv.admin.put('/pages/eng/b/acl', { read: [bob.id], write: [carol.id] }); // bob reads it, may not write it
    await put(bob, 'eng/c', 'Another [[Quarterly Plan]] nobody but carol sees.');
    await srv.admin.put('/pages/eng/c/acl', { read: [], write: [carol.id] });
    await put(bob, 'eng/d', 'Unrelated [[Other Plan]].');
    const before = { a: updatedEvents('a'), b: updatedEvents('b'), d: updatedEvents('d') };

    const r = await bob.put('/pages/eng/notes/plan', { title: 'Roadmap 2027', content: 'The plan.' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.title).toBe('Roadmap 2027');
    expect(r.body.rewritten).toEqual([{ space: 'eng', path: 'a' }]);
    expect(r.body.notRewritten).toEqual([{ space: 'eng', path: 'b' }]); // c is unreadable to bob: not mentioned

    const a = await bob.get('/pages/eng/a');
    expect(a.body.content).toBe(
      'See [[Roadmap 2027]], [[Roadmap 2027#Goals|the goals]] and [[notes/plan]].\n\n```\n[[Quarterly Plan]]\n```',
    );
    expect(a.body.version).toBe(2);
    const links = await bob.get('/pages/eng/notes/plan/links');
    expect(links.body.backlinks.map((l: { path: string }) => l.path)).toContain('a');
    expect((await bob.get('/pages/eng/b')).body.content).toBe('Carol keeps [[Quarterly Plan|this]].');
    // Left as it was, its link no longer finds the page by title: a broken link, as before renames rewrote.
    expect((await bob.get('/pages/eng/b/links')).body.outbound).toEqual([{ space: 'eng', path: 'Quarterly Plan', exists: false }]);
    expect((await carol.get('/pages/eng/c')).body.content).toBe('Another [[Quarterly Plan]] nobody but carol sees.');
    expect((await bob.get('/pages/eng/d')).body.version).toBe(1);
    // One page.updated for the page rewritten, none for those left.
    expect(updatedEvents('a')).toBe(before.a + 1);
    expect(updatedEvents('b')).toBe(before.b);
    expect(updatedEvents('d')).toBe(before.d);
  });

  it('spells the link by path when another page holds the new title, and keeps the answer plain without a rename', async () => {
    // The other page titled Design is in the linking page's folder: `[[Design]]` would mean it.
    await put(bob, 'eng/z/spec', 'Spec.', 'Spec');
    await put(bob, 'eng/x/design', 'Design.', 'Design');
    await put(bob, 'eng/x/use', 'Read [[Spec]].');
    const r = await bob.put('/pages/eng/z/spec', { title: 'Design', content: 'Spec.' });
    expect(r.body.rewritten).toEqual([{ space: 'eng', path: 'x/use' }]);
    expect((await bob.get('/pages/eng/x/use')).body.content).toBe('Read [[z/spec|Design]].');
    const links = await bob.get('/pages/eng/x/use/links');
    expect(links.body.outbound).toEqual([{ space: 'eng', path: 'z/spec', exists: true }]);

    const same = await bob.put('/pages/eng/z/spec', { title: 'Design', content: 'Spec, v2.' });
    expect(same.status).toBe(200);
    expect(same.body).not.toHaveProperty('rewritten');
    expect(same.body).not.toHaveProperty('notRewritten');
  });
});
