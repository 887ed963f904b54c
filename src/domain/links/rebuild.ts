import type { Services } from '../../services.ts';
import { indexRows } from '../metadata.ts';
import { requireOrgAdmin } from '../principals.ts';
import { tx } from '../../store/db/transactions.ts';
import { rebuildKeyStats } from '../../store/key-stats.ts';
import { countOrgLinks, deleteOrphanLinks, livePagesAfter } from '../../store/links.ts';
import { replaceMetaIndex } from '../../store/pages.ts';
import { rebuildIndex } from '../../store/fts/index-file.ts';
import { storeLinks } from './wiki-index.ts';
import { replaceTitleWords, titleWordRows } from '../../store/title-words.ts';
import type { Caller } from '../../model.ts';

// POST /links/rebuild (org admin): every derived index rebuilt from the pages themselves —
// links, title words and the metadata index page by page, then full-text and key stats in one go.
// The page-by-page part runs in batches through the write queue, so other requests are served
// in between; a page written meanwhile indexes itself as usual, and a batch reads each page in
// the transaction that re-indexes it, so nothing goes stale.
const BATCH = 500;

export async function rebuildIndexes(svc: Services, caller: Caller): Promise<{ pages: number; links: number }> {
  requireOrgAdmin(caller);
  const baseUrls = [svc.config.baseUrl];
  let after = 0;
  let pages = 0;
  for (;;) {
    const n = await svc.writes.run(() => {
      const batch = livePagesAfter(svc.db, caller.orgId, after, BATCH);
      for (const p of batch) {
        replaceMetaIndex(svc.db, p.id, indexRows(JSON.parse(p.metadata)));
        storeLinks(svc.db, { id: p.id, spaceSlug: p.space, path: p.path, content: p.content }, baseUrls);
        replaceTitleWords(svc.db, p.id, titleWordRows(p.title, p.path, JSON.parse(p.frontmatter)));
      }
      if (batch.length) after = batch[batch.length - 1].id;
      return batch.length;
    }, { alone: true }); // its many writes, each opening statement savepoints: see group-commit.ts
    pages += n;
    if (n < BATCH) break;
  }
  const result = await svc.writes.run(() => {
    deleteOrphanLinks(svc.db);
    rebuildKeyStats(svc.db, caller.orgId);
    return { pages, links: countOrgLinks(svc.db, caller.orgId) };
  });
  // The full-text index (kspace-fts.db, the whole deployment) in a transaction of that file:
  // it reads the live pages as committed now; later writes are queued and indexed after it.
  rebuildIndex(svc.fts.conn());
  return result;
}
