import { describe, expect, it } from 'vitest';
import { mapsTo, namedRows } from '../support/cases.ts';
import ranking from './cases/score-ranking.json' with { type: 'json' };
import { planQuery } from '../../src/domain/search/query-plan.ts';
import { asciiWordStarts, compareScored, headingRanges, rootOf, scoreCandidates, type Candidate } from '../../src/domain/search/score.ts';
import { indexWords, stemsOf } from '../../src/store/fts/tokens.ts';

/** The ids of `pages` (id = position + 1) as ranked for `q`: [id, group]. */
function ranked(q: string, pages: Array<[string, string]>): Array<[number, number]> {
  const candidates: Candidate[] = pages.map(([title, content], i) => ({ id: i + 1, title, content }));
  return scoreCandidates(planQuery(q, indexWords)!, candidates, stemsOf)
    .sort(compareScored)
    .map((s) => [s.id, s.g]);
}

describe('scoreCandidates', () => {
  it.each(namedRows<[q: string, pages: Array<[string, string]>, expected: Array<[number, number]>]>(ranking))(
    '%s',
    (_name, q, pages, expected) => {
      expect(ranked(q, pages)).toEqual(expected);
    },
  );

  it('ranks equal scores newest (highest id) first', () => {
    expect(
      ranked('tapir ', [
        ['A', 'tapir'],
        ['A', 'tapir'],
        ['A', 'tapir'],
      ]),
    ).toEqual([
      [3, 0],
      [2, 0],
      [1, 0],
    ]);
  });

  it('takes every statistic from the candidates given: the same pages score the same beside others holding none of the words', () => {
    const q = planQuery('tapir okapi ', indexWords)!;
    const pages: Candidate[] = [
      { id: 1, title: 'A', content: 'tapir x' },
      { id: 2, title: 'B', content: 'okapi tapir' },
    ];
    const alone = scoreCandidates(q, pages, stemsOf);
    const withMore = scoreCandidates(q, [...pages, { id: 3, title: 'C', content: 'tapir tapir okapi okapi' }], stemsOf);
    expect(withMore.filter((s) => s.id !== 3)).not.toEqual(alone); // df and length are the candidates'
    expect(scoreCandidates(q, pages, stemsOf)).toEqual(alone);
  });
});

describe('rootOf', () => {
  // [word, its stem] → its root
  mapsTo('%j → %s', ([word, stem]: [string, string]) => rootOf(word, stem), [
    [['notes', 'note'], 'not'],
    [['happiness', 'happi'], 'hap'],
    [['generalization', 'gener'], 'gen'],
    [['running', 'run'], 'run'],
    [['onboard', 'onboard'], 'onboa'],
    [['ab', 'ab'], 'ab'],
  ]);
});

describe('headingRanges', () => {
  // The multiline regex it replaces, as the reference.
  const reference = (f: string) => [...f.matchAll(/^ {0,3}#{1,6}(?:[ \t][^\n]*)?$/gm)].map((m) => [m.index, m.index + m[0].length]);
  it.each([
    ['# a', [[0, 3]]],
    ['#', [[0, 1]]],
    ['x\n## two\ny', [[2, 8]]],
    ['   ### three spaces\n    #### four is code', [[0, 19]]],
    ['####### seven', []],
    ['###### six', [[0, 10]]],
    ['#tag not a heading\n#\tb\n', [[19, 22]]],
    ['a # b\n\n# c\n', [[7, 10]]],
    ['no hash at all', []],
    [
      '#\n#\n',
      [
        [0, 1],
        [2, 3],
      ],
    ],
  ])('%j', (f, want) => {
    expect(headingRanges(f)).toEqual(want);
    expect(headingRanges(f)).toEqual(reference(f));
  });
});

// Where the ASCII path of the counting finds a word a root begins: after no letter, digit or `_`
// (as `\b` sees it), each start once when two roots begin the same word, in order.
mapsTo<[string, string[]], number[]>('word starts of %j', ([f, roots]) => asciiWordStarts(f, roots), [
  [
    ['bof-bof bof_bof x_bof 9bof bof9', ['bof']],
    [0, 4, 8, 27],
  ],
  [
    ['note notes not', ['note', 'not']],
    [0, 5, 11],
  ],
  [
    ['the other', ['the', 'oth']],
    [0, 4],
  ],
  [['nothing here', ['xyz']], []],
]);
