import { describe, expect, it } from 'vitest';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const { srv, bob } = useServer({ agents: ['bob'], spaces: [{ slug: 'wiki' }, { slug: 'other' }, { slug: 'rb' }], noErrors: true });

const links = async (c: Client, page: string) => {
  const r = await c.get(`/pages/${page}/links`);
  expect(r.status, r.text).toBe(200);
  return r.body as {
    outbound: Array<{ space: string; path: string; exists: boolean }>;
    backlinks: Array<{ space: string; path: string; title: string }>;
  };
};
const out = async (c: Client, page: string) =>
  (await links(c, page)).outbound.map((l) => `${l.space}/${l.path}${l.exists ? '' : ' (absent)'}`);
const back = async (c: Client, page: string) => (await links(c, page)).backlinks.map((l) => `${l.space}/${l.path}`);
const broken = async (c: Client, slug: string) => {
  const r = await c.get(`/spaces/${slug}/links/broken`);
  expect(r.status, r.text).toBe(200);
  return (r.body as Array<{ source: { space: string; path: string }; target: { space: string; path: string } }>).map(
    (b) => `${b.source.space}/${b.source.path} -> ${b.target.space}/${b.target.path}`,
  );
};

describe('the link index', () => {
  it('extracts every internal form on write, in order of appearance, and nothing from code or external URLs', async () => {
    const content = [
      '# Start',
      'See [home](/pages/wiki/home) and [x](BASE/pages/other/x "title").',
      'Nearby: [sibling](./sibling), [up](../top), [deeper](deep/page), [again](/pages/wiki/home#section),',
      '[query](./sibling?x=1), [notes](./notes.md), [ext](https://example.com/pages/wiki/nope), ![img](/pages/wiki/img).',
      'Inline code `[c](/pages/wiki/code-span)` is not a link, and neither is a block:',
      '```',
      '[c](/pages/wiki/code-block)',
      '```',
      'A [reference][ref] link.',
      '',
      '[ref]: /pages/wiki/refd',
    ]
      .join('\n')
      .replace('BASE', srv.url);
    expect((await srv.admin.put('/pages/wiki/guide/start', { title: 'Start', content })).status).toBe(201);
    expect(await out(srv.admin, 'wiki/guide/start')).toEqual([
      'wiki/home (absent)',
      'other/x (absent)',
      'wiki/guide/sibling (absent)',
      'wiki/top (absent)',
      'wiki/guide/deep/page (absent)',
      'wiki/guide/notes (absent)',
      'wiki/refd (absent)',
    ]);
  });

  it('resolves a link when its target is created and breaks it again when the target is deleted', async () => {
    await srv.admin.put('/pages/wiki/a', { title: 'A', content: '[b](./b) [c](/pages/wiki/c)' });
    expect(await out(srv.admin, 'wiki/a')).toEqual(['wiki/b (absent)', 'wiki/c (absent)']);
    expect(await broken(srv.admin, 'wiki')).toEqual(expect.arrayContaining(['wiki/a -> wiki/b', 'wiki/a -> wiki/c']));
    await srv.admin.put('/pages/wiki/b', { title: 'Bee', content: 'back to [a](a)' });
    expect(await out(srv.admin, 'wiki/a')).toEqual(['wiki/b', 'wiki/c (absent)']);
    expect(await broken(srv.admin, 'wiki')).not.toContain('wiki/a -> wiki/b');
    expect((await links(srv.admin, 'wiki/a')).backlinks).toEqual([{ space: 'wiki', path: 'b', title: 'Bee' }]);
    expect(await back(srv.admin, 'wiki/b')).toEqual(['wiki/a']);
    await srv.admin.del('/pages/wiki/b');
    expect(await out(srv.admin, 'wiki/a')).toEqual(['wiki/b (absent)', 'wiki/c (absent)']);
    expect(await broken(srv.admin, 'wiki')).toContain('wiki/a -> wiki/b');
    // The deleted page's own links are gone with it.
    expect(await back(srv.admin, 'wiki/a')).toEqual([]);
    expect(await broken(srv.admin, 'wiki')).not.toContain('wiki/b -> wiki/a');
    await srv.admin.put('/pages/wiki/b', { title: 'Bee again', content: 'no links' });
    expect(await out(srv.admin, 'wiki/a')).toEqual(['wiki/b', 'wiki/c (absent)']);
  });

  it('re-extracts on every content change, and keeps links through metadata patches and title changes', async () => {
    await srv.admin.put('/pages/wiki/m', { title: 'M', content: '[one](one)' });
    await srv.admin.patch('/pages/wiki/m/metadata', { set: { k: 1 } });
    await srv.admin.put('/pages/wiki/m', { title: 'M2', content: '[one](one)' });
    expect(await out(srv.admin, 'wiki/m')).toEqual(['wiki/one (absent)']);
    await srv.admin.put('/pages/wiki/m', { title: 'M2', content: '[two](two) [one](one)' });
    expect(await out(srv.admin, 'wiki/m')).toEqual(['wiki/two (absent)', 'wiki/one (absent)']);
    await srv.admin.put('/pages/wiki/m', { title: 'M2', content: 'none' });
    expect(await out(srv.admin, 'wiki/m')).toEqual([]);
  });

  it('links across spaces and to spaces that do not exist', async () => {
    await srv.admin.put('/pages/other/y', { title: 'Y', content: '[w](/pages/wiki/a) [ghost](/pages/ghost/page)' });
    expect(await out(srv.admin, 'other/y')).toEqual(['wiki/a', 'ghost/page (absent)']);
    expect(await back(srv.admin, 'wiki/a')).toContain('other/y');
    expect(await broken(srv.admin, 'other')).toEqual(['other/y -> ghost/page']);
  });

  it('404s for an absent page or space, 405 for a PUT to links', async () => {
    expect((await srv.admin.get('/pages/wiki/nope/links')).status).toBe(404);
    expect((await srv.admin.get('/spaces/nope/links/broken')).status).toBe(404);
    const put = await srv.admin.put('/pages/wiki/a/links', {});
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('access', () => {
  it('hides unreadable sources from backlinks and broken links, and reports unreadable targets as absent', async () => {
    await srv.admin.post('/spaces', { slug: 'sec', name: 'Sec' });
    await srv.admin.put('/pages/sec/public', { title: 'Public', content: '[s](secret) [h](/pages/sec/hub)' });
    await srv.admin.put('/pages/sec/secret', { title: 'Secret', content: '[h](hub) [gone](missing-from-secret)' });
    await srv.admin.put('/pages/sec/hub', { title: 'Hub' });
    await srv.admin.put('/pages/sec/secret/acl', { read: [], write: [] });

    expect(await back(srv.admin, 'sec/hub')).toEqual(['sec/public', 'sec/secret']);
    expect(await back(bob, 'sec/hub')).toEqual(['sec/public']);
    expect(await out(srv.admin, 'sec/public')).toEqual(['sec/secret', 'sec/hub']);
    expect(await out(bob, 'sec/public')).toEqual(['sec/secret (absent)', 'sec/hub']);
    expect(await broken(srv.admin, 'sec')).toEqual(['sec/secret -> sec/missing-from-secret']);
    expect(await broken(bob, 'sec')).toEqual(['sec/public -> sec/secret']);
    expect((await bob.get('/pages/sec/secret/links')).status).toBe(404);
    await bob.put('/pages/~bob/notes', { title: 'Notes', content: '[hub](/pages/sec/hub)' });
    expect(await back(bob, 'sec/hub')).toEqual(['sec/public', '~bob/notes']);
    expect(await back(srv.admin, 'sec/hub')).toEqual(['sec/public', 'sec/secret']);
    expect((await srv.admin.get('/spaces/~bob/links/broken')).status).toBe(404);
  });
});

describe('POST /links/rebuild', () => {
  it('is for org admins only', async () => {
    expect((await bob.post('/links/rebuild')).status).toBe(403);
  });

  it('rebuilds links, full text and key stats from the pages', async () => {
    await srv.admin.put('/pages/rb/one', { title: 'One', content: 'pangolin [two](two)', metadata: { colour: 'red' } });
    await srv.admin.put('/pages/rb/two', { title: 'Two', content: '[one](one) [three](three)' });
    await srv.admin.put('/pages/rb/gone', { title: 'Gone', content: '[one](one) pangolin' });
    await srv.admin.del('/pages/rb/gone');
    const db = srv.svc.db;
    const before = {
      links: db.prepare('SELECT count(*) AS n FROM links').get(),
      keys: (await srv.admin.get('/search/metadata/keys')).body,
    };
    expect((await srv.admin.get('/search?q=pangolin')).body.hits.map((h: any) => h.path)).toEqual(['one']); // indexed
    // Lose the derived state, as after a crash of an older version or a manual repair.
    db.exec('DELETE FROM links; DELETE FROM meta_key_stats;');
    srv.svc.fts.conn().exec('DELETE FROM fts.page_fts');
    expect(await back(srv.admin, 'rb/one')).toEqual([]);
    expect((await srv.admin.get('/search?q=pangolin')).body.hits).toEqual([]);

    const r = await srv.admin.post('/links/rebuild');
    expect(r.status).toBe(200);
    const live = db.prepare('SELECT count(*) AS n FROM pages WHERE deleted_at IS NULL').get() as { n: number };
    expect(r.body).toEqual({ pages: live.n, links: (before.links as { n: number }).n });
    expect(await back(srv.admin, 'rb/one')).toEqual(['rb/two']);
    expect(await out(srv.admin, 'rb/two')).toEqual(['rb/one', 'rb/three (absent)']);
    expect((await srv.admin.get('/search?q=pangolin')).body.hits.map((h: any) => h.path)).toEqual(['one']);
    expect((await srv.admin.get('/search/metadata/keys')).body).toEqual(before.keys);
    srv.svc.fts.conn().exec("INSERT INTO fts.page_fts(page_fts) VALUES('integrity-check')");
    // Rebuilding again changes nothing.
    expect((await srv.admin.post('/links/rebuild')).body).toEqual(r.body);
  });
});
