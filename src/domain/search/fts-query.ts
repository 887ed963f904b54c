// The full-text query language, translated into FTS5 MATCH expressions. Pure.
//
// A user writes words (all must occur), "quoted phrases" (the words next to each other) and
// word* prefixes. Nothing else is syntax: every other character is text that the tokenizer
// treats as it treats page text, so `AND`, `NEAR(`, `-x`, `col:x` or `^` search for words,
// never change the query's meaning, and cannot make FTS5 fail. That holds because every phrase
// goes to FTS5 as double-quoted strings (inner quotes doubled), the only FTS5 syntax used
// besides `*` and `AND`.
//
// The index keeps no word positions and no columns (detail = none, src/store/fts/index-file.ts): FTS5
// refuses a quoted string it splits into more than one word, and any column filter. A phrase of
// one word (as the index's own tokenizer splits it: `indexWords`) goes to FTS5 as written; a
// phrase of several goes as the AND of its words, and is checked: the words next to each other
// in the title or in the body (phrase-check.ts, applied by full-text.ts). Titles have an index of
// their own (title_fts), which finds the group of hits ranked first.
import type { IdQuery } from '../../store/search.ts';
import { foldedWords, type PhraseWords } from './phrase-check.ts';
import { TOKEN, foldToken, type Phrase } from '../../text/tokens.ts';
import { hasCjk, queryBigrams } from '../../text/cjk.ts';
import type { Issue } from '../../model.ts';

const MAX_QUERY_CHARS = 1000;
// Words and phrases past these counts are left out of the search (a question of 20–30 words is an
// ordinary query): every word is a page list FTS5 walks, so the number of words bounds a
// statement's cost (docs/search.md, Limits on a query's cost).
const MAX_PHRASES = 32;
const MAX_WORDS = 32;
// A prefix is expanded by FTS5 into every indexed word that starts with it, and their page lists
// merged before the first match comes out: short prefixes are refused, and so are many of them
// (docs/performance.md, Figures behind the code).
export const MIN_PREFIX_CHARS = 3;
export const MAX_PREFIXES = 2;

// Words so common that they say little about a page; left out of a query that has other words
// (searchedPhrases), before the caps above: "how to remove a vault" searches for `remove` and
// `vault`, and the 32 words a long question is searched by are words that count.
export const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have having
he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or
other our ours out over own same she should so some such than that the their theirs them then there these they this
those through to too under until up very was we were what when where which while who whom why will with would you
your yours`.split(/\s+/),
);

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
// A `*` after CJK text is no prefix: such text matches as a substring anyway (text/cjk.ts).
function push(out: Phrase[], text: string, written: boolean): void {
  if (!TOKEN_CHAR.test(text)) return;
  const prefix = written && !hasCjk((text.match(TOKEN) ?? []).pop() ?? '');
  const key = foldToken(text);
  if (out.some((p) => p.prefix === prefix && foldToken(p.text) === key)) return;
  out.push({ text, prefix });
}

/**
 * What a word counts towards MAX_WORDS: one, or for a CJK run the bigrams it is looked up by
 * (text/cjk.ts queryBigrams, up to 6): each is a page list FTS5 walks.
 */
const wordCost = (token: string) => (hasCjk(token) ? Math.max(1, queryBigrams(token).length) : 1);
const phraseCost = (tokens: string[]) => tokens.reduce((n, t) => n + wordCost(t), 0);

/** The words of all phrases together (a phrase counts each of its words; a CJK run its bigrams). */
export function countWords(phrases: Phrase[]): number {
  return phrases.reduce((n, p) => n + phraseCost(p.text.match(TOKEN) ?? []), 0);
}

/** The word a prefix phrase ends with, as the index holds words (folded): what `*` expands. */
export function prefixWord(p: Phrase): string {
  const words = p.text.match(TOKEN) ?? [];
  return foldToken(words[words.length - 1] ?? '');
}

/** Why the query cannot run (400), or null. Words past MAX_WORDS are dropped (capPhrases), not refused. */
export function checkQuery(q: string | null): Issue | null {
  if (q === null || q.trim() === '') return { key: 'q', code: 'required', message: 'q holds the words to search for' };
  if (q.length > MAX_QUERY_CHARS) return { key: 'q', code: 'max', message: `q has at most ${MAX_QUERY_CHARS} characters` };
  const prefixes = searchedPhrases(q).filter((p) => p.prefix);
  if (prefixes.length > MAX_PREFIXES)
    return { key: 'q', code: 'max', message: `q has at most ${MAX_PREFIXES} prefixes (words ending in *)` };
  const short = prefixes.find((p) => [...prefixWord(p)].length < MIN_PREFIX_CHARS);
  if (short)
    return {
      key: 'q',
      code: 'min',
      message: `a prefix needs at least ${MIN_PREFIX_CHARS} letters before the *: \`${short.text}*\` is too short`,
    };
  return null;
}

/** A phrase of one word that is a stop word (a quoted phrase of several words keeps its stop words). */
function isStopWord(p: Phrase): boolean {
  const words = p.text.match(TOKEN);
  return words !== null && words.length === 1 && STOP_WORDS.has(foldToken(words[0]));
}

/** The phrases a query searches: its stop words left out when it has other words, then capped (capPhrases). */
export function searchedPhrases(q: string): Phrase[] {
  const all = parseQuery(q);
  const content = all.filter((p) => !isStopWord(p));
  return capPhrases(content.length > 0 ? content : all);
}

/** The query's first MAX_PHRASES phrases holding at most MAX_WORDS words in all (a phrase counts each of its words). */
export function capPhrases(phrases: Phrase[]): Phrase[] {
  const out: Phrase[] = [];
  let words = 0;
  for (const p of phrases.slice(0, MAX_PHRASES)) {
    const tokens = p.text.match(TOKEN) ?? [];
    words += phraseCost(tokens);
    if (words > MAX_WORDS) {
      // A first phrase longer than the cap is searched by its first MAX_WORDS words.
      if (out.length === 0) {
        let n = 0;
        let cost = 0;
        while (n < tokens.length && cost + wordCost(tokens[n]) <= MAX_WORDS) cost += wordCost(tokens[n++]);
        out.push({ text: tokens.slice(0, Math.max(1, n)).join(' '), prefix: false });
      }
      break;
    }
    out.push(p);
  }
  return out;
}

/**
 * One phrase as an FTS5 string: quoted, inner quotes doubled, `*` marking a prefix. FTS5's
 * expression parser ends a string at a NUL character ("unterminated string", a 500 for `a\0b`):
 * a NUL is no part of a word to the tokenizer either, so a space stands in for it.
 */
export function quotePhrase(p: Phrase): string {
  return `"${p.text.replaceAll('"', '""').replaceAll('\0', ' ')}"${p.prefix ? '*' : ''}`;
}

/** The words the index's tokenizer makes of a text, folded (src/store/fts/tokens.ts). */
export type IndexWords = (text: string) => string[];

/** A phrase as FTS5 gets it: one quoted string when the index makes one word (or none) of it, else the AND of its words. */
function phraseMatch(p: Phrase, indexWords: IndexWords): string {
  const words = indexWords(p.text);
  if (words.length <= 1) return quotePhrase(p);
  return words.map((w, i) => quotePhrase({ text: w, prefix: p.prefix && i === words.length - 1 })).join(' AND ');
}

/** Every phrase's words, anywhere in what the index holds of a page (or of a title). */
export function matchAll(phrases: Phrase[], indexWords: IndexWords): string {
  return phrases.map((p) => phraseMatch(p, indexWords)).join(' AND ');
}

/**
 * The candidates of the two groups of hits. First the pages whose title holds every phrase's
 * words (the titles' index). Then, without a phrase to check, the pages holding every phrase's
 * words but whose title does not; with one, every page holding every phrase's words: a page
 * whose title holds a phrase's words but not the phrase belongs there, so the group is decided
 * by the check.
 */
export function groupQueries(phrases: Phrase[], indexWords: IndexWords): [IdQuery, IdQuery] {
  const match = matchAll(phrases, indexWords);
  const checking = phrases.some((p) => needsCheck(p, indexWords));
  return [
    { of: 'titles', match },
    { of: checking ? 'pages' : 'pagesNotTitles', match },
  ];
}

/**
 * Whether FTS5's match of the phrase must be checked: it has more than one word (the index's
 * or JS's count; they differ only for rare characters, and then the check decides).
 */
function needsCheck(p: Phrase, indexWords: IndexWords): boolean {
  return indexWords(p.text).length > 1 || (p.text.match(TOKEN)?.length ?? 0) > 1;
}

/** A phrase for the check (phrase-check.ts), and whether FTS5's match of it needs one. */
export type CheckedPhrase = PhraseWords & { checked: boolean };

export function checkedPhrases(phrases: Phrase[], indexWords: IndexWords): CheckedPhrase[] {
  return phrases.map((p) => ({ words: foldedWords(p.text), prefix: p.prefix, checked: needsCheck(p, indexWords) }));
}
