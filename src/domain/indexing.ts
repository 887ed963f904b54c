import { deferUntilCommit, type Db } from '../store/db.ts';
import { bumpKeyStats, metaRowsOf, readersOf } from '../store/key-stats.ts';
import { replaceLinks } from '../store/links.ts';
import { replaceMetaIndex } from '../store/pages.ts';
import { ftsDelete, ftsInsert } from '../store/search.ts';
import { extractLinks } from './links/extract.ts';
import { indexRows, type IndexRow, type Metadata } from './metadata.ts';
import { keyTypes, minus } from './search/key-types.ts';

// Derived indexes of a page — metadata index, key stats, full-text and links — updated in the
// same transaction as the page write (writeRevision and deletePage call these, whatever door
// the write came through) and rebuildable from the pages table (POST /links/rebuild).
export type IndexedPage = {
  id: number;
  spaceId: number;
  spaceSlug: string;
  path: string;
  title: string;
  content: string;
  metadata: Metadata;
  /**
   * The title and body the full-text index holds for this page now: the previous live
   * revision's, or null for a new or revived page. page_fts has external content (the pages
   * row, already overwritten), so removing the old entry needs the old text.
   */
  previous: { title: string; content: string } | null;
  /** Base URLs under which a link is internal: the server's own (config.baseUrl). */
  baseUrls?: string[];
};

export function indexPage(db: Db, page: IndexedPage): void {
  const rows = indexRows(page.metadata);
  updateKeyStats(db, page.id, metaRowsOf(db, page.id), rows);
  replaceMetaIndex(db, page.id, rows);
  const prev = page.previous;
  if (!prev || prev.title !== page.title || prev.content !== page.content) {
    // Full text changes run at commit, outside the write's savepoint (see deferUntilCommit).
    deferUntilCommit(db, () => {
      if (prev) ftsDelete(db, page.id, prev.title, prev.content);
      ftsInsert(db, page.id, page.title, page.content);
    });
  }
  // A metadata patch or a title change leaves the body, and so the links, as they were.
  if (!prev || prev.content !== page.content) {
    replaceLinks(db, page.id, extractLinks(page.content, { space: page.spaceSlug, path: page.path }, page.baseUrls ?? []));
  }
}

/** Before the page is marked deleted: `title`/`content` are its live ones, as indexed. */
export function unindexPage(db: Db, page: IndexedPage): void {
  updateKeyStats(db, page.id, metaRowsOf(db, page.id), []);
  replaceMetaIndex(db, page.id, []);
  deferUntilCommit(db, () => ftsDelete(db, page.id, page.title, page.content));
  replaceLinks(db, page.id, []);
}

/**
 * Runs `apply` (a change of the page's ACL) and moves the page's key stats to its new reader
 * set. Every ACL change goes through here, as every page write goes through indexPage.
 */
export function changePageAccess(db: Db, pageId: number, apply: () => void): void {
  const before = readersOf(db, pageId);
  apply();
  const after = readersOf(db, pageId);
  if (!before || !after || before.readers === after.readers) return;
  const pairs = minus(keyTypes(metaRowsOf(db, pageId)), new Set());
  bumpKeyStats(db, before.spaceId, before.readers, pairs, -1);
  bumpKeyStats(db, after.spaceId, after.readers, pairs, +1);
}

function updateKeyStats(db: Db, pageId: number, before: ReadonlyArray<{ key: string; pos: number; t: string }>, after: IndexRow[]): void {
  const old = keyTypes(before);
  const now = keyTypes(after);
  const gone = minus(old, now);
  const added = minus(now, old);
  if (gone.length === 0 && added.length === 0) return;
  const at = readersOf(db, pageId)!;
  bumpKeyStats(db, at.spaceId, at.readers, gone, -1);
  bumpKeyStats(db, at.spaceId, at.readers, added, +1);
}
