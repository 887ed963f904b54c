// Whether a text holds a phrase: its words one after the other, as the index compares words
// (case and diacritics folded, anything that is not a word between them ignored), the last one
// possibly a prefix. Pure. The index (detail = column, store/fts-index.ts) knows which column
// holds a word but not where: FTS5 finds the pages holding every word of a phrase, and this
// decides, for each of those, whether the words are next to each other (full-text.ts).
//
// Words are cut and folded exactly as snippets cut them (snippet.ts: TOKEN and foldToken, the
// index's unicode61 rules with remove_diacritics), not by a tokenizer of their own.
import { TOKEN, foldToken, isWordCode } from './snippet.ts';

/** A phrase's words, folded, and whether the last is a prefix. */
export type PhraseWords = { words: string[]; prefix: boolean };

const NON_ASCII = /[^\x00-\x7f]/;

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
  const n = p.words.length;
  const last: string[] = []; // the last n words of the text, folded
  // Folding a non-ASCII word (NFD, marks removed) costs ~1 µs; a text repeats most of its words.
  const folded = new Map<string, string>();
  for (const m of text.matchAll(TOKEN)) {
    let f = folded.get(m[0]);
    if (f === undefined) folded.set(m[0], (f = foldToken(m[0])));
    last.push(f);
    if (last.length > n) last.shift();
    if (last.length === n && wordsMatch(last, p)) return true;
  }
  return false;
}

function wordsMatch(words: string[], p: PhraseWords): boolean {
  const n = p.words.length;
  for (let k = 0; k < n; k++) {
    const ok = p.prefix && k === n - 1 ? words[k].startsWith(p.words[k]) : words[k] === p.words[k];
    if (!ok) return false;
  }
  return true;
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
