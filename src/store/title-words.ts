// The title index (GET /search/titles): each live page's folded words of its title, aliases and
// path, and its folded whole title and aliases, in one small table searched by B-tree ranges on
// the folded word (title_words), and each live page in answer order with the same words as two
// strings (title_order). Kept in the page write's transaction (domain/indexes/title-words.ts) and
// rebuilt from the pages table by POST /admin/indexes/rebuild.
import { mappedReader } from './db/connection.ts';
import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { readableLivePage } from './access-sql.ts';

import { TITLE_ORDER_INSERT, titleOrderText, type TitleWordRow } from './title-words-schema.ts';

export { foldedWords, titleWordRows } from './title-words-schema.ts';

/** Writes a page's title index rows (none: the page is gone), and its title_order row from its page row as it is now. */
export function replaceTitleWords(db: Db, pageId: number, rows: TitleWordRow[]): void {
  // The page's title_words rows are the words its title_order row spells (written together
  // here), so they are deleted by their keys: title_words has no index by page id.
  const held = stmt(db, 'SELECT wholes, words FROM title_order WHERE page_id = ?').get(pageId) as
    | { wholes: string; words: string }
    | undefined;
  if (held) {
    const remove = stmt(db, 'DELETE FROM title_words WHERE whole = ? AND word = ? AND page_id = ?');
    for (const w of held.wholes.split('\n')) if (w) remove.run(1, w, pageId);
    for (const w of held.words.split(' ')) if (w) remove.run(0, w, pageId);
  }
  const insert = stmt(db, 'INSERT OR IGNORE INTO title_words (word, whole, page_id) VALUES (?, ?, ?)');
  for (const r of rows) insert.run(r.word, r.whole, pageId);
  stmt(db, 'DELETE FROM title_order WHERE page_id = ?').run(pageId);
  if (rows.length > 0) stmt(db, TITLE_ORDER_INSERT).run({ id: pageId, ...titleOrderText(rows) });
}

/** A page's ACL was set or dropped: its title_order row takes the page row's has_acl. */
export function titleOrderAccess(db: Db, pageId: number): void {
  stmt(db, 'UPDATE title_order SET has_acl = (SELECT has_acl FROM pages WHERE id = @id) WHERE page_id = @id').run({ id: pageId });
}

/** The highest code point, in no word: a string that starts with `s` sorts between `s` and `s + MAX`. */
const MAX = '\u{10FFFF}';

export type TitleHit = { space: string; path: string; title: string };

/** A query: its distinct folded words (the longest drives the word group), all of them joined by one space, and its bounds. */
type TitleQuery = { words: string[]; phrase: string; spaceId: number | null; limit: number };

// The three groups of the order (docs/search.md "Titles"), each a condition on the title_order row
// `o` of a page and the title_words range that holds every page of the group: a whole title or
// alias equal to the phrase; one that starts with it and none equal; a word starting with each
// query word and no whole title or alias starting with the phrase. A page with a whole title or
// alias starting with the phrase has a word starting with each query word too, so the groups are
// the matches, split. Each check is a string search in the row (`wholes` has each whole title
// between newlines, `words` each word after a space); a folded word holds neither.
const EXACT = 'instr(o.wholes, char(10) || @phrase || char(10)) > 0';
const LEADING = 'instr(o.wholes, char(10) || @phrase) > 0';
const GROUPS = [
  { whole: 1, lo: 'phrase', hi: 'phrase', where: () => EXACT },
  { whole: 1, lo: 'phrase', hi: 'phraseHi', where: () => `${LEADING} AND NOT ${EXACT}` },
  {
    whole: 0,
    lo: 'lo0',
    hi: 'hi0',
    where: (n: number) => [...Array.from({ length: n }, (_, i) => `instr(o.words, ' ' || @lo${i}) > 0`), `NOT ${LEADING}`].join(' AND '),
  },
] as const;

const READABLE = readableLivePage('o.has_acl', 'o.page_id');

/**
 * The plans of one group. Each answers the group's first `need` readable pages in the contract's
 * order, so which one runs changes the time an answer takes, never the answer.
 * - `rows`: the group's title_words range (its candidates; in the word group, the range of the
 *   word with the fewest rows), each read from title_order by page id, checked and sorted: as
 *   costly as the range is long.
 * - `ordered`: title_order walked in answer order (its key backwards), each page checked against the group until
 *   `need` readable ones are found, within its first `@walk` rows: as costly as the matches are
 *   sparse in it (a page costs a step of the walk and a string search). The walk is a subquery
 *   in that order, which SQLite runs as a coroutine and the outer query reads in its order (no
 *   sort), so it stops at the `need`th hit.
 * - `space`: every page of the one space asked for, checked and sorted: as costly as the space
 *   is large.
 * The page rows (for path and title) are read for the `need` answered only.
 */
function groupSql(g: (typeof GROUPS)[number], words: number, space: boolean, plan: 'rows' | 'ordered' | 'space'): string {
  const cond = `${g.where(words)} AND ${READABLE} ${space ? 'AND o.space_id = @spaceId' : ''}`;
  const order = 'ORDER BY o.len, o.updated_at DESC, o.page_id LIMIT @need';
  // Each plan answers the page ids of the group's first `need` hits, in order.
  const first =
    plan === 'ordered'
      ? `SELECT o.page_id AS id FROM (SELECT * FROM title_order ORDER BY len, updated_at DESC, page_id LIMIT @walk) o
        JOIN spaces s ON s.id = o.space_id WHERE ${cond} ${order}`
      : `SELECT o.page_id AS id FROM (${
          plan === 'rows'
            ? `SELECT DISTINCT d.page_id AS id FROM title_words d WHERE d.whole = ${g.whole} AND d.word BETWEEN @${g.lo} AND @${g.hi}`
            : 'SELECT x.id FROM pages x WHERE x.space_id = @spaceId'
        }) c JOIN title_order o INDEXED BY title_order_page ON o.page_id = c.id JOIN spaces s ON s.id = o.space_id
        WHERE ${cond} ${order}`;
  return first;
}

// The title search reads title_words, title_order, page_acl and spaces through the searches'
// memory-mapped reader (db/connection.ts, mappedReader; the full-text search reads its
// candidates' rows through it too, store/search.ts): its plans look pages up by id and walk
// title_order (~20 MB at 100,000 pages), which the main connection's 8 MB cache would mostly send
// to a pread. The answered pages' rows are read on the main connection (searchTitleWords).
const titleReader = (db: Db): Db => mappedReader(db, 'search');

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

/**
 * What reading one candidate of a title_words range costs (its title_order row looked up by page
 * id: two B-tree descents, ~3 µs at 100,000 pages), in steps of the ordered walk (a row of
 * title_order read in order and string-searched, ~0.15 µs).
 */
const ROW_COST = 20;

/**
 * The walk is taken when it is expected to cost at most this fraction of the range's read: its
 * expected length counts every page, and a caller who reads half of them meets half the hits.
 */
const WALK_MARGIN = 2;

/**
 * Readable live pages having, for every folded query word, a word that starts with it, in three
 * groups: a whole title or alias equal to the query, then one that starts with it, then the rest;
 * inside each, shorter titles, then recently changed, first. Each group is read with the plan
 * that costs least (groupSql): its range of R rows read whole costs ROW_COST × R; walked in
 * answer order, its `need` hits come after about `need` ÷ f pages, f the share of pages in the
 * group (R ÷ pages; for several words, the product of each word's share, as if they were
 * independent); a range is walked when that is expected to cost at most half as much as reading
 * it (WALK_MARGIN). A walk goes at most as far as reading the range costs (words that are common
 * apart and rare together, a reader of few of the pages), and then the range is read; a walk
 * over every page has found every hit.
 */
export function searchTitleWords(db: Db, params: Record<string, string | number>, q: TitleQuery): TitleHit[] {
  const r = titleReader(db);
  const pages = stmt(r, 'SELECT coalesce(max(id), 0) FROM pages').pluck().get() as number;
  // Ranges are counted as far as decides something: a walk of ROW_COST × that many rows covers every page.
  const counted = Math.ceil(pages / ROW_COST) + 1;
  // The word group's range is its word with the fewest rows (then the longest).
  const rows = new Map(q.words.map((w) => [w, rangeRows(r, 0, w, w + MAX, counted)]));
  const order = [...q.words].sort((a, b) => rows.get(a)! - rows.get(b)! || b.length - a.length);
  const wordsShare = q.words.reduce((f, w) => (f * rows.get(w)!) / Math.max(1, pages), 1);
  const bind: Record<string, string | number> = { ...params, phrase: q.phrase, phraseHi: q.phrase + MAX };
  order.forEach((w, i) => {
    bind[`lo${i}`] = w;
    bind[`hi${i}`] = w + MAX;
  });
  if (q.spaceId !== null) bind.spaceId = q.spaceId;
  const ids: number[] = [];
  const run = (g: (typeof GROUPS)[number], plan: 'rows' | 'ordered' | 'space', extra: object) =>
    stmt(r, groupSql(g, order.length, q.spaceId !== null, plan))
      .pluck()
      .all({ ...bind, ...extra }) as number[];
  for (const g of GROUPS) {
    const need = q.limit - ids.length;
    if (need <= 0) break;
    const range = g.whole === 0 ? rows.get(order[0])! : rangeRows(r, g.whole, bind[g.lo] as string, bind[g.hi] as string, counted);
    const share = g.whole === 0 ? wordsShare : range / Math.max(1, pages);
    const walk = ROW_COST * range;
    if (walk <= (WALK_MARGIN * need) / share) {
      ids.push(...run(g, 'rows', { need }));
      continue;
    }
    if (q.spaceId !== null && spacePages(r, q.spaceId, range + 1) <= range) {
      ids.push(...run(g, 'space', { need }));
      continue;
    }
    const found = run(g, 'ordered', { need, walk });
    ids.push(...(found.length === need || walk >= pages ? found : run(g, 'rows', { need })));
  }
  return answered(db, ids);
}

/** The hits of page ids, in their order: each page's space, path and title (a page deleted since is left out). */
function answered(db: Db, ids: number[]): TitleHit[] {
  if (ids.length === 0) return [];
  const found = stmt(
    db,
    `SELECT p.id, s.slug AS space, p.path, p.title FROM pages p JOIN spaces s ON s.id = p.space_id
     WHERE p.id IN (SELECT value FROM json_each(?)) AND p.deleted_at IS NULL`,
  ).all(JSON.stringify(ids)) as Array<TitleHit & { id: number }>;
  const byId = new Map(found.map((h) => [h.id, { space: h.space, path: h.path, title: h.title }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
