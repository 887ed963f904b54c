import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  attachReferencedFiles,
  fileToPage,
  folderToBundle,
  isSkipped,
  pageToFile,
  pageToNoteFile,
  readNote,
  placeAttachments,
} from '../../src/domain/bundles/markdown-folder.ts';
import { linksFromPlaces, linksToPlaces } from '../../src/domain/bundles/folder-files.ts';
import { parseSimpleYaml } from '../../src/domain/bundles/simple-yaml.ts';
import type { BundlePage } from '../../src/domain/bundles/bundle.ts';

const page = (path: string, content = '', title = path): BundlePage => ({ path, title, content, frontmatter: {}, metadata: {} });

describe('the frontmatter fast path answers what the yaml library answers, or leaves it to it', () => {
  it.each([
    'title: Hello\ncount: 3\nratio: 1.5\nneg: -2\nexp: 1e3\ndot: .5\non: true\noff: FALSE\nnothing:\ntilde: ~',
    'date: 2024-01-05\ntime: 2024-01-05T10:00:00Z\nzip: 007\nunderscored: 1_000\nversion: 1.2.3',
    "tags: [a, b, 3, true]\nempty: []\nquoted: 'it''s'\ndq: \"plain\"\nDue date: soon",
    'list:\n  - one\n  - 2\n  - false\nafter: x',
    'list:\n- a\n- b',
    'url: https://example.com/a#b\nhash: a#b',
    // left to the library:
    'comment: value # note',
    'nested:\n  a: 1',
    'multi: |\n  text',
    'hex: 0x1F',
    "flow: ['a, b', c]",
    'esc: "a\\nb"',
    'dup: 1\ndup: 2',
    'star: *ref',
    'key: - x',
    'inf: .inf',
    'q: "unterminated',
  ])('%j', (text) => {
    const fast = parseSimpleYaml(text);
    if (fast !== null) expect(fast).toEqual(YAML.parse(text));
  });
  it('takes the common forms and refuses the rest', () => {
    expect(parseSimpleYaml('a: 1\nb: [x, y]')).toEqual({ a: 1, b: ['x', 'y'] });
    for (const t of ['comment: value # note', 'nested:\n  a: 1', 'multi: |\n  text', 'hex: 0x1F', 'dup: 1\ndup: 2'])
      expect(parseSimpleYaml(t)).toBeNull();
  });
});

describe('a page as a file and back', () => {
  it.each<[string, BundlePage]>([
    ['plain', page('a/b', '# B\n')],
    [
      'metadata of every type',
      { ...page('m', 'x'), metadata: { s: 'str', n: 1.5, b: false, d: '2025-01-02', l: ['a', 2, true], empty: [] } },
    ],
    [
      'frontmatter and colliding metadata keys',
      { ...page('f', 'y'), frontmatter: { title: 'fm', n: null, deep: { a: [1] } }, metadata: { title: 'meta', kspace: 'k' } },
    ],
    ['content that looks like frontmatter', page('c', '---\nnot: yaml\n---\n')],
    ['content starting with blank lines and CRLF', page('crlf', '\n\r\nline\r\n')],
    ['a title YAML would misread', page('t', 'x', 'yes: no # really')],
    ['a path ending in .md', page('notes.md', 'n')],
  ])('%s', (_name, p) => {
    const f = pageToFile(p);
    expect(f.path).toBe(`${p.path}.md`);
    expect(fileToPage(f)).toEqual(p);
  });

  it.each<[string, BundlePage, string, object | null]>([
    ['titled by its file name: the content alone', page('a/b', '# B\n', 'b'), '# B\n', null],
    ['a title that is not the file name: kept', page('a/b', 'x', 'Bee'), 'x', { title: 'Bee' }],
    ['metadata: its properties', { ...page('m', 'x', 'm'), metadata: { s: 'str', n: 1 } }, '---\ns: str\nn: 1\n---\nx', null],
    [
      'frontmatter that reads as metadata, and a key both have',
      {
        ...page('f', 'y', 'f'),
        frontmatter: { title: 'fm', n: null, deep: { a: [1] }, k: 'fm' },
        metadata: { title: 'meta', kspace: 'k', k: 2 },
      },
      '---\ntitle: meta\nkspace: k\nk: 2\nn: null\ndeep:\n  a:\n    - 1\n---\ny',
      { frontmatter: { title: 'fm', k: 'fm' } },
    ],
    [
      'frontmatter that reads as metadata',
      { ...page('f', 'y', 'f'), frontmatter: { description: 'A type', draft: true } },
      '---\ndescription: A type\ndraft: true\n---\ny',
      { frontmatterKeys: ['description', 'draft'] },
    ],
    ['content that looks like frontmatter', page('c', '---\nnot: yaml\n---\n', 'c'), '---\n{}\n---\n---\nnot: yaml\n---\n', null],
    ['content starting with a byte-order mark', page('c', '\uFEFFx', 'c'), '---\n{}\n---\n\uFEFFx', null],
    ['a reserved name', page('x/links_', 'r', 'links'), 'r', null],
  ])('as an exported note, with no added properties: %s', (_name, p, text, kept) => {
    const n = pageToNoteFile(p);
    expect(n.file.text).toBe(text);
    expect(n.kept).toEqual(kept);
    const back = readNote(n.file, false, n.kept ?? {});
    expect('code' in back ? back : back.page).toEqual(p);
  });

  it('reads foreign properties: valid metadata values are metadata, the rest frontmatter; no title → the file name', () => {
    const p = fileToPage({ path: 'Notes/My Note.md', text: '---\ntags: [x]\nDue date: 2024-01-01\nobj:\n  a: 1\nnum: 2\n---\nbody' });
    expect(p).toEqual({
      path: 'Notes/My Note',
      title: 'My Note',
      content: 'body',
      metadata: { tags: ['x'], num: 2 },
      frontmatter: { 'Due date': '2024-01-01', obj: { a: 1 } },
    });
    expect(fileToPage({ path: 'x.md', text: '---\n---\nempty frontmatter' })).toMatchObject({
      content: 'empty frontmatter',
      metadata: {},
      frontmatter: {},
    });
    expect(fileToPage({ path: 'bad.md', text: '---\n[: x\n---\n' })).toMatchObject({ code: 'invalid_frontmatter' });
    // A note whose name a page path refuses is reported with a code, not lost silently (issue 34, L7).
    expect(fileToPage({ path: 'Meeting 10:30.md', text: 'x' })).toMatchObject({ path: 'Meeting 10:30.md', code: 'validation_failed' });
    expect(fileToPage({ path: 'a\\b.md', text: 'x' })).toMatchObject({ code: 'validation_failed' });
    expect(fileToPage({ path: 'soft\u00ad.md', text: 'x' })).toMatchObject({ code: 'validation_failed' });
    expect(fileToPage({ path: 'x/files.md', text: '' })).toMatchObject({ path: 'x/files_', title: 'files' }); // folder-reports.test.ts
  });

  it('skips dot-folders and dot-files', () => {
    expect(['.obsidian/app.json', 'a/.git/x.md', '.kspace/space.json', 'a/b.md'].map(isSkipped)).toEqual([true, true, true, false]);
  });
});

describe('foreign folders', () => {
  it('respells wikilinks kspace would read otherwise, keeping how they read', () => {
    const { pages } = folderToBundle([
      { path: 'Home.md', text: '[[Deep]] [[Deep|d]] [[Deep#H]] [[Missing]] [[sub/Deep]]' },
      { path: 'a/sub/Deep.md', text: '---\ntitle: Other title\n---\n[[Home]]' },
    ]);
    expect(pages.find((p) => p.path === 'Home')!.content).toBe(
      '[[a/sub/Deep|Deep]] [[a/sub/Deep|d]] [[a/sub/Deep#H|Deep]] [[Missing]] [[a/sub/Deep|sub/Deep]]',
    );
    expect(pages.find((p) => p.path === 'a/sub/Deep')!.content).toBe('[[Home]]');
  });

  it('attaches the files notes embed or link to, under files/<name>', () => {
    const pages = [
      page('n/a', '![[pic.png]] ![x](../img/pic.png) ![y](img2.png) [doc](<my doc.pdf>) `![[code.png]]`\n```\n![[pic.png]]\n```'),
      page('b', 'no files'),
    ];
    const bins = new Map<string, Uint8Array>([
      ['img/pic.png', new Uint8Array([1])],
      ['n/pic.png', new Uint8Array([2])],
      ['n/img2.png', new Uint8Array([3])],
      ['n/my doc.pdf', new Uint8Array([4])],
    ]);
    const files = attachReferencedFiles(pages, bins);
    expect(files.map((f) => `${f.path} ${f.name} <- ${f.from}`)).toEqual([
      'n/a pic.png <- n/pic.png',
      'n/a pic-2.png <- img/pic.png',
      'n/a img2.png <- n/img2.png',
      'n/a my doc.pdf <- n/my doc.pdf',
    ]);
    expect(pages[0].content).toBe(
      '![pic.png](files/pic.png) ![x](files/pic-2.png) ![y](files/img2.png) [doc](files/my%20doc.pdf) `![[code.png]]`\n```\n![[pic.png]]\n```',
    );
  });

  it('keeps inline code, sizes and hints, finds table-cell embeds and bare file names anywhere (issue 39)', () => {
    const pages = [
      page(
        'n/a',
        [
          'Write `![[pic.png]]` or ``![[pic.png|100]]``.',
          '![[pic.png|100x145]] ![[logo.svg#icon]]',
          '| a |\n| - |\n| ![[pic.png\\|100]] |',
          '![shot](shot.png)',
        ].join('\n\n'),
      ),
    ];
    const bins = new Map<string, Uint8Array>([
      ['Attachments/pic.png', new Uint8Array([1])],
      ['Attachments/icons/logo.svg', new Uint8Array([2])],
      ['Attachments/shot.png', new Uint8Array([3])],
    ]);
    const files = attachReferencedFiles(pages, bins);
    expect(files.map((f) => f.from)).toEqual(['Attachments/pic.png', 'Attachments/icons/logo.svg', 'Attachments/shot.png']);
    expect(pages[0].content).toBe(
      [
        'Write `![[pic.png]]` or ``![[pic.png|100]]``.',
        '![pic.png|100x145](files/pic.png) ![logo.svg](files/logo.svg#icon)',
        '| a |\n| - |\n| ![pic.png\\|100](files/pic.png) |',
        '![shot](files/shot.png)',
      ].join('\n\n'),
    );
  });

  it('attaches the file of a wikilink to a file, respelled as a link to it (issue 39: the vault bench)', () => {
    const pages = [
      page('n/a', '[[shot.png|see screenshot]] [[Figure 1.png]] [[note.md]] [[missing.png]] `[[shot.png]]`\n\n| [[shot.png\\|x]] |'),
    ];
    const bins = new Map<string, Uint8Array>([
      ['Attachments/shot.png', new Uint8Array([1])],
      ['n/Figure 1.png', new Uint8Array([2])],
    ]);
    const files = attachReferencedFiles(pages, bins);
    expect(files.map((f) => `${f.name} <- ${f.from}`)).toEqual(['shot.png <- Attachments/shot.png', 'Figure 1.png <- n/Figure 1.png']);
    expect(pages[0].content).toBe(
      '[see screenshot](files/shot.png) [Figure 1.png](files/Figure%201.png) [[note.md]] [[missing.png]] `[[shot.png]]`\n\n| [x](files/shot.png) |',
    );
  });

  it('reads a destination with parentheses, and writes them encoded so no rewriter stops at them (the vault bench)', () => {
    const pages = [page('n/a', '![[clip (1968).ogg]] ![x](pic%20(1).png) [doc](<my (draft).pdf>)')];
    const bins = new Map<string, Uint8Array>([
      ['Attachments/audio/clip (1968).ogg', new Uint8Array([1])],
      ['Attachments/pic (1).png', new Uint8Array([2])],
      ['n/my (draft).pdf', new Uint8Array([3])],
    ]);
    expect(attachReferencedFiles(pages, bins).map((f) => f.name)).toEqual(['clip (1968).ogg', 'pic (1).png', 'my (draft).pdf']);
    expect(pages[0].content).toBe(
      '![clip (1968).ogg](files/clip%20%281968%29.ogg) ![x](files/pic%20%281%29.png) [doc](files/my%20%28draft%29.pdf)',
    );
  });

  it('places each attached file once: where its vault had it, else in attachments/, another file of a name taken apart', () => {
    const f = (path: string, name: string, sha256: string, source?: string) => ({ path, name, contentType: 'image/png', sha256, source });
    expect(
      placeAttachments([
        f('g/a', 'x.png', '1'),
        f('g/b', 'x.png', '2'),
        f('g/c', 'x.png', '1'),
        f('top', 'y.txt', '3'),
        f('v/a', 'pic.png', '4', 'Assets/pic.png'),
        f('v/b', 'pic.png', '4', 'Assets/pic.png'),
        f('v/c', 'pic.png', '5', 'assets/PIC.png'), // another file where the first is, on a disk without case
        f('v/d', 'other.png', '4'), // the same bytes as the vault's: written once, there
        f('a', 'Attachments', '6', 'x:y/z.png'),
      ]).map((p) => p.file),
    ).toEqual([
      'attachments/x.png',
      'attachments/x-2.png',
      'attachments/x.png',
      'attachments/y.txt',
      'Assets/pic.png',
      'Assets/pic.png',
      'attachments/pic.png',
      'Assets/pic.png',
      'x%3Ay/z.png',
    ]);
  });

  it.each<[string, string, string, string]>([
    ['a note at the root', 'Home.md', '![p](files/pic.png)', '![p](Assets/pic.png)'],
    ['a note in a folder', 'a/b/N.md', '![p](files/pic.png)', '![p](../../Assets/pic.png)'],
    ['beside its file', 'Assets/N.md', '![p](files/pic.png)', '![p](pic.png)'],
    ['a size, a hint, a table cell', 'a/N.md', '![pic.png\\|100](files/pic.png#icon)', '![pic.png\\|100](../Assets/pic.png#icon)'],
    ['./ and an encoded name', 'N.md', '[d](./files/my%20doc.pdf)', '[d](./My%20Files/my%20doc.pdf)'],
    ['angle brackets', 'a/N.md', '[d](<files/my doc.pdf>)', '[d](<../My%20Files/my doc.pdf>)'],
    ['another name at its place', 'N.md', '![x](files/x.png)', '![x](attachments/x-2.png)'],
    [
      'parentheses in the name',
      'a/N.md',
      '![p](files/p(1).png) ![q](files/p%281%29.png)',
      '![p](../attachments/p(1).png) ![q](../attachments/p%281%29.png)',
    ],
    ['a file the page does not have, code', 'N.md', '![q](files/q.png) `![p](files/pic.png)`\n```\n![p](files/pic.png)\n```', null!],
  ])('points links at the shared places and back: %s', (_name, note, content, exported) => {
    const places = new Map([
      ['pic.png', 'Assets/pic.png'],
      ['my doc.pdf', 'My Files/my doc.pdf'],
      ['x.png', 'attachments/x-2.png'],
      ['p(1).png', 'attachments/p(1).png'],
    ]);
    const out = linksToPlaces(content, note, places);
    expect(out).toBe(exported ?? content);
    expect(linksFromPlaces(out, note, new Map([...places].map(([n, p]) => [p, n])))).toBe(content);
  });
});

describe('exported file names (issue 34, L7)', () => {
  it("write ':' and '\\' of a page stored before the path rule, and of a file name, so Windows reads no separator", () => {
    const page = { path: 'old/10:30\\x', title: 'T', content: '', frontmatter: {}, metadata: {} };
    expect(pageToFile(page).path).toBe('old/10%3A30%5Cx.md');
    expect(placeAttachments([{ path: 'old/a:b', name: 'shot 10:30.png', contentType: 'image/png', sha256: 'x' }])[0].file).toBe(
      'attachments/shot 10%3A30.png',
    );
    expect(pageToFile({ ...page, path: 'plain/name' }).path).toBe('plain/name.md');
  });
});
