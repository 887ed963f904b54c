import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/domain/links/extract.ts';
import { scanInlineLinks } from '../../src/domain/links/inline-scan.ts';

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

// Prose with inline links skips the parser altogether (inline-scan.ts); with an alphabet close
// to that subset, random texts often take the fast path, and must agree with the parser.
const PROSE = ['[', ']', '(', ')', ' ', '\n', '\n\n', 'x', 'word ', '/pages/wiki/a', '/pages/~bob/b', './c', '../d', 'e.md', '#f', '?q',
  '*', '_', '!', ':', '# ', '- ', '> ', '   ', '  ', '1. ', '~', '~~', '"', "'", '=', '---\n', 'http://h/', '%20', '%zz', 'é', '🎉', '\u00a0'];

describe('inline-link fast path', () => {
  it.each([
    ['[a](/pages/wiki/a) and [b](./b) [c](../c)'],
    ['[](x) [a]() [a](y"z)'],
    ['[a] (b) [c](d)'],
    ['[a](b(c)) [d](e)'],
    ['[a](b "t") [c](d)'],
    ['[a [b](c)](d)'],
    ['[a\nb](c) [d](e)'],
    ['![i](j) [k](l)'],
    ['    [code](x)\n\n[real](y)'],
    ['- [a](b)\n    - [c](d)'],
    ['[a](b\u00a0c)'],
    ['*[a](b)* **[c](d)**'],
    ['>     [](x)'],
    ['-     [a](b)'],
    ['1.  [a](b)\n\n     [c](d)'],
  ])('%j', (text) => same(text));

  const piece = (chars: string[], max: number) => fc.array(fc.constantFrom(...chars), { maxLength: max }).map((a) => a.join(''));
  // Mostly well-formed links, now and then one that CommonMark reads differently.
  const mostly = (clean: fc.Arbitrary<string>, messy: fc.Arbitrary<string>) => fc.oneof({ weight: 12, arbitrary: clean }, { weight: 1, arbitrary: messy });
  const linkText = mostly(piece(['a', 'b c', '*', '_', ' ', '!', '(', ')', '~', 'é'], 6), piece(['[', ']', '\n', 'a'], 3));
  const dest = mostly(piece(['/pages/wiki/', 'x', 'y.md', './', '../', '#f', '?q', '%2F', '~bob/', ':', '"'], 5), piece(['(', ')', ' ', '"t"', '[', ']', '\u00a0'], 3));
  const link = fc.tuple(mostly(fc.constantFrom('', '*', ' '), fc.constant('!')), linkText, mostly(fc.constant(']('), fc.constant('] (')), dest, mostly(fc.constant(')'), fc.constantFrom(' )', '')))
    .map((parts) => `${parts[0]}[${parts.slice(1).join('')}`);
  const prose = fc.array(fc.oneof({ weight: 1, arbitrary: link }, { weight: 3, arbitrary: fc.constantFrom(...PROSE) }), { maxLength: 20 }).map((a) => a.join(''));

  it('agrees with the parser on random prose with links', () => {
    fc.assert(fc.property(prose, (text) => {
      same(text);
    }), { numRuns: 5000 });
  });

  it('takes the fast path for most of those texts', () => {
    const texts = fc.sample(prose, 2000);
    const fast = texts.filter((t) => (scanInlineLinks(t)?.length ?? 0) > 0);
    expect(fast.length, `${fast.length} of ${texts.length}`).toBeGreaterThan(300);
  });
});
