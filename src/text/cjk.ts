// Chinese, Japanese and Korean text, which does not separate its words by spaces. The index's
// tokenizer (unicode61) would make one word of a whole run of such characters (a clause, often a
// sentence), so that プラグイン was found only where it stood alone between punctuation. Runs of
// these characters are indexed instead as their bigrams, every two characters in a row
// (プラグイン → プラ ラグ グイ イン), and a query's run is looked up as the AND of bigrams covering it:
// the pages holding every bigram of a query run hold the run itself, or its pieces apart, and the
// ranking reads each candidate's text (domain/search/score.ts), which finds the run as a substring.
// Other scripts keep their words: bigrams are made for CJK runs only, so they cost room only where
// there is such text. Pure.

/**
 * The characters indexed as bigrams, as code point ranges: the letters and numbers of the Han,
 * Hiragana, Katakana and Hangul scripts (々, ー, ｰ and the halfwidth forms too), blocks whole
 * where they hold nothing else. Written out rather than as \p{scx=Han}…: a regular expression
 * with those properties takes milliseconds to compile, and a query's expressions are made per query.
 */
export const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x11ff], // Hangul Jamo
  [0x3005, 0x3007], // 々 〆 〇
  [0x3021, 0x3029], // Hangzhou numerals
  [0x3031, 0x3035], // kana repeat marks
  [0x3038, 0x303c], // 〸 〹 〺 〻 〼
  [0x3041, 0x3096], // Hiragana
  [0x309d, 0x309f], // ゝ ゞ ゟ
  [0x30a1, 0x30fa], // Katakana
  [0x30fc, 0x30ff], // ー ヽ ヾ ヿ
  [0x3131, 0x318e], // Hangul Compatibility Jamo
  [0x31f0, 0x31ff], // Katakana Phonetic Extensions
  [0x3400, 0x4dbf], // CJK Unified Ideographs Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xa960, 0xa97c], // Hangul Jamo Extended-A
  [0xac00, 0xd7a3], // Hangul Syllables
  [0xd7b0, 0xd7fb], // Hangul Jamo Extended-B
  [0xf900, 0xfaff], // CJK Compatibility Ideographs
  [0xff66, 0xffdc], // Halfwidth Katakana and Hangul
  [0x1b000, 0x1b16f], // Kana Supplement, Extended-A, Small Kana Extension
  [0x20000, 0x323af], // CJK Unified Ideographs Extensions B–H, Compatibility Ideographs Supplement
];
const hex = (cp: number) => `\\u{${cp.toString(16)}}`;
/** A CJK character, as a regular expression class (for the `u` and `v` flags). */
export const CJK_SET = `[${CJK_RANGES.map(([a, b]) => `${hex(a)}-${hex(b)}`).join('')}]`;
/** A character that starts a word and is not CJK: a letter, number or private-use character (TOKEN's first class less CJK_SET). */
export const NON_CJK_WORD_START = `[[\\p{L}\\p{N}\\p{Co}]--${CJK_SET}]`;
/** A character of a word that is not CJK: a letter, number, private-use character or mark (TOKEN's second class less CJK_SET). */
export const NON_CJK_WORD_CHAR = `[[\\p{L}\\p{N}\\p{Co}\\p{M}]--${CJK_SET}]`;
/** A CJK character with its combining marks (a kana's voicing mark written apart). */
const UNIT = `${CJK_SET}\\p{M}*`;

const HAS_CJK = new RegExp(CJK_SET, 'v');
const RUN = new RegExp(`(?:${UNIT})+`, 'gv');
const UNITS = new RegExp(UNIT, 'gv');

/** Whether `text` holds a CJK character. */
export function hasCjk(text: string): boolean {
  return HAS_CJK.test(text);
}

/** The characters of a CJK run, each with its marks, composed (NFC) as queries and pages are compared. */
function unitsOf(run: string): string[] {
  return run.normalize('NFC').match(UNITS) ?? [];
}

/** How many characters a CJK run has (a character with its marks counting one). */
export function cjkLength(run: string): number {
  return unitsOf(run).length;
}

/** Every two characters in a row of a run (a run of one character: itself). */
export function bigrams(run: string): string[] {
  const u = unitsOf(run);
  if (u.length < 2) return u;
  const out: string[] = [];
  for (let i = 0; i + 1 < u.length; i++) out.push(u[i] + u[i + 1]);
  return out;
}

/**
 * A page's title or body as the index is given it: each CJK run replaced by its bigrams, spaces
 * around and between them (so a Latin word next to a run, `Obsidianの`, is a word of its own).
 * Text without CJK is returned as it is.
 */
export function indexText(text: string): string {
  if (!HAS_CJK.test(text)) return text;
  return text.replace(RUN, (run) => ` ${bigrams(run).join(' ')} `);
}

/**
 * The most bigrams a query's run is looked up by. Each bigram is a page list FTS5 walks; the
 * text check (score.ts) finds the run itself in the candidates, so a long run is looked up by
 * some of its bigrams, spread over it.
 */
const MAX_QUERY_BIGRAMS = 6;

/**
 * The bigrams a query's run is looked up by: bigrams that cover it without overlapping (and the
 * last one), at most MAX_QUERY_BIGRAMS, the first and the last always among them. A run of one
 * character is that character: it finds a page where it stands alone (the index holds it only
 * inside bigrams otherwise), so a CJK query needs two characters to find text in a longer run.
 */
export function queryBigrams(run: string): string[] {
  const all = bigrams(run);
  if (all.length <= 2) return all;
  const cover: string[] = [];
  for (let i = 0; i < all.length; i += 2) cover.push(all[i]);
  if ((all.length - 1) % 2 !== 0) cover.push(all[all.length - 1]);
  if (cover.length <= MAX_QUERY_BIGRAMS) return cover;
  const picked = new Set<string>();
  for (let k = 0; k < MAX_QUERY_BIGRAMS; k++) picked.add(cover[Math.round((k * (cover.length - 1)) / (MAX_QUERY_BIGRAMS - 1))]);
  return [...picked];
}

/** `text` cut into CJK runs and the stretches between them, in order. */
export function cjkSegments(text: string): Array<{ text: string; cjk: boolean }> {
  const out: Array<{ text: string; cjk: boolean }> = [];
  let at = 0;
  for (const m of text.matchAll(RUN)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), cjk: false });
    out.push({ text: m[0], cjk: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), cjk: false });
  return out;
}
