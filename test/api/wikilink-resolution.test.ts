import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { outboundOf as out, brokenLinksOf as broken } from '../support/links.ts';

// Which page a wikilink means when it names a title (docs/search.md "Wikilinks"): full Unicode
// case folding, exact before folded, aliases like titles, and of several candidates the linking
// page's folder, then the shortest path, then the oldest; creating a page never breaks a link.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
  for (const slug of ['res', 'clash', 'imp']) expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
});
afterAll(() => srv.close());
afterEach(() => expect(srv.errors).toEqual([]));

const put = async (at: string, content: string, title: string, frontmatter?: Record<string, unknown>) => {
  const r = await srv.admin.put(`/pages/${at}`, { title, content, ...(frontmatter ? { frontmatter } : {}) });
  expect([200, 201], r.text).toContain(r.status);
};

describe('wikilink resolution by title', () => {
  it('folds case fully: [[über]] finds the page titled Über, [[ΣΊΣΥΦΟΣ]] the page titled σίσυφος', async () => {
    await put('res/people/ueber', 'x', 'Über');
    await put('res/people/sis', 'x', 'σίσυφος');
    await put('res/notes/a', '[[über]] [[ΣΊΣΥΦΟΣ]]', 'A');
    expect(await out(srv.admin, 'res/notes/a')).toEqual(['res/people/ueber', 'res/people/sis']);
  });

  it('an exact title beats a folded one, whichever came first', async () => {
    await put('res/x/lower', 'x', 'topic');
    await put('res/y/upper', 'x', 'Topic');
    await put('res/notes/b', '[[Topic]] [[topic]] [[TOPIC]]', 'B');
    // TOPIC: both folded, same folder rule, same path length: the oldest
    expect(await out(srv.admin, 'res/notes/b')).toEqual(['res/y/upper', 'res/x/lower']);
  });

  it("of several: the linking page's folder, then the shortest path, then the oldest", async () => {
    await put('res/far/away/deep/twin', 'x', 'Twin');
    await put('res/mid/twin2', 'x', 'Twin');
    await put('res/mid/twin3', 'x', 'Twin');
    await put('res/here/t', 'x', 'Twin');
    await put('res/here/src', '[[Twin]]', 'Src');
    await put('res/elsewhere/src', '[[Twin]]', 'Src');
    expect(await out(srv.admin, 'res/here/src')).toEqual(['res/here/t']); // its folder
    expect(await out(srv.admin, 'res/elsewhere/src')).toEqual(['res/here/t']); // the shortest path
    expect((await srv.admin.del('/pages/res/here/t')).status).toBe(204);
    expect(await out(srv.admin, 'res/elsewhere/src')).toEqual(['res/mid/twin2']); // as long as twin3: the oldest
  });

  it('aliases resolve like titles, and an alias added later takes a link it names', async () => {
    await put('res/cfg/settings', 'x', 'Configuration', { aliases: ['Config', 'Setup page'] });
    await put('res/notes/c', '[[config]] [[Setup page]] [[Later]]', 'C');
    expect(await out(srv.admin, 'res/notes/c')).toEqual(['res/cfg/settings', 'res/notes/Later (absent)']);
    await put('res/cfg/later', 'x', 'Something', { aliases: 'later' });
    expect(await out(srv.admin, 'res/notes/c')).toEqual(['res/cfg/settings', 'res/cfg/later']);
  });

  it('creating a page titled like the target of 60 links leaves all 60 resolved (they stay where they were)', async () => {
    await put('clash/admin/settings', 'The settings.', 'Settings');
    for (let i = 0; i < 60; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, k) => put(`clash/notes/n${i + k}`, `See [[Settings]].`, `N${i + k}`)));
    }
    expect(await broken(srv.admin, 'clash')).toEqual([]);
    await put('clash/projects/unrelated/settings', 'Another page.', 'Settings');
    expect(await broken(srv.admin, 'clash')).toEqual([]);
    for (const i of [0, 29, 59]) expect(await out(srv.admin, `clash/notes/n${i}`)).toEqual(['clash/admin/settings']);
    const back = await srv.admin.get('/pages/clash/admin/settings/links?limit=100');
    expect(back.body.backlinks).toHaveLength(60);
  });

  it('an import resolves by folded titles and aliases too, in one bundle', async () => {
    const r = await srv.admin.post('/spaces/imp/import', {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'imp', name: 'imp' },
      pages: [
        { path: 'a/src', title: 'Src', content: '[[über]] [[nick]]', frontmatter: {}, metadata: {} },
        { path: 'b/ueber', title: 'Über', content: 'x', frontmatter: {}, metadata: {} },
        { path: 'c/named', title: 'Named', content: 'x', frontmatter: { aliases: ['Nick'] }, metadata: {} },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(await out(srv.admin, 'imp/a/src')).toEqual(['imp/b/ueber', 'imp/c/named']);
  });
});
