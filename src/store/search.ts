import { stmt, type Db } from './db.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';

// The ranked, access-filtered full-text queries. They run on the index connection (kspace.db
// with kspace-fts.db attached, fts-index.ts), where page_fts is the index's table. MATCH
// expressions come from domain/search/fts-query.ts and are always bound, never spliced in.

/** How many pages match, counting no further than `cap` (a doclist walk, no ranking). */
export function countMatches(db: Db, match: string, cap: number): number {
  const r = stmt(db, 'SELECT count(*) AS n FROM (SELECT 1 FROM page_fts WHERE page_fts MATCH ? LIMIT ?)').get(match, cap) as { n: number };
  return r.n;
}

export function maxPageId(db: Db): number {
  return (stmt(db, 'SELECT coalesce(max(id), 0) AS m FROM pages').get() as { m: number }).m;
}

/** `content` is the body's first SNIPPET_SOURCE_CHARS characters: shorter means it is the whole body. */
export type RankedHit = { id: number; score: number; space: string; path: string; title: string; content: string };

// Snippets are cut from the hit's text in JS; a page of hits must not pull megabytes of body
// text into memory, so the query hands over at most this much of each body (a longer one is
// read whole afterwards, one hit at a time: pageBody).
export const SNIPPET_SOURCE_CHARS = 32_768;

export type RankedQuery = {
  match: string;
  lo: number;
  hi: number;
  /** Keyset position: hits after (afterScore, afterId) in (score, id) order. */
  afterScore: number;
  afterId: number;
  spaceId: number | null;
  need: number;
  /** Upper bound of the matches in [lo, hi]; the inner ranking keeps them all. */
  cap: number;
};

/**
 * The best `need` readable hits among the matches with ids in [lo, hi], after the keyset
 * position. bm25 ranks the matches first (title weighs 10× the body; lower is better), then
 * the walk in that order checks READABLE_PAGE and stops at `need`: the access filter is in the
 * query, so a limit or cursor never counts an unreadable page.
 */
export function rankedReadable(db: Db, caller: Caller, q: RankedQuery): RankedHit[] {
  return stmt(db, `SELECT h.id, h.score, s.slug AS space, p.path, p.title,
      substr(p.content, 1, ${SNIPPET_SOURCE_CHARS}) AS content
    FROM (SELECT rowid AS id, bm25(page_fts, 10.0, 1.0) AS score FROM page_fts
          WHERE page_fts MATCH @match AND rowid BETWEEN @lo AND @hi
          ORDER BY score, rowid LIMIT @cap) h
    JOIN pages p ON p.id = h.id JOIN spaces s ON s.id = p.space_id
    WHERE (h.score > @afterScore OR (h.score = @afterScore AND h.id > @afterId))
      AND (@spaceId IS NULL OR p.space_id = @spaceId)
      AND ${READABLE_PAGE}
    ORDER BY h.score, h.id
    LIMIT @need`).all({ ...callerParams(caller), ...q }) as never;
}

/** A page's whole body, for the snippet of a hit whose body is longer than SNIPPET_SOURCE_CHARS. */
export function pageBody(db: Db, id: number): string | undefined {
  return stmt(db, 'SELECT content FROM pages WHERE id = ?').pluck().get(id) as string | undefined;
}
