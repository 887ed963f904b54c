import { bumpKeyStats, metaRowsOf, metaRowsOfKeys, rebuildKeyStats, readersOf } from '../../store/key-stats.ts';
import { keyTypes, minus } from '../search/key-types.ts';
import { changedKeysOf, metaRowsFor } from './metadata.ts';
import type { IndexRow } from '../../model.ts';
import type { DerivedIndex, IndexBatch, ReadersBefore } from './types.ts';

// meta_key_stats: pages per (space, reader set, metadata key, type), for key discovery
// (GET /metadata/keys). Derived from the metadata index's rows: listed before `metadata` in
// list.ts, so that a write reads the page's old rows before that index rewrites them.
export const keyStatsIndex: DerivedIndex = {
  name: 'key-stats',
  holds: 'pages per space, reader set, metadata key and type (meta_key_stats)',
  derivedFrom: 'metadata',
  written(b, page, before) {
    const keys = changedKeysOf(page, before);
    const old = page.fresh ? [] : keys ? metaRowsOfKeys(b.db, page.id, keys) : metaRowsOf(b.db, page.id);
    updateKeyStats(b, page.id, old, metaRowsFor(page, before));
  },
  removed(b, page) {
    updateKeyStats(b, page.id, metaRowsOf(b.db, page.id), []);
  },
  // Into another space, the page's keys count there.
  moved(b, page, before) {
    moveKeyStats(b, page.id, before);
  },
  accessChanged(b, page, before) {
    moveKeyStats(b, page.id, before);
  },
  rebuild(b, orgId) {
    rebuildKeyStats(b.db, orgId);
  },
};

/** Moves the page's counts from the reader set it had to the one it has. */
function moveKeyStats(b: IndexBatch, pageId: number, before: ReadersBefore): void {
  const after = readersOf(b.db, pageId);
  if (!before || !after || (before.readers === after.readers && before.spaceId === after.spaceId)) return;
  const pairs = minus(keyTypes(metaRowsOf(b.db, pageId)), new Set());
  bumpKeyStats(b.db, before.spaceId, before.readers, pairs, -1);
  bumpKeyStats(b.db, after.spaceId, after.readers, pairs, +1);
}

function updateKeyStats(
  b: IndexBatch,
  pageId: number,
  before: ReadonlyArray<{ key: string; pos: number; t: string }>,
  after: IndexRow[],
): void {
  const old = keyTypes(before);
  const now = keyTypes(after);
  const gone = minus(old, now);
  const added = minus(now, old);
  if (gone.length === 0 && added.length === 0) return;
  const at = readersOf(b.db, pageId)!;
  bumpKeyStats(b.db, at.spaceId, at.readers, gone, -1);
  bumpKeyStats(b.db, at.spaceId, at.readers, added, +1);
}
