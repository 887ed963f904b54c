import type { Db } from '../db/types.ts';
import { compactIndexFor, indexedPages, mergeIndex, worthCompacting } from './index-file.ts';

// Tidying the full-text index while the helper (helper/thread.ts) has nothing to index and the
// server is calm: merging its segments into one (mergeIndex), TIDY_MS at a time, a round every
// TIDY_INTERVAL_MS until done, then giving the pages freed back to the disk (compactIndexFor). A
// merge into one segment rewrites the whole index (20,000 pages: 0.5–1 s here, also after only
// 10 more pages), so it is due only once the pages indexed since the last one reach half the index
// (at least TIDY_AFTER_PAGES): after a burst or an import, not after every write. It starts after
// TIDY_QUIET_MS without a page to index (inside a burst the queue runs dry for a few ms at a
// time). A page write queued meanwhile ends it at once (resumed after a write it would start
// over: see mergeIndex) and is indexed, so a search that waits for the index waits at most one
// round; the next try waits twice as long a quiet time (up to TIDY_QUIET_MAX_MS), so writes that
// keep coming a little apart do not have the index rewritten again and again
// (docs/performance.md, Storage).
const TIDY_MS = 4;
const TIDY_INTERVAL_MS = 1;
const TIDY_AFTER_PAGES = 1000;
const TIDY_QUIET_MS = 250;
const TIDY_QUIET_MAX_MS = 60_000;

type IndexTidy = {
  /** The helper indexed `rows` queue rows: a merge under way is given up. */
  indexed(rows: number): void;
  /**
   * One idle round (nothing left to index, the server calm, no search waiting): up to TIDY_MS of
   * merging or of giving pages back. The wait before the next round, or null: nothing to do
   * until more pages are indexed.
   */
  idle(): number | null;
};

export function createIndexTidy(idx: Db): IndexTidy {
  let sinceMerge = 0; // queue rows indexed since the last merge ended
  let mergeDue = TIDY_AFTER_PAGES; // sinceMerge at which a merge is due (half the index, as last counted)
  let merging = false; // a merge into one segment is under way (until mergeIndex is done)
  let quietFor = TIDY_QUIET_MS; // how long nothing must have been indexed before a merge starts
  let indexedAt = performance.now();
  let checkFree = true; // at the next idle round, see whether free pages are worth giving back
  let compacting = false; // giving free pages back (until compactIndexFor is done)
  return {
    indexed(rows) {
      sinceMerge += rows;
      indexedAt = performance.now();
      checkFree = true;
      if (merging) {
        merging = false; // given up: resumed after this write it would start over
        quietFor = Math.min(quietFor * 2, TIDY_QUIET_MAX_MS);
      }
    },
    idle() {
      const waited = performance.now() - indexedAt;
      const quiet = waited >= quietFor;
      if (!merging && quiet && sinceMerge >= mergeDue) {
        // Counting the index's pages reads all of its page-size rows: done once per threshold.
        mergeDue = Math.max(TIDY_AFTER_PAGES, Math.ceil(indexedPages(idx) / 2));
        merging = sinceMerge >= mergeDue;
      }
      if (merging) {
        merging = mergeIndex(idx, TIDY_MS);
        if (!merging) {
          sinceMerge = 0;
          quietFor = TIDY_QUIET_MS;
          compacting = true; // all the pages the merge left free
          checkFree = false;
        }
        return TIDY_INTERVAL_MS;
      }
      if (checkFree) compacting = worthCompacting(idx);
      checkFree = false;
      if (compacting) compacting = compactIndexFor(idx, TIDY_MS);
      if (compacting) return TIDY_INTERVAL_MS;
      // A merge that may be due once the index has been quiet for long enough: a round then (an
      // idle helper would look again only a second later, helper/loop.ts).
      return !quiet && sinceMerge >= mergeDue ? quietFor - waited : null;
    },
  };
}
