import type { Services } from '../../services.ts';
import { invalid } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';
import { SNIPPET_SOURCE_CHARS, matchingIds, maxPageId, pageBody, prefixBreadth, readableHits, type TextHit } from '../../store/search.ts';
import { indexWords } from '../../store/fts/tokens.ts';
import { checkQuery, checkedPhrases, countWords, groupQueries, parseQuery, prefixWord, type CheckedPhrase } from './fts-query.ts';
import type { Phrase } from '../../text/tokens.ts';
import { holdsPhrase } from './phrase-check.ts';
import { snippetMaker } from './snippet.ts';
import type { Caller } from '../../model.ts';

// GET /search: full-text hits, pages whose title holds every word or phrase first, then the other
// hits; within each group, the newest page first.
//
// Why not bm25 (issue 18): bm25 weighs each word by how many pages of the whole index hold it
// (idf) and each page's length against the average of all pages, so a caller comparing the
// scores of two pages of their own learned whether pages they cannot read contain a word. An
// answer must not depend on such pages in any way. Computing bm25's statistics over the
// caller's readable pages, or a per-page term-frequency score, needs each match's word counts,
// which FTS5 gives only to auxiliary functions written in C (better-sqlite3 cannot register
// one) or through fts5vocab's instance table (1.5 s for a word in 100,000 pages). So the order
// uses nothing but the page itself: whether its title holds every word, and its age
// (docs/search.md, Ranking). It is also cheap: the index walks a word's pages newest first and
// stops at the limit, where bm25 had to score every match first.
//
// The walk is bounded. Each statement reads the matches within a window of page ids, newest
// window first, at most a chunk of them (64, then 256, … 4,096). The first window is
// `ranking.window` / words² ids; one that took under 2 ms is followed by one four times as wide,
// one that filled its chunk in over 10 ms by one a quarter as wide. A window that did not fill its
// chunk and took over 10 ms is followed by all the ids below it: reaching the end of a window
// costs FTS5 about a scan of each word's page list, whatever the window's width (measured at
// 100,000 pages, 8 common words that no title holds together: ~40 ms for 781 ids or for 100,000),
// so narrower windows only multiply that cost. A chunk's ids are checked against the caller's
// access a slice at a time. The walk stops at the limit, after `ranking.maxSteps` statements
// (index reads and access checks), or once `ranking.budgetMs` have passed (in a corpus of more
// than 10,000 page ids, or once 10,000 are walked: a small corpus always gets a whole answer),
// between two statements, inside a chunk too. Those bounds end a round, not the walk: the next
// round resumes after one turn of the event loop (searchFullText), and only after
// `ranking.requestMs` of rounds does an answer stop short, with the hits found so far and a
// cursor that resumes below the last id it checked. `ranking` is an object, not constants, so
// that tests can exercise the bounds on a few pages.
//
// Phrases. The index keeps no word positions (detail = none): FTS5 finds the pages (for the first
// group, the titles) holding every word of a phrase of several words (fts-query.ts), and each
// readable candidate is checked here (phrase-check.ts): the words in a row in the title, or in a
// row in the body, never across the two. Checked after the access filter, so only pages the
// caller may read are ever read for it, and an answer depends on nothing else. With such a phrase
// the groups are decided by the check too: a page is in the first when its title holds every
// phrase, else in the second when each phrase is in its title or its body. A phrase of common
// words that are never next to each other makes every candidate fail: the walk's bounds above
// stop it then.
export const ranking = {
  window: 50_000, firstChunk: 64, maxChunk: 4096, maxSteps: 200, budgetMs: 40, prefixMaxPages: 20_000,
  /** How long one request keeps walking, in rounds, before it answers what it has found (see searchFullText). */
  requestMs: 5_000,
};

export type SearchCursor = { g: 0 | 1; s: number; i: number };
export type SearchHit = { space: string; path: string; title: string; snippet: string; score: number };

export type FullTextSearch = { q: string | null; space: string | null; limit: number; cursor: SearchCursor | null };

/** Fewest candidates checked by one access query (a caller who reads few pages needs many). */
const MIN_CHECK = 16;

/** The score of each group: it says which group a hit is in (higher first). */
const GROUP_SCORE = [2, 1] as const;

type Found = TextHit & { g: 0 | 1 };

/**
 * A search. The walk runs in rounds, each within the bounds above (`maxSteps` statements,
 * `budgetMs`); a round that stops before the page is full lets other requests run (one turn of
 * the event loop) and the next round resumes where it stopped, so the server is never held for
 * longer than a round. Only when the rounds have taken `ranking.requestMs` altogether does the
 * answer stop short with a cursor. So an answer (its hits, and whether a cursor follows) is the
 * same whether the walk met many pages the caller may not read or none: a cursor means that the
 * page is full and more may follow, except past `requestMs`.
 */
export async function searchFullText(svc: Services, caller: Caller, q: FullTextSearch): Promise<{ hits: SearchHit[]; next: SearchCursor | null }> {
  const issue = checkQuery(q.q);
  if (issue) throw invalid([issue]);
  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const phrases = parseQuery(q.q!);
  if (phrases.length === 0) return { hits: [], next: null }; // nothing searchable (only punctuation, emoji…)

  const db = svc.fts.conn(); // kspace.db with the index attached (src/store/fts/index-file.ts)
  checkPrefixes(db, phrases);
  const walk = startWalk(db, caller, phrases, spaceId, q);
  const started = performance.now();
  let stop = walk.round();
  while (stop !== null && performance.now() - started < ranking.requestMs) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    stop = walk.round();
  }

  const found = walk.found;
  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  const snippet = snippetMaker(phrases);
  const snippetOf = (h: TextHit) => snippet(wholeBody(db, h));
  const next = found.length > q.limit && last ? { g: last.g, s: GROUP_SCORE[last.g], i: last.id } : stop;
  return {
    hits: page.map((h) => ({ space: h.space, path: h.path, title: h.title, snippet: snippetOf(h), score: GROUP_SCORE[h.g] })),
    next,
  };
}

/**
 * The walk of one search, resumable: `round()` walks until the page is full (limit + 1 hits) or
 * the index is walked to its end (null), or until a round's bounds stop it (the position to
 * resume below, which is also what a cursor would hold).
 */
function startWalk(db: Services['db'], caller: Caller, phrases: Phrase[], spaceId: number | null, q: FullTextSearch) {
  const need = q.limit + 1;
  const found: Found[] = [];
  const groups = groupQueries(phrases, indexWords);
  const checks = checkedPhrases(phrases, indexWords);
  const checking = checks.some((c) => c.checked);
  const newest = maxPageId(db);
  const words = countWords(phrases);
  let span = Math.max(1, Math.floor(ranking.window / (words * words)));
  let spanned = 0;
  let gi: number = q.cursor?.g ?? 0;
  let top = q.cursor ? Math.min(q.cursor.i - 1, newest) : newest; // walk ids top, top - 1, …
  let chunk = ranking.firstChunk;

  const round = (): SearchCursor | null => {
    const started = performance.now();
    let steps = 0;
    // The clock stops a round only in a corpus of more than 10,000 page ids or past its first
    // 10,000: a smaller one, where every statement is small anyway, always gets a whole answer.
    const mustStop = (walked: number) => steps >= ranking.maxSteps || ((walked >= 10_000 || newest > 10_000) && performance.now() - started >= ranking.budgetMs);
    for (; gi <= 1 && found.length < need; gi++, top = newest, chunk = ranking.firstChunk) {
      const g = gi as 0 | 1;
      while (top >= 1 && found.length < need) {
        if (steps > 0 && mustStop(spanned)) return { g, s: GROUP_SCORE[g], i: top + 1 }; // resume below the last id walked
        steps++;
        const lo = Math.max(1, top - span + 1);
        const t0 = performance.now();
        const ids = matchingIds(db, groups[g], lo, top, chunk);
        const took = performance.now() - t0;
        if (ids.length < chunk && took > 10) span = top; // the next window: every id below this one
        else if (took < 2) span *= 4;
        else if (took > 10) span = Math.max(64, Math.floor(span / 4));
        // The chunk's ids are checked a few at a time, as many as hits are still needed: the
        // access query reads each candidate's row, and most callers read most pages, so checking
        // all of a chunk read up to 4,096 rows for 21 hits (at 100,000 pages, where rows are seldom
        // in SQLite's cache, that query was a third of a rare-term search).
        for (let at = 0; at < ids.length && found.length < need;) {
          if (at > 0 && mustStop(spanned + top - ids[at - 1] + 1)) {
            top = ids[at - 1] - 1; // the next round resumes below the last id checked
            return { g, s: GROUP_SCORE[g], i: ids[at - 1] };
          }
          const slice = ids.slice(at, at + Math.max(need - found.length, MIN_CHECK));
          at += slice.length;
          steps++;
          // Without a phrase to check every readable candidate is a hit: the query stops at the
          // number still needed. With one, all of the slice's readable ones come back to be checked.
          for (const h of readableHits(db, caller, slice, spaceId, checking ? slice.length : need - found.length)) {
            if (found.length >= need) break;
            if (checking && groupOf(db, h, checks) !== g) continue;
            found.push({ ...h, g });
          }
        }
        const next = ids.length === chunk ? ids[ids.length - 1] - 1 : lo - 1;
        spanned += top - next;
        top = next;
        chunk = ids.length === chunk ? Math.min(chunk * 4, ranking.maxChunk) : ranking.firstChunk;
      }
      if (found.length >= need) break;
    }
    return null;
  };
  return { found, round };
}

/**
 * The group a candidate of a query with a phrase to check belongs to: 0 when its title holds
 * every phrase, 1 when it does not but each phrase is in the title or the body, null when FTS5
 * matched a phrase's words that are not in a row. A phrase of one word that FTS5 matched and the
 * title does not hold is in the body.
 */
function groupOf(db: Services['db'], h: TextHit, checks: CheckedPhrase[]): 0 | 1 | null {
  const inTitle = checks.map((c) => holdsPhrase(h.title, c));
  if (inTitle.every(Boolean)) return 0;
  let body: string | undefined;
  for (let k = 0; k < checks.length; k++) {
    if (inTitle[k] || !checks[k].checked) continue;
    body ??= wholeBody(db, h);
    if (!holdsPhrase(body, checks[k])) return null;
  }
  return 1;
}

/**
 * A hit's whole body. length() in SQL would count the characters of every hit's whole body; a
 * body cut short by substr is exactly SNIPPET_SOURCE_CHARS long. A longer body is read whole, one
 * hit at a time, so at most one such body (≤ SERVICE_MAX_PAGE_BYTES) is held.
 */
function wholeBody(db: Services['db'], h: TextHit): string {
  return h.content.length < SNIPPET_SOURCE_CHARS ? h.content : (pageBody(db, h.id) ?? h.content);
}

/**
 * A prefix FTS5 expands into too many words' page lists (summed over those words, more than
 * `ranking.prefixMaxPages`) is refused: its first statement alone would block the server.
 */
function checkPrefixes(db: Services['db'], phrases: Phrase[]): void {
  for (const p of phrases) {
    if (!p.prefix) continue;
    const word = prefixWord(p);
    const breadth = prefixBreadth(db, word, ranking.prefixMaxPages);
    if (breadth.pages > ranking.prefixMaxPages) {
      throw invalid([{ key: 'q', code: 'max', message: `the prefix \`${word}*\` matches too many words; write more of the word` }]);
    }
  }
}

/** Checks a cursor read back from a client (see readCursor). */
export function isSearchCursor(v: unknown): v is SearchCursor {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  return (c.g === 0 || c.g === 1) && typeof c.s === 'number' && Number.isFinite(c.s) && typeof c.i === 'number' && Number.isSafeInteger(c.i);
}
