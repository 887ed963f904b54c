// The per-file rules of reading a foreign folder (docs/export-import.md "Reports"): reserved
// names escaped one-to-one, bad frontmatter kept as text, invalid UTF-8 reported, and the
// folder's reports apart (errors, warnings, files left out).
import { describe, expect, it } from 'vitest';
import {
  decodeNote,
  escapeReservedPath,
  fileOfPage,
  fileToPage,
  folderToBundle,
  pageToFile,
  readNote,
  unescapeReservedPath,
} from '../../src/domain/bundles/markdown-folder.ts';
import { checkPagePath } from '../../src/domain/paths.ts';

describe('reserved names get one more `_`, undone on export', () => {
  it.each([
    ['links', 'links_'],
    ['a/files', 'a/files_'],
    ['acl', 'acl_'],
    ['x/metadata', 'x/metadata_'],
    ['revisions', 'revisions_'],
    ['links_', 'links__'],
    ['a/files__', 'a/files___'],
    ['a/revisions/3', 'a/revisions/3_'],
    ['revisions/12_', 'revisions/12__'],
    // not reserved: kept
    ['Links', 'Links'],
    ['links/x', 'links/x'],
    ['mylinks', 'mylinks'],
    ['links_x', 'links_x'],
    ['a/revisions/3x', 'a/revisions/3x'],
    ['a/3', 'a/3'],
    ['_links', '_links'],
  ])('%s → %s', (file, page) => {
    expect(escapeReservedPath(file)).toBe(page);
    expect(checkPagePath(page)).toBeNull();
    expect(unescapeReservedPath(page)).toBe(file);
    expect(fileOfPage(page)).toBe(`${file}.md`);
  });
});

describe('a note of an imported folder', () => {
  it.each<[string, string, string, Record<string, unknown>, string[]]>([
    [
      'bad YAML: kept as text, a warning',
      'bad.md',
      '---\na: [unclosed\n---\nbody',
      { path: 'bad', title: 'bad', content: '---\na: [unclosed\n---\nbody', metadata: {} },
      ['invalid_frontmatter'],
    ],
    ['a YAML list: kept as text, a warning', 'list.md', '---\n- a\n---\nbody', { content: '---\n- a\n---\nbody' }, ['invalid_frontmatter']],
    ['a YAML scalar: kept as text', 's.md', '---\njust text\n---\n', { content: '---\njust text\n---\n' }, ['invalid_frontmatter']],
    ['good YAML: properties, no warning', 'ok.md', '---\nn: 1\n---\nbody', { content: 'body', metadata: { n: 1 } }, []],
    ['a reserved name: escaped, titled by its name', 'x/links.md', 'text', { path: 'x/links_', title: 'links' }, ['reserved_name']],
    ['a reserved name with a title', 'files.md', '---\ntitle: My files\n---\n', { path: 'files_', title: 'My files' }, ['reserved_name']],
    ['both', 'acl.md', '---\n: :\n---\n', { path: 'acl_', title: 'acl' }, ['reserved_name', 'invalid_frontmatter']],
  ])('%s', (_name, path, text, page, codes) => {
    const r = readNote({ path, text });
    if ('code' in r) throw new Error(r.message);
    expect(r.page).toMatchObject(page);
    expect(r.warnings.map((w) => w.code)).toEqual(codes);
    for (const w of r.warnings) expect(w.path).toBe(path);
  });

  it('bad frontmatter stays an error where a note is not imported but synced (kspace sync keeps the file)', () => {
    expect(fileToPage({ path: 'bad.md', text: '---\na: [unclosed\n---\nbody' })).toMatchObject({ code: 'invalid_frontmatter' });
  });

  it('round-trips a page under an escaped path through its file', () => {
    const p = { path: 'a/links_', title: 'links', content: 'x', frontmatter: {}, metadata: {} };
    const f = pageToFile(p);
    expect(f.path).toBe('a/links.md');
    expect(fileToPage(f)).toEqual(p);
  });
});

describe('invalid UTF-8 is replaced and reported', () => {
  const b = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
  it.each<[string, Buffer, string, string | null]>([
    ['valid', b('héllo ✓'), 'héllo ✓', null],
    ['a BOM is kept for the page reader', b([0xef, 0xbb, 0xbf], 'x'), '\ufeffx', null],
    ['a U+FFFD written in the file', b('a\ufffdb'), 'a\ufffdb', null],
    [
      'one bad byte',
      b('ab\n', [0xff], 'c'),
      'ab\n\ufffdc',
      'not valid UTF-8: 1 invalid byte sequence replaced by U+FFFD, the first on line 2 (byte 3)',
    ],
    [
      'Latin-1 text',
      b('caf', [0xe9], ' cr', [0xe8], 'me'),
      'caf\ufffd cr\ufffdme',
      'not valid UTF-8: 2 invalid byte sequences replaced by U+FFFD, the first on line 1 (byte 3)',
    ],
    [
      'a cut sequence at the end',
      b('é', [0xe2, 0x82]),
      'é\ufffd',
      'not valid UTF-8: 1 invalid byte sequence replaced by U+FFFD, the first on line 1 (byte 2)',
    ],
    [
      'a written U+FFFD before a bad byte',
      b('\ufffd', [0xc0]),
      '\ufffd\ufffd',
      'not valid UTF-8: 1 invalid byte sequence replaced by U+FFFD, the first on line 1 (byte 3)',
    ],
  ])('%s', (_name, bytes, text, problem) => {
    expect(decodeNote(bytes)).toEqual({ text, problem });
  });
});

describe('a folder with reserved names', () => {
  it('links to the note under an escaped path still reach it; the reports are apart', () => {
    const r = folderToBundle(
      [
        { path: 'Home.md', text: '[[links]] [[links|L]] [[x/files]] [m](links.md) [n](<x/files.md#top>) `[c](links.md)` [[links_]]' },
        { path: 'links.md', text: 'the links note' },
        { path: 'links_.md', text: 'a vault note named links_' },
        { path: 'x/files.md', text: 'back to [[Home]] and [up](../links.md)' },
        { path: 'bad.md', text: '---\n[\n---\n' },
        { path: 'a:b.md', text: 'refused' },
      ],
      undefined,
      new Map([['unused.png', new Uint8Array([1])]]),
    );
    expect(r.pages.map((p) => `${p.path} (${p.title})`)).toEqual([
      'Home (Home)',
      'bad (bad)',
      'links_ (links)',
      'links__ (links_)',
      'x/files_ (files)',
    ]);
    const home = r.pages.find((p) => p.path === 'Home')!.content;
    // [[links]] resolves by its title and is left; [[x/files]] names a path no page has: respelled.
    expect(home).toBe(
      '[[links]] [[links|L]] [[x/files_|x/files]] [m](links_.md) [n](<x/files_.md#top>) `[c](links.md)` [[links__|links_]]',
    );
    expect(r.pages.find((p) => p.path === 'x/files_')!.content).toBe('back to [[Home]] and [up](../links_.md)');
    expect(r.errors.map((e) => `${e.path} ${e.code}`)).toEqual(['a:b.md validation_failed']);
    expect(r.warnings.map((e) => `${e.path} ${e.code}`)).toEqual([
      'bad.md invalid_frontmatter',
      'links.md reserved_name',
      'links_.md reserved_name',
      'x/files.md reserved_name',
    ]);
    expect(r.leftOut.map((e) => `${e.path} ${e.code}`)).toEqual(['unused.png not_referenced']);
  });
});
