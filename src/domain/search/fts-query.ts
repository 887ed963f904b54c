// The full-text query language, translated into FTS5 MATCH expressions. Pure.
//
// A user writes words (all must occur), "quoted phrases" (the words next to each other) and
// word* prefixes. Nothing else is syntax: every other character is text that the tokenizer
// treats as it treats page text, so `AND`, `NEAR(`, `-x`, `col:x` or `^` search for words,
// never change the query's meaning, and cannot make FTS5 fail. That holds because every phrase
// goes to FTS5 as a double-quoted string (inner quotes doubled), the only FTS5 syntax used
// besides `*`, `AND`, `NOT`, parentheses and the `{title}` column filter this module writes.
import type { Issue } from '../issues.ts';
import { foldToken } from './snippet.ts';

export type Phrase = { text: string; prefix: boolean };

export const MAX_QUERY_CHARS = 1000;
export const MAX_PHRASES = 32;
// Every word of the query is a page list FTS5 walks (a phrase's words too, with their positions):
// 32 common words cost ~0.6 s a statement over 100,000 pages (docs/performance.md, Search cost).
export const MAX_WORDS = 8;
// A prefix is expanded by FTS5 into every indexed word that starts with it, and their page lists
// merged before the first match comes out: `t*` over 100,000 pages took ~0.5 s in one statement
// (docs/performance.md, Search cost). Short prefixes are refused, and so are many of them.
export const MIN_PREFIX_CHARS = 3;
export const MAX_PREFIXES = 2;

// Characters the unicode61 tokenizer keeps in tokens: letters, numbers and private-use
// characters. A phrase without one has no tokens; FTS5 would match nothing for it, so it is
// dropped rather than AND-ed in (a stray `-` or emoji must not empty the result).
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;
const SPACE = /\s/u;

/** Splits a query into phrases; a query of only punctuation gives none. */
export function parseQuery(q: string): Phrase[] {
  const out: Phrase[] = [];
  let i = 0;
  while (i < q.length) {
    if (SPACE.test(q[i])) {
      i++;
      continue;
    }
    let text: string;
    if (q[i] === '"') {
      // A quote opens a phrase at the start of a word; an unclosed one runs to the end.
      const close = q.indexOf('"', i + 1);
      text = close < 0 ? q.slice(i + 1) : q.slice(i + 1, close);
      i = close < 0 ? q.length : close + 1;
      let prefix = false;
      while (q[i] === '*') {
        prefix = true;
        i++;
      }
      push(out, text, prefix);
      continue;
    }
    const start = i;
    while (i < q.length && !SPACE.test(q[i])) i++;
    text = q.slice(start, i);
    const bare = text.replace(/\*+$/, '');
    push(out, bare, bare.length < text.length);
  }
  return out;
}

// A phrase written twice matches the same pages: FTS5 would still walk its page list twice.
function push(out: Phrase[], text: string, prefix: boolean): void {
  if (!TOKEN_CHAR.test(text)) return;
  const key = foldToken(text);
  if (out.some((p) => p.prefix === prefix && foldToken(p.text) === key)) return;
  out.push({ text, prefix });
}

const TOKENS = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;

/** The words of all phrases together (a phrase counts each of its words). */
export function countWords(phrases: Phrase[]): number {
  return phrases.reduce((n, p) => n + (p.text.match(TOKENS)?.length ?? 0), 0);
}

/** The word a prefix phrase ends with, as the index holds words (folded): what `*` expands. */
export function prefixWord(p: Phrase): string {
  const words = p.text.match(TOKENS) ?? [];
  return foldToken(words[words.length - 1] ?? '');
}

/** Why the query cannot run (400), or null. */
export function checkQuery(q: string | null): Issue | null {
  if (q === null || q.trim() === '') return { key: 'q', code: 'required', message: 'q holds the words to search for' };
  if (q.length > MAX_QUERY_CHARS) return { key: 'q', code: 'max', message: `q has at most ${MAX_QUERY_CHARS} characters` };
  const phrases = parseQuery(q);
  if (phrases.length > MAX_PHRASES) return { key: 'q', code: 'max', message: `q has at most ${MAX_PHRASES} words or phrases` };
  const words = countWords(phrases);
  if (words > MAX_WORDS) return { key: 'q', code: 'max', message: `q has at most ${MAX_WORDS} different words (a phrase counts each of its words); this one has ${words}` };
  const prefixes = phrases.filter((p) => p.prefix);
  if (prefixes.length > MAX_PREFIXES) return { key: 'q', code: 'max', message: `q has at most ${MAX_PREFIXES} prefixes (words ending in *)` };
  const short = prefixes.find((p) => [...prefixWord(p)].length < MIN_PREFIX_CHARS);
  if (short) return { key: 'q', code: 'min', message: `a prefix needs at least ${MIN_PREFIX_CHARS} letters before the *: \`${short.text}*\` is too short` };
  return null;
}

/** One phrase as an FTS5 string: quoted, inner quotes doubled, `*` marking a prefix. */
export function quotePhrase(p: Phrase): string {
  return `"${p.text.replaceAll('"', '""')}"${p.prefix ? '*' : ''}`;
}

/** Every phrase anywhere in the page (title or body). */
export function matchAll(phrases: Phrase[]): string {
  return phrases.map(quotePhrase).join(' AND ');
}

/** Every phrase in the title: the group of hits ranked first. */
export function matchTitle(phrases: Phrase[]): string {
  return phrases.map((p) => `{title} : ${quotePhrase(p)}`).join(' AND ');
}

/** The other hits: every phrase somewhere, but not all of them in the title. */
export function matchRest(phrases: Phrase[]): string {
  return `(${matchAll(phrases)}) NOT (${matchTitle(phrases)})`;
}
