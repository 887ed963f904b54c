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

/** The highest code point: a string that starts with `s` sorts before `s + MAX`. */
const MAX = '\u{10FFFF}';

export type TitleHit = { space: string; path: string; title: string };

/**
 * Readable live pages having, for every folded query word, a word that starts with it. The
 * longest word drives the scan (a range of the (whole, word) key); the others are checked per
 * page on the (page_id, whole, word) index. Order: a whole title or alias equal to the query,
 * then one that starts with it, then the rest; shorter titles, then recently changed, first.
 */
export function searchTitleWords(db: Db, params: Record<string, string | number>, words: string[], phrase: string, spaceId: number | null, limit: number): TitleHit[] {
  const order = [...words].sort((a, b) => b.length - a.length);
  const bind: Record<string, string | number> = { ...params, phrase, phraseHi: phrase + MAX, limit };
  order.forEach((w, i) => { bind[`lo${i}`] = w; bind[`hi${i}`] = w + MAX; });
  const others = order.slice(1).map((_, j) => `AND EXISTS (SELECT 1 FROM title_words w${j + 1}
      WHERE w${j + 1}.page_id = p.id AND w${j + 1}.whole = 0 AND w${j + 1}.word >= @lo${j + 1} AND w${j + 1}.word < @hi${j + 1})`).join('\n    ');
  if (spaceId !== null) bind.spaceId = spaceId;
  const sql = `SELECT s.slug AS space, p.path, p.title,
      CASE WHEN EXISTS (SELECT 1 FROM title_words e WHERE e.page_id = p.id AND e.whole = 1 AND e.word = @phrase) THEN 0
           WHEN EXISTS (SELECT 1 FROM title_words e WHERE e.page_id = p.id AND e.whole = 1 AND e.word >= @phrase AND e.word < @phraseHi) THEN 1
           ELSE 2 END AS tier
    FROM (SELECT DISTINCT page_id FROM title_words WHERE whole = 0 AND word >= @lo0 AND word < @hi0) d
    JOIN pages p ON p.id = d.page_id JOIN spaces s ON s.id = p.space_id
    WHERE ${READABLE_PAGE} ${spaceId !== null ? 'AND p.space_id = @spaceId' : ''}
    ${others}
    ORDER BY tier, length(p.title), p.updated_at DESC, p.id LIMIT @limit`;
  return (stmt(db, sql).all(bind) as Array<TitleHit & { tier: number }>).map(({ space: sp, path, title }) => ({ space: sp, path, title }));
}
