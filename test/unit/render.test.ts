import { describe, expect, it } from 'vitest';
import { mapsTo, namedRows } from '../support/cases.ts';
import hostile from './cases/render-hostile.json' with { type: 'json' };
import { extractLinks } from '../../src/domain/links/extract.ts';
import { headingId } from '../../src/domain/links/heading-id.ts';
import { appPageHref, renderMarkdown } from '../../src/domain/links/render.ts';
import type { PageRef } from '../../src/model.ts';

const FROM: PageRef = { space: 'team', path: 'notes/page' };
const BASE = 'https://kspace.example';
/** Every target exists except paths ending in `missing`. */
const existing = (refs: PageRef[]) => new Set(refs.filter((r) => !r.path.endsWith('missing')).map((r) => `${r.space}/${r.path}`));
const render = (content: string) => renderMarkdown({ content, from: FROM, baseUrls: [BASE], existing }).trim();

const ALLOWED_TAGS = new Set([
  'p',
  'a',
  'img',
  'code',
  'pre',
  'em',
  'strong',
  's',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'hr',
  'br',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);
const ALLOWED_ATTRS = new Set(['href', 'src', 'alt', 'title', 'id', 'class', 'rel', 'data-create', 'start']);

/** Only harmless elements and attributes; no URL that could run script or fetch from elsewhere. */
function expectInert(html: string): void {
  for (const m of html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>/g)) {
    expect(ALLOWED_TAGS, m[0]).toContain(m[1].toLowerCase());
    for (const a of m[2].matchAll(/([^\s=]+)(?:="([^"]*)")?/g)) {
      expect(ALLOWED_ATTRS, m[0]).toContain(a[1].toLowerCase());
      if (a[1] === 'href') expect(a[2]).not.toMatch(/^\s*(?:javascript|vbscript|data|file):/i);
      if (a[1] === 'src') expect(a[2]).toMatch(/^(?:data:image\/(?:png|gif|jpeg|webp);|\/files\/[^/]+\/[^/]+\/)/);
    }
  }
}

describe('renderMarkdown: hostile Markdown stays inert', () => {
  // The rows whose output is checked by a pattern; the others (cases/render-hostile.json) by a substring.
  const patterns: Array<[string, string, RegExp]> = [
    ['javascript with spaces', '[a](<java script:alert(1)>)', /^<p><a href="\/app\/p\/team\/notes\/java%20script%3Aalert\(1\)"/],
    ['reference to javascript', '[r][x]\n\n[x]: javascript:alert(1)', /^<p>\[r\]\[x\]<\/p>/],
    ['reference to data', '[r][x]\n\n[x]: data:text/html,hi', /^<p>\[r\]\[x\]<\/p>/],
  ];
  const cases = [...namedRows<[md: string, expected: string]>(hostile), ...patterns];
  it.each(cases)('%s', (_name, md, expected) => {
    const html = render(md);
    if (typeof expected === 'string') expect(html).toContain(expected);
    else expect(html).toMatch(expected);
    expectInert(html);
  });
});

describe('renderMarkdown: images load only attached files and data:', () => {
  // FROM is team/notes/page: its own files are /files/team/notes/page/<name>.
  const img = (src: string, alt = 'i') => `<p><img src="${src}" alt="${alt}"></p>`;
  const link = (href: string, label = 'i') =>
    `<p><a href="${href}" rel="noopener noreferrer nofollow" class="external-image">${label}</a></p>`;
  const cases: Array<[string, string, string]> = [
    ['an attached file by its address', '![i](/files/team/notes/page/a.png)', img('/files/team/notes/page/a.png')],
    ["another page's file", '![i](/files/wiki/home/b.png)', img('/files/wiki/home/b.png')],
    ['a file under the base URL', `![i](${BASE}/files/wiki/home/b.png)`, img('/files/wiki/home/b.png')],
    ["the page's own file, relative", '![i](files/a.png)', img('/files/team/notes/page/a.png')],
    ["the page's own file, ./relative", '![i](./files/a.png?v=2)', img('/files/team/notes/page/a.png')],
    ['data: png', '![i](data:image/png;base64,AAAA)', img('data:image/png;base64,AAAA')],
    ['data: webp', '![i](data:image/webp;base64,AAAA)', img('data:image/webp;base64,AAAA')],
    ['a space export', '![i](/spaces/team/export)', link('/spaces/team/export')],
    ['a zip export with a query', '![x](/spaces/team/export?format=zip)', link('/spaces/team/export?format=zip', 'x')],
    ['an API page read', '![i](/pages/team/secret)', link('/pages/team/secret')],
    ['the admin API', '![i](/admin/backup)', link('/admin/backup')],
    ['the same origin in full', `![i](${BASE}/spaces/team/export)`, link(`${BASE}/spaces/team/export`)],
    ['a relative address that is no file', '![i](../spaces/team/export)', link('../spaces/team/export')],
    ['a bare relative name', '![i](pic.png)', link('pic.png')],
    ['/files/ climbing out with ..', '![i](/files/a/b/../../../spaces/team/export)', link('/files/a/b/../../../spaces/team/export')],
    ['/files/ climbing out with %2e%2e', '![i](/files/a/b/%2e%2e/%2E%2e/%2e./spaces/x)', link('/files/a/b/%2e%2e/%2E%2e/%2e./spaces/x')],
    ['relative file named ..', '![i](files/..)', link('files/..')],
    ['relative file named %2e%2e', '![i](files/%2e%2e)', link('files/%2e%2e')],
    ['/files/ without a page', '![i](/files/team/a.png)', link('/files/team/a.png')],
    ['another origin', '![i](https://evil.example/x.png)', link('https://evil.example/x.png')],
    ['no alt text: the address as the label', '![](/spaces/team/export)', link('/spaces/team/export', '/spaces/team/export')],
  ];
  it.each(cases)('%s', (_name, md, expected) => {
    const html = render(md);
    expect(html).toBe(expected);
    expectInert(html);
  });
});

describe('renderMarkdown: links to pages', () => {
  // Every link form the link index recognises becomes an app address; the index must agree.
  const cases: Array<[string, string, PageRef, string]> = [
    ['relative', '[x](other)', { space: 'team', path: 'notes/other' }, ''],
    ['relative .md', '[x](other.md)', { space: 'team', path: 'notes/other' }, ''],
    ['dot segments', '[x](./a/../b)', { space: 'team', path: 'notes/b' }, ''],
    ['parent folder', '[x](../top)', { space: 'team', path: 'top' }, ''],
    ['/pages/ absolute', '[x](/pages/wiki/home)', { space: 'wiki', path: 'home' }, ''],
    ['base URL', `[x](${BASE}/pages/wiki/a/b)`, { space: 'wiki', path: 'a/b' }, ''],
    ['bare base URL', `see ${BASE}/pages/wiki/bare`, { space: 'wiki', path: 'bare' }, ''],
    ['autolink base URL', `<${BASE}/pages/wiki/auto>`, { space: 'wiki', path: 'auto' }, ''],
    ['reference link', '[x][r]\n\n[r]: ref-target', { space: 'team', path: 'notes/ref-target' }, ''],
    ['collapsed reference', '[ref-target][]\n\n[ref-target]: /pages/team/collapsed', { space: 'team', path: 'collapsed' }, ''],
    ['percent-encoded', '[x](my%20page)', { space: 'team', path: 'notes/my page' }, ''],
    ['personal space', '[x](/pages/~ann/diary)', { space: '~ann', path: 'diary' }, ''],
    ['fragment', '[x](other#Some Section)'.replace(' Section', '-Section'), { space: 'team', path: 'notes/other' }, '#h-some-section'],
    ['query dropped', '[x](other?a=1)', { space: 'team', path: 'notes/other' }, ''],
  ];
  it.each(cases)('%s', (_name, md, target, fragment) => {
    expect(extractLinks(md, FROM, [BASE])).toEqual([target]);
    const html = render(md);
    expect(html).toContain(`<a href="${appPageHref(target)}${fragment}" class="internal">`);
  });

  it('marks links to absent pages broken and offers to create them', () => {
    const html = render('[x](folder/missing) and [y](/pages/~ann/b%20missing)');
    expect(html).toContain(
      '<a href="/app/p/team/notes/folder/missing" class="internal broken" data-create="/app/new?space=team&amp;path=notes%2Ffolder%2Fmissing">x</a>',
    );
    expect(html).toContain('href="/app/p/~ann/b%20missing" class="internal broken" data-create="/app/new?space=~ann&amp;path=b%20missing"');
  });

  it('asks once for all targets', () => {
    const asked: PageRef[][] = [];
    renderMarkdown({ content: '[a](a) [b](b) [c](missing)', from: FROM, existing: (t) => (asked.push(t), new Set()) });
    expect(asked).toHaveLength(1);
    expect(asked[0].map((r) => r.path)).toEqual(['notes/a', 'notes/b', 'notes/missing']);
  });

  it('leaves links that name no page alone and same-page anchors point at heading ids', () => {
    expect(render('[x](../../too-far)')).toContain('<a href="../../too-far">x</a>');
    expect(render('[x](#Intro)')).toContain('<a href="#h-intro">x</a>');
    expect(render('`[x](other)`')).toBe('<p><code>[x](other)</code></p>');
  });
});

describe('tables', () => {
  it('aligns cells with classes, never a style attribute (the CSP allows no inline styles)', () => {
    const html = render('| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |');
    expect(html).toContain('<th class="align-left">a</th>');
    expect(html).toContain('<td class="align-center">2</td>');
    expect(html).toContain('<td class="align-right">3</td>');
    expect(html).not.toContain('style=');
    expectInert(html);
  });
});

describe('headings', () => {
  mapsTo('%s → %s', headingId, [
    ['Hello, World!', 'h-hello-world'],
    ['', 'h-section'],
    ['a  b', 'h-a-b'],
    ['<x>', 'h-x'],
  ]);

  it('prefixes ids with h- and keeps them unique', () => {
    expect(render('# Title\n## Title\n### `code` here!\n# Ünïcode wörds')).toBe(
      '<h1 id="h-title">Title</h1>\n<h2 id="h-title-2">Title</h2>\n<h3 id="h-code-here"><code>code</code> here!</h3>\n<h1 id="h-ünïcode-wörds">Ünïcode wörds</h1>',
    );
  });
});

describe('renderMarkdown: task lists', () => {
  it('renders `- [ ]` and `- [x]` items as checkboxes labelled by their text, with their source line', () => {
    const html = render('Intro\n\n- [ ] Write the **plan**\n- [x] Ship [[it]]\n- [y] not a task\n- plain');
    expect(html).toContain(
      '<li class="task-item"><label class="task"><input type="checkbox" class="task" data-line="2"> Write the <strong>plan</strong></label></li>',
    );
    expect(html).toMatch(
      /<li class="task-item"><label class="task"><input type="checkbox" class="task" checked data-line="3"> Ship <a [^>]*>it<\/a><\/label><\/li>/,
    );
    expect(html).toContain('<li>[y] not a task</li>');
    expect(html).toContain('<li>plain</li>');
    // Text that only looks like a task stays text; markup in a task's text stays escaped.
    expect(render('[ ] not in a list')).toBe('<p>[ ] not in a list</p>');
    expect(render('- [ ] <b>x</b>')).toContain('&lt;b&gt;x&lt;/b&gt;</label>');
  });

  it('stays linear: 20,000 tasks render in well under the time a quadratic pass would take', () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `- [${i % 2 ? 'x' : ' '}] task ${i}`).join('\n');
    const t0 = performance.now();
    const html = render(content);
    expect(html.match(/type="checkbox"/g)?.length).toBe(20_000);
    expect(performance.now() - t0).toBeLessThan(10_000); // generous: a loaded machine; quadratic is minutes
  });
});
