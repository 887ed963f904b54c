import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { extractLinks, scanWikilinksOnly } from '../../src/domain/links/extract.ts';
import { getLinkParsers } from '../../src/domain/links/parsers.ts';
import { renderMarkdown } from '../../src/domain/links/render.ts';
import { rewriteLinks } from '../../src/domain/links/rewrite.ts';
import {
  parseWikilink,
  resolveWikilink,
  wikiKeys,
  wikiKeysOfPage,
  wikiPathCandidates,
  wikiTargetFor,
  type WikiLookup,
  type Wikilink,
} from '../../src/domain/links/wikilinks.ts';
import type { PageRef } from '../../src/model.ts';

describe('parseWikilink', () => {
  mapsTo('%j', parseWikilink, [
    ['a', { target: 'a', heading: null, label: null }],
    ['guides/setup', { target: 'guides/setup', heading: null, label: null }],
    [' a b |  Label ', { target: 'a b', heading: null, label: 'Label' }],
    ['a#Heading one', { target: 'a', heading: 'Heading one', label: null }],
    ['a#h|l', { target: 'a', heading: 'h', label: 'l' }],
    ['a\\|l', { target: 'a', heading: null, label: 'l' }],
    ['#only heading', { target: '', heading: 'only heading', label: null }],
    ['a|', { target: 'a', heading: null, label: null }],
    ['', null],
    ['|x', null],
    ['#', null],
    ['a[b', null],
    ['a\nb', null],
  ]);
});

// A space 'wiki' holding these pages (titles in brackets), and a visible space 'eng'.
const pages: Record<string, string> = {
  'wiki/guides/setup': 'Setup',
  'wiki/guides/intro': 'Intro',
  'wiki/setup': 'Root setup',
  'wiki/home': 'Home',
  'wiki/notes/a': 'Alpha Note',
  'wiki/notes/b': 'Twin',
  'wiki/notes/c': 'Twin',
  'wiki/eng/x': 'Local eng x',
  'eng/y': 'Y',
};
const lookup: WikiLookup = {
  page: (r) => `${r.space}/${r.path}` in pages,
  titled: (space, title) =>
    Object.entries(pages)
      .map(([k, t], order) => ({ k, t, order }))
      .filter(({ k, t }) => k.startsWith(`${space}/`) && t.toLowerCase() === title.toLowerCase())
      .map(({ k, t, order }) => ({ space, path: k.slice(space.length + 1), exact: t === title, order })),
  space: (s) => s === 'eng' || s === 'hr',
};
const at = (path: string): PageRef => ({ space: 'wiki', path });

describe('resolveWikilink', () => {
  it.each([
    // from, target, expected
    ['guides/intro', 'setup', 'wiki/guides/setup'], // the page's folder first
    ['home', 'setup', 'wiki/setup'], // the root (home's folder is the root)
    ['notes/a', 'setup', 'wiki/setup'], // not in notes/: the root
    ['notes/a', 'guides/setup', 'wiki/guides/setup'], // a path from the root
    ['guides/intro', 'guides/setup', 'wiki/guides/setup'], // guides/guides/setup is absent: the root
    ['home', 'alpha note', 'wiki/notes/a'], // by title, case-insensitive
    ['home', 'ALPHA NOTE.md', 'wiki/notes/a'], // `.md` dropped
    ['home', 'Twin', 'wiki/notes/b'], // two pages titled so, neither in the folder, paths as long: the oldest
    ['notes/a', 'missing', 'wiki/notes/missing'], // a bare name defaults to the page's folder
    ['notes/a', 'new/page', 'wiki/new/page'], // a path defaults to the root
    ['home', 'eng/y', 'eng/y'], // another space
    ['home', 'eng/x', 'wiki/eng/x'], // ... unless this space has that page
    ['home', 'hr/missing', 'hr/missing'], // a visible space: cross-space even when absent there
    ['home', 'nospace/p', 'wiki/nospace/p'], // no such space: a path here
    ['guides/intro', './setup', 'wiki/guides/setup'],
    ['guides/intro', '../home', 'wiki/home'],
    ['guides/intro', '/setup', 'wiki/setup'], // the root only
    ['notes/a', '/absent', 'wiki/absent'],
    ['notes/a', '', 'wiki/notes/a'], // [[#heading]]: this page
    ['home', '../x', null], // above the root
    ['home', 'a/links', null], // a reserved last segment
  ])('from %s, [[%s]]', (from, target, want) => {
    const got = resolveWikilink(target, at(from), lookup);
    expect(got ? `${got.space}/${got.path}` : null).toBe(want);
  });

  it('files a link under its lower-cased target, and under the other space for a cross-space form', () => {
    expect(wikiKeys('Some Title', at('a/b'))).toEqual([{ space: 'wiki', key: 'some title' }]);
    expect(wikiKeys('eng/Y', at('a'))).toEqual([
      { space: 'wiki', key: 'eng/y' },
      { space: 'eng', key: 'y' },
    ]);
    expect(wikiKeys('/x', at('a'))).toEqual([]);
    expect(wikiKeysOfPage('A/B/c', ['My Title']).sort()).toEqual(['a/b/c', 'b/c', 'c', 'my title']);
  });

  it('lists the path candidates in order, and spells a target from a page', () => {
    expect(wikiPathCandidates('x/y', at('a/p'))).toEqual([at('a/x/y'), at('x/y'), { space: 'x', path: 'y' }]);
    expect(wikiTargetFor(at('a/b/c'), at('a/p'))).toBe('b/c');
    expect(wikiTargetFor(at('z/c'), at('a/p'))).toBe('z/c');
    expect(wikiTargetFor(at('z/c'), at('a/p'), (r) => r.path === 'a/z/c')).toBe('/z/c');
    expect(wikiTargetFor({ space: 'eng', path: 'y' }, at('a/p'))).toBe('eng/y');
  });
});

describe('wikilinks in the link index and the renderer', () => {
  const resolve = (t: string, f: PageRef) => resolveWikilink(t, f, lookup);
  mapsTo('%j', (content) => extractLinks(content, at('x'), [], resolve).map((r) => `${r.space}/${r.path}`), [
    ['[[setup]] and [[Alpha Note|a]] and [[setup#x]]', ['wiki/setup', 'wiki/notes/a']],
    ['`[[setup]]` and\n\n```\n[[home]]\n```\n\n    [[home]]', []], // code is not a link
    ['![[image.png]] and \\[[setup]]', []], // embeds and escaped brackets are not links
    ['| a | [[setup\\|s]] |\n| - | - |\n| x | y |', ['wiki/setup']], // in a table cell
    ['[[home]] then [md](notes/a)', ['wiki/home', 'wiki/notes/a']],
  ]);

  it('renders wikilinks as internal links, broken ones as broken, with label and heading', () => {
    const html = renderMarkdown({
      content: '[[setup|The setup]] [[Alpha Note#Part two]] [[nowhere]] `[[home]]`',
      from: at('home'),
      existing: (ts) => new Set(ts.filter((t) => lookup.page(t)).map((t) => `${t.space}/${t.path}`)),
      wiki: resolve,
    });
    expect(html).toContain('<a href="/app/p/wiki/setup" class="internal">The setup</a>');
    expect(html).toContain('<a href="/app/p/wiki/notes/a#h-part-two" class="internal">Alpha Note › Part two</a>');
    expect(html).toContain(
      '<a href="/app/p/wiki/nowhere" class="internal broken" data-create="/app/new?space=wiki&amp;path=nowhere">nowhere</a>',
    );
    expect(html).toContain('<code>[[home]]</code>');
  });
});

describe('rewriting wikilinks after a move', () => {
  const moved = new Map([
    ['wiki/guides/setup', at('manual/install')],
    ['wiki/home', { space: 'eng', path: 'home' }],
  ]);
  const indexed = new Set(['wiki/guides/setup', 'wiki/home']);
  const wiki = (t: string, f: PageRef) => {
    for (const c of wikiPathCandidates(t, f)) {
      const k = `${c.space}/${c.path}`;
      if (!indexed.has(k)) continue;
      const to = moved.get(k);
      return to ? wikiTargetFor(to, f) : null;
    }
    return null;
  };
  mapsTo('%s', (input) => rewriteLinks(input, at('guides/intro'), moved, [], wiki), [
    ['[[setup]]', '[[manual/install]]'],
    ['[[setup#Linux|install it]]', '[[manual/install#Linux|install it]]'],
    ['[[/home|start]]', '[[eng/home|start]]'],
    ['[[setup]][[../home]]', '[[manual/install]][[eng/home]]'],
    ['| [[setup\\|s]] |', '| [[manual/install\\|s]] |'],
    ['![[setup]] `x` [[other]]', '![[manual/install]] `x` [[other]]'], // an embed of a page is a link: a move rewrites it
    ['```\n[[setup]]\n```', '```\n[[setup]]\n```'],
  ]);
});

describe('the wikilink-only scan agrees with the Markdown parser', () => {
  const parsed = (content: string) => {
    const md = getLinkParsers().linkify;
    const out: Wikilink[] = [];
    for (const b of md.parse(content, {})) for (const t of b.children ?? []) if (t.type === 'wikilink') out.push(t.meta as Wikilink);
    return out;
  };
  it.each([
    'plain [[a]] and [[b|B]] and [[c#h]]\n\n# Head [[d]]\n\n- item [[e]]\n  - nested [[f]]',
    '![[embed.png]] [[[x]]] [[a]][[b]] [[ ]] [[|x]] *[[em]]* **[[strong|s]]**',
    '> quote [[q]]\n\n1. [[one]]\n2. [[two]]\n\n---\n\n[[after rule]]',
    'a | b\n--- | ---\n[[x|y]] | z', // a table: not scanned
    '`[[code]]` [[real]]', // code: not scanned
    '    [[indented code]]\n\n[[real]]',
    'see [x](y) [[z]]',
    'line [[a\nb]] [[c]]',
  ])('%j', (content) => {
    const scan = scanWikilinksOnly(content);
    if (scan !== null) expect(scan).toEqual(parsed(content));
  });
  it('scans the common case and leaves the rest to the parser', () => {
    expect(scanWikilinksOnly('x [[a]] y')).toEqual([{ target: 'a', heading: null, label: null }]);
    expect(scanWikilinksOnly('a | b\n--- | ---\n[[x|y]] | z')).toBeNull();
    expect(scanWikilinksOnly('`[[code]]`')).toBeNull();
    expect(scanWikilinksOnly('see [x](y) [[z]]')).toBeNull();
  });
});

describe('wikilink scans are linear in the text', () => {
  // Each `[[` searched the whole rest of the text for `]]` before: 1,000,000 of them (2 MB)
  // read ~10^12 characters, hours. Bounded scans read it about once: milliseconds. The bound
  // leaves room for a loaded machine and still fails the quadratic scan by far. (markdown-it's
  // own costs on such text are bounded by the worker's deadline: test/api/render-bounds.test.ts.)
  const cases: Array<[string, string]> = [
    ['`[[` ×1M', '[['.repeat(1_000_000)],
    ['`[[x` ×500k', '[[x'.repeat(500_000)],
    ['`[[` ×1M, then `]]`', `${'[['.repeat(1_000_000)}]]`],
    ['`[[` and 2,000 characters ×1k', `[[${'x'.repeat(2000)}`.repeat(1000)],
  ];
  it.each(cases)('%s', (_name, content) => {
    const t = performance.now();
    expect(scanWikilinksOnly(content)).toEqual([]);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('still finds a wikilink after a million `[[`', () => {
    expect(scanWikilinksOnly(`${'[['.repeat(1_000_000)} [[a]]`)).toEqual([{ target: 'a', heading: null, label: null }]);
  });
});
