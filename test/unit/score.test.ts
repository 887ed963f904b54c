import { describe, expect, it } from 'vitest';
import { planQuery } from '../../src/domain/search/query-plan.ts';
import { compareScored, headingRanges, rootOf, scoreCandidates, type Candidate } from '../../src/domain/search/score.ts';
import { indexWords, stemsOf } from '../../src/store/fts/tokens.ts';

/** The ids of `pages` (id = position + 1) as ranked for `q`: [id, group]. */
function ranked(q: string, pages: Array<[string, string]>): Array<[number, number]> {
  const candidates: Candidate[] = pages.map(([title, content], i) => ({ id: i + 1, title, content }));
  return scoreCandidates(planQuery(q, indexWords)!, candidates, stemsOf)
    .sort(compareScored)
    .map((s) => [s.id, s.g]);
}

describe('scoreCandidates', () => {
  it.each<[string, string, Array<[string, string]>, Array<[number, number]>]>([
    [
      'term frequency, saturating',
      'tapir ',
      [
        ['A', 'tapir x x x x x'],
        ['B', 'tapir tapir tapir x x'],
        ['C', 'tapir tapir x x x x'],
      ],
      [
        [2, 0],
        [3, 0],
        [1, 0],
      ],
    ],
    [
      'title above heading above body',
      'tapir ',
      [
        ['A', 'x\ntapir\ny'],
        ['Tapir', 'x\nz\ny'],
        ['C', '# tapir\nx\ny'],
      ],
      [
        [2, 0],
        [3, 0],
        [1, 0],
      ],
    ],
    [
      'a shorter page first',
      'tapir ',
      [
        ['A', `tapir ${'x '.repeat(50)}`],
        ['B', 'tapir x'],
      ],
      [
        [2, 0],
        [1, 0],
      ],
    ],
    [
      'the rarer word weighs more',
      'tapir okapi ',
      [
        ['A', 'tapir x'],
        ['B', 'okapi x'],
        ['C', 'tapir y'],
        ['D', 'tapir z'],
      ],
      [
        [2, 1],
        [4, 1],
        [3, 1],
        [1, 1],
      ],
    ],
    [
      'a word the query writes twice weighs twice',
      'okapi tapir tapir ',
      [
        ['A', 'tapir x'],
        ['B', 'okapi x'],
      ],
      [
        [1, 1],
        [2, 1],
      ],
    ],
    [
      'every word before some',
      'tapir okapi ',
      [
        ['A', 'tapir tapir tapir tapir'],
        ['B', 'okapi x tapir x'],
      ],
      [
        [2, 0],
        [1, 1],
      ],
    ],
    [
      'the word as written above another form of its stem',
      'notes ',
      [
        ['A', 'note x'],
        ['B', 'notes x'],
        ['C', 'notation x'],
      ],
      [
        [2, 0],
        [1, 0],
      ],
    ],
    [
      'stems both ways',
      'running ',
      [
        ['A', 'run x xx'],
        ['B', 'runs x x'],
        ['C', 'rung x x'],
      ],
      [
        [2, 0],
        [1, 0],
      ],
    ],
    [
      'a typed prefix',
      'onboard',
      [
        ['A', 'the onboarding'],
        ['B', 'on board'],
      ],
      [[1, 0]],
    ],
    [
      'a prefix cut back to its stem',
      'onboardi',
      [
        ['A', 'the onboarding'],
        ['B', 'onboard x'],
      ],
      [[1, 0]],
    ],
    [
      'case and accents',
      'cafe ',
      [
        ['A', 'Un CAFÉ noir'],
        ['B', 'x'],
      ],
      [[1, 0]],
    ],
    [
      'a phrase only in a row',
      '"red panda" ',
      [
        ['A', 'panda red'],
        ['B', 'the red panda'],
      ],
      [[2, 0]],
    ],
    [
      'a phrase and a word: a page with both first',
      '"red panda" zoo ',
      [
        ['A', 'zoo'],
        ['B', 'red panda'],
        ['C', 'the red panda zoo'],
        ['D', 'panda red'],
      ],
      [
        [3, 0],
        [2, 1],
        [1, 1],
      ],
    ],
    [
      'no match is no hit',
      'tapir ',
      [
        ['A', 'tapirs'],
        ['B', 'x tapirx'],
      ],
      [[1, 0]],
    ],
  ])('%s', (_name, q, pages, expected) => {
    expect(ranked(q, pages)).toEqual(expected);
  });

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
  it.each([
    ['notes', 'note', 'not'],
    ['happiness', 'happi', 'hap'],
    ['generalization', 'gener', 'gen'],
    ['running', 'run', 'run'],
    ['onboard', 'onboard', 'onboa'],
    ['ab', 'ab', 'ab'],
  ])('%s (%s) → %s', (word, stem, root) => expect(rootOf(word, stem)).toBe(root));
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
