// Whether a text holds a phrase: its words one after the other, as the index compares words
// (case and diacritics folded, anything that is not a word between them ignored), the last one
// possibly a prefix. Pure. The index (detail = none, src/store/fts/index-file.ts) knows which pages hold a
// word but not where: FTS5 finds the pages holding every word of a phrase, and this decides, for
// each of those, whether the words are next to each other (full-text.ts).
//
// Words are cut and folded exactly as snippets cut them (snippet.ts: TOKEN and foldToken, the
// index's unicode61 rules with remove_diacritics), not by a tokenizer of their own; the two fast
// paths below give what reading those words one by one gives (test/unit/phrase-check.test.ts).
import { cached } from '../../bounded-cache.ts';
import { NON_ASCII, TOKEN, foldToken, isWordCode } from '../../text/tokens.ts';
import { NON_CJK_WORD_CHAR, hasCjk } from '../../text/cjk.ts';

/** A phrase's words, folded, and whether the last is a prefix. */
export type PhraseWords = { words: string[]; prefix: boolean };

/** The words of `text` as the index compares them, in order. */
export function foldedWords(text: string): string[] {
  return (text.match(TOKEN) ?? []).map(foldToken);
}

/** Whether `text` holds the phrase's words in a row (a phrase without words: never). */
export function holdsPhrase(text: string, p: PhraseWords): boolean {
  if (p.words.length === 0) return false;
  // Most pages and queries are ASCII: there a word is a run of letters and digits and folding is
  // lower-casing, so the text is searched for the first word and read on only where it occurs.
  if (!NON_ASCII.test(text) && !p.words.some((w) => NON_ASCII.test(w))) return asciiHolds(text.toLowerCase(), p);
  if (p.words.some(hasCjk) || hasCjk(text)) return cjkHolds(text, p);
  return unicodeHolds(text, p);
}

// Phrases over text with CJK runs (text/cjk.ts), by a regular expression over the folded text:
// a CJK word of the phrase is a substring of a run (the first may start inside one, the last may
// end inside one, the others must meet their neighbours), any other word is whole, ending where a
// run begins; between two words, only characters that are no part of a word.
const cjkPatterns = new Map<string, RegExp>();
const GAP = '[^\\p{L}\\p{N}\\p{Co}]*';
const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

function cjkPattern(p: PhraseWords): RegExp {
  return cached(cjkPatterns, JSON.stringify(p), 256, () => {
    const n = p.words.length;
    const parts = p.words.map((w0, k) => {
      const w = escapeRegExp(sigma(w0));
      if (hasCjk(w0)) return w;
      const start = k === 0 ? `(?<!${NON_CJK_WORD_CHAR})` : '';
      const end = p.prefix && k === n - 1 ? '' : `(?!${NON_CJK_WORD_CHAR})`;
      return `${start}${w}${end}`;
    });
    return new RegExp(parts.join(GAP), 'v');
  });
}

function cjkHolds(text: string, p: PhraseWords): boolean {
  return cjkPattern(p).test(sigma(foldToken(text)));
}

const WORD_RUN = /[\p{L}\p{N}\p{Co}]+/uy;
const NON_WORD_RUN = /[^\p{L}\p{N}\p{Co}]*/uy;
const ENDS_IN_WORD = /[\p{L}\p{N}\p{Co}]$/u;
// JS lower-cases a capital sigma by its place in the text (ς at a word's end, else σ): folding
// the whole text may place it otherwise than folding one word does, so both count as σ here.
const sigma = (s: string) => (s.includes('ς') ? s.replaceAll('ς', 'σ') : s);

/**
 * holdsPhrase for any text. The whole text is folded at once by foldToken, as a word is (NFD,
 * combining marks removed, lower case): marks only ever continue a word (TOKEN), so removing
 * them joins or splits none, and the folded text's words are the folded words of the text.
 * Then it is searched for the first word as in asciiHolds, which is faster than folding it word
 * by word.
 */
function unicodeHolds(text: string, p: PhraseWords): boolean {
  const f = sigma(foldToken(text));
  const words = p.words.map(sigma);
  const n = words.length;
  for (let at = f.indexOf(words[0]); at >= 0; at = f.indexOf(words[0], at + 1)) {
    if (at > 0 && ENDS_IN_WORD.test(f.slice(Math.max(0, at - 2), at))) continue; // inside a word
    let i = at;
    let k = 0;
    for (; k < n; k++) {
      WORD_RUN.lastIndex = i;
      const m = WORD_RUN.exec(f);
      if (!m) break;
      const w = words[k];
      if (!(p.prefix && k === n - 1 ? m[0].startsWith(w) : m[0] === w)) break;
      NON_WORD_RUN.lastIndex = WORD_RUN.lastIndex;
      NON_WORD_RUN.exec(f);
      i = NON_WORD_RUN.lastIndex;
    }
    if (k === n) return true;
  }
  return false;
}

/** holdsPhrase for lower-cased ASCII text and ASCII words. */
function asciiHolds(text: string, p: PhraseWords): boolean {
  const { words, prefix } = p;
  const n = text.length;
  const first = words[0];
  for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
    if (at > 0 && isWordCode(text.charCodeAt(at - 1))) continue; // inside a word
    let i = at;
    let k = 0;
    for (; k < words.length; k++) {
      if (i >= n) break;
      let j = i;
      while (j < n && isWordCode(text.charCodeAt(j))) j++;
      const w = words[k];
      const whole = prefix && k === words.length - 1 ? j - i >= w.length : j - i === w.length;
      if (!whole || !text.startsWith(w, i)) break;
      i = j;
      while (i < n && !isWordCode(text.charCodeAt(i))) i++;
    }
    if (k === words.length) return true;
  }
  return false;
}
