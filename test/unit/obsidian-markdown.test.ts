import { describe, expect, it } from 'vitest';
import { namedRows } from '../support/cases.ts';
import highlights from './cases/obsidian-highlights.json' with { type: 'json' };
import media from './cases/obsidian-media.json' with { type: 'json' };
import { extractLinks } from '../../src/domain/links/extract.ts';
import { embeddedPart, splitSize } from '../../src/domain/links/embeds.ts';
import { renderMarkdown } from '../../src/domain/links/render.ts';
import { rewriteLinks } from '../../src/domain/links/rewrite.ts';
import type { PageRef } from '../../src/model.ts';

// Obsidian's Markdown in the one renderer (docs/markdown.md): callouts, highlights, comments,
// block ids, embeds, media and sizes; and which of them the link index counts.

const FROM: PageRef = { space: 'team', path: 'notes/page' };
const existing = (refs: PageRef[]) => new Set(refs.map((r) => `${r.space}/${r.path}`));
const render = (content: string) => renderMarkdown({ content, from: FROM, existing }).trim();

describe('callouts', () => {
  const cases: Array<[string, string, Array<string | RegExp>, string[]?]> = [
    [
      'a note with a title',
      '> [!note] Read this\n> body',
      [
        '<div class="callout callout-note" data-callout="note" role="note"><div class="callout-title"><svg class="callout-icon" aria-hidden="true"',
        '<span class="callout-title-inner">Read this</span></div>',
        '<div class="callout-content">\n<p>body</p>\n</div></div>',
      ],
      ['[!note]', '<blockquote'],
    ],
    ['no title: the type, capitalised', '> [!tip]\n> x', ['<span class="callout-title-inner">Tip</span>']],
    ['an alias takes its kind', '> [!FAQ] Q', ['class="callout callout-question" data-callout="faq"']],
    ['a custom type is neutral', '> [!recipe] Soup', ['class="callout callout-custom" data-callout="recipe"', 'Soup']],
    [
      'folded `-`: closed details',
      '> [!warning]- Careful\n> hidden',
      ['<details class="callout callout-warning" data-callout="warning"><summary class="callout-title">', '</summary>', '</div></details>'],
      [' open>'],
    ],
    ['folded `+`: open details', '> [!info]+ Shown\n> x', ['<details class="callout callout-info" data-callout="info" open><summary']],
    ['Markdown in the title', '> [!note] A **bold** `code`', ['A <strong>bold</strong> <code>code</code></span>']],
    [
      'nested callouts',
      '> [!note] Outer\n> > [!danger] Inner\n> > deep',
      [/callout-note[^]*callout-content[^]*callout-danger[^]*<p>deep<\/p>\n<\/div><\/div>\n<\/div><\/div>/],
    ],
    ['a plain quote stays a quote', '> just [!note] quoted', ['<blockquote>'], ['callout']],
    ['the title is escaped', '> [!note] <script>x</script>', ['&lt;script&gt;x&lt;/script&gt;'], ['<script>']],
    ['a type with markup is no callout', '> [!no"te] x', ['<blockquote>'], ['callout']],
  ];
  it.each(cases)('%s', (_name, md, want, not = []) => {
    const html = render(md);
    for (const w of want) typeof w === 'string' ? expect(html).toContain(w) : expect(html).toMatch(w);
    for (const n of not) expect(html).not.toContain(n);
  });
});

describe('highlights, comments, block ids', () => {
  const cases = namedRows<[md: string, want: string]>(highlights);
  it.each(cases)('%s', (_name, md, want) => expect(render(md)).toContain(want));
});

describe('files and media', () => {
  const cases = namedRows<[md: string, want: string]>(media);
  it.each(cases)('%s', (_name, md, want) => expect(render(md)).toContain(want));

  it('splitSize reads Obsidian sizes and leaves other text', () => {
    expect(splitSize('a|100x145')).toEqual({ text: 'a', size: { w: 100, h: 145 } });
    expect(splitSize('|100')).toEqual({ text: '', size: { w: 100, h: null } });
    expect(splitSize('a|b')).toEqual({ text: 'a|b', size: null });
  });
});

describe('note embeds', () => {
  it('an embed alone on its line is a block (no paragraph), marked for the reader', () => {
    // renderMarkdown fills in nothing: an embed it has no HTML for reads as not available.
    expect(render('![[Other#Part]]')).toBe(
      '<div class="embed embed-unavailable" role="note"><span class="embed-name">Other › Part</span> is not available.</div>',
    );
    expect(render('`![[Other]]`')).toBe('<p><code>![[Other]]</code></p>');
  });

  it('count as links; file embeds and file links do not; code does not', () => {
    const links = (c: string) => extractLinks(c, FROM).map((r) => r.path);
    expect(links('![[Other]] ![[Deep#Head]] ![[Blk#^id]]')).toEqual(['notes/Other', 'notes/Deep', 'notes/Blk']);
    expect(links('![[pic.png]] [[shot.png|x]] ![[clip.mp4]] [[Real]]')).toEqual(['notes/Real']);
    expect(links('`![[Code]]` and\n\n```\n![[Fenced]]\n```\n\n![[Other]] [x](y)')).toEqual(['notes/Other', 'notes/y']);
  });

  it('a move rewrites embeds of a page and leaves file embeds', () => {
    const moved = new Map([['team/notes/Old', { space: 'team', path: 'notes/New' }]]);
    const wiki = (t: string) => (t === 'Old' ? 'New' : null);
    expect(rewriteLinks('![[Old#H]] [[Old]] ![[Old.png]]', FROM, moved, [], wiki, true)).toBe('![[New#H]] [[New|Old]] ![[Old.png]]');
  });

  const page =
    '# Top\nintro\n## Setup\nsetup text ^s1\n### Linux\nlinux text\n### Mac\nmac text\n## Usage\n- a\n- b ^item\n\n| t |\n| - |\n| 1 |\n\n^tab\n';
  const parts: Array<[string, string | null, string | null]> = [
    ['whole page', null, page],
    ['a section to the next heading of its level', 'Setup', '## Setup\nsetup text ^s1\n### Linux\nlinux text\n### Mac\nmac text'],
    ['a nested heading', 'Setup#Mac', '### Mac\nmac text'],
    ['a heading under another it is not under', 'Usage#Mac', null],
    ['headings match loosely (case)', 'setup#linux', '### Linux\nlinux text'],
    ['a paragraph block', '^s1', 'setup text ^s1'],
    ['a list item block', '^item', '- b ^item'],
    ['a lone marker marks the block before', '^tab', '| t |\n| - |\n| 1 |'],
    ['no such block', '^nope', null],
    ['no such heading', 'Nope', null],
  ];
  it.each(parts)('embeddedPart: %s', (_name, heading, want) => expect(embeddedPart(page, heading)).toBe(want));
});

describe('block ids as the Obsidian help writes them', () => {
  it('a marker on the line after a paragraph, or right after an embed, marks that paragraph', () => {
    expect(render('Some text\n^next-line')).toContain('<p id="^next-line">Some text');
    expect(embeddedPart('intro\n\nSome text\n^next-line\n\nafter', '^next-line')).toBe('Some text\n^next-line');
    expect(embeddedPart('![[shot.png]]^img-id\n\nafter', '^img-id')).toBe('![[shot.png]]^img-id');
    expect(render('![[shot.png]]^img-id')).toContain('<p id="^img-id"><img src="/files/team/notes/page/shot.png"');
  });
});

describe('what the import writes renders as Obsidian showed it', () => {
  it('a size in a table cell and a hint in the address', () => {
    expect(render('| a |\n| - |\n| ![pic.png\\|100](files/pic.png) |')).toContain(
      '<td><img src="/files/team/notes/page/pic.png" alt="pic.png" width="100"></td>',
    );
    expect(render('![logo.svg](files/logo.svg#icon)')).toContain('alt="logo.svg" class="hint-icon">');
  });
});
