import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { checkFileName, contentDisposition, etagMatches, parseRange, servedInline, sniffContentType } from '../../src/domain/file-rules.ts';
import { extractLinks } from '../../src/domain/links/extract.ts';
import { resolveFileHref } from '../../src/domain/links/files.ts';
import { renderMarkdown } from '../../src/domain/links/render.ts';
import type { PageRef } from '../../src/model.ts';

const b = (s: string | number[]) => (typeof s === 'string' ? Buffer.from(s) : Buffer.from(s));

describe('sniffContentType: the bytes win over the declared type', () => {
  it.each([
    ['png', b([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1]), 'text/html', 'image/png'],
    ['jpeg', b([0xff, 0xd8, 0xff, 0xe0]), null, 'image/jpeg'],
    ['gif', b('GIF89a...'), 'image/png', 'image/gif'],
    ['webp', b('RIFF\0\0\0\0WEBPVP8 '), null, 'image/webp'],
    ['pdf', b('%PDF-1.7'), 'text/plain', 'application/pdf'],
    ['svg', b('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/png', 'image/svg+xml'],
    ['svg after xml prolog and BOM', b('\ufeff  <?xml version="1.0"?><!-- x --><svg/>'), null, 'image/svg+xml'],
    ['html doctype', b('\n<!DOCTYPE html><p>'), 'text/plain', 'application/octet-stream'],
    ['html script', b('<script>alert(1)</script>'), 'image/png', 'application/octet-stream'],
    ['html comment', b('<!-- hi -->'), null, 'application/octet-stream'],
    ['xml', b('<?xml version="1.0"?><x/>'), null, 'application/octet-stream'],
    ['declared javascript', b('alert(1)'), 'application/javascript', 'application/octet-stream'],
    ['declared text/javascript with a charset', b('alert(1)'), 'text/javascript; charset=utf-8', 'application/octet-stream'],
    ['declared legacy script type', b('alert(1)'), 'Text/X-JavaScript', 'application/octet-stream'],
    ['declared module', b('export {}'), 'text/ecmascript', 'application/octet-stream'],
    ['declared html', b('hello'), 'text/html', 'application/octet-stream'],
    ['declared xhtml', b('hello'), 'application/xhtml+xml', 'application/octet-stream'],
    ['declared xml', b('hello'), 'text/xml', 'application/octet-stream'],
    ['declared wasm', b([0, 0x61, 0x73, 0x6d]), 'application/wasm', 'application/octet-stream'],
    ['not html: <abbr>', b('<abbr>x</abbr>'), null, 'text/plain; charset=utf-8'],
    ['declared markdown', b('# Title'), 'text/markdown; charset=latin1', 'text/markdown; charset=utf-8'],
    ['declared json', b('{"a":1}'), 'application/json', 'application/json'],
    ['text without a type', b('hello'), null, 'text/plain; charset=utf-8'],
    ['octet-stream text', b('hello'), 'application/octet-stream', 'text/plain; charset=utf-8'],
    ['binary', b([0, 1, 2, 3]), null, 'application/octet-stream'],
    ['a bad declared type', b([0, 1]), 'not a type', 'application/octet-stream'],
    ['empty', b(''), null, 'text/plain; charset=utf-8'],
  ])('%s', (_name, data, declared, want) => {
    expect(sniffContentType(data, declared)).toBe(want);
  });

  it('serves only media and plain text inline', () => {
    expect(['image/png', 'text/plain; charset=utf-8', 'video/mp4'].map(servedInline)).toEqual([true, true, true]);
    expect(['image/svg+xml', 'text/html', 'application/pdf', 'application/xml', 'text/markdown'].map(servedInline)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('checkFileName', () => {
  mapsTo('%j → %s', (name) => checkFileName(name)?.code ?? null, [
    ['a.png', null],
    ['résumé v2.pdf', null],
    ['files', null],
    ['', 'required'],
    ['a/b', 'format'],
    ['a\\b', 'format'],
    ['.', 'format'],
    ['..', 'format'],
    ['a\u0000', 'format'],
    ['\u202egpj.exe', 'format'],
    ['x'.repeat(256), 'format'],
    ['\ud800', 'format'],
    // Every Default_Ignorable code point is refused (issue 34); a ':' is kept, and exports encode it.
    ['soft\u00ad.png', 'format'],
    ['a\u061c.png', 'format'],
    ['a\u180e.png', 'format'],
    ['a\u2064.png', 'format'],
    ['\u3164.png', 'format'],
    ['a\u115f.png', 'format'],
    ['a\uffa0.png', 'format'],
    ['a\u{e0041}.png', 'format'],
    ['a\ufe0f.png', 'format'],
    ['a\u2800.png', null],
    ['10:30.png', null],
  ]);
});

describe('contentDisposition', () => {
  it.each([
    ['a.png', true, `inline; filename="a.png"; filename*=UTF-8''a.png`],
    ['my "x".svg', false, `attachment; filename="my _x_.svg"; filename*=UTF-8''my%20%22x%22.svg`],
    ["l'été (1).txt", false, `attachment; filename="l'_t_ (1).txt"; filename*=UTF-8''l%27%C3%A9t%C3%A9%20%281%29.txt`],
  ])('%s', (name, inline, want) => {
    expect(contentDisposition(name, inline)).toBe(want);
  });
});

describe('parseRange (size 100)', () => {
  mapsTo<string | null, ReturnType<typeof parseRange>>('%j', (header) => parseRange(header, 100), [
    [null, null],
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=90-', { start: 90, end: 99 }],
    ['bytes=-5', { start: 95, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['bytes=50-500', { start: 50, end: 99 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=100-200', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    ['bytes=9-1', null],
    ['bytes=0-1,5-6', null],
    ['items=0-1', null],
    ['bytes=', null],
    ['bytes=a-b', null],
  ]);

  it('an empty file satisfies no range', () => {
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=-1', 0)).toBe('unsatisfiable');
  });

  it('matches If-None-Match lists, weak forms and *', () => {
    expect(etagMatches('"a", "b"', '"b"')).toBe(true);
    expect(etagMatches('W/"b"', '"b"')).toBe(true);
    expect(etagMatches('*', '"b"')).toBe(true);
    expect(etagMatches('"c"', '"b"')).toBe(false);
    expect(etagMatches(null, '"b"')).toBe(false);
  });
});

const FROM: PageRef = { space: 'team', path: 'notes/page one' };
const BASE = 'https://kspace.example/kb';

describe('links to attached files', () => {
  mapsTo('%s → %s', (href) => resolveFileHref(href, FROM, [BASE]), [
    ['files/a.png', '/files/team/notes/page%20one/a.png'],
    ['./files/a%20b.png', '/files/team/notes/page%20one/a%20b.png'],
    ['files/a.png#x', '/files/team/notes/page%20one/a.png'],
    ['/files/wiki/p/q/a.png', '/files/wiki/p/q/a.png'],
    ['/files/wiki/p/a.png?x=1', '/files/wiki/p/a.png'],
    ['https://kspace.example/kb/files/wiki/p/a.png', '/files/wiki/p/a.png'],
    ['https://other.example/kb/files/wiki/p/a.png', null],
    ['/files/wiki/a.png', null],
    ['/files/wiki//a.png', null],
    ['../files/a.png', null],
    ['files/sub/a.png', null],
    ['a.png', null],
    ['/pages/wiki/files/a', null],
  ]);

  it('are not page links, so never broken ones', () => {
    const content = '[a](files/a.png) ![b](./files/b.png) [c](/files/team/x/c.pdf) [d](sibling) [e](sub/files/e.png)';
    expect(extractLinks(content, FROM, [BASE])).toEqual([
      { space: 'team', path: 'notes/sibling' },
      { space: 'team', path: 'notes/sub/files/e.png' },
    ]);
  });

  it('render to the file address, so images show', () => {
    const html = renderMarkdown({
      content: '![cat](files/cat.png) [spec](./files/spec.pdf) ![abs](https://kspace.example/kb/files/w/p/x.png)',
      from: FROM,
      baseUrls: [BASE],
      existing: () => new Set(),
    });
    expect(html).toContain('<img src="/files/team/notes/page%20one/cat.png" alt="cat">');
    expect(html).toContain('<a href="/files/team/notes/page%20one/spec.pdf">spec</a>');
    expect(html).toContain('<img src="/files/w/p/x.png" alt="abs">');
  });
});
