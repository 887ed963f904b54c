// The title index's rows and table (store/title-words.ts searches it): what a page's title,
// aliases and path put in it. No import of db/statements.ts: migrations.ts, which the connection imports, uses it.
import type { Db } from './db/types.ts';
// The full-text index's word rule and folding (a leaf module, with text/cjk.ts its only import).
import { foldToken, TOKEN } from '../text/tokens.ts';
import { epochMs } from './time-sql.ts';

/** A row: `whole` 1 for a whole folded title or alias, 0 for one folded word. */
export type TitleWordRow = { word: string; whole: 0 | 1 };

/** The folded words of a text, in order. */
export function foldedWords(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((m) => foldToken(m[0]));
}

/** A page's `aliases` (frontmatter): a string or a list of strings. */
export function aliasesOf(frontmatter: Record<string, unknown>): string[] {
  const a = frontmatter.aliases;
  if (typeof a === 'string') return [a];
  return Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string') : [];
}

/** The title index rows of a page: its whole title and aliases folded, and every word of them and of its path. */
export function titleWordRows(title: string, path: string, frontmatter: Record<string, unknown>): TitleWordRow[] {
  const rows = new Map<string, TitleWordRow>();
  for (const text of [title, ...aliasesOf(frontmatter)]) {
    const words = foldedWords(text);
    if (words.length === 0) continue;
    const whole = words.join(' ');
    rows.set(`1 ${whole}`, { word: whole, whole: 1 });
    for (const w of words) rows.set(`0 ${w}`, { word: w, whole: 0 });
  }
  for (const w of foldedWords(path)) rows.set(`0 ${w}`, { word: w, whole: 0 });
  return [...rows.values()];
}

export const TITLE_WORDS_SQL = `CREATE TABLE title_words (
    word TEXT NOT NULL, whole INTEGER NOT NULL, page_id INTEGER NOT NULL REFERENCES pages(id),
    PRIMARY KEY (whole, word, page_id)) WITHOUT ROWID;
  CREATE INDEX title_words_page ON title_words(page_id, whole, word);`;

/**
 * The live pages by title length, then most recently changed (then id, the index's last column),
 * as GET /search/titles orders each group; with the columns the access check reads, so that
 * walking it reads a page row only for a match.
 */
export const PAGES_TITLE_ORDER_SQL = `CREATE INDEX pages_title_order ON pages(length(title), updated_at DESC, id, space_id, has_acl, deleted_at)
    WHERE deleted_at IS NULL;`;

/**
 * title_order: each live page in the order of GET /search/titles's groups (title length, then
 * most recently changed, then id), with what the access check reads (space, has_acl) and its
 * title index words in two strings, so that walking it in that order checks each page by a
 * string search in its own row: `wholes` is its folded whole title and aliases, each between
 * newlines; `words` its folded words of title, aliases and path, each after a space. By page id
 * (title_order_page) it orders and access-checks the candidates a title_words range finds.
 * Replaces the index pages_title_order on pages (schema version 14), whose walk read each page's
 * words from title_words by page id (a random B-tree read per page).
 *
 * `updated_at` is the page's, in epoch milliseconds. The key holds the order reversed (longest
 * titles first, then oldest change, then highest id) and the walk reads it backwards: a write puts
 * its page's row after the others of its title length, where B-tree pages split full; kept in the
 * answer order, each row went before the others of its length and left the pages behind it about
 * half empty.
 */
export const TITLE_ORDER_SQL = `CREATE TABLE title_order (
    len INTEGER NOT NULL, updated_at INTEGER NOT NULL, page_id INTEGER NOT NULL REFERENCES pages(id),
    space_id INTEGER NOT NULL, has_acl INTEGER NOT NULL, wholes TEXT NOT NULL, words TEXT NOT NULL,
    PRIMARY KEY (len DESC, updated_at, page_id DESC)) WITHOUT ROWID;
  CREATE INDEX title_order_page ON title_order(page_id);`;

/** The `wholes` and `words` strings of title_order from a page's title index rows. */
export function titleOrderText(rows: TitleWordRow[]): { wholes: string; words: string } {
  const wholes = rows.filter((r) => r.whole === 1).map((r) => r.word);
  const words = rows.filter((r) => r.whole === 0).map((r) => r.word);
  return { wholes: `\n${wholes.map((w) => `${w}\n`).join('')}`, words: ` ${words.map((w) => `${w} `).join('')}` };
}

/** A page's title_order row, from its page row (if live) and `@wholes`, `@words` (titleOrderText); delete the old one first. */
export const TITLE_ORDER_INSERT = `INSERT INTO title_order (len, updated_at, page_id, space_id, has_acl, wholes, words)
  SELECT length(title), ${epochMs('updated_at')}, id, space_id, has_acl, @wholes, @words FROM pages WHERE id = @id AND deleted_at IS NULL`;

/** What the title index is made of, for the live pages that `where` (SQL over pages) selects (read whole: the callers write between). */
function livePageTitles(db: Db, where: string): Array<{ id: number; path: string; title: string; frontmatter: string }> {
  return db.prepare(`SELECT id, path, title, frontmatter FROM pages WHERE deleted_at IS NULL AND (${where})`).all() as Array<{
    id: number;
    path: string;
    title: string;
    frontmatter: string;
  }>;
}

/** Fills the title index from every live page (the migration to schema version 12). */
export function fillTitleWords(db: Db): void {
  const pages = livePageTitles(db, '1');
  const insert = db.prepare('INSERT OR IGNORE INTO title_words (word, whole, page_id) VALUES (?, ?, ?)');
  for (const p of pages) for (const r of titleWordRows(p.title, p.path, JSON.parse(p.frontmatter))) insert.run(r.word, r.whole, p.id);
}

/** Fills title_order from every live page (the migration to schema version 20). */
export function fillTitleOrder(db: Db): void {
  const pages = livePageTitles(db, '1');
  const insert = db.prepare(TITLE_ORDER_INSERT);
  for (const p of pages) insert.run({ id: p.id, ...titleOrderText(titleWordRows(p.title, p.path, JSON.parse(p.frontmatter))) });
}

/**
 * Rewrites the title index rows of the live pages that `where` (SQL over pages) selects: the
 * migration to schema version 17, where a run of CJK characters became a word of its own.
 */
export function refillTitleWords(db: Db, where: string): void {
  const pages = livePageTitles(db, where);
  const remove = db.prepare('DELETE FROM title_words WHERE page_id = ?');
  const insert = db.prepare('INSERT OR IGNORE INTO title_words (word, whole, page_id) VALUES (?, ?, ?)');
  for (const p of pages) {
    remove.run(p.id);
    for (const r of titleWordRows(p.title, p.path, JSON.parse(p.frontmatter))) insert.run(r.word, r.whole, p.id);
  }
}
