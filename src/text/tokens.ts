// Words as the full-text index sees them, shared by the query parser, the phrase check and the
// snippets: what a word is, how it folds, and a query's parsed phrases.

/** A query's word or quoted phrase; `prefix` when it ends with `*`. */
export type Phrase = { text: string; prefix: boolean };

/**
 * A word as the index's tokenizer (unicode61) sees one: a letter, number or private-use
 * character, then any of those or combining marks. Global: use it with matchAll or reset lastIndex.
 */
export const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;
/** One character of a word (TOKEN's second class). */
export const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u;
/** A character outside ASCII: text without one folds by lower-casing alone. */
export const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}/gu;

/** A token as the index compares it: lower case, without diacritics. */
export function foldToken(token: string): string {
  return NON_ASCII.test(token) ? token.normalize('NFD').replace(MARKS, '').toLowerCase() : token.toLowerCase();
}

/** Whether an ASCII character code is part of a word (a letter or digit; the index's rule for ASCII). */
export const isWordCode = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
