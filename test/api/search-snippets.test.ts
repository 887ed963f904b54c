import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.ts';

// Search snippets are cut from the text a reader sees (no Markdown syntax), with the matches in
// <mark> and the heading above the match (contract, Search).

const { srv } = useServer({ spaces: [{ slug: 'doc', name: 'Doc' }], noErrors: true });

type Hit = { path: string; snippet: string; heading?: string };
const search = async (q: string) => {
  const r = await srv.admin.get(`/search?${new URLSearchParams({ q, space: 'doc' })}`);
  expect(r.status).toBe(200);
  return r.body.hits as Hit[];
};

describe('search snippets', () => {
  it('show the page text without Markdown, marks escaped once, and name the heading above the match', async () => {
    const content = `Intro text.

## Setting up **Sync**

Use [Obsidian Sync](https://obsidian.md/sync "Sync") to keep a *wombat* vault in [[devices|every device]].

| col | other |
|-----|-------|
| \`code\` & <b>raw</b> | cell |`;
    expect((await srv.admin.put('/pages/doc/setup', { title: 'Setup', content })).status).toBe(201);
    const [hit] = await search('wombat');
    expect(hit.path).toBe('setup');
    expect(hit.heading).toBe('Setting up Sync');
    expect(hit.snippet).toContain('<mark>wombat</mark>');
    expect(hit.snippet).toContain('Use Obsidian Sync to keep a <mark>wombat</mark> vault in every device.');
    for (const syntax of ['**', '##', '](', 'https://', '[[', '|', '`']) expect(hit.snippet, syntax).not.toContain(syntax);

    const [cell] = await search('cell');
    expect(cell.snippet).toContain('code &amp; &lt;b&gt;raw&lt;/b&gt; <mark>cell</mark>');
    expect(cell.heading).toBe('Setting up Sync');
  });

  it('has no heading when the match is above every heading or only in the title', async () => {
    expect(
      (await srv.admin.put('/pages/doc/early', { title: 'Pangolin notes', content: 'A quokka first.\n\n# Later\n\nmore' })).status,
    ).toBe(201);
    const [early] = await search('quokka');
    expect(early.snippet).toBe('A <mark>quokka</mark> first. Later more');
    expect(early).not.toHaveProperty('heading');
    const [titleOnly] = await search('pangolin');
    expect(titleOnly.path).toBe('early');
    expect(titleOnly).not.toHaveProperty('heading');
  });
});
