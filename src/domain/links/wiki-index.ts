// The link index's side of wikilinks (docs/search.md "Wikilinks"). A wikilink resolves by what
// exists, so the index resolves it when the linking page is written, against the pages that
// every reader of that page may read (a link never points readers at a page some of them could
// not see, and which page it picks tells nobody about a page they cannot read), and files it
// under keys (wikilink_keys) so that the pages whose wikilinks could now mean something else are
// indexed again when a page appears, leaves, changes title or access, or moves. Runs inside the
// write's transaction, like the rest of indexing.
import type { Db } from '../../store/db.ts';
import { readersWithin, type AclEntry } from '../access.ts';
import { replaceLinks, insertLinks, replaceWikiKeys, wikiSourcesUnder } from '../../store/links.ts';
import { findPageById, findRedirect } from '../../store/moves.ts';
import { findPage, livePagesTitled, readAcl, type PageRow } from '../../store/pages.ts';
import { findSpaceById, findSpaceBySlug, type SpaceRow } from '../../store/spaces.ts';
import { extractLinks } from './extract.ts';
import { resolveWikilink, wikiKeys, wikiKeysOfPage, type WikiLookup } from './wikilinks.ts';

export type LinkSource = { id: number; spaceSlug: string; path: string; content: string };

/** Indexes a page's links (markdown links and resolved wikilinks) and files its wikilinks. */
export function storeLinks(db: Db, page: LinkSource, baseUrls: string[], fresh = false): void {
  const from = { space: page.spaceSlug, path: page.path };
  const keys: Array<{ space: string; key: string }> = [];
  let lookup: WikiLookup | null = null;
  const links = extractLinks(page.content, from, baseUrls, (target, at) => {
    keys.push(...wikiKeys(target, at));
    lookup ??= indexLookup(db, page.id);
    return resolveWikilink(target, at, lookup);
  });
  if (fresh) insertLinks(db, page.id, links);
  else replaceLinks(db, page.id, links);
  replaceWikiKeys(db, page.id, keys, fresh);
}

/**
 * A lookup from the point of view of every reader of page `sourceId`: a page counts when all of
 * them may read it (readersWithin), a space when all of them can see it.
 */
export function indexLookup(db: Db, sourceId: number): WikiLookup {
  const src = findPageById(db, sourceId);
  const srcSpace = src && findSpaceById(db, src.space_id);
  if (!src || !srcSpace) return { page: () => false, titled: () => [], space: () => false };
  const srcAcl = src.has_acl ? readAcl(db, src.id) : [];
  const spaces = new Map<string, SpaceRow | null>();
  const spaceOf = (slug: string): SpaceRow | null => {
    if (!spaces.has(slug)) {
      const s = slug === srcSpace.slug ? srcSpace : findSpaceBySlug(db, slug) ?? null;
      spaces.set(slug, s && !s.deleted_at && s.org_id === srcSpace.org_id ? s : null);
    }
    return spaces.get(slug)!;
  };
  const counts = (space: SpaceRow, row: PageRow | undefined): boolean =>
    row !== undefined && row.deleted_at === null
    && readersWithin(srcSpace, src, srcAcl, space, row, aclOf(db, row));
  return {
    page(ref) {
      const space = spaceOf(ref.space);
      if (!space) return false;
      const row = findPage(db, space.id, ref.path);
      if (row && row.deleted_at === null) return counts(space, row);
      // The old address of a moved page still reaches it (it redirects): the link keeps it.
      const moved = findRedirect(db, space.id, ref.path);
      if (moved === undefined) return false;
      const to = findPageById(db, moved);
      const toSpace = to && findSpaceById(db, to.space_id);
      return !!to && !!toSpace && !toSpace.deleted_at && counts(toSpace, to);
    },
    titled(slug, title) {
      const space = spaceOf(slug);
      if (!space) return [];
      return livePagesTitled(db, space.id, title, 16).filter((r) => counts(space, r)).map((r) => ({ space: slug, path: r.path }));
    },
    space(slug) {
      const s = spaceOf(slug);
      return s !== null && s.id !== srcSpace.id && seenByAllReaders(srcSpace, s);
    },
  };
}

/** Whether every reader of a page of `src` can see space `dst` (same org, both live). */
function seenByAllReaders(src: SpaceRow, dst: SpaceRow): boolean {
  if (dst.owner_id !== null) return dst.owner_id === src.owner_id;
  return dst.default_access !== 'none';
}

function aclOf(db: Db, row: PageRow): AclEntry[] {
  return row.has_acl ? readAcl(db, row.id) : [];
}

// Re-resolution inside a batch (an import chunk, a move) is collected and done once at the end:
// a page linking to 500 pages that the same import creates after it is indexed again once, not
// 500 times. Writes are synchronous, so one batch at a time.
let pending: Map<number, string[]> | null = null;

/** Runs `fn` (inside a transaction) with the re-indexing it causes done once, at its end. */
export function batchWikiResolution<T>(db: Db, fn: () => T): T {
  if (pending) return fn();
  const mine = new Map<number, string[]>();
  pending = mine;
  let out: T;
  try {
    out = fn();
  } finally {
    pending = null;
  }
  for (const [id, baseUrls] of mine) reindexSource(db, id, baseUrls);
  return out;
}

/**
 * Indexes again the pages (but `except`) whose wikilinks are filed in `space` under the keys of
 * the page at `path` titled `titles` (path null: a change of title only), because it appeared,
 * left, or changed title or access. Call it once the change is written.
 */
export function reresolveAround(
  db: Db, space: string, path: string | null, titles: string[], baseUrls: string[], except?: number,
): void {
  const keys = path === null ? [...new Set(titles.map((t) => t.toLowerCase()))] : wikiKeysOfPage(path, titles);
  for (const id of wikiSourcesUnder(db, space, keys)) {
    if (id === except) continue;
    if (pending) pending.set(id, baseUrls);
    else reindexSource(db, id, baseUrls);
  }
}

/** Re-indexes the links of the live page `id` (a no-op for a page that is not live). */
export function reindexSource(db: Db, id: number, baseUrls: string[]): void {
  const row = findPageById(db, id);
  const space = row && row.deleted_at === null ? findSpaceById(db, row.space_id) : undefined;
  if (!row || !space) return;
  storeLinks(db, { id, spaceSlug: space.slug, path: row.path, content: row.content }, baseUrls);
}
