import type { Db } from '../store/db.ts';
import { replaceMetaIndex } from '../store/pages.ts';
import { indexRows, type Metadata } from './metadata.ts';

// Derived indexes of a page (metadata index; full-text and links join here), updated in the
// same transaction as the page write and rebuildable from the pages table.
export type IndexedPage = { id: number; spaceId: number; spaceSlug: string; path: string; title: string; content: string; metadata: Metadata };

export function indexPage(db: Db, page: IndexedPage): void {
  replaceMetaIndex(db, page.id, indexRows(page.metadata));
}

export function unindexPage(db: Db, page: IndexedPage): void {
  replaceMetaIndex(db, page.id, []);
}
