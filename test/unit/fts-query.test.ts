import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkQuery, matchAll, matchRest, matchTitle, parseQuery } from '../../src/domain/search/fts-query.ts';

describe('parseQuery', () => {
  it.each([
    ['one', [['one', false]]],
    ['one two', [['one', false], ['two', false]]],
    ['  spaced\tout\n', [['spaced', false], ['out', false]]],
    ['"red panda"', [['red panda', false]]],
    ['"red pan"*', [['red pan', true]]],
    ['hab*', [['hab', true]]],
    ['hab***', [['hab', true]]],
    ['*hab', [['*hab', false]]],
    ['fo*o', [['fo*o', false]]],
    ['"unclosed phrase', [['unclosed phrase', false]]],
    ['"" x', [['x', false]]],
    ['a"b', [['a"b', false]]],
    ['AND OR NOT', [['AND', false], ['OR', false], ['NOT', false]]],
    ['NEAR(a b)', [['NEAR(a', false], ['b)', false]]],
    ['-x col:y', [['-x', false], ['col:y', false]]],
    ['^ - * 🎉 \u0301', []],
    ['🎉party', [['🎉party', false]]],
    ['café', [['café', false]]],
    ['漢字', [['漢字', false]]],
    ['x X x "x" x*', [['x', false], ['x*'.slice(0, 1), true]]],
    ['Café cafe CAFÉ', [['Café', false]]],
  ])('%j', (q, expected) => {
    expect(parseQuery(q).map((p) => [p.text, p.prefix])).toEqual(expected);
  });
});

describe('match expressions', () => {
  it.each([
    ['one two', '"one" AND "two"', '{title} : "one" AND {title} : "two"'],
    ['"a b"*', '"a b"*', '{title} : "a b"*'],
    ['a"b NEAR(', '"a""b" AND "NEAR("', '{title} : "a""b" AND {title} : "NEAR("'],
  ])('%j', (q, all, title) => {
    const phrases = parseQuery(q);
    expect(matchAll(phrases)).toBe(all);
    expect(matchTitle(phrases)).toBe(title);
    expect(matchRest(phrases)).toBe(`(${all}) NOT (${title})`);
  });
});

describe('checkQuery', () => {
  it.each([
    [null, 'required'],
    ['', 'required'],
    [' \t', 'required'],
    ['x', null],
    ['^', null],
    ['x'.repeat(1000), null],
    ['x'.repeat(1001), 'max'],
    ['w '.repeat(32), null],
    [Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '), 'max'],
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
    ['a b c d e f g h i', 'max'],
    ['"a b c d e f g h i"', 'max'],
    ['"a b c d" "e f g h"', null],
  ])('%j', (q, code) => {
    expect(checkQuery(q)?.code ?? null).toBe(code);
  });
});

// Whatever the text, the expressions are valid FTS5 over a table shaped like page_fts.
describe('every query is a valid FTS5 expression', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(title, content, tokenize = 'unicode61 remove_diacritics 2');
           INSERT INTO t (title, content) VALUES ('Café "quoted" NEAR', 'AND OR NOT * ^ col:x -y 漢字 a"b');`);
  const count = db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?');
  afterAll(() => db.close());
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.array(fc.constantFrom('"', '*', '(', ')', ':', '^', '-', '+', '{', '}', 'AND', 'OR', 'NOT', 'NEAR', ' ', 'a', 'é', '\u0301', '🎉', '\\', "'"), { maxLength: 20 }).map((a) => a.join('')),
  );

  it('never throws', () => {
    fc.assert(fc.property(text, (q) => {
      const phrases = parseQuery(q);
      if (phrases.length === 0) return;
      for (const m of [matchAll(phrases), matchTitle(phrases), matchRest(phrases)]) count.get(m);
    }), { numRuns: 2000 });
  });

  it('finds the indexed text by its own words, operators included', () => {
    for (const q of ['cafe', '"quoted" near', 'and or not', 'col:x', '-y', '漢字', 'a"b', 'caf*']) {
      expect((count.get(matchAll(parseQuery(q))) as { n: number }).n, q).toBe(1);
    }
  });
});
