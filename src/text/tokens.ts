// Words as the full-text index sees them, shared by the query parser, the phrase check and the
// snippets: what a word is, how it folds, and a query's parsed phrases.
import { CJK_SET, NON_CJK_WORD_CHAR, NON_CJK_WORD_START } from './cjk.ts';

/** A query's word or quoted phrase; `prefix` when it ends with `*`. */
export type Phrase = { text: string; prefix: boolean };

/**
 * A word as the index's tokenizer (unicode61) sees one: a letter, number or private-use
 * character, then any of those or combining marks; a run of CJK characters is a word of its own,
 * apart from the letters next to it, as the index is given it (text/cjk.ts: its bigrams). Global:
 * use it with matchAll or reset lastIndex.
 */
export const TOKEN = new RegExp(`${CJK_SET}(?:${CJK_SET}|\\p{M})*|${NON_CJK_WORD_START}${NON_CJK_WORD_CHAR}*`, 'gv');
/** One character of a word (TOKEN's second class). */
export const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u;
/** A character outside ASCII: text without one folds by lower-casing alone. */
export const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}/gu;

// A mark after a CJK character (a kana's voicing mark) is part of it: the index's tokenizer keeps
// グ apart from ク, so folding does too.
const MARKS_NOT_AFTER_CJK = new RegExp(`(?<!${CJK_SET}\\p{M}*)\\p{M}+`, 'gv');
const HAS_CJK = new RegExp(CJK_SET, 'v');

/**
 * A token (or a whole text) as the index compares it: lower case, without diacritics; CJK
 * characters composed (NFC) and with their marks.
 */
export function foldToken(token: string): string {
  if (!NON_ASCII.test(token)) return token.toLowerCase();
  const d = token.normalize('NFD');
  if (!HAS_CJK.test(d)) return d.replace(MARKS, '').toLowerCase();
  return d.replace(MARKS_NOT_AFTER_CJK, '').normalize('NFC').toLowerCase();
}

/** Whether an ASCII character code is part of a word (a letter or digit; the index's rule for ASCII). */
export const isWordCode = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
