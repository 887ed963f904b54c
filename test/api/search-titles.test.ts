import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problem.ts';
import { hitPaths, searchTitles, useSearchServer } from '../support/search.ts';

const { srv, bob } = useSearchServer();
const titles = searchTitles;
const paths = hitPaths;

describe('GET /search/titles', () => {
  it('matches word prefixes of titles, aliases and paths, folded for case and accents', async () => {
    const put = (path: string, body: object) => srv.admin.put(`/pages/kb/${path}`, body);
    expect((await put('guides/onboarding', { title: 'Onboarding checklist', content: 'x' })).status).toBe(201);
    expect((await put('cafe', { title: 'Café crème', content: 'x' })).status).toBe(201);
    expect((await put('misc/zeta-notes', { title: 'Unrelated', content: 'body', frontmatter: { aliases: ['Kaffee Liste'] } })).status).toBe(
      201,
    );
    const r = await titles(bob, 'onboard');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hits: [{ space: 'kb', path: 'guides/onboarding', title: 'Onboarding checklist' }] });
    expect(paths(await titles(bob, 'CAFE CRE'))).toEqual(['kb/cafe']);
    expect(paths(await titles(bob, 'kaff'))).toEqual(['kb/misc/zeta-notes']);
    expect(paths(await titles(bob, 'zeta'))).toEqual(['kb/misc/zeta-notes']);
    expect(paths(await titles(bob, 'guid chec'))).toEqual(['kb/guides/onboarding']);
    expect(paths(await titles(bob, 'guid nothing'))).toEqual([]);
    expect(paths(await titles(bob, 'boarding'))).toEqual([]); // a prefix of a word, not any substring
  });

  it('ranks exact, then leading, then word-prefix matches; shorter titles, then recently changed, first', async () => {
    const put = (path: string, title: string) => srv.admin.put(`/pages/other/${path}`, { title, content: 'x' });
    // Written in an order that is none of the expected ones.
    expect((await put('r1', 'The roadmap of the year')).status).toBe(201);
    expect((await put('r2', 'Roadmap 2027 and beyond')).status).toBe(201);
    expect((await put('r3', 'Roadmap')).status).toBe(201);
    expect((await put('r4', 'Old roadmap')).status).toBe(201);
    expect((await put('r5', 'Roadmap 2026 and beyond')).status).toBe(201); // as long as r2, changed later
    expect(paths(await titles(bob, 'roadmap', '&space=other'))).toEqual(['other/r3', 'other/r5', 'other/r2', 'other/r4', 'other/r1']);
    // Changing r2 makes it the more recent of the two equally long leading matches.
    expect((await srv.admin.put('/pages/other/r2', { title: 'Roadmap 2027 and beyond', content: 'changed' })).status).toBe(200);
    expect(paths(await titles(bob, 'ROADMAP', '&space=other'))).toEqual(['other/r3', 'other/r2', 'other/r5', 'other/r4', 'other/r1']);
    expect(paths(await titles(bob, 'roadmap', '&space=other&limit=2'))).toEqual(['other/r3', 'other/r2']);
  });

  it('hides pages the caller may not read, and follows moves and deletes', async () => {
    expect((await srv.admin.put('/pages/kb/secret', { title: 'Pangolin plans', content: 'x' })).status).toBe(201);
    expect((await srv.admin.put('/pages/kb/secret/acl', { read: [], write: [] })).status).toBe(200);
    expect((await srv.admin.put('/pages/kb/open', { title: 'Pangolin open', content: 'x' })).status).toBe(201);
    expect(paths(await titles(bob, 'pango'))).toEqual(['kb/open']);
    expect(paths(await titles(srv.admin, 'pango'))).toEqual(['kb/open', 'kb/secret']);
    expect((await bob.put('/pages/~bob/mine', { title: 'Pangolin diary', content: 'x' })).status).toBe(201);
    expect(paths(await titles(srv.admin, 'pango'))).toEqual(['kb/open', 'kb/secret']);
    expect(paths(await titles(bob, 'pango'))).toEqual(['kb/open', '~bob/mine']);

    expect((await srv.admin.post('/spaces/kb/moves', { from: 'open', to: 'animals/wombat' })).status).toBe(200);
    expect(paths(await titles(bob, 'wombat'))).toEqual(['kb/animals/wombat']);
    expect(paths(await titles(bob, 'open'))).toEqual(['kb/animals/wombat']); // the title's word; not the old path
    expect((await srv.admin.del('/pages/kb/animals/wombat')).status).toBe(204);
    expect(paths(await titles(bob, 'pango'))).toEqual(['~bob/mine']);
  });

  it('refuses a missing q, a bad limit and an unknown space, naming the field', async () => {
    const refused = { q: ['', 'q=%20', `q=${'a'.repeat(201)}`], limit: ['q=a&limit=51', 'q=a&limit=0'] };
    for (const [key, queries] of Object.entries(refused))
      for (const query of queries) expectProblem(await bob.get(`/search/titles?${query}`), 400, { key }, query);
    expect((await bob.get('/search/titles?q=a&space=nope')).status).toBe(404);
    expect((await bob.get('/search/titles?q=%21%21')).body).toEqual({ hits: [] });
  });
});
