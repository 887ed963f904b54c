import { describe, expect, it } from 'vitest';
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
  const cases: Array<[string, string, string | RegExp]> = [
    ['script block', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
    ['script inline', 'a <script src="/x.js"></script> b', '<p>a &lt;script src=&quot;/x.js&quot;&gt;&lt;/script&gt; b</p>'],
    ['img onerror', 'hi <img src=x onerror=alert(1)> there', '<p>hi &lt;img src=x onerror=alert(1)&gt; there</p>'],
    [
      'raw HTML block',
      '<div onclick="steal()">\n<iframe src="https://evil.example"></iframe>\n</div>',
      '&lt;div onclick=&quot;steal()&quot;&gt;',
    ],
    ['svg onload', '<svg onload=alert(1)>', '&lt;svg onload=alert(1)&gt;'],
    ['style tag', '<style>body{display:none}</style>', '&lt;style&gt;'],
    ['javascript link', '[a](javascript:alert(1))', '<p>[a](javascript:alert(1))</p>'],
    ['mixed-case javascript', '[a](JaVaScRiPt:alert(1))', '<p>[a](JaVaScRiPt:alert(1))</p>'],
    ['entity-encoded javascript', '[a](&#106;avascript:alert(1))', '<p>[a](javascript:alert(1))</p>'],
    ['javascript with spaces', '[a](<java script:alert(1)>)', /^<p><a href="\/app\/p\/team\/notes\/java%20script%3Aalert\(1\)"/],
    ['vbscript link', '[v](vbscript:msgbox)', '<p>[v](vbscript:msgbox)</p>'],
    ['data: text link', '[d](data:text/html;base64,PHNjcmlwdD4=)', '<p>[d](data:text/html;base64,PHNjcmlwdD4=)</p>'],
    ['data: image link (links are never data:)', '[d](data:image/png;base64,AAAA)', '<p>d</p>'],
    ['javascript image', '![i](javascript:alert(1))', '<p>![i](javascript:alert(1))</p>'],
    ['vbscript image', '![i](vbscript:x)', '<p>![i](vbscript:x)</p>'],
    ['data: svg image', '![i](data:image/svg+xml;base64,PHN2Zz4=)', '<p>![i](data:image/svg+xml;base64,PHN2Zz4=)</p>'],
    ['data: png image stays', '![d](data:image/png;base64,iVBOR)', '<p><img src="data:image/png;base64,iVBOR" alt="d"></p>'],
    [
      'external image becomes a link',
      '![ext](https://evil.example/x.png "t")',
      '<p><a href="https://evil.example/x.png" rel="noopener noreferrer nofollow" class="external-image">ext</a></p>',
    ],
    ['protocol-relative image becomes a link', '![p](//evil.example/x.png)', 'class="external-image">p</a>'],
    ['javascript autolink', '<javascript:alert(1)>', '<p>&lt;javascript:alert(1)&gt;</p>'],
    [
      'https autolink',
      '<https://ex.example>',
      '<p><a href="https://ex.example" rel="noopener noreferrer nofollow">https://ex.example</a></p>',
    ],
    ['bare URL', 'see https://ex.example/x', '<a href="https://ex.example/x" rel="noopener noreferrer nofollow">https://ex.example/x</a>'],
    ['mailto', '[mail](mailto:a@b.example)', '<a href="mailto:a@b.example" rel="noopener noreferrer nofollow">mail</a>'],
    ['ftp stays text', '[f](ftp://x.example/f)', '<p>[f](ftp://x.example/f)</p>'],
    ['quotes in a title', '[t](https://x.example "a\\" onmouseover=\\"x")', 'title="a&quot; onmouseover=&quot;x"'],
    ['reference to javascript', '[r][x]\n\n[x]: javascript:alert(1)', /^<p>\[r\]\[x\]<\/p>/],
    ['reference to data', '[r][x]\n\n[x]: data:text/html,hi', /^<p>\[r\]\[x\]<\/p>/],
  ];
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
  it('prefixes ids with h- and keeps them unique', () => {
    expect(render('# Title\n## Title\n### `code` here!\n# Ünïcode wörds')).toBe(
      '<h1 id="h-title">Title</h1>\n<h2 id="h-title-2">Title</h2>\n<h3 id="h-code-here"><code>code</code> here!</h3>\n<h1 id="h-ünïcode-wörds">Ünïcode wörds</h1>',
    );
  });
  it.each([
    ['Hello, World!', 'h-hello-world'],
    ['', 'h-section'],
    ['a  b', 'h-a-b'],
    ['<x>', 'h-x'],
  ])('%s → %s', (text, id) => {
    expect(headingId(text)).toBe(id);
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
