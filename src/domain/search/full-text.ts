import type { Services } from '../../services.ts';
import type { Caller } from '../access.ts';
import { invalid } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';
import { SNIPPET_SOURCE_CHARS, countMatches, maxPageId, pageBody, rankedReadable, type RankedHit } from '../../store/search.ts';
import { checkQuery, matchAll, matchRest, matchTitle, parseQuery } from './fts-query.ts';
import { snippetMaker } from './snippet.ts';

// GET /search: full-text hits in rank order.
//
// Order: pages whose title holds every word or phrase come first, then the other hits; within
// each group, bm25 with the title weighted 10× the body. bm25 must score every match before it
// knows the best one (~0.6 µs a match here, plus a pass over each word's doclist for its idf):
// ~70 ms for a word in all of 100k pages. So a group of more than `ranking.slice` matches is
// ranked in slices of that many page ids, newest slice first, and no ranking query scores more
// than `ranking.slice` matches, whatever the corpus size. Such a common word weighs little in
// bm25 (low idf; none at all in over half the pages), so newest-first between slices is a fair
// trade for a bounded cost; queries with fewer matches get the exact ranking. Snippets are cut from the returned hits' text (snippet.ts).
// `ranking` is an object, not a constant, so that tests can exercise slicing on a few pages.
export const ranking = { slice: 10_000 };

export type SearchCursor = { g: 0 | 1; s: number; i: number };
export type SearchHit = { space: string; path: string; title: string; snippet: string; score: number };

export type FullTextSearch = { q: string | null; space: string | null; limit: number; cursor: SearchCursor | null };

export function searchFullText(svc: Services, caller: Caller, q: FullTextSearch): { hits: SearchHit[]; next: SearchCursor | null } {
  const issue = checkQuery(q.q);
  if (issue) throw invalid([issue]);
  const spaceId = q.space !== null && q.space !== '' ? resolveSpace(svc, caller, q.space).id : null;
  const phrases = parseQuery(q.q!);
  if (phrases.length === 0) return { hits: [], next: null }; // nothing searchable (only punctuation, emoji…)

  const db = svc.fts.conn(); // kspace.db with the index attached (store/fts-index.ts)
  const need = q.limit + 1;
  const found: Array<RankedHit & { g: 0 | 1 }> = [];
  const slice = ranking.slice;
  const titleMatch = matchTitle(phrases);
  const titleCount = countMatches(db, titleMatch, slice + 1);
  // With no title hits, the other group is every hit: rank the plain expression (NOT costs more).
  const groups = [titleMatch, titleCount === 0 ? matchAll(phrases) : matchRest(phrases)];
  for (let gi: number = q.cursor?.g ?? 0; gi <= 1 && found.length < need; gi++) {
    const g = gi as 0 | 1;
    const count = g === 0 ? titleCount : countMatches(db, groups[g], slice + 1);
    if (count === 0) continue;
    const after = q.cursor?.g === g ? q.cursor : null;
    for (const [lo, hi] of rankRanges(db, count > slice, after)) {
      const resume = after !== null && after.i >= lo && after.i <= hi;
      const rows = rankedReadable(db, caller, {
        match: groups[g], lo, hi, spaceId, cap: slice + 1, need: need - found.length,
        afterScore: resume ? after.s : -Infinity, afterId: resume ? after.i : 0,
      });
      for (const r of rows) found.push({ ...r, g });
      if (found.length >= need) break;
    }
  }

  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  const snippet = snippetMaker(phrases);
  // length() in SQL would count the characters of every hit's whole body (~30 % of a rare-term
  // query); a body cut short by substr is exactly SNIPPET_SOURCE_CHARS long. A longer body is
  // read whole, one hit at a time, so at most one such body (≤ SERVICE_MAX_PAGE_BYTES) is held.
  const snippetOf = (h: RankedHit) => snippet(h.content.length < SNIPPET_SOURCE_CHARS ? h.content : (pageBody(db, h.id) ?? h.content));
  return {
    hits: page.map((h) => ({ space: h.space, path: h.path, title: h.title, snippet: snippetOf(h), score: -h.score })),
    next: found.length > q.limit && last ? { g: last.g, s: last.score, i: last.id } : null,
  };
}

/** The id ranges to rank one after the other: all ids, or slices newest first when there are many matches. */
function rankRanges(db: Services['db'], sliced: boolean, after: SearchCursor | null): Array<[number, number]> {
  if (!sliced) return [[1, Number.MAX_SAFE_INTEGER]];
  const slice = ranking.slice;
  const top = Math.floor((Math.max(after?.i ?? maxPageId(db), 1) - 1) / slice);
  const out: Array<[number, number]> = [];
  for (let k = top; k >= 0; k--) out.push([k * slice + 1, (k + 1) * slice]);
  return out;
}

/** Checks a cursor read back from a client (see readCursor). */
export function isSearchCursor(v: unknown): v is SearchCursor {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const c = v as Record<string, unknown>;
  return (c.g === 0 || c.g === 1) && typeof c.s === 'number' && Number.isFinite(c.s) && typeof c.i === 'number' && Number.isSafeInteger(c.i);
}
