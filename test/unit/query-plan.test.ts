import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { STOP_WORDS, capPhrases, parseQuery } from '../../src/domain/search/fts-query.ts';
import { planQuery, prefixMatch } from '../../src/domain/search/query-plan.ts';
import { indexWords, stemsOf } from '../../src/store/fts/tokens.ts';

const plan = (q: string, mayExpand?: (w: string) => boolean) => planQuery(q, indexWords, mayExpand);

/** 'red pan*' → [['red', false], ['pan', true]]: the words of a plan's terms, a prefix marked *. */
const termsOf = (words: string) => words.split(' ').map((w) => [w.replace(/\*$/, ''), w.endsWith('*')]);

describe('planQuery', () => {
  it.each([
    // q, terms (words, a prefix marked *), items (their terms), every, any
    ['notes ', 'notes', [[0]], '"notes"', '"notes"'],
    ['red panda ', 'red panda', [[0], [1]], '("red") AND ("panda")', '("red") OR ("panda")'],
    // The last word typed without a space after it is a prefix too, reaching the stems it may be cut from.
    ['onboardi', 'onboardi*', [[0]], '("onboardi" OR "onboardi"* OR "onboard")', '("onboardi" OR "onboardi"* OR "onboard")'],
    ['red pan', 'red pan*', [[0], [1]], '("red") AND (("pan" OR "pan"*))', '("red") OR (("pan" OR "pan"*))'],
    // Too short to be a prefix; after a space or a closing quote, a word.
    ['ab', 'ab', [[0]], '"ab"', '"ab"'],
    ['"red panda"', 'red panda', [[0, 1]], '"red" AND "panda"', '"red" AND "panda"'],
    ['"red pan', 'red pan*', [[0, 1]], '"red" AND ("pan" OR "pan"*)', '"red" AND ("pan" OR "pan"*)'],
    // Stop words are left out of a query with other words, kept in one without, and in phrases.
    ['how to remove a vault?', 'remove vault', [[0], [1]], '("remove") AND ("vault")', '("remove") OR ("vault")'],
    ['the ', 'the', [[0]], '"the"', '"the"'],
    ['"the end" of it ', 'the end', [[0, 1]], '"the" AND "end"', '"the" AND "end"'],
  ])('%j', (q, terms, items, every, any) => {
    const p = plan(q)!;
    expect(p.terms.map((t) => [t.word, t.prefix])).toEqual(termsOf(terms));
    expect(p.items.map((i) => i.terms)).toEqual(items);
    expect(p.every).toBe(every);
    expect(p.any).toBe(any);
  });

  mapsTo('pairs of %j', (q) => plan(q)!.pairs, [
    ['okapi tapir ', null],
    ['okapi tapir zebra ', '(("okapi") AND ("tapir")) OR (("okapi") AND ("zebra")) OR (("tapir") AND ("zebra"))'],
    ['a b c d e f g h i j k l ', null], // past PAIRS_MAX_ITEMS: no pairs (the walk takes the OR)
  ]);

  it('asks the index for the first 8 words of a long phrase; the plan keeps every word for the ranking to check', () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
    const p = plan(`"${words.join(' ')}" `)!;
    expect(p.every).toBe(
      words
        .slice(0, 8)
        .map((w) => `"${w}"`)
        .join(' AND '),
    );
    expect(p.terms.map((t) => t.word)).toEqual(words);
    expect(p.items[0].terms).toHaveLength(10);
  });

  it('marks the typed prefix for snippets, and leaves it a word where the caller says it reaches too far', () => {
    expect(plan('red pan')!.phrases).toEqual([
      { text: 'red', prefix: false },
      { text: 'pan', prefix: true },
    ]);
    expect(plan('red pan', () => false)!.terms.map((t) => t.prefix)).toEqual([false, false]);
  });

  it('counts only the words searched against the 32: stop words are left out first', () => {
    const stops = [...STOP_WORDS].slice(0, 40);
    const q = stops.map((w, i) => `${w} w${i}`).join(' ');
    expect(plan(q)!.terms.map((t) => t.word)).toEqual(Array.from({ length: 32 }, (_, i) => `w${i}`));
    expect(plan('remove the')!.terms.map((t) => [t.word, t.prefix])).toEqual([['remove', false]]); // `the` is typed, not `remove`
  });

  it('searches a word written several times once, weighing it as often as written (case and phrases too)', () => {
    const p = plan('tapir okapi Tapir "red tapir" ')!;
    expect(p.terms.map((t) => t.word)).toEqual(['tapir', 'okapi', 'red']);
    expect(p.weights).toEqual([3, 1, 1]);
  });

  it('walks the typed prefix without its cut-back stems first, and names the word a guessed page must contain', () => {
    const p = plan('red note')!;
    expect(p.any).toBe('("red") OR (("note" OR "note"* OR "not"))');
    expect(p.sure).toEqual({ every: '("red") AND (("note" OR "note"*))', any: '("red") OR (("note" OR "note"*))', pairs: null });
    expect(p.guessed).toBe('note');
    expect(plan('red pan')!.sure).toBeNull(); // no ending starts with n: nothing guessed
    expect(plan('red pan')!.guessed).toBeNull();
    expect(plan('note ')!.sure).toBeNull(); // typed to the end: a word, no prefix
    expect(plan('Café')!.guessed).toBe('cafe'); // folded first (a text beyond ASCII is always kept: readableGuesses)
    expect(plan('straße')!.guessed).toBeNull(); // beyond ASCII once folded: SQL's lower() would not fold it as the text check does
    expect(plan('straße')!.sure).not.toBeNull();
  });

  it('has a query of one prefix walk the word itself first', () => {
    expect(plan('okapi')!.whole).toBe('"okapi"');
    expect(plan('"red pan')!.whole).toBe('"red" AND "pan"');
    expect(plan('hab*')!.whole).toBe('"hab"');
    expect(plan('okapi ')!.whole).toBeNull(); // a whole word already
    expect(plan('red pan')!.whole).toBeNull(); // two items: their every/pairs phases come first
  });

  it('has nothing to search for punctuation alone', () => {
    expect(plan('^ - *')).toBeNull();
  });

  it('keeps the first 32 words of a long question', () => {
    const q = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
    expect(plan(q)!.terms).toHaveLength(32);
    expect(capPhrases(parseQuery(`"${q}"`))).toEqual([{ text: Array.from({ length: 32 }, (_, i) => `w${i}`).join(' '), prefix: false }]);
  });
});

describe('prefixMatch', () => {
  it.each([
    ['abc', '("abc" OR "abc"*)'],
    ['abcd', '("abcd" OR "abcd"*)'], // no ending starts with d
    ['abce', '("abce" OR "abce"* OR "abc")'],
    ['runni', '("runni" OR "runni"* OR "runn" OR "run")'],
    ['onboardin', '("onboardin" OR "onboardin"* OR "onboardi" OR "onboard")'],
    ['there', '("there" OR "there"* OR "ther")'],
  ])('%s', (w, m) => expect(prefixMatch(w)).toBe(m));
  it('leaves the cut-back stems out when asked', () => expect(prefixMatch('runni', false)).toBe('("runni" OR "runni"*)'));
  // Given the stemmer, only the cuts a word with one of the endings stems to.
  it.each([
    ['note', '("note" OR "note"*)'], // noted, notes: note
    ['there', '("there" OR "there"*)'],
    ['runni', '("runni" OR "runni"* OR "run")'], // running: run; not runn
    ['onboardi', '("onboardi" OR "onboardi"* OR "onboard")'],
    ['tapirin', '("tapirin" OR "tapirin"* OR "tapiri" OR "tapir")'],
  ])('%s, with the stemmer', (w, m) => expect(prefixMatch(w, stemsOf)).toBe(m));
});
