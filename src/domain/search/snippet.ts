// Snippets: a short excerpt of a hit's body around its best match, as HTML (page text escaped,
// matched words in <mark>). Pure. FTS5's snippet() re-runs the query once per hit (~25 µs
// each) and tokenizes the whole body; here one regular expression finds the query's words in
// the raw text (case- and accent-insensitive, as the index's unicode61 tokenizer with
// remove_diacritics folds them: `cafe` marks `Café`), and only the excerpt is tokenized.
import type { Phrase } from './fts-query.ts';

const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}\p{M}]/u;
const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}/gu;

/** A token as the index compares it: lower case, without diacritics. */
export function foldToken(token: string): string {
  return NON_ASCII.test(token) ? token.normalize('NFD').replace(MARKS, '').toLowerCase() : token.toLowerCase();
}

// For each base letter, the precomposed Latin letters that fold to it (é, È, ė, ẽ … for e), so
// that the search expression finds them in text that was never folded.
const VARIANTS = new Map<string, string>();
for (const [from, to] of [[0xc0, 0x24f], [0x1e00, 0x1eff]]) {
  for (let cp = from; cp <= to; cp++) {
    const ch = String.fromCodePoint(cp);
    const base = foldToken(ch);
    if (base.length === 1 && base !== ch && base !== ch.toLowerCase()) VARIANTS.set(base, (VARIANTS.get(base) ?? '') + ch);
  }
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A folded term as a pattern over raw text: each character or a variant of it, then any marks. */
function termPattern(term: string): string {
  return [...term].map((c) => `${VARIANTS.has(c) ? `[${c}${VARIANTS.get(c)}]` : escapeRegExp(c)}\\p{M}*`).join('');
}

type Terms = {
  exact: Set<string>; prefixes: string[]; find: RegExp | null; scanAscii: RegExp | null;
  /** lengths[k]: a token of k characters (63: 63 or more) may match. */
  lengths: boolean[];
};

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function queryTerms(phrases: Phrase[]): Terms {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const p of phrases) {
    const tokens = p.text.match(TOKEN) ?? [];
    tokens.forEach((t, i) => (p.prefix && i === tokens.length - 1 ? prefixes.push(foldToken(t)) : exact.add(foldToken(t))));
  }
  // Exact words end at a token boundary; prefixes need not. The start boundary is checked in
  // code: a leading lookbehind would keep the engine from skipping ahead to candidates.
  const alts = [...[...exact].map((t) => `${termPattern(t)}(?![\\p{L}\\p{N}\\p{Co}\\p{M}])`), ...prefixes.map(termPattern)];
  // For ASCII terms in ASCII text (most pages) the same matches come from a plain pattern that
  // the regexp engine scans for quickly; the Unicode one checks for marks after every character.
  const ascii = alts.length > 0 && [...exact, ...prefixes].every((t) => ASCII_ONLY.test(t));
  const asciiAlts = [...[...exact].map((t) => `${escapeRegExp(t)}(?![A-Za-z0-9])`), ...prefixes.map(escapeRegExp)];
  const lengths = Array.from({ length: 64 }, (_, k) => [...exact].some((t) => Math.min(t.length, 63) === k) || prefixes.some((p) => p.length <= k));
  lengths[63] = true;
  return {
    exact, prefixes, lengths,
    find: alts.length ? new RegExp(alts.join('|'), 'giu') : null,
    // It also stops at the first non-ASCII character: that text takes the Unicode path.
    scanAscii: ascii ? new RegExp(`[^\\x00-\\x7f]|${asciiAlts.join('|')}`, 'gi') : null,
  };
}

// Building the expressions costs ~30 µs a query; the same queries come back (a search box,
// paging, an agent retrying). Terms are read-only once built (matchAll copies the RegExp).
const termsCache = new Map<string, Terms>();

function cachedTerms(phrases: Phrase[]): Terms {
  const key = JSON.stringify(phrases);
  let terms = termsCache.get(key);
  if (terms) termsCache.delete(key);
  else {
    terms = queryTerms(phrases);
    if (termsCache.size >= 256) termsCache.delete(termsCache.keys().next().value!);
  }
  termsCache.set(key, terms);
  return terms;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * About `size` tokens of `text` around the densest group of matches (the start of the text when
 * nothing matches there: a title-only hit), whitespace collapsed, '…' where it was cut.
 */
export function makeSnippet(text: string, phrases: Phrase[], size = 24): string {
  return snippetMaker(phrases, size)(text);
}

/**
 * makeSnippet for many texts and one query: the query's expressions are built once.
 * `asciiPath: false` sends every text down the Unicode path (tests compare the two).
 */
export function snippetMaker(phrases: Phrase[], size = 24, asciiPath = true): (text: string) => string {
  const terms = asciiPath ? cachedTerms(phrases) : { ...queryTerms(phrases), scanAscii: null };
  return (text) => snippetOf(text, terms, size);
}

function snippetOf(text: string, terms: Terms, size: number): string {
  if (terms.scanAscii) {
    const html = asciiSnippetOf(text, terms, terms.scanAscii, size);
    if (html !== null) return html;
  }
  let start = snippetStart(text, terms, size);
  let r = render(text, terms, start, size);
  // Near the end of the text, take more lead-in rather than show fewer words.
  if (r.count < size && start > 0) {
    start = stepBack(text, start, size - r.count);
    r = render(text, terms, start, size);
  }
  return r.html;
}

function render(text: string, terms: Terms, start: number, size: number): { html: string; count: number } {
  const tokens = TOKEN;
  tokens.lastIndex = start;
  const hits: Array<[number, number]> = [];
  let first = -1;
  let end = start;
  let count = 0;
  for (let m: RegExpExecArray | null; count < size && (m = tokens.exec(text)); count++) {
    if (first < 0) first = m.index;
    end = m.index + m[0].length;
    const f = foldToken(m[0]);
    if (terms.exact.has(f) || terms.prefixes.some((p) => f.startsWith(p))) hits.push([m.index, end]);
  }
  if (count === 0) return { html: '', count };
  const more = count === size && tokens.exec(text) !== null;
  if (!more) end = text.length;
  // Escape and collapse the stretches between marked words, one slice each.
  const piece = (a: number, b: number) => escapeHtml(text.slice(a, b).replace(/\s+/g, ' '));
  let out = start > 0 ? '…' : '';
  let at = start > 0 ? first : start;
  for (const [a, b] of hits) {
    out += `${piece(at, a)}<mark>${piece(a, b)}</mark>`;
    at = b;
  }
  out += piece(at, end);
  return { html: (more ? out + '…' : out.trimEnd()).replace(/^\s+/, ''), count };
}

/** Where the excerpt starts: a few tokens before the first match of the densest stretch. */
function snippetStart(text: string, terms: Terms, size: number): number {
  if (!terms.find) return 0;
  const at: number[] = [];
  for (const m of text.matchAll(terms.find)) if (m.index === 0 || !TOKEN_CHAR.test(text[m.index - 1])) at.push(m.index);
  if (at.length === 0) return 0;
  const span = size * 6; // characters: about `size` tokens of prose
  let anchor = at[0];
  let best = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (j < at.length && at[j] < at[i] + span) j++;
    if (j - i > best) {
      best = j - i;
      anchor = at[i];
    }
  }
  return stepBack(text, anchor, Math.floor(size / 4));
}

/** The start of the token `n` tokens before `pos` (or 0 when no token precedes it). */
function stepBack(text: string, pos: number, n: number): number {
  for (let k = 0; k < n; k++) {
    let p = pos;
    while (p > 0 && !TOKEN_CHAR.test(text[p - 1])) p--;
    if (p === 0) return 0;
    while (p > 0 && TOKEN_CHAR.test(text[p - 1])) p--;
    pos = p;
  }
  // Nothing but punctuation before: start at the very beginning, without '…'.
  let p = pos;
  while (p > 0 && !TOKEN_CHAR.test(text[p - 1])) p--;
  return p === 0 ? 0 : pos;
}

// The same snippet for ASCII text and ASCII query words, with character codes instead of Unicode
// property patterns (most pages; a rare-term query makes 50 of these). In ASCII, a token
// character is a letter or a digit. Property-tested equal to the Unicode path.

const isWordCode = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);

/** The snippet, or null when the text holds a non-ASCII character. */
function asciiSnippetOf(text: string, terms: Terms, scan: RegExp, size: number): string | null {
  const at: number[] = [];
  for (const m of text.matchAll(scan)) {
    if (m[0].charCodeAt(0) > 0x7f) return null;
    if (m.index === 0 || !isWordCode(text.charCodeAt(m.index - 1))) at.push(m.index);
  }
  let start = 0;
  if (at.length > 0) {
    const span = size * 6;
    let anchor = at[0];
    let best = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (j < at.length && at[j] < at[i] + span) j++;
      if (j - i > best) {
        best = j - i;
        anchor = at[i];
      }
    }
    start = asciiStepBack(text, anchor, Math.floor(size / 4));
  }
  let r = asciiRender(text, terms, start, size);
  if (r.count < size && start > 0) {
    start = asciiStepBack(text, start, size - r.count);
    r = asciiRender(text, terms, start, size);
  }
  return r.html;
}

function asciiRender(text: string, terms: Terms, start: number, size: number): { html: string; count: number } {
  const n = text.length;
  const hits: number[] = [];
  let i = start;
  let first = -1;
  let end = start;
  let count = 0;
  while (count < size) {
    while (i < n && !isWordCode(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const a = i;
    while (i < n && isWordCode(text.charCodeAt(i))) i++;
    if (first < 0) first = a;
    end = i;
    count++;
    // Only a token as long as a query word (or longer than a prefix) can match it.
    if (terms.lengths[Math.min(i - a, 63)]) {
      const f = text.slice(a, i).toLowerCase();
      if (terms.exact.has(f) || terms.prefixes.some((p) => f.startsWith(p))) hits.push(a, i);
    }
  }
  if (count === 0) return { html: '', count };
  let more = false;
  if (count === size) {
    while (i < n && !isWordCode(text.charCodeAt(i))) i++;
    more = i < n;
  }
  if (!more) end = n;
  // Most stretches need no escaping and hold no whitespace to collapse: one test finds out.
  const piece = (a: number, b: number) => {
    const t = text.slice(a, b);
    return NEEDS_WORK.test(t) ? escapeHtml(t.replace(/\s+/g, ' ')) : t;
  };
  let out = start > 0 ? '…' : '';
  let at = start > 0 ? first : start;
  for (let k = 0; k < hits.length; k += 2) {
    out += `${piece(at, hits[k])}<mark>${piece(hits[k], hits[k + 1])}</mark>`;
    at = hits[k + 1];
  }
  out += piece(at, end);
  return { html: (more ? out + '…' : out.trimEnd()).replace(/^\s+/, ''), count };
}

// In ASCII text: a character to escape, whitespace other than a space, or two spaces.
const NEEDS_WORK = /[&<>"'\t\n\v\f\r]| {2}/;

function asciiStepBack(text: string, pos: number, n: number): number {
  for (let k = 0; k < n; k++) {
    let p = pos;
    while (p > 0 && !isWordCode(text.charCodeAt(p - 1))) p--;
    if (p === 0) return 0;
    while (p > 0 && isWordCode(text.charCodeAt(p - 1))) p--;
    pos = p;
  }
  let p = pos;
  while (p > 0 && !isWordCode(text.charCodeAt(p - 1))) p--;
  return p === 0 ? 0 : pos;
}
