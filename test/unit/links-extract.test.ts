import { afterEach, describe, expect, it, vi } from 'vitest';
import { mapsTo } from '../support/cases.ts';

import MarkdownIt from 'markdown-it';
import { extractLinks, normalizeLinkFast, resolveLinkTarget } from '../../src/domain/links/extract.ts';
import { rng } from '../../scripts/lib/corpus.ts';

const FROM = { space: 's', path: 'a/b/c' };
const BASES = ['http://127.0.0.1:8080', 'https://wiki.example/kspace/'];
const ref = (path: string, space = 's') => ({ space, path });

describe('resolveLinkTarget', () => {
  mapsTo('%s → %o', (href) => resolveLinkTarget(href, FROM, BASES), [
    // absolute
    ['/pages/s/x', ref('x')],
    ['/pages/other/x/y', ref('x/y', 'other')],
    ['/pages/~alice/notes', ref('notes', '~alice')],
    ['/pages/%7Ealice/notes', ref('notes', '~alice')],
    ['/pages/s/a/../x', ref('x')],
    ['/pages/s/a/./x', ref('a/x')],
    // relative, against the folder of a/b/c
    ['./d', ref('a/b/d')],
    ['../d', ref('a/d')],
    ['../../d', ref('d')],
    ['d/e', ref('a/b/d/e')],
    ['d', ref('a/b/d')],
    ['./d/../e', ref('a/b/e')],
    ['./c', ref('a/b/c')],
    ['c', ref('a/b/c')],
    // fragments, queries, .md
    ['/pages/s/x#frag', ref('x')],
    ['/pages/s/x?q=1', ref('x')],
    ['/pages/s/x?q=1#f', ref('x')],
    ['/pages/s/x#f?q', ref('x')],
    ['./d#section', ref('a/b/d')],
    ['d.md', ref('a/b/d')],
    ['/pages/s/x.md', ref('x')],
    ['/pages/s/x.md#f', ref('x')],
    ['/pages/s/x.mdx', ref('x.mdx')],
    ['/pages/s/x.MD', ref('x.MD')],
    // percent-encoding and Unicode
    ['/pages/s/hello%20world', ref('hello world')],
    ['/pages/s/caf%C3%A9', ref('café')],
    ['/pages/s/日本/ページ', ref('日本/ページ')],
    ['./café', ref('a/b/café')],
    ['/pages/s/%F0%9F%98%80', ref('😀')],
    ['/pages/s/a%2Fb', ref('a/b')],
    // base URLs, with and without a path prefix
    ['http://127.0.0.1:8080/pages/s/x', ref('x')],
    ['HTTP://127.0.0.1:8080/pages/s/x#f', ref('x')],
    ['http://127.0.0.1:8080/pages/s/x?q=/pages/t/y', ref('x')],
    ['https://wiki.example/kspace/pages/s/x.md', ref('x')],
    ['https://WIKI.example:443/kspace/pages/t/caf%C3%A9', ref('café', 't')],
    ['/kspace/pages/s/x', ref('x')],
    // page-path limits
    [`/pages/s/${'p'.repeat(512)}`, ref('p'.repeat(512))],
    [`/pages/s/${'é'.repeat(512)}`, ref('é'.repeat(512))],
    [`/pages/${'a'.repeat(63)}/x`, ref('x', 'a'.repeat(63))],
    [`/pages/~${'n'.repeat(64)}/x`, ref('x', `~${'n'.repeat(64)}`)],
    ['links/x', ref('a/b/links/x')],
  ]);

  it.each([
    // not internal
    ['https://example.com/pages/s/x', 'external host'],
    ['http://127.0.0.1:8081/pages/s/x', 'base URL with another port'],
    ['https://127.0.0.1:8080/pages/s/x', 'base URL with another scheme'],
    ['https://wiki.example/pages/s/x', 'base URL without its prefix'],
    ['https://wiki.example/kspacex/pages/s/x', 'prefix that only starts the same'],
    ['http://127.0.0.1:8080?x=/pages/s/x', 'pages only in the query'],
    ['ftp://127.0.0.1:8080/pages/s/x', 'other scheme'],
    ['mailto:someone@example.com', 'mailto'],
    ['javascript:alert(1)', 'javascript'],
    ['javascript:/pages/s/x', 'javascript with a pages path'],
    ['//127.0.0.1:8080/pages/s/x', 'protocol-relative'],
    ['//pages/s/x', 'protocol-relative to a host named pages'],
    ['http:/127.0.0.1:8080/pages/s/x', 'scheme without //'],
    ['#anchor', 'pure anchor'],
    ['?q=1', 'pure query'],
    ['', 'empty'],
    ['/spaces/s', 'other API path'],
    ['/pagesx/s/x', 'near-miss prefix'],
    ['/other/pages/s/x', 'unknown root-relative prefix'],
    // no page path
    ['/pages', 'pages root'],
    ['/pages/s', 'space without path'],
    ['/pages/s/', 'space with empty path'],
    ['/pages/s/#f', 'space with only a fragment'],
    // climbing out of the space root
    ['../../../d', 'relative above the root'],
    ['/pages/s/../x', 'absolute above the root'],
    ['/pages/s/a/../../x', 'absolute, deeper, above the root'],
    ['http://127.0.0.1:8080/pages/s/a/../../t/x', 'base URL above the root'],
    // folders and empty segments
    ['./', 'current folder'],
    ['.', 'dot'],
    ['..', 'dot-dot'],
    ['../', 'parent folder'],
    ['/pages/s/a/.', 'trailing dot'],
    ['/pages/s/a//b', 'empty segment'],
    ['/pages/s/a/', 'trailing slash'],
    ['/pages/s/.md', 'only .md'],
    ['/pages/s/a%2F..%2F..%2Fx', 'encoded dot-dot smuggled in a segment'],
    // encoding and characters
    ['/pages/s/bad%zz', 'invalid escape'],
    ['/pages/s/x%', 'dangling percent'],
    ['/pages/s/%C3', 'truncated UTF-8'],
    ['/pages/s/x%00y', 'NUL'],
    ['/pages/s/x%7F', 'DEL'],
    ['/pages/s/x%C2%85', 'C1 control'],
    [`/pages/s/${'p'.repeat(513)}`, 'path over 512 characters'],
    // space slugs
    ['/pages/Bad/x', 'uppercase slug'],
    ['/pages/-s/x', 'slug starting with a dash'],
    ['/pages/~/x', 'empty personal slug'],
    [`/pages/${'a'.repeat(64)}/x`, 'slug over 63 characters'],
    [`/pages/~${'n'.repeat(65)}/x`, 'personal name over 64 characters'],
    ['/pages/../x', 'dot-dot as slug'],
    // sub-resources are not pages
    ['/pages/s/a/links', 'links sub-resource'],
    ['./metadata', 'metadata sub-resource'],
    ['/pages/s/a/revisions', 'revisions sub-resource'],
    ['/pages/s/a/acl', 'acl sub-resource'],
  ])('%s → null (%s)', (href) => {
    expect(resolveLinkTarget(href, FROM, BASES)).toBeNull();
  });

  mapsTo('from a top-level page, %s → %o', (href: string) => resolveLinkTarget(href, ref('c'), BASES), [
    ['./d', ref('d')],
    ['d', ref('d')],
    ['../d', null],
  ]);

  it('resolves relative links in the linking page’s own space', () => {
    expect(resolveLinkTarget('../d', ref('x/y', '~bob'))).toEqual(ref('d', '~bob'));
  });

  it('ignores base-URL links when no base URLs are given', () => {
    expect(resolveLinkTarget('http://127.0.0.1:8080/pages/s/x', FROM)).toBeNull();
  });
});

describe('extractLinks', () => {
  it.each([
    ['inline link', '[x](/pages/s/x)', [ref('x')]],
    ['relative link', 'see [d](../d) here', [ref('a/d')]],
    ['link with a title', '[x](/pages/s/x "title")', [ref('x')]],
    ['angle-bracket destination with a space', '[x](<./my page.md>)', [ref('a/b/my page')]],
    ['order of first appearance', '[1](/pages/s/z) [2](/pages/s/y) [3](/pages/s/x)', [ref('z'), ref('y'), ref('x')]],
    ['duplicates collapse', '[1](/pages/s/x) [2](./x) [3](/pages/s/x#f) [4](/pages/t/x)', [ref('x'), ref('a/b/x'), ref('x', 't')]],
    ['self link is kept', '[me](./c) [me again](/pages/s/a/b/c)', [ref('a/b/c')]],
    ['full reference', '[x][r]\n\n[r]: /pages/s/x', [ref('x')]],
    ['collapsed reference', '[r][]\n\n[r]: /pages/s/x', [ref('x')]],
    ['shortcut reference', '[r]\n\n[r]: /pages/s/x', [ref('x')]],
    ['reference used twice counts once', '[a][r] [b][r]\n\n[r]: /pages/s/x', [ref('x')]],
    ['definition in document order', '[x](/pages/s/y) [a][r]\n\n[r]: /pages/s/x', [ref('y'), ref('x')]],
    ['unused definition renders nothing, so links nothing', '[r]: /pages/s/x', []],
    ['image', '![pic](/pages/s/img)', []],
    ['image reference', '![pic][r]\n\n[r]: /pages/s/img', []],
    ['definition shared by a link and an image', '![pic][r] [x][r]\n\n[r]: /pages/s/x', [ref('x')]],
    ['link around an image', '[![pic](/pages/s/img)](/pages/s/x)', [ref('x')]],
    ['code span', 'see `[x](/pages/s/x)`', []],
    ['fenced code', '```\n[x](/pages/s/x)\n```', []],
    ['tilde fence', '~~~md\n[r]: /pages/s/x\n~~~', []],
    ['indented code', 'text\n\n    [x](/pages/s/x)\n', []],
    ['escaped bracket', '\\[x](/pages/s/x)', []],
    ['raw HTML anchor', '<a href="/pages/s/x">x</a>', []],
    ['external link', '[ex](https://example.com/pages/s/x)', []],
    ['external autolink', '<https://example.com>', []],
    ['email autolink', '<someone@example.com>', []],
    ['literal www autolink', 'www.example.com/pages/s/x', []],
    ['base-URL link', '[x](http://127.0.0.1:8080/pages/s/x)', [ref('x')]],
    ['base-URL autolink', '<http://127.0.0.1:8080/pages/s/x>', [ref('x')]],
    ['bare base URL', 'see http://127.0.0.1:8080/pages/s/x.', [ref('x')]],
    ['bare base URL with a prefix', 'https://wiki.example/kspace/pages/t/y', [ref('y', 't')]],
    ['bare base URL in capitals, trailing paren', '(HTTPS://WIKI.EXAMPLE/kspace/pages/t/y)', [ref('y', 't')]],
    [
      'bare base URL next to an inline link',
      '[x](/pages/s/x) then www.example.com and http://127.0.0.1:8080/pages/s/y',
      [ref('x'), ref('y')],
    ],
    [
      'links in lists, quotes, tables, headings',
      '# [h](/pages/s/h)\n\n- [l](/pages/s/l)\n\n> [q](/pages/s/q)\n\n| a |\n|---|\n| [t](/pages/s/t) |',
      [ref('h'), ref('l'), ref('q'), ref('t')],
    ],
    // The parser runs without emphasis, strikethrough, entities and hard breaks (extract.ts):
    // none of them may make or unmake a link.
    [
      'links inside emphasis and strikethrough',
      '*[a](/pages/s/a)* **[b](/pages/s/b)** _[c](/pages/s/c)_ ~~[d](/pages/s/d)~~',
      [ref('a'), ref('b'), ref('c'), ref('d')],
    ],
    [
      'emphasis delimiters inside a link label',
      '[*a*](/pages/s/a) [**b](/pages/s/b) [_c_][r]\n\n[r]: /pages/s/c',
      [ref('a'), ref('b'), ref('c')],
    ],
    ['a label over a hard break', '[a  \nb](/pages/s/x)', [ref('x')]],
    ['an entity in the destination', '[x](/pages/s/a&amp;b)', [ref('a&b')]],
    ['an entity spelling a bracket starts no link', '&#91;x](/pages/s/x)', []],
    ['CRLF line ends', '[x][r]\r\n\r\n[r]: /pages/s/x\r\n', [ref('x')]],
    ['CR line ends', 'a\r[x][r]\r\r[r]: /pages/s/x', [ref('x')]],
    ['NUL in the text', 'a\0 [x](/pages/s/x)', [ref('x')]],
    ['only the paragraph with a bracket', 'plain\n\n[x](/pages/s/x)\n\nplain again', [ref('x')]],
    ['mixed internal and external', '[a](https://x.example) [b](/pages/s/b) [c](mailto:c@x) [d](#top)', [ref('b')]],
  ])('%s', (_name, content, expected) => {
    expect(extractLinks(content, FROM, BASES)).toEqual(expected);
  });

  it.each([
    ['Unicode spelling', 'https://bücher.example/pages/s/x'],
    ['punycode spelling', 'https://xn--bcher-kva.example/pages/s/x'],
  ])('finds a bare link to an internationalised base host in %s', (_name, content) => {
    expect(extractLinks(content, FROM, ['https://bücher.example'])).toEqual([ref('x')]);
  });

  it('finds links in deep nesting and survives nesting past the parser limit', () => {
    expect(extractLinks(`${'>'.repeat(50)} [x](/pages/s/x)`, FROM)).toEqual([ref('x')]);
    expect(() => extractLinks(`${'>'.repeat(10_000)} [x](/pages/s/x)`, FROM)).not.toThrow();
  });

  it('stays fast on pathological emphasis runs', () => {
    const t0 = performance.now();
    expect(extractLinks(`${'*'.repeat(10_000)}[x](/pages/s/x)`, FROM)).toEqual([ref('x')]);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('resolves relative links in the linking page’s own space', () => {
    expect(extractLinks('[x](x) [y](/pages/s/y)', ref('p', 'other'))).toEqual([ref('x', 'other'), ref('y')]);
  });
});

describe('extractLinks fast path', () => {
  const parse = vi.spyOn(MarkdownIt.prototype, 'parse');
  afterEach(() => parse.mockClear());

  it.each([
    ['plain prose', 'Just words, [brackets] and (parens).'],
    ['a pages path without base URLs configured', 'see /pages/s/x'],
    ['a pages path without a base host', 'see https://example.com/pages/s/x'],
    ['empty content', ''],
  ])('does not parse %s', (_name, content) => {
    expect(extractLinks(content, FROM)).toEqual([]);
    expect(parse).not.toHaveBeenCalled();
  });

  it.each([
    ['inline link', '[x](/pages/s/x)', [], [ref('x')]],
    ['reference', '[r]\n\n[r]: /pages/s/x', [], [ref('x')]],
    ['autolink', '<http://127.0.0.1:8080/pages/s/x>', BASES, [ref('x')]],
    ['bare base URL', 'http://127.0.0.1:8080/pages/s/x', BASES, [ref('x')]],
  ])('still parses content with a %s', (_name, content, bases, expected) => {
    expect(extractLinks(content, FROM, bases)).toEqual(expected);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  // Bare URLs (linkify) can only be page links when they name a base host.
  it.each([
    ['no base host named', '[x](/pages/s/x) see www.example.com/pages/s/y', BASES, false],
    ['no base URLs configured', '[x](/pages/s/x) http://127.0.0.1:8080/pages/s/y', [], false],
    ['a base host named', '[x](/pages/s/x) see http://127.0.0.1:8080/pages/s/y', BASES, true],
    ['a base host named in capitals', '[x](/pages/s/x) WIKI.EXAMPLE/kspace/pages/s/y', BASES, true],
  ])('linkifies only when needed: %s', (_name, content, bases, linkify) => {
    extractLinks(content, FROM, bases);
    expect((parse.mock.contexts[0] as MarkdownIt).options.linkify).toBe(linkify);
  });
});

describe('normalizeLinkFast', () => {
  const full = new MarkdownIt().normalizeLink;
  const fast = normalizeLinkFast((url) => `full:${full(url)}`);

  it.each([
    ['/pages/s/x', false],
    ['../a/b_c-d.e~f?g=h&i=j#k', false],
    ["!$&'()*+,;=@", false],
    ['', false],
    ['//host/x', true],
    ['http://example.com/pages/s/x', true],
    ['mailto:a@b', true],
    ['a b', true],
    ['%41', true],
    ['/pages/s/é', true],
    ['[x]', true],
  ])('%s takes the full path: %s', (url, viaFull) => {
    expect(fast(url)).toBe(viaFull ? `full:${full(url)}` : url);
  });

  it('returns what markdown-it returns, for random destinations', () => {
    const alphabet = [..."ab09-._~!$&'()*+,;=@/?#:%[] \\é", '//', '%2F', 'http:', 'HTTP://X'];
    const random = rng(7);
    const plain = normalizeLinkFast(full);
    for (let i = 0; i < 20_000; i++) {
      let url = '';
      for (let n = Math.floor(random() * 12); n > 0; n--) url += alphabet[Math.floor(random() * alphabet.length)];
      expect(plain(url), url).toBe(full(url));
    }
  });
});
