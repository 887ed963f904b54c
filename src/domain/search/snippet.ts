// Snippets: a short excerpt of a hit's body around its best match, as HTML (page text escaped,
// matched words in <mark>). Pure. FTS5's snippet() re-runs the query once per hit and
// tokenizes the whole body; here one regular expression finds the query's words in
// the raw text (case- and accent-insensitive, as the index's unicode61 tokenizer with
// remove_diacritics folds them: `cafe` marks `Café`), and only the excerpt is tokenized.
// A CJK word of the query (text/cjk.ts) is marked wherever a run holds it, and two CJK characters
// count as one word of the snippet's length (a run is no word: it may be a whole sentence).
import { cached } from '../../bounded-cache.ts';
import { foldToken, isWordCode, TOKEN, TOKEN_CHAR, type Phrase } from '../../text/tokens.ts';
import { CJK_SET, NON_CJK_WORD_CHAR, NON_CJK_WORD_START, hasCjk } from '../../text/cjk.ts';
import { headingAt, plainText } from './plain-text.ts';

// For each base letter, the precomposed Latin letters that fold to it (é, È, ė, ẽ … for e), so
// that the search expression finds them in text that was never folded. Made at the first
// snippet, not at start: its 700 NFD foldings would lengthen every cold start.
let variants: Map<string, string> | null = null;
function variantsOf(): Map<string, string> {
  if (variants) return variants;
  variants = new Map<string, string>();
  for (const [from, to] of [
    [0xc0, 0x24f],
    [0x1e00, 0x1eff],
  ]) {
    for (let cp = from; cp <= to; cp++) {
      const ch = String.fromCodePoint(cp);
      const base = foldToken(ch);
      if (base.length === 1 && base !== ch && base !== ch.toLowerCase()) variants.set(base, (variants.get(base) ?? '') + ch);
    }
  }
  return variants;
}

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** A folded term as a pattern over raw text: each character or a variant of it, then any marks. */
function termPattern(term: string): string {
  const table = variantsOf();
  return [...term].map((c) => `${table.has(c) ? `[${c}${table.get(c)}]` : escapeRegExp(c)}\\p{M}*`).join('');
}

type Terms = {
  exact: Set<string>;
  prefixes: string[];
  find: RegExp | null;
  scanAscii: RegExp | null;
  /** CJK words, matched inside runs, and their pattern over raw text (null: none). */
  infixes: RegExp | null;
  /** lengths[k]: a token of k characters (63: 63 or more) may match. */
  lengths: boolean[];
};

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function queryTerms(phrases: Phrase[]): Terms {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const infixes = new Set<string>();
  for (const p of phrases) {
    const tokens = p.text.match(TOKEN) ?? [];
    tokens.forEach((t, i) => {
      if (hasCjk(t)) infixes.add(foldToken(t));
      else if (p.prefix && i === tokens.length - 1) prefixes.push(foldToken(t));
      else exact.add(foldToken(t));
    });
  }
  // Exact words end at a token boundary (a CJK run begins one); prefixes and CJK words need not.
  // The start boundary is checked in code: a leading lookbehind would keep the engine from
  // skipping ahead to candidates.
  const infixAlts = [...infixes].sort((a, b) => b.length - a.length).map(termPattern);
  const alts = [...[...exact].map((t) => `${termPattern(t)}(?!${NON_CJK_WORD_CHAR})`), ...prefixes.map(termPattern), ...infixAlts];
  // For ASCII terms in ASCII text (most pages) the same matches come from a plain pattern that
  // the regexp engine scans for quickly; the Unicode one checks for marks after every character.
  const ascii = alts.length > 0 && infixes.size === 0 && [...exact, ...prefixes].every((t) => ASCII_ONLY.test(t));
  const asciiAlts = [...[...exact].map((t) => `${escapeRegExp(t)}(?![A-Za-z0-9])`), ...prefixes.map(escapeRegExp)];
  const lengths = Array.from(
    { length: 64 },
    (_, k) => [...exact].some((t) => Math.min(t.length, 63) === k) || prefixes.some((p) => p.length <= k),
  );
  lengths[63] = true;
  return {
    exact,
    prefixes,
    lengths,
    find: alts.length ? new RegExp(alts.join('|'), 'giv') : null,
    infixes: infixAlts.length ? new RegExp(infixAlts.join('|'), 'gv') : null,
    // It also stops at the first non-ASCII character: that text takes the Unicode path.
    scanAscii: ascii ? new RegExp(`[^\\x00-\\x7f]|${asciiAlts.join('|')}`, 'gi') : null,
  };
}

// Building the expressions costs more than a search's snippets; the same queries come back (a
// search box, paging, an agent retrying). Terms are read-only once built (matchAll copies the RegExp).
const termsCache = new Map<string, Terms>();

const cachedTerms = (phrases: Phrase[]): Terms => cached(termsCache, JSON.stringify(phrases), 256, () => queryTerms(phrases));

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
  return (text) => snippetOf(text, terms, size).html;
}

/** A search hit's snippet and the heading above the match it shows (none for a page without one, or without a match in its body). */
type PageSnippet = { snippet: string; heading?: string };

/**
 * Snippets of pages' Markdown bodies for one query: cut from the text a reader sees
 * (plain-text.ts: no Markdown syntax), with the name of the heading the first shown match is under.
 */
export function pageSnippetMaker(phrases: Phrase[], size = 24): (markdown: string) => PageSnippet {
  const terms = cachedTerms(phrases);
  return (markdown) => {
    const plain = plainText(markdown);
    const { html, anchor } = snippetOf(plain.text, terms, size);
    const heading = anchor < 0 ? undefined : headingAt(plain.headings, anchor);
    return heading === undefined ? { snippet: html } : { snippet: html, heading };
  };
}

// Two ways through the same steps: Unicode property patterns for any text, character codes for
// ASCII text and ASCII query words (most pages; a rare-term query makes 50 snippets).
// Property-tested to give the same snippet on any ASCII text.
type Path = {
  isWord: (text: string, i: number) => boolean;
  /** Whether text[i] is a CJK character (each is a token of its own, two of them count as one word). */
  isCjk: (text: string, i: number) => boolean;
  render: (text: string, terms: Terms, start: number, size: number) => Rendered;
};
type Rendered = { html: string; count: number };

const CJK_CHAR = new RegExp(CJK_SET, 'v');
const UNICODE: Path = { isWord: (text, i) => TOKEN_CHAR.test(text[i]), isCjk: (text, i) => CJK_CHAR.test(text[i]), render };
const ASCII: Path = { isWord: (text, i) => isWordCode(text.charCodeAt(i)), isCjk: () => false, render: asciiRender };

/** The snippet, and where the first match it is built around starts (-1: none, the text's start is shown). */
function snippetOf(text: string, terms: Terms, size: number): { html: string; anchor: number } {
  // The ASCII scan gives up at the first non-ASCII character: that text takes the Unicode path.
  const asciiStarts = terms.scanAscii ? matchStarts(text, terms.scanAscii, ASCII) : null;
  const path = asciiStarts ? ASCII : UNICODE;
  const at = asciiStarts ?? (terms.find ? matchStarts(text, terms.find, UNICODE)! : []);
  // A few tokens before the first match of the densest stretch.
  const anchor = at.length ? densestStart(at, size * 6) : -1;
  let start = anchor >= 0 ? stepBack(text, anchor, Math.floor(size / 4), path) : 0;
  let r = path.render(text, terms, start, size);
  // Near the end of the text, take more lead-in rather than show fewer words.
  if (r.count < size && start > 0) {
    start = stepBack(text, start, size - r.count, path);
    r = path.render(text, terms, start, size);
  }
  return { html: r.html, anchor };
}

/** Where the query's words start in `text` (at a token start); null when the ASCII scan meets a non-ASCII character. */
function matchStarts(text: string, find: RegExp, path: Path): number[] | null {
  const at: number[] = [];
  for (const m of text.matchAll(find)) {
    if (path === ASCII && m[0].charCodeAt(0) > 0x7f) return null;
    // A word starts after a character that is no part of a word, or next to a CJK run; a CJK word anywhere.
    if (m.index === 0 || !path.isWord(text, m.index - 1) || path.isCjk(text, m.index) || path.isCjk(text, m.index - 1)) at.push(m.index);
  }
  return at;
}

/** The first position of the window of `span` characters (about `size` tokens of prose) holding the most matches. */
function densestStart(at: number[], span: number): number {
  let anchor = at[0];
  let best = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (j < at.length && at[j] < at[i] + span) j++;
    if (j - i > best) {
      best = j - i;
      anchor = at[i];
    }
  }
  return anchor;
}

/** The start of the token `n` tokens before `pos` (or 0 when no token precedes it); two CJK characters are a token. */
function stepBack(text: string, pos: number, n: number, path: Path): number {
  for (let k = 0; k < n; k++) {
    let p = pos;
    while (p > 0 && !path.isWord(text, p - 1)) p--;
    if (p === 0) return 0;
    if (path.isCjk(text, p - 1)) {
      for (let c = 0; c < 2 && p > 0 && path.isCjk(text, p - 1); c++) p--;
    } else {
      while (p > 0 && path.isWord(text, p - 1) && !path.isCjk(text, p - 1)) p--;
    }
    pos = p;
  }
  // Nothing but punctuation before: start at the very beginning, without '…'.
  let p = pos;
  while (p > 0 && !path.isWord(text, p - 1)) p--;
  return p === 0 ? 0 : pos;
}

// A snippet's tokens on the Unicode path: each CJK character (with its marks), or a word.
const SNIPPET_TOKEN = new RegExp(`${CJK_SET}\\p{M}*|${NON_CJK_WORD_START}${NON_CJK_WORD_CHAR}*`, 'gv');

function render(text: string, terms: Terms, start: number, size: number): Rendered {
  const tokens = SNIPPET_TOKEN;
  tokens.lastIndex = start;
  let hits: number[] = [];
  let first = -1;
  let end = start;
  let count = 0;
  let cjk = false;
  for (let m: RegExpExecArray | null; count < size && (m = tokens.exec(text)); ) {
    if (first < 0) first = m.index;
    end = m.index + m[0].length;
    if (CJK_CHAR.test(m[0][0])) {
      count += 0.5;
      cjk = true;
      continue;
    }
    count++;
    const f = foldToken(m[0]);
    if (terms.exact.has(f) || terms.prefixes.some((p) => f.startsWith(p))) hits.push(m.index, end);
  }
  const more = count >= size && tokens.exec(text) !== null;
  if (cjk && terms.infixes && first >= 0) hits = withInfixes(hits, text, first, end, terms.infixes);
  return toHtml(text, start, first, more ? end : text.length, more, hits, count);
}

/** `hits` and the CJK words' matches in text[from, to), as ordered (start, end) pairs, overlapping ones joined. */
function withInfixes(hits: number[], text: string, from: number, to: number, infixes: RegExp): number[] {
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k < hits.length; k += 2) ranges.push([hits[k], hits[k + 1]]);
  infixes.lastIndex = from;
  for (let m = infixes.exec(text); m && m.index < to; m = infixes.exec(text)) {
    ranges.push([m.index, Math.min(to, m.index + m[0].length)]);
    if (m[0].length === 0) infixes.lastIndex++;
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [a, b] of ranges) {
    if (out.length && a <= out[out.length - 1]) out[out.length - 1] = Math.max(out[out.length - 1], b);
    else out.push(a, b);
  }
  return out;
}

function asciiRender(text: string, terms: Terms, start: number, size: number): Rendered {
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
  while (count === size && i < n && !isWordCode(text.charCodeAt(i))) i++;
  const more = count === size && i < n;
  return toHtml(text, start, first, more ? end : n, more, hits, count);
}

/** The excerpt [first or start, end) as HTML, `hits` (start, end pairs) in <mark>, '…' where cut. */
function toHtml(text: string, start: number, first: number, end: number, more: boolean, hits: number[], count: number): Rendered {
  if (count === 0) return { html: '', count };
  let out = start > 0 ? '…' : '';
  let at = start > 0 ? first : start;
  for (let k = 0; k < hits.length; k += 2) {
    out += `${piece(text, at, hits[k])}<mark>${piece(text, hits[k], hits[k + 1])}</mark>`;
    at = hits[k + 1];
  }
  out += piece(text, at, end);
  return { html: (more ? out + '…' : out.trimEnd()).replace(/^\s+/, ''), count };
}

/** A stretch of text escaped, whitespace collapsed; most need neither, and one test finds out. */
function piece(text: string, a: number, b: number): string {
  const t = text.slice(a, b);
  return NEEDS_WORK.test(t) ? escapeHtml(t.replace(/\s+/g, ' ')) : t;
}

// A character to escape, whitespace other than a space, or two spaces.
const NEEDS_WORK = /[&<>"']|[^\S ]| {2}/;
