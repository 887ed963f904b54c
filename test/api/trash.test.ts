import { describe, expect, it } from 'vitest';
import { diffContents } from '../../src/domain/content-diff.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob, carol } = useServer({ agents: ['bob', 'carol'], spaces: [{ slug: 'wiki' }, { slug: 'old' }], noErrors: true });

describe('the page trash', () => {
  it('lists a deleted page to those who could read it, keeps its history, and restores it with its ACL', async () => {
    await bob.put('/pages/wiki/secret', { title: 'Secret', content: 'one' });
    expect((await srv.admin.put('/pages/wiki/secret/acl', { read: [], write: [bob.id] })).status).toBe(200);
    await bob.put('/pages/wiki/secret', { content: 'two' });
    await bob.put('/pages/wiki/open', { title: 'Open', content: 'x' });
    expect((await bob.del('/pages/wiki/secret')).status).toBe(403); // shared space: org admins delete
    expect((await srv.admin.del('/pages/wiki/secret')).status).toBe(204);
    expect((await srv.admin.del('/pages/wiki/open')).status).toBe(204);

    const t = await bob.get('/spaces/wiki/trash');
    expect(t.status, t.text).toBe(200);
    expect(t.body.pages.map((p: { path: string }) => p.path)).toEqual(['open', 'secret']);
    expect(t.body.pages[1]).toMatchObject({ path: 'secret', title: 'Secret', version: 2, deletedBy: { name: 'admin' } });
    expect(typeof t.body.pages[1].deletedAt).toBe('string');
    // carol could not read it: absent from her trash, and she cannot restore it.
    expect((await carol.get('/spaces/wiki/trash')).body.pages.map((p: { path: string }) => p.path)).toEqual(['open']);
    expect((await carol.post('/spaces/wiki/trash/restore', { path: 'secret' })).status).toBe(404);
    // Paging.
    const first = await bob.get('/spaces/wiki/trash?limit=1');
    expect(first.body.pages).toHaveLength(1);
    expect((await bob.get(`/spaces/wiki/trash?limit=1&cursor=${first.body.nextCursor}`)).body.pages[0].path).toBe('secret');

    const r = await bob.post('/spaces/wiki/trash/restore', { path: 'secret' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ path: 'secret', title: 'Secret', content: 'two', version: 3 });
    expect((await carol.get('/pages/wiki/secret')).status).toBe(404); // the ACL came back
    expect((await bob.get('/pages/wiki/secret/acl')).body.write).toEqual([bob.id]);
    const revs = await bob.get('/pages/wiki/secret/revisions');
    expect(revs.body.revisions.map((x: { version: number }) => x.version)).toEqual([3, 2, 1]);
    expect((await bob.get('/pages/wiki/secret/revisions/1')).body.content).toBe('one');
    expect((await bob.get('/spaces/wiki/trash')).body.pages.map((p: { path: string }) => p.path)).toEqual(['open']);

    // Restore to another path; an occupied target is refused.
    await bob.put('/pages/wiki/taken', { title: 'T', content: '' });
    expect((await bob.post('/spaces/wiki/trash/restore', { path: 'open', to: 'taken' })).status).toBe(409);
    const moved = await bob.post('/spaces/wiki/trash/restore', { path: 'open', to: 'archive/open' });
    expect(moved.body).toMatchObject({ path: 'archive/open', version: 2, content: 'x' });
    expect((await bob.get('/pages/wiki/archive/open/revisions')).body.revisions).toHaveLength(2);
    expect((await bob.post('/spaces/wiki/trash/restore', { path: 'nothing' })).status).toBe(404);
    expect((await bob.post('/spaces/wiki/trash/restore', {})).body.issues[0].key).toBe('path');
  });

  it("keeps a page in the trash from a write by someone who may not restore it; a restorer's write brings it back whole", async () => {
    await bob.put('/pages/wiki/locked', { title: 'Locked', content: 'bob only' });
    expect((await srv.admin.put('/pages/wiki/locked/acl', { read: [], write: [bob.id] })).status).toBe(200);
    const file = await fetch(`${srv.url}/files/wiki/locked/note.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${bob.key}`, 'content-type': 'text/plain' },
      body: 'kept',
    });
    expect(file.status).toBe(201);
    expect((await srv.admin.del('/pages/wiki/locked')).status).toBe(204);
    // carol may create pages in wiki, but could not write this one: she may not restore it, so
    // she may not write over it either. Nothing of it is touched.
    const w = await carol.put('/pages/wiki/locked', { title: 'Mine', content: 'carol' });
    expect(w.status, w.text).toBe(409);
    expect(w.body.code).toBe('conflict');
    expect((await bob.get('/spaces/wiki/trash')).body.pages.map((p: { path: string }) => p.path)).toContain('locked');
    expect(srv.svc.db.prepare("SELECT count(*) FROM attachments WHERE name = 'note.txt'").pluck().get()).toBe(1);
    // bob may restore it: his write brings the page back as a restore would, ACL and files with it.
    const mine = await bob.put('/pages/wiki/locked', { title: 'Locked', content: 'bob again' });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body.version).toBe(2);
    expect((await carol.get('/pages/wiki/locked')).status).toBe(404);
    expect((await bob.get('/pages/wiki/locked/acl')).body.write).toEqual([bob.id]);
    expect((await bob.get('/pages/wiki/locked/files')).body.files.map((f: { name: string }) => f.name)).toEqual(['note.txt']);
    expect((await bob.get('/spaces/wiki/trash')).body.pages.map((p: { path: string }) => p.path)).not.toContain('locked');
  });

  it('puts a space in the org trash and brings it back, nothing lost', async () => {
    await bob.put('/pages/old/p', { title: 'P', content: 'kept' });
    expect((await bob.del('/spaces/old')).status).toBe(403);
    expect((await srv.admin.del('/spaces/~admin')).status).toBe(403);
    expect((await srv.admin.del('/spaces/old')).status).toBe(204);
    expect((await bob.get('/pages/old/p')).status).toBe(404);
    expect((await bob.get('/spaces/old')).status).toBe(404);
    expect((await bob.get('/spaces')).body.spaces.map((s: { slug: string }) => s.slug)).not.toContain('old');
    expect((await bob.post('/spaces', { slug: 'old', name: 'again' })).status).toBe(409);
    expect((await bob.get('/admin/trash/spaces')).status).toBe(403);
    const list = await srv.admin.get('/admin/trash/spaces');
    expect(list.body.spaces).toMatchObject([{ slug: 'old', deletedBy: { name: 'admin' } }]);
    expect((await bob.post('/admin/trash/spaces/old/restore')).status).toBe(403);
    expect((await srv.admin.post('/admin/trash/spaces/old/restore')).body.slug).toBe('old');
    expect((await bob.get('/pages/old/p')).body.content).toBe('kept');
    expect((await srv.admin.get('/admin/trash/spaces')).body.spaces).toEqual([]);
    expect((await srv.admin.post('/admin/trash/spaces/old/restore')).status).toBe(404);
  });
});

describe('a PUT without a title', () => {
  it('keeps the current title of an existing page and is refused when it would create one', async () => {
    await bob.put('/pages/wiki/titled', { title: 'Kept', content: '1' });
    const r = await bob.put('/pages/wiki/titled', { content: '2' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ title: 'Kept', content: '2', version: 2 });
    const c = await bob.put('/pages/wiki/untitled', { content: '1' });
    expect(c.status).toBe(400);
    expect(c.body.issues[0]).toMatchObject({ key: 'title', code: 'required' });
  });
});

describe('revision diff and restore', () => {
  it('diffs two revisions and restores an old one as a new revision', async () => {
    await bob.put('/pages/wiki/d', { title: 'D1', content: 'a\nb\nc\n', frontmatter: { x: 1 }, metadata: { stage: 'todo', n: 1 } });
    await bob.put('/pages/wiki/d', {
      title: 'D2',
      content: 'a\nB\nc\n',
      frontmatter: { x: 2 },
      metadata: { stage: 'todo', n: 2, extra: true },
    });
    const d = await bob.get('/pages/wiki/d/revisions/1/diff/2');
    expect(d.status, d.text).toBe(200);
    expect(d.body).toMatchObject({
      from: 1,
      to: 2,
      title: { from: 'D1', to: 'D2' },
      frontmatterChanged: ['x'],
      metadataChanged: ['extra', 'n'],
    });
    expect(d.body.contentDiff).toContain('-b\n+B\n');
    expect(d.body.contentDiff).toContain('@@');
    const same = await bob.get('/pages/wiki/d/revisions/2/diff/2');
    expect(same.body.title).toBeUndefined();
    expect((await bob.get('/pages/wiki/d/revisions/1/diff/9')).status).toBe(404);
    expect((await carol.get('/pages/wiki/d/revisions/1/diff/2')).status).toBe(200);

    const r = await bob.post('/pages/wiki/d/revisions/1/restore');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      title: 'D1',
      content: 'a\nb\nc\n',
      version: 3,
      frontmatter: { x: 1 },
      metadata: { stage: 'todo', n: 1 },
    });
    expect((await bob.post('/pages/wiki/d/revisions/7/restore')).status).toBe(404);
    expect((await bob.get('/pages/wiki/d/revisions/1/restore')).status).toBe(405);
    // A revision the caller may not read cannot be diffed or restored.
    expect((await srv.admin.put('/pages/wiki/d/acl', { read: [], write: [bob.id] })).status).toBe(200);
    expect((await carol.get('/pages/wiki/d/revisions/1/diff/2')).status).toBe(404);
    expect((await carol.post('/pages/wiki/d/revisions/1/restore')).status).toBe(404);
  });

  it('diffs revisions of a large page on the worker, from the stored deltas, exactly as written on the event loop', async () => {
    // 24 KB of text beyond ASCII: the worker gets the page row's bytes and the deltas, decodes them
    // (a delta walk past a whole state: FULL_EVERY is 8) and writes the answer's bytes.
    const base = Array.from({ length: 600 }, (_, i) => `line ${i} é 𝄞 ${'x'.repeat(i % 40)}`);
    const contents: string[] = [];
    for (let v = 1; v <= 11; v++) {
      const lines = base.slice();
      for (let k = 1; k < v; k++) lines[k * 50] = `changed in ${k + 1} ü`;
      contents.push(lines.join('\n'));
      const w = await bob.put('/pages/wiki/big', { title: v < 6 ? 'Big' : 'Bigger', content: contents[v - 1], metadata: { v } });
      expect(w.status, w.text).toBe(v === 1 ? 201 : 200);
    }
    for (const [a, b] of [
      [1, 11],
      [3, 9],
      [10, 11],
      [11, 2],
    ]) {
      // Past the worker's deadline (its first start, or a loaded machine, where it runs at a
      // lower priority) the answer is the empty truncated diff: asked again then.
      const end = Date.now() + 30_000;
      let r = await bob.get(`/pages/wiki/big/revisions/${a}/diff/${b}`);
      while (r.body.truncated && r.body.contentDiff === '' && Date.now() < end) {
        await new Promise((res) => setTimeout(res, 100));
        r = await bob.get(`/pages/wiki/big/revisions/${a}/diff/${b}`);
      }
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const d = diffContents(`big@${a}`, `big@${b}`, contents[a - 1], contents[b - 1]);
      const titles = [a < 6 ? 'Big' : 'Bigger', b < 6 ? 'Big' : 'Bigger'];
      const want = {
        from: a,
        to: b,
        ...(titles[0] !== titles[1] ? { title: { from: titles[0], to: titles[1] } } : {}),
        truncated: false,
        frontmatterChanged: [],
        metadataChanged: ['v'],
        contentDiff: d.contentDiff,
      };
      expect(d.truncated).toBe(false);
      expect(r.text).toBe(JSON.stringify(want));
    }
  });
});
