import { describe, expect, it, onTestFinished } from 'vitest';
import { importView } from '../../src/domain/links/wiki-index.ts';
import type { Client } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';
import { outboundOf as out, backlinksOf as back, brokenLinksOf as broken, contentOf, putPage, setAcl } from '../support/links.ts';

const { srv, bob, dave } = useServer({
  agents: ['bob', 'dave'],
  spaces: [{ slug: 'wk' }, { slug: 'wk2' }, { slug: 'wmv' }],
  noErrors: true,
});

const put = (c: Client, at: string, content: string, title = at.split('/').pop()!) => putPage(c, at, content, title);
const acl = (at: string, read: string[], write: string[]) => setAcl(srv.admin, at, read, write);

describe('wikilinks', () => {
  it('are indexed, backlinked, reported broken, and resolve when the target is created later', async () => {
    await put(bob, 'wk/guides/setup', 'Setup steps.', 'Setup Guide');
    await put(bob, 'wk/guides/intro', 'Read [[setup]] then [[faq#Top|the FAQ]] and [[Glossary]]; also [[wk2/shared]]. `[[not/a/link]]`');
    expect(await out(bob, 'wk/guides/intro')).toEqual([
      'wk/guides/setup',
      'wk/guides/faq (absent)',
      'wk/guides/Glossary (absent)',
      'wk2/shared (absent)',
    ]);
    expect(await broken(bob, 'wk')).toEqual([
      'guides/intro -> wk/guides/Glossary',
      'guides/intro -> wk/guides/faq',
      'guides/intro -> wk2/shared',
    ]);
    expect(await back(bob, 'wk/guides/setup')).toEqual(['wk/guides/intro']);
    // Created later: at the default address, by title elsewhere, in the other space.
    await put(bob, 'wk/guides/faq', 'Questions.');
    await put(bob, 'wk/reference/terms', 'Words.', 'glossary');
    await put(bob, 'wk2/shared', 'Shared.');
    expect(await out(bob, 'wk/guides/intro')).toEqual(['wk/guides/setup', 'wk/guides/faq', 'wk/reference/terms', 'wk2/shared']);
    expect(await broken(bob, 'wk')).toEqual([]);
    expect(await back(bob, 'wk/reference/terms')).toEqual(['wk/guides/intro']);
    expect(await back(bob, 'wk2/shared')).toEqual(['wk/guides/intro']);
    // A second page with that title: the link stays resolved (docs/search.md); written exactly so,
    // it takes the link over from the folded match; deleted, it gives it back.
    await put(bob, 'wk/other/terms', 'Other words.', 'Glossary');
    expect(await broken(bob, 'wk')).toEqual([]);
    expect(await out(bob, 'wk/guides/intro')).toEqual(['wk/guides/setup', 'wk/guides/faq', 'wk/other/terms', 'wk2/shared']);
    expect((await srv.admin.del('/pages/wk/other/terms')).status).toBe(204);
    expect(await broken(bob, 'wk')).toEqual([]);
    expect(await out(bob, 'wk/guides/intro')).toEqual(['wk/guides/setup', 'wk/guides/faq', 'wk/reference/terms', 'wk2/shared']);
    // A title change takes the link along (docs/api.md, Renaming a page); deleting the target breaks it.
    await put(bob, 'wk/reference/terms', 'Words.', 'Terms');
    expect(await broken(bob, 'wk')).toEqual([]);
    expect(await contentOf(bob, 'wk/guides/intro')).toContain('[[Terms]]');
    await srv.admin.del('/pages/wk/guides/faq');
    expect(await broken(bob, 'wk')).toContain('guides/intro -> wk/guides/faq');
    // A page at the folder address beats the root one once it exists.
    await put(bob, 'wk/home', 'See [[guides/setup]] and [[setup]].');
    expect(await out(bob, 'wk/home')).toEqual(['wk/guides/setup', 'wk/setup (absent)']);
    await put(bob, 'wk/setup', 'Root setup.');
    expect(await out(bob, 'wk/home')).toEqual(['wk/guides/setup', 'wk/setup']);
  });

  it('render as links in the page HTML and the preview, broken ones marked', async () => {
    await put(bob, 'wk/render/a', 'Go to [[b|B page]] or [[missing]].');
    await put(bob, 'wk/render/b', '# Part one\n\ntext');
    const page = await bob.get('/pages/wk/render/a?render=html');
    expect(page.status).toBe(200);
    expect(page.body.html).toContain('<a href="/app/p/wk/render/b" class="internal">B page</a>');
    expect(page.body.html).toContain('class="internal broken"');
    const preview = await bob.post('/render', { space: 'wk', path: 'render/new', content: '[[b#Part one]]' });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.html).toContain('<a href="/app/p/wk/render/b#h-part-one" class="internal">b › Part one</a>');
  });

  it('never resolve to a page a reader of the linking page may not read, nor reveal it', async () => {
    await put(bob, 'wk/acl/secret', 'Hidden.', 'Plans');
    await acl('wk/acl/secret', [], [bob.id]);
    await put(bob, 'wk/acl/open', 'See [[Plans]] and [[secret]].');
    // Open is read by everyone: neither the title nor the folder match may pick the hidden page.
    expect(await out(dave, 'wk/acl/open')).toEqual(['wk/acl/Plans (absent)', 'wk/acl/secret (absent)']);
    expect(await out(bob, 'wk/acl/open')).toEqual(['wk/acl/Plans (absent)', 'wk/acl/secret']);
    expect(await back(bob, 'wk/acl/secret')).toEqual(['wk/acl/open']);
    const html = (await dave.get('/pages/wk/acl/open?render=html')).body.html as string;
    expect(html).not.toContain('class="internal"');
    // Once everyone may read it, the title link resolves to it.
    await srv.admin.del('/pages/wk/acl/secret/acl');
    expect(await out(dave, 'wk/acl/open')).toEqual(['wk/acl/secret']);
  });

  // 3,000 pages: several chunks (at most 500 pages or 50 ms each), with other writes served
  // between them. The import looks its space's pages up in memory and must read them again after
  // another write: the last page links to a title another request creates meanwhile. With a view
  // of at most 100 pages, the space outgrows it after the first chunks and is looked up with queries.
  it.each([
    ['in memory', 100_000, 'wimp'],
    ["with queries past the view's size", 100, 'wimq'],
  ] as const)(
    'resolve in an import against pages another request writes between its chunks, looked up %s',
    async (_how, maxPages, slug) => {
      importView.maxPages = maxPages;
      onTestFinished(() => {
        importView.maxPages = 100_000;
      });
      const pages: Array<Record<string, unknown>> = Array.from({ length: 3000 }, (_, i) => ({
        path: `n/${String(i).padStart(4, '0')}`,
        title: `N ${i}`,
        content: `next [[N ${i + 1}]] and [[n/${String(i + 7).padStart(4, '0')}]]`,
      }));
      pages.push({ path: 'z/linker', title: 'Linker', content: 'See [[Late Target]].' });
      const bundle = {
        format: 'service-space-export',
        formatVersion: 1,
        exportedAt: new Date().toISOString(),
        space: { slug, name: 'I', description: '' },
        pages,
      };
      let importDone = false;
      const imported = srv.admin.post(`/spaces/${slug}/import`, bundle).then((r) => ((importDone = true), r));
      while ((await srv.admin.get(`/pages/${slug}/n/0000`)).status !== 200) await new Promise((r) => setTimeout(r, 2));
      await put(srv.admin, `${slug}/elsewhere/late`, 'Arrived during the import.', 'Late Target');
      expect(importDone).toBe(false); // it came between two chunks
      const r = await imported;
      expect(r.status, r.text).toBe(200);
      expect(r.body.created).toBe(3001);
      expect(await out(srv.admin, `${slug}/z/linker`)).toEqual([`${slug}/elsewhere/late`]);
      expect(await out(srv.admin, `${slug}/n/1234`)).toEqual([`${slug}/n/1235`, `${slug}/n/1241`]);
      expect(await out(srv.admin, `${slug}/n/2999`)).toEqual([`${slug}/n/N 3000 (absent)`, `${slug}/n/3006 (absent)`]);
      expect((await srv.admin.get(`/spaces/${slug}/links/broken?limit=100`)).body.length).toBe(8);
    },
  );

  it('are rewritten on move, keeping label and heading', async () => {
    await put(bob, 'wmv/docs/target', '# Install\n\nx', 'Target Page');
    await put(bob, 'wmv/docs/sibling', 'See [[target#Install|how to install]] and [[target]].');
    await put(bob, 'wmv/home', 'Start at [[docs/target]], or by title [[Target Page]].');
    const r = await bob.post('/spaces/wmv/moves', { from: 'docs/target', to: 'manual/install' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rewritten).toEqual([
      { space: 'wmv', path: 'docs/sibling' },
      { space: 'wmv', path: 'home' },
    ]);
    expect(await contentOf(bob, 'wmv/docs/sibling')).toBe('See [[manual/install#Install|how to install]] and [[manual/install]].');
    expect(await contentOf(bob, 'wmv/home')).toBe('Start at [[manual/install]], or by title [[Target Page]].');
    expect(await back(bob, 'wmv/manual/install')).toEqual(['wmv/docs/sibling', 'wmv/home']);
    expect(await broken(bob, 'wmv')).toEqual([]);
    expect(await out(bob, 'wmv/docs/sibling')).toEqual(['wmv/manual/install']);
  });
});
