import { insertMetaIndex, replaceMetaIndex, replaceMetaIndexKeys } from '../../store/pages.ts';
import { indexRows } from '../metadata.ts';
import type { IndexRow, Metadata } from '../../model.ts';
import type { DerivedIndex, PageBefore, WrittenPage } from './types.ts';

// page_meta: one row per scalar or list item of a page's metadata (dates as epoch milliseconds,
// booleans 0/1), looked up through (key, t, v, page_id) by metadata filters.
export const metadataIndex: DerivedIndex = {
  name: 'metadata',
  holds: 'one row per metadata value of each live page (page_meta)',
  written(b, page, before) {
    const keys = changedKeysOf(page, before);
    const rows = metaRowsFor(page, before);
    if (page.fresh) insertMetaIndex(b.db, page.id, rows);
    else if (keys) replaceMetaIndexKeys(b.db, page.id, keys, rows);
    else replaceMetaIndex(b.db, page.id, rows);
  },
  removed(b, page) {
    replaceMetaIndex(b.db, page.id, []);
  },
  moved() {},
  accessChanged() {},
  rebuildPage(b, page) {
    replaceMetaIndex(b.db, page.id, indexRows(JSON.parse(page.metadata)));
  },
};

// The rows of one write, computed once for this index and the key statistics.
const rowsOfWrite = new WeakMap<WrittenPage, IndexRow[]>();

/** The metadata index rows a write gives the page: of its changed keys only, for a patch. */
export function metaRowsFor(page: WrittenPage, before: PageBefore): IndexRow[] {
  let rows = rowsOfWrite.get(page);
  if (!rows) {
    const keys = changedKeysOf(page, before);
    rows = indexRows(keys ? pick(page.metadata, keys) : page.metadata);
    rowsOfWrite.set(page, rows);
  }
  return rows;
}

/** The keys a metadata patch of a live page changed, or null: every key is written. */
export function changedKeysOf(page: WrittenPage, before: PageBefore): string[] | null {
  return page.changedKeys && before && !page.fresh ? page.changedKeys : null;
}

function pick(metadata: Metadata, keys: string[]): Metadata {
  const out: Metadata = {};
  for (const k of keys) if (Object.hasOwn(metadata, k)) out[k] = metadata[k];
  return out;
}
