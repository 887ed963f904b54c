// Relevance of a search's candidates: BM25F over the candidates' own text. Pure (the stemmer is
// passed in).
//
// Every statistic comes from the pages scored, which are pages the caller may read
// (full-text.ts gathers them through the access filter), or from the page itself:
// - term frequency: how often the page holds each query word, with saturation (k1); a match in
//   the title counts TITLE times, in a heading (a Markdown `#` line) HEADING times, in the body
//   once; the word as written counts fully, a word it is a prefix of PREFIX, another form of the
//   same stem STEM (`notes` finds `note`, below `notes`);
// - length: the page's characters against the average of the candidates (b);
// - rarity: a word held by fewer of the candidates weighs more (idf = ln(1 + n / df), n the
//   candidates, df those holding the word);
// - the query: a word it writes several times weighs that many times (plan.weights).
// No count of the whole index, nor of pages the caller cannot read, enters: the same query over
// the same readable pages gives the same scores, whatever else the index holds
// (test/api/search-privacy.test.ts).
//
// A page holding every item of the query (a word, or a phrase with its words in a row) is in
// group 0, ranked above the pages holding only some (group 1); a candidate holding none (FTS5
// matched a stem or a cut-back prefix the text does not bear out, or a phrase's words apart) is
// no hit.
import { foldToken } from '../../text/tokens.ts';
import { NON_CJK_WORD_CHAR, hasCjk } from '../../text/cjk.ts';
import { holdsPhrase } from './phrase-check.ts';
import type { QueryPlan } from './query-plan.ts';

const BM25 = { k1: 1.2, b: 0.75, title: 4, heading: 2, body: 1, exact: 1, prefix: 0.7, stem: 0.6 };

/** `content` is the body, or its start when `body()` gives it whole (then read instead, once). */
export type Candidate = { id: number; title: string; content: string; body?: () => string };
export type Scored = { id: number; g: 0 | 1; score: number };
type Stems = (words: string[]) => string[];

/**
 * One candidate as read: the words found in it where a query word's root begins (`words`, each
 * with its field's weight in `weights`) and the CJK terms' weighted counts. Its new words are
 * classified against the query terms at once, their stems asked for in one statement, and the
 * reading becomes its counts (Counted), so that all of that stays in the caller's slices.
 */
type Reading = { words: string[]; weights: number[]; cjk: Float64Array };

/** One candidate counted: its weighted term counts, its length, which items it holds. */
type Counted = { id: number; tf: Float64Array; length: number; holds: boolean[] };

// A word ends where a CJK run begins (text/tokens.ts TOKEN): `obsidianの` holds `obsidian`.
const WORD_TAIL = `${NON_CJK_WORD_CHAR}*`;
const WORD_CHAR = new RegExp(NON_CJK_WORD_CHAR, 'v');
const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * Scores `candidates` for `plan`, dropping those that hold no item; in no particular order. Each
 * query word is looked for in the folded text from a root (its stem less two characters, at
 * least three, or the word itself when shorter), and each word found there is classified.
 */
export function scoreCandidates(plan: QueryPlan, candidates: Candidate[], stems: Stems): Scored[] {
  const s = scorer(plan, stems);
  return s.rank(candidates.map(s.count));
}

/**
 * scoreCandidates in two steps, so that a caller can count many candidates in slices (full-text.ts
 * lets other requests run between them): `count` reads one candidate, `rank` scores them all.
 */
export function scorer(plan: QueryPlan, stems: Stems): { count: (c: Candidate) => Counted; rank: (counted: Counted[]) => Scored[] } {
  const terms = plan.terms;
  // A CJK word (a run of Chinese, Japanese or Korean characters, text/cjk.ts) is counted where
  // the folded text holds it, inside a longer run too: it has no stems or prefixes.
  const cjk = terms.map((t) => hasCjk(t.word));
  const termStems = stems(terms.map((t) => t.word));
  const roots = terms.map((t, k) => rootOf(t.word, termStems[k]));
  const rootList = [...new Set(roots.filter((_, k) => !cjk[k]))].sort((a, b) => b.length - a.length);
  const alternatives = rootList.map(escapeRegExp).join('|');
  const words = alternatives !== '';
  const find = new RegExp(`(?:${alternatives})${WORD_TAIL}`, 'gv');
  const cjkTerms = terms.map((t, k) => (cjk[k] ? k : -1)).filter((k) => k >= 0);

  // What a word found in the text counts for each term (null: nothing), worked out once a query.
  const kinds = new Map<string, Float64Array | null>();
  /** Classifies the words not yet classified; the stems they need, in one call. */
  const classify = (found: string[]) => {
    const fresh = new Set<string>();
    for (const w of found) if (!kinds.has(w)) fresh.add(w);
    const words = [...fresh];
    const needStem = words.filter((w) =>
      terms.some((t, k) => w !== t.word && !(t.prefix && w.startsWith(t.word)) && w.startsWith(roots[k])),
    );
    const stemmed = new Map<string, string>();
    if (needStem.length > 0) {
      const got = stems(needStem);
      needStem.forEach((w, i) => stemmed.set(w, got[i]));
    }
    for (const w of words) {
      const out = new Float64Array(terms.length);
      let any = false;
      for (let t = 0; t < terms.length; t++) {
        const term = terms[t];
        let kind = 0;
        if (w === term.word) kind = BM25.exact;
        else if (term.prefix && w.startsWith(term.word)) kind = BM25.prefix;
        else if (w.startsWith(roots[t]) && stemmed.get(w) === termStems[t]) kind = BM25.stem;
        out[t] = kind;
        any ||= kind > 0;
      }
      kinds.set(w, any ? out : null);
    }
  };

  /** Notes the text's words where a query word's root begins, each with its field's weight. */
  const count = (text: string, c: Reading, field: number, headings: boolean) => {
    // UTF-8 takes one byte a character exactly when every character is ASCII (a native count,
    // several times faster than a regular expression over the text).
    const ascii = Buffer.byteLength(text, 'utf8') === text.length;
    const f = ascii ? text.toLowerCase() : foldToken(text);
    const ranges =
      headings && (f.startsWith('#') || f.includes('\n#') || f.includes('\n #') || f.includes('\n  #') || f.includes('\n   #'))
        ? headingRanges(f)
        : null;
    if (!ascii && cjkTerms.length > 0 && hasCjk(f)) countCjk(f, c.cjk, field, ranges);
    if (!words) return;
    let r = 0;
    const note = (word: string, at: number) => {
      if (kinds.get(word) === null) return; // known to count for nothing
      let weight = field;
      if (ranges) {
        while (r < ranges.length && ranges[r][1] < at) r++;
        if (r < ranges.length && ranges[r][0] <= at) weight = BM25.heading;
      }
      c.words.push(word);
      c.weights.push(weight);
    };
    if (ascii) {
      for (const at of asciiWordStarts(f, rootList)) note(f.slice(at, asciiWordEnd(f, at)), at);
      return;
    }
    find.lastIndex = 0;
    for (let m = find.exec(f); m; m = find.exec(f)) {
      if (m.index > 0 && WORD_CHAR.test(f[m.index - 1])) continue; // inside a word
      note(m[0], m.index);
    }
  };

  /** Adds each CJK term's occurrences in the folded text `f` (not overlapping), weighed by field. */
  const countCjk = (f: string, tf: Float64Array, field: number, ranges: Array<[number, number]> | null) => {
    for (const t of cjkTerms) {
      const w = terms[t].word;
      let r = 0;
      for (let at = f.indexOf(w); at >= 0; at = f.indexOf(w, at + w.length)) {
        let weight = field;
        if (ranges) {
          while (r < ranges.length && ranges[r][1] < at) r++;
          if (r < ranges.length && ranges[r][0] <= at) weight = BM25.heading;
        }
        tf[t] += BM25.exact * weight;
      }
    }
  };

  const countOne = (c: Candidate): Counted => {
    const text = c.body ? c.body() : c.content;
    const read: Reading = { words: [], weights: [], cjk: new Float64Array(terms.length) };
    count(c.title, read, BM25.title, false);
    count(text, read, BM25.body, true);
    classify(read.words);
    const tf = read.cjk;
    for (let i = 0; i < read.words.length; i++) {
      const k = kinds.get(read.words[i]);
      if (k) for (let t = 0; t < k.length; t++) tf[t] += k[t] * read.weights[i];
    }
    const holds = plan.items.map((item) =>
      item.check ? holdsPhrase(c.title, item.check) || holdsPhrase(text, item.check) : item.terms.every((k) => tf[k] > 0),
    );
    return { id: c.id, tf, length: c.title.length + text.length, holds };
  };
  return { count: countOne, rank: (counted) => rank(plan, counted) };
}

/** BM25 over the counted candidates: idf and the average length are the candidates'. */
function rank(plan: QueryPlan, counted: Counted[]): Scored[] {
  const n = counted.length;
  if (n === 0) return [];
  const avg = counted.reduce((s, c) => s + c.length, 0) / n || 1;
  // A word counts for a page only through an item the page holds (a phrase's words apart count nothing).
  const live = counted.map((c) => {
    const on = new Uint8Array(plan.terms.length);
    plan.items.forEach((item, i) => {
      if (c.holds[i]) for (const k of item.terms) on[k] = 1;
    });
    return on;
  });
  const df = plan.terms.map((_, k) => counted.reduce((s, c, i) => s + (live[i][k] && c.tf[k] > 0 ? 1 : 0), 0));
  // ln(1 + n/df): never zero, so a word every candidate holds still counts (a one-word query's
  // scores say something), and the rarer word still weighs more.
  const idf = df.map((d) => Math.log(1 + n / Math.max(d, 1)));
  const out: Scored[] = [];
  counted.forEach((c, i) => {
    if (!c.holds.some(Boolean)) return;
    const norm = BM25.k1 * (1 - BM25.b + (BM25.b * c.length) / avg);
    let score = 0;
    for (let k = 0; k < plan.terms.length; k++) {
      const tf = live[i][k] ? c.tf[k] : 0;
      if (tf > 0) score += (plan.weights[k] * idf[k] * tf * (BM25.k1 + 1)) / (tf + norm);
    }
    out.push({ id: c.id, g: c.holds.every(Boolean) ? 0 : 1, score });
  });
  return out;
}

/** Search order: group, then score (higher first), then the newer page. */
export function compareScored(a: Scored, b: Scored): number {
  return a.g - b.g || b.score - a.score || b.id - a.id;
}

/**
 * Where to look for a word's forms: its stem less two characters (porter rewrites only a word's
 * end), at least three, and never more than the word and the stem share.
 */
export function rootOf(word: string, stem: string): string {
  let common = 0;
  while (common < word.length && common < stem.length && word[common] === stem[common]) common++;
  const keep = Math.min(common, Math.max(3, stem.length - 2));
  return keep > 0 ? word.slice(0, keep) : word;
}

/**
 * [start, end] of each Markdown heading line of a folded text: up to three spaces, one to six
 * `#`, then the line's end or a space or tab. One look at each line's start (the line ends are
 * found by indexOf), not a multiline regex tried at every character.
 */
export function headingRanges(f: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (!f.includes('#')) return out;
  for (let at = 0; at < f.length; ) {
    let end = f.indexOf('\n', at);
    if (end < 0) end = f.length;
    let i = at;
    while (i < end && i - at < 3 && f.charCodeAt(i) === 32) i++;
    let hashes = 0;
    while (i < end && f.charCodeAt(i) === 35 && hashes < 7) {
      i++;
      hashes++;
    }
    if (hashes >= 1 && hashes <= 6 && (i === end || f.charCodeAt(i) === 32 || f.charCodeAt(i) === 9)) out.push([at, end]);
    at = end + 1;
  }
  return out;
}

/** A lower-case ASCII letter or a digit: what a word of lower-cased ASCII text is made of. */
const asciiLetterOrDigit = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
/** A character code `\\b` sees as part of a word: a letter, a digit or `_`. */
const asciiWordCode = (c: number) => asciiLetterOrDigit(c) || c === 95;

/**
 * Where a word starting with one of `roots` begins in lower-cased ASCII text `f`, in order: each
 * root found by indexOf (a native search, several times faster than a regular expression of
 * their alternatives) where no word character comes before it. A word two roots begin counts once.
 */
export function asciiWordStarts(f: string, roots: string[]): number[] {
  const starts: number[] = [];
  for (const root of roots) {
    for (let at = f.indexOf(root); at >= 0; at = f.indexOf(root, at + root.length)) {
      if (at === 0 || !asciiWordCode(f.charCodeAt(at - 1))) starts.push(at);
    }
  }
  if (roots.length === 1) return starts;
  return [...new Set(starts)].sort((a, b) => a - b);
}

/** Where the word starting at `at` ends: after its letters and digits. */
function asciiWordEnd(f: string, at: number): number {
  let end = at;
  while (end < f.length && asciiLetterOrDigit(f.charCodeAt(end))) end++;
  return end;
}
