import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { parseQuery } from '../../src/domain/search/fts-query.ts';
import { makeSnippet, snippetMaker } from '../../src/domain/search/snippet.ts';
import { foldToken } from '../../src/text/tokens.ts';

describe('foldToken', () => {
  mapsTo('%s → %s', foldToken, [
    ['Café', 'cafe'],
    ['CRÈME', 'creme'],
    ['naïve', 'naive'],
    ['ß', 'ß'],
    ['Ǆ', 'ǆ'],
    ['abc', 'abc'],
    ['漢字', '漢字'],
  ]);
});

describe('makeSnippet', () => {
  const long = Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ');
  it.each([
    [
      'marks every matching word, case and diacritics folded',
      'At the Café, a cafe CAFE',
      'cafe',
      24,
      'At the <mark>Café</mark>, a <mark>cafe</mark> <mark>CAFE</mark>',
    ],
    [
      'marks prefix matches on the last word of a prefix phrase',
      'habitat habit inhabit',
      'habi*',
      24,
      '<mark>habitat</mark> <mark>habit</mark> inhabit',
    ],
    [
      'marks the words of a phrase',
      'red panda and red fox',
      '"red panda"',
      24,
      '<mark>red</mark> <mark>panda</mark> and <mark>red</mark> fox',
    ],
    ['escapes the text', '<b>x</b> & "y"', 'x', 24, '&lt;b&gt;<mark>x</mark>&lt;/b&gt; &amp; &quot;y&quot;'],
    ['collapses whitespace', 'one\n\n  two\tthree', 'two', 24, 'one <mark>two</mark> three'],
    ['starts the text when nothing matches', long, 'zzz', 4, 'w0 w1 w2 w3…'],
    ['cuts around the best window', long, 'w30', 4, '…w29 <mark>w30</mark> w31 w32…'],
    ['ends at the text end', long, 'w59', 4, '…w56 w57 w58 <mark>w59</mark>'],
    ['is empty for text without words', '*** --- !!!', 'x', 24, ''],
  ])('%s', (_label, text, q, size, expected) => {
    expect(makeSnippet(text, parseQuery(q), size)).toBe(expected);
  });

  it('prefers the window with the most matches', () => {
    const text = `alpha ${long} alpha beta gamma ${long}`;
    expect(makeSnippet(text, parseQuery('alpha beta gamma'), 6)).toBe(
      '…w59 <mark>alpha</mark> <mark>beta</mark> <mark>gamma</mark> w0 w1…',
    );
  });
});

describe('makeSnippet ASCII fast path', () => {
  // ASCII text is searched with a plain pattern; a non-ASCII character far past the excerpt
  // sends the same text down the Unicode path. Both must give the same snippet.
  const words = ['alpha', 'beta', 'gamma', 'delta', 'alphabet', 'Beta', 'GAMMA', 'x-ray', 'a.b', 'c++', 'end'];
  const filler = ` ${'zz '.repeat(200)}`;
  it('gives the same snippet as the Unicode path (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...words, ',', '.', '(', ')', '\n'), { minLength: 1, maxLength: 120 }),
        fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'alph*', 'del*', '"beta gamma"', 'x-ray', 'c++'), {
          minLength: 1,
          maxLength: 3,
        }),
        (tokens, query) => {
          const text = tokens.join(' ') + filler;
          const phrases = parseQuery(query.join(' '));
          expect(makeSnippet(text, phrases)).toBe(makeSnippet(`${text}é`, phrases));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the same snippet as the Unicode path for any ASCII text (property)', () => {
    const pieces = [...words, 'ALPHA', 'alpha&beta', '<b>', '"q"', "it's", 'a', 'z9', `${'q'.repeat(70)}alpha`, '\t', '  ', '\n\n', '***'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { minLength: 0, maxLength: 80 }),
        fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'alph*', 'a*', 'q*', '"beta gamma"', 'x-ray', 'c++', 'z9', 'it'), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(' ', ''),
        (tokens, query, size, sep) => {
          const text = tokens.join(sep);
          const phrases = parseQuery(query.join(' '));
          expect(snippetMaker(phrases, size)(text)).toBe(snippetMaker(phrases, size, false)(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
