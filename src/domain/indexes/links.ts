import { deleteOrphanLinks, replaceLinks, replaceWikiKeys } from '../../store/links.ts';
import { pageWritten, reindexSource, reresolveAround, storeLinks } from '../links/wiki-index.ts';
import { wikilinkBackfill } from '../links/wikilink-backfill.ts';
import type { DerivedIndex } from './types.ts';
import { aliasesOf } from '../../store/title-words-schema.ts';

// The link graph: `links` (one row per source page and target address, so links to absent pages
// are ordinary rows) and `wikilink_keys` (where each wikilink is filed, so that a page appearing,
// leaving, changing title or access, or moving re-resolves the wikilinks that could mean it:
// links/wiki-index.ts, docs/search.md "Wikilinks").
export const linkIndex: DerivedIndex = {
  name: 'links',
  holds: 'links and resolved wikilinks between pages (links, wikilink_keys)',
  written(b, page, before) {
    // A metadata patch or a title change leaves the body, and so the links, as they were.
    if (!before || before.content !== page.content) storeLinks(b, { ...page, written: true }, page.fresh);
    pageWritten(b, page.spaceSlug, page.id, page.path);
    // Wikilinks elsewhere may mean this page now.
    const aliases = aliasesOf(page.frontmatter);
    if (!before) reresolveAround(b, page.spaceSlug, page.path, [page.title, ...aliases], page.id, true);
    else if (before.title !== page.title) reresolveAround(b, page.spaceSlug, null, [before.title, page.title, ...aliases], page.id);
    // Aliases resolve like titles: links naming one may mean this page now.
    else if (aliases.length) reresolveAround(b, page.spaceSlug, null, aliases, page.id);
  },
  removed(b, page) {
    replaceLinks(b.db, page.id, []);
    replaceWikiKeys(b.db, page.id, []);
    // Wikilinks that meant this page resolve without it, once it is marked deleted.
    b.atEnd(() => reresolveAround(b, page.spaceSlug, page.path, [page.title], page.id));
  },
  moved(b, page) {
    // Relative links resolve against the page's folder: index them from the new address.
    storeLinks(b, { id: page.id, spaceSlug: page.to.space, path: page.to.path, content: page.content });
    // Wikilinks that could mean a page at its old or new address resolve again at the end of the
    // batch: after the move has rewritten the links to it, so that the rewrite sees what they meant.
    b.atEnd(() => {
      reresolveAround(b, page.from.space, page.from.path, [page.title]);
      reresolveAround(b, page.to.space, page.to.path, [page.title], undefined, true);
    });
  },
  // Who may read a page decides which wikilinks may resolve to it and which it may resolve to.
  // A page in the trash is no target: its written hook resolves around it when it comes back.
  accessChanged(b, page) {
    if (!page.live) return;
    reindexSource(b, page.id);
    reresolveAround(b, page.spaceSlug, page.path, [page.title], page.id);
  },
  rebuildPage(b, page) {
    storeLinks(b, { id: page.id, spaceSlug: page.space, path: page.path, content: page.content });
  },
  rebuild(b) {
    deleteOrphanLinks(b.db);
  },
  backfill: wikilinkBackfill,
};
