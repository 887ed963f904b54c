import type { Db } from '../store/db/types.ts';
import { bumpKeyStats, metaRowsOf, metaRowsOfKeys, readersOf } from '../store/key-stats.ts';
import { replaceLinks, replaceWikiKeys } from '../store/links.ts';
import { insertMetaIndex, replaceMetaIndex, replaceMetaIndexKeys } from '../store/pages.ts';
import { queueForIndex } from '../store/fts/index-file.ts';
import { replaceTitleWords, titleWordRows } from '../store/title-words.ts';
import { pageWritten, reresolveAround, storeLinks } from './links/wiki-index.ts';
import { indexRows } from './metadata.ts';
import { keyTypes, minus } from './search/key-types.ts';
import type { IndexRow, Metadata } from '../model.ts';

// Derived indexes of a page — metadata index, key stats, full-text, title words and links — updated in the
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
  /** Its frontmatter, for the title index's aliases; none when absent. */
  frontmatter?: Record<string, unknown>;
  /**
   * The previous live revision's title and body, or null for a new or revived page: when
   * neither changed, the full-text index has nothing to do.
   */
  previous: { title: string; content: string } | null;
  /**
   * The page row was inserted by this write: no index rows of it can exist yet (page rows are
   * never removed and foreign keys are on, so a new id has no metadata or link rows), and the
   * lookups and deletes of old ones are skipped.
   */
  fresh?: boolean;
  /** Base URLs under which a link is internal: the server's own (config.baseUrl). */
  baseUrls?: string[];
  /**
   * Only these metadata keys changed since the previous revision (a metadata patch of a live
   * page): only their index rows are rewritten. A patch of one key of a page with thousands of
   * list items rewrote every row (0.9 s for 200,000; issue 18).
   */
  changedKeys?: string[];
};

export function indexPage(db: Db, page: IndexedPage): void {
  const keys = page.changedKeys && page.previous && !page.fresh ? page.changedKeys : null;
  const rows = indexRows(keys ? pick(page.metadata, keys) : page.metadata);
  updateKeyStats(db, page.id, page.fresh ? [] : keys ? metaRowsOfKeys(db, page.id, keys) : metaRowsOf(db, page.id), rows);
  if (page.fresh) insertMetaIndex(db, page.id, rows);
  else if (keys) replaceMetaIndexKeys(db, page.id, keys, rows);
  else replaceMetaIndex(db, page.id, rows);
  const prev = page.previous;
  // The full-text index is kept off the write path (src/store/fts/index-file.ts): a queue row here.
  if (!prev || prev.title !== page.title || prev.content !== page.content) queueForIndex(db, page.id);
  // The title index (GET /search/titles): a few rows, rewritten on every write (aliases are frontmatter).
  replaceTitleWords(db, page.id, titleWordRows(page.title, page.path, page.frontmatter ?? {}));
  // A metadata patch or a title change leaves the body, and so the links, as they were.
  const baseUrls = page.baseUrls ?? [];
  if (!prev || prev.content !== page.content) storeLinks(db, page, baseUrls, page.fresh);
  pageWritten(db, page.spaceSlug, page.id, page.path);
  // Wikilinks elsewhere may mean this page now (docs/search.md "Wikilinks").
  if (!prev) reresolveAround(db, page.spaceSlug, page.path, [page.title], baseUrls, page.id, true);
  else if (prev.title !== page.title) reresolveAround(db, page.spaceSlug, null, [prev.title, page.title], baseUrls, page.id);
}

/** Before the page is marked deleted: `title`/`content` are its live ones, as indexed. */
export function unindexPage(db: Db, page: IndexedPage): void {
  updateKeyStats(db, page.id, metaRowsOf(db, page.id), []);
  replaceMetaIndex(db, page.id, []);
  queueForIndex(db, page.id);
  replaceLinks(db, page.id, []);
  replaceWikiKeys(db, page.id, []);
  replaceTitleWords(db, page.id, []);
}

/**
 * Runs `apply` (a change of the page's ACL, or a move to another space) and moves the page's key stats to its new reader
 * set. Every ACL change goes through here, as every page write goes through indexPage.
 */
export function changePageAccess(db: Db, pageId: number, apply: () => void): void {
  const before = readersOf(db, pageId);
  apply();
  const after = readersOf(db, pageId);
  if (!before || !after || (before.readers === after.readers && before.spaceId === after.spaceId)) return;
  const pairs = minus(keyTypes(metaRowsOf(db, pageId)), new Set());
  bumpKeyStats(db, before.spaceId, before.readers, pairs, -1);
  bumpKeyStats(db, after.spaceId, after.readers, pairs, +1);
}

function pick(metadata: Metadata, keys: string[]): Metadata {
  const out: Metadata = {};
  for (const k of keys) if (Object.hasOwn(metadata, k)) out[k] = metadata[k];
  return out;
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
