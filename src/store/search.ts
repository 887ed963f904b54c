import { mappedReader } from './db/connection.ts';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';

// The access-filtered full-text queries. They run on the index connection (kspace.db with
// kspace-fts.db attached, fts/index-file.ts), where page_fts and title_fts are the index's tables. MATCH expressions
// come from domain/search/fts-query.ts and are always bound, never spliced in.
//
// No query here ranks by bm25 or reads any other statistic of the whole index: those count pages
// the caller may not read (domain/search/full-text.ts says why and what ranks instead).

/**
 * What a walk of the index asks for: the pages whose titles (title_fts) or whose text, title and
 * body together (page_fts), match `match`; `pagesNotTitles`: the latter less the former.
 */
export type IdQuery = { of: keyof typeof ID_QUERIES; match: string };

const ID_QUERIES = {
  titles: 'SELECT rowid FROM title_fts WHERE title_fts MATCH @match AND rowid BETWEEN @lo AND @hi ORDER BY rowid DESC LIMIT @limit',
  pages: 'SELECT rowid FROM page_fts WHERE page_fts MATCH @match AND rowid BETWEEN @lo AND @hi ORDER BY rowid DESC LIMIT @limit',
  // The titles' matches of the window are read once (a list SQLite builds before the walk).
  pagesNotTitles: `SELECT rowid FROM page_fts WHERE page_fts MATCH @match AND rowid BETWEEN @lo AND @hi
    AND rowid NOT IN (SELECT rowid FROM title_fts WHERE title_fts MATCH @match AND rowid BETWEEN @lo AND @hi)
    ORDER BY rowid DESC LIMIT @limit`,
};

/**
 * Up to `limit` ids of pages matching `q` with ids in [lo, hi], newest first: a doclist walk,
 * no ranking. FTS5 applies the id range to every word's page list, so the range bounds the work.
 */
export function matchingIds(db: Db, q: IdQuery, lo: number, hi: number, limit: number): number[] {
  return stmt(db, ID_QUERIES[q.of]).pluck().all({ match: q.match, lo, hi, limit }) as number[];
}

/** `content` is the body's first SNIPPET_SOURCE_CHARS characters: shorter means it is the whole body. */
export type TextHit = { id: number; space: string; path: string; title: string; content: string };

// Snippets are cut from the hit's text in JS; a page of hits must not pull megabytes of body
// text into memory, so the query hands over at most this much of each body (a longer one is
// read whole afterwards, one hit at a time: pageBody).
export const SNIPPET_SOURCE_CHARS = 32_768;

// The candidates' rows are read through the searches' memory-mapped reader of kspace.db
// (db/connection.ts, mappedReader; the title search uses it too): each is a random page of the
// `pages` table, which from the map costs a memory read where the connection's cache would
// mostly send it to a pread (docs/performance.md, Full-text search). So these take the main
// connection (`main`), not the index connection the walk runs on.

/**
 * Of `ids` (in the order given), the first `need` pages the caller may read, optionally in one
 * space, in that order. The access filter is in the query, so an unreadable page is never
 * counted, shown or read beyond its ACL check.
 */
export function readableHits(main: Db, caller: Caller, ids: number[], spaceId: number | null, need: number): TextHit[] {
  return readableRows(main, caller, ids, spaceId, need, null) as TextHit[];
}

/**
 * readableHits for pages found only through a guessed stem of a typed prefix (query-plan.ts,
 * `guessed`, an ASCII folded word), in the order of `ids`: null for a readable page whose text
 * cannot hold a word starting with `guessed` (it does not contain it, lower-cased, and holds no
 * character beyond ASCII, which only JS folds); its text is not read into JS. A body longer than
 * SNIPPET_SOURCE_CHARS bytes is not looked through here (lower() would copy all of it): it is
 * taken, and its text counted as every candidate's is.
 */
export function readableGuesses(
  main: Db,
  caller: Caller,
  ids: number[],
  spaceId: number | null,
  need: number,
  guessed: string,
): Array<TextHit | null> {
  return readableRows(main, caller, ids, spaceId, need, guessed).map((r) => (r.content === null ? null : (r as TextHit)));
}

type Row = Omit<TextHit, 'content'> & { content: string | null };

// A body's first SNIPPET_SOURCE_CHARS characters. substr walks the characters of every body to
// its end; a body of at most that many bytes is whole without it (a row of a 2 KB page: ~3.3 →
// ~2.3 µs read).
const BODY_HEAD = `CASE WHEN length(CAST(p.content AS BLOB)) <= ${SNIPPET_SOURCE_CHARS} THEN p.content
  ELSE substr(p.content, 1, ${SNIPPET_SOURCE_CHARS}) END`;

/** The readable rows of `ids`, in that order, the first `need`; `content` null where `guessed` is not in the text. */
function readableRows(main: Db, caller: Caller, ids: number[], spaceId: number | null, need: number, guessed: string | null): Row[] {
  const db = mappedReader(main, 'search');
  // No ORDER BY in SQL: sorting would copy every readable row, body text and all, into a sorter
  // before the first came out. The rows are put back in the order of `ids` here.
  const rows = stmt(
    db,
    `SELECT p.id, s.slug AS space, p.path, p.title,
      CASE WHEN @guessed IS NULL OR length(CAST(p.content AS BLOB)) > ${SNIPPET_SOURCE_CHARS}
        OR instr(lower(p.title), @guessed) > 0 OR instr(lower(p.content), @guessed) > 0
        OR length(CAST(p.title AS BLOB)) <> length(p.title) OR length(CAST(p.content AS BLOB)) <> length(p.content)
      THEN ${BODY_HEAD} END AS content
    FROM json_each(@ids) j JOIN pages p ON p.id = j.value JOIN spaces s ON s.id = p.space_id
    WHERE (@spaceId IS NULL OR p.space_id = @spaceId) AND ${READABLE_PAGE}`,
  ).all({ ...callerParams(caller), ids: JSON.stringify(ids), spaceId, guessed }) as Row[];
  if (rows.length <= 1) return rows.slice(0, need);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Row[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r) out.push(r);
    if (out.length === need) break;
  }
  return out;
}

/** A page's whole body, for the snippet of a hit whose body is longer than SNIPPET_SOURCE_CHARS. */
export function pageBody(main: Db, id: number): string | undefined {
  return stmt(mappedReader(main, 'search'), 'SELECT content FROM pages WHERE id = ?').pluck().get(id) as string | undefined;
}

/**
 * How many pages the words starting with `word` are in, summed over those words, walking the
 * index's word list in order and stopping once the sum passes `maxPages` (a doclist walk per
 * word, so the check costs no more than what it allows). `words` counts the words seen.
 */
export function prefixBreadth(db: Db, word: string, maxPages: number): { words: number; pages: number } {
  stmt(db, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.page_fts_words USING fts5vocab('fts', 'page_fts', 'row')").run();
  const cps = [...word];
  const last = cps.pop()!;
  const upper = cps.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
  let words = 0;
  let pages = 0;
  for (const n of stmt(db, 'SELECT doc FROM temp.page_fts_words WHERE term >= ? AND term < ?')
    .pluck()
    .iterate(word, upper) as IterableIterator<number>) {
    words++;
    pages += n;
    if (pages > maxPages) break;
  }
  return { words, pages };
}

export function maxPageId(db: Db): number {
  return (stmt(db, 'SELECT coalesce(max(id), 0) AS m FROM pages').get() as { m: number }).m;
}
