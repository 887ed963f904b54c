import { describe, expect, it } from 'vitest';
import {
  decodePrev,
  encodePrev,
  isWhole,
  parseState,
  serializeState,
  storedWhole,
  wholeAbove,
  type StoredState,
} from '../../src/store/revision-codec.ts';

const state = (content: string, metadata = '{}', frontmatter = '{}'): StoredState => ({ frontmatter, metadata, content });
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed * 104729) % 5003}`).join(' ');
const page = words(300, 1); // ~2 KB
const edited = page.slice(0, 900) + words(15, 2) + page.slice(1000);
const big = words(12_000, 3); // ~80 KB: past deflate's 32 KB window

describe('revision states', () => {
  it.each([
    ['empty', state('')],
    ['ascii', state('hello\nworld', '{"a":1}', '{"t":"x"}')],
    ['unicode and NUL', state('é漢字🙂\u0000end', '{"k":"ü"}')],
    ['large', state(big)],
  ])('serialize and parse back: %s', (_, s) => {
    expect(parseState(serializeState(s))).toEqual(s);
  });

  it.each([
    ['identical', state(page), state(page), 1],
    ['metadata only', state(page, '{"stage":"todo"}'), state(page, '{"stage":"done"}'), 40],
    ['5 % of a 2 KB page', state(page), state(edited), 300],
    ['prepended', state(page), state('# Title\n\n' + page), 30],
    ['rewritten', state(words(300, 5)), state(page), 2000],
    ['into an empty page', state(page), state(''), 2000],
    ['from an empty page', state(''), state(page), 10],
    ['unicode edit', state('αβγ δεζ ηθι '.repeat(100)), state('αβγ δεζ ηθι '.repeat(50) + 'κλμ ' + 'αβγ δεζ ηθι '.repeat(50)), 80],
    ['large, edited in one place', state(big), state(big.slice(0, 40_000) + 'changed' + big.slice(40_010)), 60],
    // Edits further apart than deflate's 32 KB window: still exact, no longer small.
    ['large, edited at both ends', state(big), state('x' + big + 'y'), 30_000],
  ])('a delta decodes to the older state: %s', (_, older, newer, most) => {
    const prev = encodePrev(older, newer, false);
    expect(decodePrev(prev, newer)).toEqual(older);
    expect(prev.length).toBeLessThanOrEqual(most);
  });

  it('a whole state decodes without the newer one', () => {
    for (const older of [state(page), state(''), state('x'), state(big, '{"a":[1,2]}')]) {
      const prev = encodePrev(older, state(edited), true);
      expect(isWhole(prev)).toBe(true);
      expect(decodePrev(prev, null)).toEqual(older);
    }
    expect(isWhole(encodePrev(state(page), state(edited), false))).toBe(false);
  });

  it('a delta without the newer state is refused, and so is an unknown encoding', () => {
    expect(() => decodePrev(encodePrev(state(page), state(edited), false), null)).toThrow(/newer state/);
    expect(() => decodePrev(Buffer.from([9]), state(page))).toThrow(/unknown/);
  });

  it.each([
    [1, false, 9],
    [7, false, 9],
    [8, true, 9],
    [9, false, 17],
    [16, true, 17],
    [17, false, 25],
  ])('version %i: stored whole %s; reading it needs rows up to %i', (version, whole, above) => {
    expect(storedWhole(version)).toBe(whole);
    expect(wholeAbove(version)).toBe(above);
  });
});
