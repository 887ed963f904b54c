import type { Services } from '../../services.ts';
import type { Caller } from '../access.ts';
import { invalid } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';
import { SNIPPET_SOURCE_CHARS, anyMatch, matchingIds, pageBody, prefixBreadth, readableHits, type TextHit } from '../../store/search.ts';
import { checkQuery, matchAll, matchRest, matchTitle, parseQuery, prefixWord, type Phrase } from './fts-query.ts';
import { snippetMaker } from './snippet.ts';

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
// The walk is bounded: it reads page ids from the index in chunks, checks each chunk against the
// caller's access in one query, and stops at the limit, after `ranking.maxWalk` matches or once
// `ranking.budgetMs` have passed. A walk that stops early answers the hits found so far and a
// cursor that resumes where it stopped (a caller who may read few of many matches pages on).
// `ranking` is an object, not constants, so that tests can exercise the bounds on a few pages.
export const ranking = { firstChunk: 64, maxChunk: 4096, maxWalk: 50_000, budgetMs: 50, prefixMaxPages: 50_000 };

export type SearchCursor = { g: 0 | 1; s: number; i: number };
export type SearchHit = { space: string; path: string; title: string; snippet: string; score: number };

export type FullTextSearch = { q: string | null; space: string | null; limit: number; cursor: SearchCursor | null };

/** The score of each group: it says which group a hit is in (higher first). */
const GROUP_SCORE = [2, 1] as const;

export function searchFullText(svc: Services, caller: Caller, q: FullTextSearch): { hits: SearchHit[]; next: SearchCursor | null } {
  const issue = checkQuery(q.q);
  if (issue) throw invalid([issue]);
  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const phrases = parseQuery(q.q!);
  if (phrases.length === 0) return { hits: [], next: null }; // nothing searchable (only punctuation, emoji…)

  const db = svc.fts.conn(); // kspace.db with the index attached (store/fts-index.ts)
  checkPrefixes(db, phrases);
  const need = q.limit + 1;
  const found: Array<TextHit & { g: 0 | 1 }> = [];
  const started = performance.now();
  let walked = 0;
  let stop: SearchCursor | null = null;
  const titleMatch = matchTitle(phrases);
  // With no title match anywhere, the other group is every hit: the plain expression costs less
  // than the one with NOT, and finds the same pages.
  const groups = [titleMatch, anyMatch(db, titleMatch) ? matchRest(phrases) : matchAll(phrases)];
  for (let gi: number = q.cursor?.g ?? 0; gi <= 1 && found.length < need && stop === null; gi++) {
    const g = gi as 0 | 1;
    let before = q.cursor?.g === g ? q.cursor.i : Number.MAX_SAFE_INTEGER;
    let chunk = ranking.firstChunk;
    for (;;) {
      const ids = matchingIds(db, groups[g], before, chunk);
      walked += ids.length;
      for (const h of readableHits(db, caller, ids, spaceId, need - found.length)) found.push({ ...h, g });
      if (ids.length < chunk || found.length >= need) break;
      before = ids[ids.length - 1];
      if (walked >= ranking.maxWalk || performance.now() - started >= ranking.budgetMs) {
        stop = { g, s: GROUP_SCORE[g], i: before }; // resume below the last page walked
        break;
      }
      chunk = Math.min(chunk * 4, ranking.maxChunk);
    }
  }

  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  const snippet = snippetMaker(phrases);
  // length() in SQL would count the characters of every hit's whole body; a body cut short by
  // substr is exactly SNIPPET_SOURCE_CHARS long. A longer body is read whole, one hit at a time,
  // so at most one such body (≤ SERVICE_MAX_PAGE_BYTES) is held.
  const snippetOf = (h: TextHit) => snippet(h.content.length < SNIPPET_SOURCE_CHARS ? h.content : (pageBody(db, h.id) ?? h.content));
  const next = found.length > q.limit && last ? { g: last.g, s: GROUP_SCORE[last.g], i: last.id } : stop;
  return {
    hits: page.map((h) => ({ space: h.space, path: h.path, title: h.title, snippet: snippetOf(h), score: GROUP_SCORE[h.g] })),
    next,
  };
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
