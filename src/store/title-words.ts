// The title index (GET /search/titles): each live page's folded words of its title, aliases and
// path, and its folded whole title and aliases, in one small table searched by B-tree ranges on
// the folded word. Kept in the page write's transaction (domain/indexes/title-words.ts) and
// rebuilt from the pages table by POST /admin/indexes/rebuild.
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE } from './access-sql.ts';

import type { TitleWordRow } from './title-words-schema.ts';

export { foldedWords, titleWordRows } from './title-words-schema.ts';

export function replaceTitleWords(db: Db, pageId: number, rows: TitleWordRow[]): void {
  stmt(db, 'DELETE FROM title_words WHERE page_id = ?').run(pageId);
  const insert = stmt(db, 'INSERT OR IGNORE INTO title_words (word, whole, page_id) VALUES (?, ?, ?)');
  for (const r of rows) insert.run(r.word, r.whole, pageId);
}

/** The highest code point, in no word: a string that starts with `s` sorts between `s` and `s + MAX`. */
const MAX = '\u{10FFFF}';

export type TitleHit = { space: string; path: string; title: string };

/** A query: its distinct folded words (the longest drives the word group), all of them joined by one space, and its bounds. */
type TitleQuery = { words: string[]; phrase: string; spaceId: number | null; limit: number };

// The three groups of the order (docs/search.md "Titles"), each a condition on page `p` and the
// title_words range that holds every page of the group: a whole title or alias equal to the
// phrase; one that starts with it and none equal; a word starting with each query word and no
// whole title or alias starting with the phrase. A page with a whole title or alias starting with
// the phrase has a word starting with each query word too, so the groups are the matches, split.
// A scalar subquery, not EXISTS: SQLite turns EXISTS into a join it runs after the access check,
// where this is checked in the order written, each page's word lookups before its row is read.
const HAS = (pid: string, name: string, whole: 0 | 1, cond: string) =>
  `(SELECT 1 FROM title_words ${name} WHERE ${name}.page_id = ${pid} AND ${name}.whole = ${whole} AND ${cond} LIMIT 1) IS NOT NULL`;
const EXACT = (pid: string) => HAS(pid, 'e', 1, 'e.word = @phrase');
const LEADING = (pid: string) => HAS(pid, 'l', 1, 'l.word BETWEEN @phrase AND @phraseHi');
const GROUPS = [
  { whole: 1, lo: 'phrase', hi: 'phrase', where: (_: number, pid: string) => EXACT(pid) },
  { whole: 1, lo: 'phrase', hi: 'phraseHi', where: (_: number, pid: string) => `${LEADING(pid)} AND NOT ${EXACT(pid)}` },
  {
    whole: 0,
    lo: 'lo0',
    hi: 'hi0',
    where: (n: number, pid: string) =>
      [...Array.from({ length: n }, (_, i) => HAS(pid, `w${i}`, 0, `w${i}.word BETWEEN @lo${i} AND @hi${i}`)), `NOT ${LEADING(pid)}`].join(
        ' AND ',
      ),
  },
] as const;

const ORDER = 'ORDER BY length(p.title), p.updated_at DESC, p.id LIMIT @need';
const COLUMNS = 's.slug AS space, p.path, p.title';

/**
 * The plans of one group. Each answers the group's first `need` readable pages in the contract's
 * order, so which one runs changes the time an answer takes, never the answer.
 * - `rows`: the group's title_words range (its candidates; in the word group, the range of the
 *   word with the fewest rows), joined to the pages and sorted: as costly as the range is long.
 * - `ordered`: the live pages in answer order (the index pages_title_order on title length, then
 *   most recently changed), each checked against the group until `need` readable ones are found,
 *   up to the `@L`, `@U`, `@I` position of that order: as costly as the matches are sparse in it.
 * - `space`: every live page of the one space asked for, checked and sorted: as costly as the
 *   space is large.
 */
function groupSql(g: (typeof GROUPS)[number], words: number, space: boolean, plan: 'rows' | 'ordered' | 'space'): string {
  const readable = `${READABLE_PAGE} ${space ? 'AND p.space_id = @spaceId' : ''}`;
  const where = g.where(words, 'p.id');
  if (plan === 'rows') {
    // The group's conditions are index lookups by page id: checked before a page row is read.
    return `SELECT ${COLUMNS} FROM (SELECT DISTINCT d.page_id FROM title_words d
        WHERE d.whole = ${g.whole} AND d.word BETWEEN @${g.lo} AND @${g.hi} AND ${g.where(words, 'd.page_id')}) c
      JOIN pages p ON p.id = c.page_id JOIN spaces s ON s.id = p.space_id
      WHERE ${readable} ${ORDER}`;
  }
  if (plan === 'space') {
    return `SELECT ${COLUMNS} FROM pages p JOIN spaces s ON s.id = p.space_id
      WHERE p.space_id = @spaceId AND p.deleted_at IS NULL AND ${where} AND ${readable} ${ORDER}`;
  }
  return `SELECT ${COLUMNS} FROM pages p INDEXED BY pages_title_order JOIN spaces s ON s.id = p.space_id
    WHERE p.deleted_at IS NULL AND length(p.title) <= @L
      AND (length(p.title) < @L OR p.updated_at > @U OR (p.updated_at = @U AND p.id <= @I))
      AND ${where} AND ${readable} ${ORDER}`;
}

/**
 * How many rows of a title_words range, counted up to `cap`. It decides between the plans of a
 * group; it counts pages the caller may not read too, which only changes which plan runs.
 */
function rangeRows(db: Db, whole: number, lo: string, hi: string, cap: number): number {
  return stmt(db, 'SELECT count(*) FROM (SELECT 1 FROM title_words WHERE whole = ? AND word BETWEEN ? AND ? LIMIT ?)')
    .pluck()
    .get(whole, lo, hi, cap) as number;
}

function spacePages(db: Db, spaceId: number, cap: number): number {
  return stmt(db, 'SELECT count(*) FROM (SELECT 1 FROM pages WHERE space_id = ? LIMIT ?)').pluck().get(spaceId, cap) as number;
}

/** The position `n` live pages into the answer order (the last live page when there are fewer). */
function orderPosition(db: Db, n: number): { L: number; U: string; I: number } | undefined {
  const at = (offset: number) =>
    stmt(
      db,
      `SELECT length(title) AS L, updated_at AS U, id AS I FROM pages INDEXED BY pages_title_order
    WHERE deleted_at IS NULL ORDER BY length(title), updated_at DESC, id LIMIT 1 OFFSET ?`,
    ).get(offset) as { L: number; U: string; I: number } | undefined;
  return (
    at(n) ??
    (stmt(
      db,
      `SELECT length(title) AS L, updated_at AS U, id AS I FROM pages INDEXED BY pages_title_order
    WHERE deleted_at IS NULL ORDER BY length(title) DESC, updated_at, id DESC LIMIT 1`,
    ).get() as { L: number; U: string; I: number } | undefined)
  );
}

/** A range of more rows than this, times `cap`, is met in answer order for at most this many times `cap` pages before its rows are read instead. */
const ORDERED_WALK = 4;

/**
 * Readable live pages having, for every folded query word, a word that starts with it, in three
 * groups: a whole title or alias equal to the query, then one that starts with it, then the rest;
 * inside each, shorter titles, then recently changed, first. Each group is read with the plan
 * that costs least for its range (groupSql): a range of at most `cap` rows is sorted whole; a
 * longer one is met in answer order, where `need` hits come after about `need` × pages ÷ `cap`
 * pages (cap ≈ √(need × pages) balances the two), and a walk that has not found them within
 * ORDERED_WALK × `cap` pages (words that are common apart and rare together) reads the rows.
 */
export function searchTitleWords(db: Db, params: Record<string, string | number>, q: TitleQuery): TitleHit[] {
  const pages = stmt(db, 'SELECT coalesce(max(id), 0) FROM pages').pluck().get() as number;
  const cap = Math.min(5000, Math.max(200, Math.ceil(Math.sqrt(q.limit * pages))));
  // The word group's range is its word with the fewest rows (then the longest), counted as far as
  // the ordered walk goes: past that, the rows are read only when the walk fails.
  const rows = new Map(q.words.map((w) => [w, rangeRows(db, 0, w, w + MAX, ORDERED_WALK * cap + 1)]));
  const order = [...q.words].sort((a, b) => rows.get(a)! - rows.get(b)! || b.length - a.length);
  const bind: Record<string, string | number> = { ...params, phrase: q.phrase, phraseHi: q.phrase + MAX };
  order.forEach((w, i) => {
    bind[`lo${i}`] = w;
    bind[`hi${i}`] = w + MAX;
  });
  if (q.spaceId !== null) bind.spaceId = q.spaceId;
  const hits: TitleHit[] = [];
  const run = (g: (typeof GROUPS)[number], plan: 'rows' | 'ordered' | 'space', extra: object) =>
    stmt(db, groupSql(g, order.length, q.spaceId !== null, plan)).all({ ...bind, ...extra }) as TitleHit[];
  let walkEnd: ReturnType<typeof orderPosition> | null = null;
  for (const g of GROUPS) {
    const need = q.limit - hits.length;
    if (need <= 0) break;
    const many = (g.whole === 0 ? rows.get(order[0])! : rangeRows(db, g.whole, bind[g.lo] as string, bind[g.hi] as string, cap + 1)) > cap;
    if (!many) {
      hits.push(...run(g, 'rows', { need }));
      continue;
    }
    if (q.spaceId !== null && spacePages(db, q.spaceId, cap + 1) <= cap) {
      hits.push(...run(g, 'space', { need }));
      continue;
    }
    walkEnd ??= orderPosition(db, ORDERED_WALK * cap);
    const found = walkEnd ? run(g, 'ordered', { need, ...walkEnd }) : [];
    hits.push(...(found.length === need ? found : run(g, 'rows', { need })));
  }
  return hits;
}
