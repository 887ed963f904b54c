import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { STOP_WORDS, checkQuery, checkedPhrases, groupQueries, matchAll, parseQuery } from '../../src/domain/search/fts-query.ts';
import { INDEX_OPTIONS, TITLE_INDEX_OPTIONS } from '../../src/store/fts/index-file.ts';
import { indexWords } from '../../src/store/fts/tokens.ts';

describe('parseQuery', () => {
  mapsTo('%j', (q) => parseQuery(q).map((p) => [p.text, p.prefix]), [
    ['one', [['one', false]]],
    [
      'one two',
      [
        ['one', false],
        ['two', false],
      ],
    ],
    [
      '  spaced\tout\n',
      [
        ['spaced', false],
        ['out', false],
      ],
    ],
    ['"red panda"', [['red panda', false]]],
    ['"red pan"*', [['red pan', true]]],
    ['hab*', [['hab', true]]],
    ['hab***', [['hab', true]]],
    ['*hab', [['*hab', false]]],
    ['fo*o', [['fo*o', false]]],
    ['"unclosed phrase', [['unclosed phrase', false]]],
    ['"" x', [['x', false]]],
    ['a"b', [['a"b', false]]],
    [
      'AND OR NOT',
      [
        ['AND', false],
        ['OR', false],
        ['NOT', false],
      ],
    ],
    [
      'NEAR(a b)',
      [
        ['NEAR(a', false],
        ['b)', false],
      ],
    ],
    [
      '-x col:y',
      [
        ['-x', false],
        ['col:y', false],
      ],
    ],
    ['^ - * 🎉 \u0301', []],
    ['🎉party', [['🎉party', false]]],
    ['café', [['café', false]]],
    ['漢字', [['漢字', false]]],
    [
      'x X x "x" x*',
      [
        ['x', false],
        ['x*'.slice(0, 1), true],
      ],
    ],
    ['Café cafe CAFÉ', [['Café', false]]],
  ]);
});

describe('match expressions', () => {
  // A phrase of one word goes as it was written; one of several as the AND of the words the
  // index's tokenizer makes of it (the index keeps no positions), and is then checked in JS. The
  // first group's candidates are the titles matching it; the others' the pages matching it, less
  // those titles, unless a phrase is checked (the check decides the group then).
  it.each([
    ['one two', '"one" AND "two"', [false, false]],
    ['Café "x"*', '"Café" AND "x"*', [false, false]],
    ['"a b"*', '"a" AND "b"*', [true]],
    ['"Red  Pandas" x', '"red" AND "pandas" AND "x"', [true, false]],
    ['a"b NEAR(', '"a" AND "b" AND "NEAR("', [true, false]],
    ['foo-bar', '"foo" AND "bar"', [true]],
    // JS sees one word, the index two (U+0305 is a separator to unicode61): the index's words go, and it is checked.
    ['ab\u0305cd', '"ab" AND "cd"', [true]],
    // FTS5's parser ends a string at a NUL (a 500 before): it goes as a space, or between the words.
    ['x\u0000', '"x "', [false]],
    ['a\u0000b', '"a" AND "b"', [true]],
  ] as const)('%j', (q, all, checked) => {
    const phrases = parseQuery(q);
    expect(matchAll(phrases, indexWords)).toBe(all);
    expect(groupQueries(phrases, indexWords)).toEqual([
      { of: 'titles', match: all },
      { of: checked.some(Boolean) ? 'pages' : 'pagesNotTitles', match: all },
    ]);
    expect(checkedPhrases(phrases, indexWords).map((c) => c.checked)).toEqual(checked);
  });
});

describe('checkQuery', () => {
  mapsTo('%j', (q) => checkQuery(q)?.code ?? null, [
    [null, 'required'],
    ['', 'required'],
    [' \t', 'required'],
    ['x', null],
    ['^', null],
    ['x'.repeat(1000), null],
    ['x'.repeat(1001), 'max'],
    ['w '.repeat(32), null],
    [Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), null], // words past 32 are left out, not refused
    ['w '.repeat(33), null], // one word, written 33 times
    ['t* '.repeat(32), 'min'],
    ['ab*', 'min'],
    ['"x ab"*', 'min'],
    ['abc*', null],
    ['"x abc"*', null],
    ['éab*', null],
    ['abc* abd*', null],
    ['abc* abd* abe*', 'max'],
    ['a b c d e f g h', null],
    ['a b c d e f g h i', null],
    ['"a b c d e f g h i"', null],
    [Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') + ' abc* abd* abe*', null], // the prefixes are past the 32nd word
    ['"a b c d" "e f g h"', null],
  ]);

  it('checks the prefixes after 40 stop words: they are searched, stop words not counting against the 32', () => {
    expect(checkQuery(`${[...STOP_WORDS].slice(0, 40).join(' ')} abc* abd* abe*`)?.code).toBe('max');
  });
});

// Whatever the text, the expressions are valid FTS5 over tables shaped like page_fts and title_fts.
describe('every query is a valid FTS5 expression', () => {
  const db = new Database(':memory:');
  // The index's own options: detail = none refuses any quoted string of more than one word, and column filters.
  const withText = (options: string) => options.replace("content = '', contentless_delete = 1, ", '');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(${withText(INDEX_OPTIONS)});
           CREATE VIRTUAL TABLE tt USING fts5(${withText(TITLE_INDEX_OPTIONS)});
           INSERT INTO t (title, content) VALUES ('Café "quoted" NEAR', 'AND OR NOT * ^ col:x -y 漢字 a"b');
           INSERT INTO tt (title) VALUES ('Café "quoted" NEAR');`);
  const count = db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?');
  const countTitles = db.prepare('SELECT count(*) AS n FROM tt WHERE tt MATCH ?');
  afterAll(() => db.close());
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    // Also characters where JS's idea of a word and unicode61's differ: a combining mark that is a
    // separator to it (U+0305), one it drops (U+0301), one unassigned in its tables (U+0378), a
    // letter it splits words at (U+19B0).
    fc
      .array(
        fc.constantFrom(
          '"',
          '*',
          '(',
          ')',
          ':',
          '^',
          '-',
          '+',
          '{',
          '}',
          'AND',
          'OR',
          'NOT',
          'NEAR',
          ' ',
          'a',
          'b',
          'é',
          '\u0301',
          '\u0305',
          '\u0378',
          '\u19b0',
          '🎉',
          '\\',
          "'",
        ),
        { maxLength: 20 },
      )
      .map((a) => a.join('')),
  );

  it('never throws', () => {
    fc.assert(
      fc.property(text, (q) => {
        const phrases = parseQuery(q);
        if (phrases.length === 0) return;
        const m = matchAll(phrases, indexWords);
        count.get(m);
        countTitles.get(m);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the indexed text by its own words, operators included', () => {
    for (const q of ['cafe', '"quoted" near', 'and or not', 'col:x', '-y', '漢字', 'a"b', 'caf*']) {
      expect((count.get(matchAll(parseQuery(q), indexWords)) as { n: number }).n, q).toBe(1);
    }
  });
});
