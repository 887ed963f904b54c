import type { Services } from '../../services.ts';
import { derivedState, livePagesWithWikilinks, maxPageId, setDerivedState } from '../../store/links.ts';
import { IndexBatch, type Backfill } from '../indexes/types.ts';
import { linkBudget } from './budget.ts';
import { storeLinks } from './wiki-index.ts';

// Pages written before kspace knew wikilinks (schema version 8) hold `[[…]]` text that the link
// index has never read. Once per database, a while after start, every live page whose text holds
// `[[` is indexed again, in batches through the write queue (other requests are served in
// between; a page written meanwhile indexes itself as usual, and a batch reads each page in the
// transaction that indexes it). derived_state 'wikilinks_indexed' records that it is done; a
// server stopped half-way starts over at its next start (indexing a page twice changes nothing).
// A database made by this version is marked done by schema.sql: only an upgraded one runs this.

// Page ids read per transaction: a window is one bounded scan (~5 ms for 2,000 pages of 2 KB),
// so the write queue and the event loop are never held long, however few pages hold `[[`.
const WINDOW = 2000;
const WIKILINKS_INDEXED = 'wikilinks_indexed';

/** The link index's backfill (indexes/backfill.ts runs it). */
export const wikilinkBackfill: Backfill = {
  due: (svc) => derivedState(svc.db, WIKILINKS_INDEXED) === undefined,
  run: backfillWikilinks,
  done: (n) => `wikilinks of ${n} pages written before they were links are indexed`,
};

/** Indexes the wikilinks of pages written before schema version 8; resolves to the pages indexed. */
async function backfillWikilinks(svc: Services, stopped: () => boolean): Promise<number> {
  if (derivedState(svc.db, WIKILINKS_INDEXED) !== undefined) return 0;
  const last = maxPageId(svc.db); // pages written later index themselves
  let after = 0;
  let pages = 0;
  for (;;) {
    if (stopped()) return pages;
    const to = after + WINDOW;
    pages += await svc.writes.run(
      () => {
        const batch = livePagesWithWikilinks(svc.db, after, to);
        const b = new IndexBatch(svc.db, [svc.config.baseUrl], null, false, linkBudget(svc.config.limits));
        for (const p of batch) storeLinks(b, { id: p.id, spaceSlug: p.space, path: p.path, content: p.content });
        b.finish();
        if (to >= last) setDerivedState(svc.db, WIKILINKS_INDEXED, new Date().toISOString());
        return batch.length;
      },
      { alone: true },
    ); // many writes in one job: see group-commit.ts
    if (to >= last) return pages;
    after = to;
  }
}
