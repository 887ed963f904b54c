import { describe, expect, it } from 'vitest';
import { indexes } from '../../src/domain/indexes/list.ts';
import type { DerivedIndex } from '../../src/domain/indexes/types.ts';
import { backlinksOf } from '../support/links.ts';
import { useServer } from '../support/fixture.ts';

// The list of derived indexes (src/domain/indexes/list.ts, docs/architecture.md "Derived
// indexes"): every page write reaches each index through its hooks, and
// POST /admin/indexes/rebuild (and its older address POST /links/rebuild) rebuilds them.

const { srv, bob } = useServer({ agents: ['bob'], spaces: [{ slug: 'ix' }, { slug: 'iy' }], noErrors: true });

const ALL = ['key-stats', 'metadata', 'full-text', 'title-words', 'links'];
const livePages = () => (srv.svc.db.prepare('SELECT count(*) AS n FROM pages WHERE deleted_at IS NULL').get() as { n: number }).n;
const count = (table: string) => (srv.svc.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const titleHits = async (q: string) => (await srv.admin.get(`/search/titles?q=${q}`)).body.hits.map((h: { path: string }) => h.path);

describe('POST /admin/indexes/rebuild', () => {
  it('is for org admins only, at both addresses', async () => {
    for (const p of ['/admin/indexes/rebuild', '/admin/indexes/rebuild?index=links', '/links/rebuild']) {
      const r = await bob.post(p);
      expect(r.status, p).toBe(403);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('answers 400 naming `index` for an index it does not keep, and rebuilds nothing', async () => {
    const r = await srv.admin.post('/admin/indexes/rebuild?index=nonesuch');
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.issues).toEqual([expect.objectContaining({ key: 'index', code: 'option' })]);
    expect(r.body.issues[0].message).toContain('links');
  });

  it('rebuilds every index from the pages and answers which, and how many pages', async () => {
    await srv.admin.put('/pages/ix/aardvark', { title: 'Aardvark burrows', content: 'see [b](b)', metadata: { colour: 'red' } });
    await srv.admin.put('/pages/ix/b', { title: 'B', content: 'plain' });
    const keys = (await srv.admin.get('/search/metadata/keys')).body;
    const db = srv.svc.db;
    db.exec('DELETE FROM links; DELETE FROM title_words; DELETE FROM page_meta; DELETE FROM meta_key_stats;');
    expect(await backlinksOf(srv.admin, 'ix/b')).toEqual([]);
    expect(await titleHits('aardvark')).toEqual([]);

    const r = await srv.admin.post('/admin/indexes/rebuild');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ indexes: ALL, pages: livePages() });
    expect(await backlinksOf(srv.admin, 'ix/b')).toEqual(['ix/aardvark']);
    expect(await titleHits('aardvark')).toEqual(['aardvark']);
    expect((await srv.admin.get('/search/metadata/keys')).body).toEqual(keys);
    const red = await srv.admin.get(
      '/search/metadata?space=ix&filters=' + encodeURIComponent(JSON.stringify([{ key: 'colour', op: 'eq', value: 'red' }])),
    );
    expect(red.status, red.text).toBe(200);
    expect(red.body.pages.map((p: { path: string }) => p.path)).toEqual(['aardvark']);
  });

  it('with ?index= rebuilds that index (and those derived from it) and leaves the others', async () => {
    await srv.admin.put('/pages/ix/c', { title: 'Capybara', content: '[b](b)', metadata: { size: 3 } });
    const db = srv.svc.db;
    db.exec('DELETE FROM links; DELETE FROM title_words;');
    const r = await srv.admin.post('/admin/indexes/rebuild?index=links');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ indexes: ['links'], pages: livePages() });
    expect(await backlinksOf(srv.admin, 'ix/b')).toEqual(['ix/aardvark', 'ix/c']);
    expect(count('title_words')).toBe(0); // not rebuilt

    db.exec('DELETE FROM meta_key_stats; DELETE FROM page_meta;');
    const m = await srv.admin.post('/admin/indexes/rebuild?index=metadata');
    expect(m.body).toEqual({ indexes: ['key-stats', 'metadata'], pages: livePages() });
    expect((await srv.admin.get('/search/metadata/keys?space=ix')).body.map((k: { key: string }) => k.key)).toEqual(['colour', 'size']);

    // An index rebuilt in one go, not page by page, reads no page.
    expect((await srv.admin.post('/admin/indexes/rebuild?index=full-text')).body).toEqual({ indexes: ['full-text'], pages: 0 });
    expect(count('title_words')).toBe(0);
  });

  it('keeps POST /links/rebuild, rebuilding every index, answered {pages, links}', async () => {
    srv.svc.db.exec('DELETE FROM title_words;');
    const r = await srv.admin.post('/links/rebuild');
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ pages: livePages(), links: count('links') });
    expect(await titleHits('capybara')).toEqual(['c']);
  });
});

describe('an index on the list', () => {
  it('receives every hook of the page write path, and its rebuild', async () => {
    const seen: string[] = [];
    const probe: DerivedIndex = {
      name: 'probe',
      holds: 'what the test saw',
      written: (_b, page, before) =>
        seen.push(`written ${page.spaceSlug}/${page.path} ${page.title}${before ? ` after ${before.title}` : ' new'}`),
      removed: (_b, page) => seen.push(`removed ${page.spaceSlug}/${page.path}`),
      moved: (_b, page) => seen.push(`moved ${page.from.space}/${page.from.path} -> ${page.to.space}/${page.to.path}`),
      accessChanged: (_b, page) => seen.push(`access ${page.spaceSlug}/${page.path}${page.live ? '' : ' (in the trash)'}`),
      rebuildPage: (_b, page) => {
        if (page.space === 'iy') seen.push(`rebuild ${page.space}/${page.path}`);
      },
    };
    indexes.push(probe);
    try {
      expect((await srv.admin.put('/pages/iy/p', { title: 'P', content: 'x' })).status).toBe(201);
      expect((await srv.admin.put('/pages/iy/p', { title: 'P2', content: 'x' })).status).toBe(200);
      expect((await srv.admin.patch('/pages/iy/p/metadata', { set: { k: 1 } })).status).toBe(200);
      expect((await srv.admin.post('/spaces/iy/moves', { from: 'p', to: 'q' })).status).toBe(200);
      expect((await srv.admin.put('/pages/iy/q/acl', { read: [bob.id], write: [] })).status).toBe(200);
      expect((await srv.admin.del('/pages/iy/q')).status).toBe(204);
      expect((await srv.admin.post('/spaces/iy/trash/restore', { path: 'q' })).status).toBe(200);
      expect((await srv.admin.post('/admin/indexes/rebuild?index=probe')).body).toEqual({ indexes: ['probe'], pages: livePages() });
      expect(seen).toEqual([
        'written iy/p P new',
        'written iy/p P2 after P',
        'written iy/p P2 after P2',
        'moved iy/p -> iy/q',
        'access iy/q',
        'removed iy/q',
        'access iy/q (in the trash)',
        'written iy/q P2 new',
        'rebuild iy/q',
      ]);
    } finally {
      indexes.splice(indexes.indexOf(probe), 1);
    }
  });
});
