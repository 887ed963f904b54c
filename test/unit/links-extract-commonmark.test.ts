import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/domain/links/extract.ts';

// extractLinks parses text without GFM tables, footnotes or task markers as plain CommonMark
// (three times faster). That must never change which links it finds.
const from = { space: 'wiki', path: 'docs/page' };
const same = (text: string) => expect(extractLinks(text, from)).toEqual(extractLinks(text, from, [], { alwaysGfm: true }));

const FRAGMENTS = [
  '[', ']', '(', ')', '<', '>', '!', '\\', ':', ' ', '\n', '\n\n', '    ', '\t', '- ', '1. ', '> ', '# ', '*', '**', '_', '__',
  '~', '~~', '~~~\n', '`', '``', '```\n', '"', "'", '&amp;', '&#91;', 'x', 'word ', '/pages/wiki/a', '/pages/~bob/b', './c', '../d',
  'e.md', '#frag', '?q=1', ']: ', '][', '[ref]', '[ref]: /pages/wiki/r\n', '![', '](', 'http://h/', '=', '---\n', '===\n', '<br>',
  '<a href="/pages/wiki/h">', '</a>', '<!--', '-->',
];

describe('CommonMark fast path', () => {
  it.each([
    ['~~[a](/pages/wiki/a)~~'],
    ['~[a](./b)~ and ~~struck [c](../c)~~'],
    ['~~[a~~](/pages/wiki/x)'],
    ['[a ~~b](c~~)'],
    ['*[a](b)* **[c](d)** _[e](f)_'],
    ['[ref]\n\n~~[ref]: /pages/wiki/r~~'],
    ['[x]: /pages/wiki/x\n\n- [x] done\n- [ ] open'],
    ['| a | [b](c) |\n|---|---|\n| [d](e\\|f) | g |'],
    ['| h | i |\n|---|---|\n| [a | b](/pages/wiki/split) |'],
    ['![x]\n\n- [x] done\n\n[x]: /pages/wiki/x'],
    ['text[^1] and [n](./n)\n\n[^1]: /pages/wiki/foot'],
    ['![i][ref]\n\n[ref]: /pages/wiki/img'],
    ['<http://h/pages/wiki/a> <./b>'],
  ])('%j', (text) => same(text));

  it('finds the same links as GFM for any text without GFM markers', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((a) => a.join('')), (text) => {
      same(text);
    }), { numRuns: 3000 });
  });
});
