// Footnotes (docs/markdown.md "Footnotes"): rendered by the one renderer, ids prefixed per page,
// the same reading in the link index, and linear time on hostile text.
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/domain/links/extract.ts';
import { footnoteDocId } from '../../src/domain/links/footnotes.ts';
import { renderMarkdown } from '../../src/domain/links/render.ts';
import type { PageRef } from '../../src/model.ts';

const FROM: PageRef = { space: 'team', path: 'notes/page' };
const ID = footnoteDocId(FROM);
const existing = (refs: PageRef[]) => new Set(refs.map((r) => `${r.space}/${r.path}`));
const render = (content: string, from = FROM) => renderMarkdown({ content, from, existing }).trim();
const ref = (n: string, sub = '') =>
  `<sup class="footnote-ref"><a href="#fn-${ID}-${n}" id="fnref-${ID}-${n}${sub}">[${n}${sub}]</a></sup>`;
const back = (n: string, sub = '') => `<a href="#fnref-${ID}-${n}${sub}" class="footnote-backref">\u21a9\ufe0e</a>`;
const notes = (...items: string[]) =>
  `<hr class="footnotes-sep">\n<section class="footnotes">\n<ol class="footnotes-list">\n${items
    .map((x, i) => `<li id="fn-${ID}-${i + 1}" class="footnote-item">${x}</li>\n`)
    .join('')}</ol>\n</section>`;

describe('footnotes render', () => {
  it.each<[string, string, string]>([
    [
      'a reference and its definition',
      'Text[^1].\n\n[^1]: The note.',
      `<p>Text${ref('1')}.</p>\n${notes(`<p>The note. ${back('1')}</p>\n`)}`,
    ],
    [
      'named labels, numbered in order of use',
      'a[^b] c[^a]\n\n[^a]: A\n[^b]: B',
      `<p>a${ref('1')} c${ref('2')}</p>\n${notes(`<p>B ${back('1')}</p>\n`, `<p>A ${back('2')}</p>\n`)}`,
    ],
    ['an inline footnote', 'x^[inline *note*]', `<p>x${ref('1')}</p>\n${notes(`<p>inline <em>note</em> ${back('1')}</p>\n`)}`],
    [
      'one note used twice',
      'a[^1] b[^1]\n\n[^1]: N',
      `<p>a${ref('1')} b${ref('1', ':1')}</p>\n${notes(`<p>N ${back('1')} ${back('1', ':1')}</p>\n`)}`,
    ],
    ['a reference without definition stays text', 'a[^none]', '<p>a[^none]</p>'],
    ['a label with a space is no label; an unused definition shows nothing', 'a[^x y]\n\n[^x]: N', '<p>a[^x y]</p>'],
    [
      'Markup in a note is escaped',
      'a[^1]\n\n[^1]: <img src=x onerror=alert(1)>',
      `<p>a${ref('1')}</p>\n${notes(`<p>&lt;img src=x onerror=alert(1)&gt; ${back('1')}</p>\n`)}`,
    ],
  ])('%s', (_name, md, html) => {
    expect(render(md)).toBe(html);
  });

  it('reads a label of up to 64 characters, not longer', () => {
    const ok = 'l'.repeat(64);
    const long = 'l'.repeat(65);
    expect(render(`a[^${ok}]\n\n[^${ok}]: N`)).toContain(ref('1'));
    expect(render(`a[^${long}]\n\n[^${long}]: N`)).not.toContain('footnote');
  });

  it('links in a note are links; only fixed markup and prefixed ids come out', () => {
    const html = render('a[^1]\n\n[^1]: See [[Other]] and [x](javascript:alert(1)).');
    expect(html).toContain('See <a href="/app/p/team/notes/Other"');
    expect(html).toContain('[x](javascript:alert(1))'); // text, as anywhere
    for (const m of html.matchAll(/<([a-z0-9]+)\b([^>]*)>/g)) {
      expect(['p', 'sup', 'a', 'hr', 'section', 'ol', 'li']).toContain(m[1]);
      for (const id of m[2].matchAll(/\bid="([^"]*)"/g)) expect(id[1]).toMatch(new RegExp(`^fn(?:ref)?-${ID}-\\d+(?::\\d+)?$`));
    }
  });

  it("gives each page's notes their own ids, so an embedded page's do not meet its host's", () => {
    const other = { space: 'team', path: 'notes/other' };
    expect(footnoteDocId(other)).not.toBe(ID);
    expect(render('a[^1]\n\n[^1]: N', other)).toContain(`id="fn-${footnoteDocId(other)}-1"`);
  });
});

describe('the link index reads footnotes as the renderer does', () => {
  it.each<[string, string, string[]]>([
    ['a definition is no reference definition', 'a[^1]\n\n[^1]: target', []],
    ['a link in a definition counts', 'a[^1]\n\n[^1]: See [[Other]] and [y](/pages/team/y).', ['team/notes/Other', 'team/y']],
    ['a link in an inline note counts', 'a^[see [[Other]]]', ['team/notes/Other']],
    ['a definition used by no reference still holds its link', '[^1]: [[Other]]', ['team/notes/Other']],
  ])('%s', (_name, md, links) => {
    expect(extractLinks(md, FROM).map((r) => `${r.space}/${r.path}`)).toEqual(links);
  });
});

describe('footnotes in linear time', () => {
  // Unbounded, the plugin scanned on from each `[^` to the next `]`, space or line end: `[^a`
  // ×20,000 after one definition took 10 s at 60 KiB (four times that per doubling). Bounded, a
  // label is at most 64 characters: well under a second here, and the bound is loose for a
  // loaded machine. (At the page-size cap: the render bench's 'footnote references' case.)
  it('unclosed references after a definition (60 KiB)', () => {
    const t0 = performance.now();
    render(`[^x]: y\n\n${'[^a'.repeat(20_000)}`);
    expect(performance.now() - t0).toBeLessThan(4000);
  });
});
