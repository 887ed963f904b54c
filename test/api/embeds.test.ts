import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';

// Note embeds `![[Note]]`, `![[Note#Heading]]`, `![[Note#^block]]` (docs/markdown.md "Embeds"):
// rendered inline for each reader, counted as links, and an embed of a page the reader may not
// read reads exactly like one of a page that does not exist.

let srv: TestServer;
let bob: Client & { id: string };
const html = async (c: Client, path: string): Promise<string> => {
  const r = await c.get(`/pages/team/${path}?render=html`);
  expect(r.status).toBe(200);
  return r.body.html as string;
};

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  await srv.admin.post('/spaces', { slug: 'team', name: 'Team' });
  await srv.admin.put('/pages/team/docs/guide', {
    title: 'Guide',
    content: '# Guide\nintro\n## Setup\nsetup words\n### Linux\nlinux words\n## Usage\nusage words ^u1\n',
  });
  await srv.admin.put('/pages/team/docs/secret', { title: 'Secret', content: 'the secret words\n' });
  await srv.admin.put('/pages/team/docs/secret/acl', { read: [], write: [] });
});
afterAll(() => srv.close());

describe('note embeds', () => {
  it('show the whole page, a section, a nested heading and a block, with a link to the source', async () => {
    await srv.admin.put('/pages/team/docs/host', {
      title: 'Host',
      content: '![[guide]]\n\n![[guide#Setup]]\n\n![[guide#Setup#Linux]]\n\n![[guide#^u1]]\n',
    });
    const h = await html(bob, 'docs/host');
    const embeds = h.split('<div class="embed">').slice(1);
    expect(embeds).toHaveLength(4);
    expect(embeds[0]).toContain('<a href="/app/p/team/docs/guide" class="internal">guide</a>');
    expect(embeds[0]).toContain('usage words');
    expect(embeds[1]).toContain('<a href="/app/p/team/docs/guide#h-setup" class="internal">guide › Setup</a>');
    expect(embeds[1]).toContain('setup words');
    expect(embeds[1]).toContain('linux words');
    expect(embeds[1]).not.toContain('usage words');
    expect(embeds[2]).toContain('linux words');
    expect(embeds[2]).not.toContain('setup words');
    expect(embeds[3]).toContain('<p id="^u1">usage words</p>');
    expect(embeds[3]).not.toContain('intro');
  });

  it('count as links: outbound, backlinks, broken links', async () => {
    await srv.admin.put('/pages/team/docs/embedder', { title: 'Embedder', content: '![[guide#Usage]]\n\n![[nowhere]]\n\n![[pic.png]]\n' });
    const links = await srv.admin.get('/pages/team/docs/embedder/links');
    expect(links.body.outbound).toEqual([
      { space: 'team', path: 'docs/guide', exists: true },
      { space: 'team', path: 'docs/nowhere', exists: false },
    ]);
    const back = await srv.admin.get('/pages/team/docs/guide/links');
    expect(back.body.backlinks.map((b: { path: string }) => b.path)).toContain('docs/embedder');
    const broken = await srv.admin.get('/spaces/team/links/broken');
    const targets = (broken.body.links ?? broken.body).map((l: { target: { path: string } }) => l.target.path);
    expect(targets).toContain('docs/nowhere');
    expect(targets).not.toContain('docs/pic.png');
  });

  it('an embed of a page the reader may not read is the same as one of a missing page; its reader sees it', async () => {
    await srv.admin.put('/pages/team/docs/leaky', { title: 'Leaky', content: '![[secret]]\n' });
    await srv.admin.put('/pages/team/docs/nothing', { title: 'Nothing', content: '![[secret]]\n' });
    // The same text from a page where `secret` does not exist: docs2/secret is missing.
    await srv.admin.put('/pages/team/docs2/nothing', { title: 'Nothing', content: '![[secret]]\n' });
    for (let round = 0; round < 2; round++) {
      // the second round comes from the render cache
      const forAdmin = await html(srv.admin, 'docs/leaky');
      expect(forAdmin).toContain('the secret words');
      const forBob = await html(bob, 'docs/leaky');
      expect(forBob).not.toContain('secret words');
      expect(forBob).toBe(await html(bob, 'docs2/nothing'));
      expect(forBob).toBe(
        '<div class="embed embed-unavailable" role="note"><span class="embed-name">secret</span> is not available.</div>\n',
      );
    }
    // the preview too
    const preview = await bob.post('/render', { space: 'team', path: 'docs/x', content: '![[secret]]' });
    expect(preview.body.html).not.toContain('secret words');
  });

  it('an embed inside an embed is checked for its reader too', async () => {
    await srv.admin.put('/pages/team/docs/middle', { title: 'Middle', content: 'middle words\n\n![[secret]]\n' });
    await srv.admin.put('/pages/team/docs/outer', { title: 'Outer', content: '![[middle]]\n' });
    const forBob = await html(bob, 'docs/outer');
    expect(forBob).toContain('middle words');
    expect(forBob).not.toContain('secret words');
    expect(forBob).toContain('<span class="embed-name">secret</span> is not available.');
    expect(await html(srv.admin, 'docs/outer')).toContain('the secret words');
  });

  it('stops cycles and depth, and shows the rest as links', async () => {
    await srv.admin.put('/pages/team/loop/a', { title: 'A', content: 'a words\n\n![[b]]\n' });
    await srv.admin.put('/pages/team/loop/b', { title: 'B', content: 'b words\n\n![[a]]\n' });
    const h = await html(bob, 'loop/a');
    expect(h).toContain('b words');
    expect(h).toContain('<a href="/app/p/team/loop/a" class="internal">a</a> (it embeds this page)');
    for (let i = 1; i <= 5; i++)
      await srv.admin.put(`/pages/team/deep/d${i}`, { title: `D${i}`, content: `level ${i}\n\n![[d${i + 1}]]\n` });
    await srv.admin.put('/pages/team/deep/d6', { title: 'D6', content: 'level 6\n' });
    const d = await html(bob, 'deep/d1');
    expect(d).toContain('level 4');
    expect(d).not.toContain('level 5');
    expect(d).toContain('(too many embeds to show here)');
  });

  it('a page may embed a section of itself (not itself whole)', async () => {
    await srv.admin.put('/pages/team/loop/self', {
      title: 'Self',
      content: '## Steps\nstep words\n## Summary\n![[self#Steps]]\n\n![[self]]\n',
    });
    const h = await html(bob, 'loop/self');
    expect(h.split('step words')).toHaveLength(3); // the section, and its embed
    expect(h).toContain('<a href="/app/p/team/loop/self" class="internal">self</a> (it embeds this page)');
  });

  it('a missing section of a readable page says so', async () => {
    await srv.admin.put('/pages/team/docs/nosection', { title: 'NoSection', content: '![[guide#Nope]]\n' });
    expect(await html(bob, 'docs/nosection')).toContain(
      '<a href="/app/p/team/docs/guide#h-nope" class="internal">guide › Nope</a> (no such section)',
    );
  });

  it('shows every embed of a page embedding more pages than one read takes, and a section of a page too large to embed whole', async () => {
    // The embedded pages are read in batches (rendering.ts embedContents); a page over the size
    // an embed shows is read on its own when a section of it is embedded.
    const pages = Array.from({ length: 18 }, (_, i) => ({ path: `p${i}`, title: `P${i}`, content: `page ${i} words\n` }));
    pages.push({ path: 'huge', title: 'Huge', content: `${'filler words\n'.repeat(6000)}## End\nend words\n` });
    const list = Array.from({ length: 18 }, (_, i) => `![[p${i}]]`).join('\n\n');
    pages.push({ path: 'host', title: 'Many', content: `${list}\n\n![[huge#End]]\n\n![[huge]]\n` });
    const space = { slug: 'many', name: 'Many', description: '' };
    const imported = await srv.admin.post('/spaces/many/import', { format: 'service-space-export', formatVersion: 1, space, pages });
    expect(imported.status, imported.text).toBe(200);
    const r = await bob.get('/pages/many/host?render=html');
    expect(r.status).toBe(200);
    const h = r.body.html as string;
    for (let i = 0; i < 18; i++) expect(h).toContain(`page ${i} words`);
    expect(h).toContain('end words');
    expect(h).not.toContain('filler words');
    expect(h).toContain('<a href="/app/p/many/huge" class="internal">huge</a> (too large to show here)');
  });
});
