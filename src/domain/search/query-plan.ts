// A query as the ranked search runs it. Pure (the index's word splitter is passed in).
//
// The query's words and phrases (fts-query.ts parses them) become items: a word, or a phrase of
// several words that must be next to each other. Pages holding every item come first, then
// pages holding some (docs/search.md, Ranking), so FTS5 gets two expressions: the AND of the
// items (`every`) and their OR (`any`). The index holds stems (porter, src/store/fts/index-file.ts),
// so FTS5 finds a word's other forms; which form a page holds is told by the ranking, which reads
// the candidates' text (score.ts).
//
// The last word of a query that does not end in a space or a quote is also a prefix: someone is
// typing it. A prefix goes to FTS5 as the prefix of its stem and as the stems of the word less
// its last one to three characters: the index holds `onboard` for Onboarding, which the prefix
// `onboardi` alone does not reach. The text check (score.ts) keeps only words that start with it.
// Those cut-back stems are guesses: `not` for a typed `note` finds every page saying "not". So
// the plan also has its expressions without them (`sure`), which the search walks first, and the
// pages only a guess finds come after, checked for the typed word before they count (full-text.ts).
//
// A run of Chinese, Japanese or Korean characters is a word of its own (text/tokens.ts TOKEN); it
// goes to FTS5 as the AND of bigrams covering it (text/cjk.ts) and matches as a substring of the
// text (score.ts): it is never a prefix, typed or not.
//
// A word the query writes more than once is searched once but weighs as many times in the score
// (`weights`; BM25's query term frequency): a question that names its subject three times is
// about it more than about a word it names once.
//
// Common English words (STOP_WORDS, fts-query.ts) are left out of a query that has other words,
// before its words are capped: "how to remove a vault" searches for `remove` and `vault`. Inside
// a quoted phrase they stay (the phrase is checked word by word).
import { NON_ASCII, TOKEN, TOKEN_CHAR, foldToken, type Phrase } from '../../text/tokens.ts';
import { cjkLength, cjkSegments, hasCjk, queryBigrams } from '../../text/cjk.ts';
import { foldedWords } from './phrase-check.ts';
import {
  checkedPhrases,
  quotePhrase,
  searchedPhrases,
  MAX_PREFIXES,
  MIN_PREFIX_CHARS,
  type CheckedPhrase,
  type IndexWords,
} from './fts-query.ts';

/** A word of the query, folded; `prefix`: words starting with it match too. */
type Term = { word: string; prefix: boolean };
/** An item: a word, or a phrase of several (`check`: its words must be in a row). */
type Item = { terms: number[]; check: CheckedPhrase | null };
export type QueryPlan = {
  /** The phrases searched, the typed last word marked as a prefix (for snippets). */
  phrases: Phrase[];
  terms: Term[];
  /** How many times the query writes each term (at least 1): a word said twice weighs twice. */
  weights: number[];
  items: Item[];
  /** FTS5 expressions: pages holding every item's words; pages holding any item's words. */
  every: string;
  any: string;
  /**
   * Pages holding the words of at least two items (an OR of each pair's AND), for a query of 3 to
   * PAIRS_MAX_ITEMS items; null otherwise.
   */
  pairs: string | null;
  /**
   * `every`, `any` and `pairs` without the cut-back stems of the prefixes (prefixMatch): the pages
   * that certainly hold a word starting with each prefix. Null when no prefix has a cut-back.
   */
  sure: Expressions | null;
  /**
   * The folded word a page found only through a cut-back stem must contain to hold anything: the
   * one prefix with cut-backs, when it is ASCII (so that SQL's lower() folds it as the text
   * check does); null otherwise.
   */
  guessed: string | null;
  /**
   * For a query of one item ending in a prefix: its FTS5 expression with that word whole (the
   * pages holding its stem), walked before the words it begins, so that the newest pages holding
   * a longer word (`okapiland` for `okapi`) do not crowd out those holding the word itself.
   */
  whole: string | null;
};

type Expressions = { every: string; any: string; pairs: string | null };

/** The most items whose pairs are walked (28 pairs of ANDs for 8). */
const PAIRS_MAX_ITEMS = 8;

/** How many characters a typed prefix is cut back by, at most, to reach the stem the index holds. */
const PREFIX_STEM_CUTS = 3;

/**
 * The plan of `q`, or null when it has nothing searchable. `mayExpand` says whether a typed last
 * word may be a prefix (full-text.ts refuses one whose words are in too many pages: it then
 * matches as a whole word). `stems` (the index's stemmer) lets prefixMatch drop the cut-backs no
 * word could reach.
 */
export function planQuery(
  q: string,
  indexWords: IndexWords,
  mayExpand: (word: string) => boolean = () => true,
  stems?: Stems,
): QueryPlan | null {
  const phrases = searchedPhrases(q);
  if (phrases.length === 0) return null;
  const last = phrases[phrases.length - 1];
  const lastWord = (last.text.match(TOKEN) ?? []).pop() ?? '';
  // The word being typed is the query's last: a phrase before it (the last one left out as a
  // stop word, or past the caps) is not.
  const typing =
    !last.prefix &&
    TOKEN_CHAR.test(q[q.length - 1] ?? ' ') &&
    lastWord === (q.match(TOKEN) ?? []).pop() &&
    !hasCjk(lastWord) &&
    [...foldToken(lastWord)].length >= MIN_PREFIX_CHARS &&
    phrases.filter((p) => p.prefix).length < MAX_PREFIXES &&
    mayExpand(foldToken(lastWord));
  if (typing) phrases[phrases.length - 1] = { text: last.text, prefix: true };

  const checks = checkedPhrases(phrases, indexWords);

  const terms: Term[] = [];
  const termOf = (word: string, prefix: boolean) => {
    const at = terms.findIndex((t) => t.word === word && t.prefix === prefix);
    return at >= 0 ? at : terms.push({ word, prefix }) - 1;
  };
  const items: Item[] = [];
  const matches: string[] = [];
  const sureMatches: string[] = [];
  const guesses: string[] = [];
  for (let k = 0; k < phrases.length; k++) {
    const p = phrases[k];
    const c = checks[k];
    const words = c.words;
    if (words.length === 0) continue;
    items.push({ terms: words.map((w, i) => termOf(w, p.prefix && i === words.length - 1)), check: c.checked ? c : null });
    matches.push(itemMatch(p, indexWords, stems ?? true));
    sureMatches.push(itemMatch(p, indexWords, false));
    if (matches[matches.length - 1] !== sureMatches[sureMatches.length - 1]) guesses.push(words[words.length - 1]);
  }
  if (items.length === 0) return null;
  const written = new Map<string, number>();
  for (const w of foldedWords(q)) written.set(w, (written.get(w) ?? 0) + 1);
  const weights = terms.map((t) => Math.max(1, written.get(t.word) ?? 0));
  const guessed = guesses.length === 1 && !NON_ASCII.test(guesses[0]) ? guesses[0] : null;
  const only = items.length === 1 ? phrases.find((p, k) => checks[k].words.length > 0)! : null;
  const whole = only?.prefix ? itemMatch({ text: only.text, prefix: false }, indexWords, false) : null;
  return {
    phrases,
    terms,
    weights,
    items,
    ...expressions(matches),
    sure: guesses.length > 0 ? expressions(sureMatches) : null,
    guessed,
    whole,
  };
}

/** The AND, the OR and the pairs of the items' matches. */
function expressions(matches: string[]): Expressions {
  const wrap = (m: string) => (matches.length > 1 ? `(${m})` : m);
  const pairs: string[] = [];
  if (matches.length >= 3 && matches.length <= PAIRS_MAX_ITEMS)
    for (let i = 0; i < matches.length; i++)
      for (let j = i + 1; j < matches.length; j++) pairs.push(`(${wrap(matches[i])} AND ${wrap(matches[j])})`);
  return {
    every: matches.map(wrap).join(' AND '),
    any: matches.map(wrap).join(' OR '),
    pairs: pairs.length > 0 ? pairs.join(' OR ') : null,
  };
}

/**
 * A phrase as FTS5 gets it: its words (the index's split) AND-ed, the last one a prefix as
 * prefixMatch says; a CJK run as the bigrams covering it (queryBigrams). A CJK run of one
 * character is left to the text check (score.ts) when the phrase has other words: the index
 * holds it only inside bigrams (`の` in `"obsidian の プラグ"`).
 */
function itemMatch(p: Phrase, indexWords: IndexWords, cuts: Cuts): string {
  const parts: string[] = [];
  const segments = cjkSegments(p.text);
  const single = (seg: { text: string; cjk: boolean }) => seg.cjk && cjkLength(seg.text) === 1;
  const others = segments.some((seg) => !single(seg) && (seg.cjk || indexWords(seg.text).length > 0));
  segments.forEach((seg, k) => {
    if (seg.cjk) {
      if (!(others && single(seg))) for (const g of queryBigrams(seg.text)) parts.push(quotePhrase({ text: g, prefix: false }));
      return;
    }
    const words = indexWords(seg.text);
    const last = p.prefix && k === segments.length - 1;
    words.forEach((w, i) => parts.push(last && i === words.length - 1 ? prefixMatch(w, cuts) : quotePhrase({ text: w, prefix: false })));
  });
  if (parts.length === 0) return quotePhrase({ text: p.text, prefix: false });
  // The index finds the pages holding the phrase's first words; the ranking checks every word of
  // it in each candidate's text (the phrase check, or each term's count), so the rest only cost:
  // FTS5's AND of 32 common words is ~0.1–0.3 s a statement at 100,000 pages, of 8 ~40 ms.
  return parts.slice(0, MATCH_WORDS).join(' AND ');
}

/** The most words of one item the index is asked for (the ranking checks them all). */
const MATCH_WORDS = 8;

/** The stem the index holds for each word (store/fts/tokens.ts stemsOf). */
type Stems = (words: string[]) => string[];
/** Whether prefixMatch adds cut-back stems: all that fit the endings (true), none, or those `stems` says a word reaches. */
type Cuts = boolean | Stems;

/**
 * A prefix: the word, its stem's prefix, and (`cuts`) the word cut back to where an English ending
 * may start (`onboardi` → `onboard`, `runni` → `run`): the stem the index holds for the words it
 * begins. Only a cut whose tail begins an ending porter removes (ENDINGS) is tried, at least
 * MIN_PREFIX_CHARS left: cutting anywhere would bring in common short words (`there` → `the`).
 * Given the stemmer, a cut is kept only if the cut with one of those endings (or that and an `s`)
 * stems to it: `note` is not cut to `not` (`noted`, `notes` stem to `note`), `runni` is cut to
 * `run` (`running`) but not to `runn`.
 */
export function prefixMatch(word: string, cuts: Cuts = true): string {
  const cps = [...word];
  const alts = [quotePhrase({ text: word, prefix: false }), quotePhrase({ text: word, prefix: true })];
  for (let cut = 1; cuts !== false && cut <= PREFIX_STEM_CUTS && cps.length - cut >= MIN_PREFIX_CHARS; cut++) {
    const head = cps.slice(0, cps.length - cut).join('');
    const tail = cps.slice(cps.length - cut).join('');
    // A doubled consonant before an ending (`runn|ing`) belongs to the ending's cut too.
    const doubled = tail.length > 1 && tail[0] === head[head.length - 1];
    const words = ENDINGS.flatMap((e) =>
      e.startsWith(tail) ? [head + e] : doubled && e.startsWith(tail.slice(1)) ? [head + tail[0] + e] : [],
    );
    if (words.length === 0) continue;
    if (typeof cuts === 'function' && !cuts([...words, ...words.map((w) => `${w}s`)]).includes(head)) continue;
    alts.push(quotePhrase({ text: head, prefix: false }));
  }
  return `(${alts.join(' OR ')})`;
}

/** The endings porter takes off (and the y → i it makes), whose first letters a cut may leave. */
const ENDINGS = [
  'ing',
  'ed',
  'es',
  'er',
  'ies',
  'ion',
  'ation',
  'ness',
  'ment',
  'ly',
  'ive',
  'ize',
  'ise',
  'al',
  'ence',
  'ance',
  'able',
  'ible',
  'ful',
  'ous',
  'ity',
  'ism',
  'ist',
  'ic',
  'ate',
  'iti',
  'y',
  's',
  'e',
];
