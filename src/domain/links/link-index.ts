import type { Services } from '../../services.ts';
import { loadReadablePage } from '../pages.ts';
import { resolveSpace } from '../spaces.ts';
import { backlinks, backlinksToAny, brokenLinks, outboundLinks } from '../../store/links.ts';
import { redirectsTo } from '../../store/moves.ts';
import type { Caller } from '../../model.ts';

// Reading the link index. A target the caller may not read is absent for that caller, exactly
// like a page that does not exist: `exists: false` in outbound links, and a broken link in the
// space's report. Saying anything else would tell the caller that the page exists.

// Both lists page (docs/search.md): link rows are small, so a page of them may hold up to
// MAX_LINK_LIMIT (a page with more links than that is rare; most clients never ask twice).
export const MAX_LINK_LIMIT = 1000;

type PageLinks = {
  outbound: Array<{ space: string; path: string; exists: boolean }>;
  backlinks: Array<{ space: string; path: string; title: string }>;
};

/**
 * Where the next page of /links starts: after outbound position `o` and after backlink `b`
 * ([space, path]); `false` when that list is finished.
 */
type LinksCursor = { o: number | false; b: [string, string] | false };

export const isLinksCursor = (v: unknown): v is LinksCursor => {
  if (v === null || typeof v !== 'object') return false;
  const { o, b } = v as Record<string, unknown>;
  return (
    (o === false || (typeof o === 'number' && Number.isInteger(o))) &&
    (b === false || (Array.isArray(b) && b.length === 2 && b.every((x) => typeof x === 'string')))
  );
};

/**
 * GET /pages/:space/:path/links (404 when the page is absent for the caller): the next `limit`
 * outbound links and the next `limit` backlinks, and where to go on (null when both are done).
 */
export function pageLinks(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
  q: { limit: number; after: LinksCursor | null },
): PageLinks & { next: LinksCursor | null } {
  const { space, page } = loadReadablePage(svc, caller, slug, path);
  const at = q.after ?? { o: -1, b: ['', ''] };
  const out = at.o === false ? [] : outboundLinks(svc.db, caller, page.id, at.o, q.limit + 1);
  // A moved page's backlinks include the links to its old addresses (they redirect to it).
  const old = at.b === false ? [] : redirectsTo(svc.db, page.id);
  const here = { space: space.slug, path: page.path };
  const from = { space: at.b === false ? '' : at.b[0], path: at.b === false ? '' : at.b[1] };
  const back =
    at.b === false
      ? []
      : old.length === 0
        ? backlinks(svc.db, caller, here, from, q.limit + 1)
        : backlinksToAny(svc.db, caller, [here, ...old], from, q.limit + 1);
  const outPage = out.slice(0, q.limit);
  const backPage = back.slice(0, q.limit);
  const last = backPage[backPage.length - 1];
  const next: LinksCursor = {
    o: out.length > q.limit ? outPage[outPage.length - 1].ord : false,
    b: back.length > q.limit ? [last.space, last.path] : false,
  };
  return {
    outbound: outPage.map((r) => ({ space: r.space, path: r.path, exists: r.exists === 1 })),
    backlinks: backPage,
    next: next.o === false && next.b === false ? null : next,
  };
}

type BrokenLink = { source: { space: string; path: string }; target: { space: string; path: string } };

/** Where the next page of broken links starts: after [source path, target space, target path]. */
type BrokenCursor = [string, string, string];

export const isBrokenCursor = (v: unknown): v is BrokenCursor =>
  Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'string');

/** GET /spaces/:slug/links/broken: links from the space's readable pages to absent pages, a page at a time. */
export function brokenLinksOf(
  svc: Services,
  caller: Caller,
  slug: string,
  q: { limit: number; after: BrokenCursor | null },
): { links: BrokenLink[]; next: BrokenCursor | null } {
  const space = resolveSpace(svc, caller, slug);
  const rows = brokenLinks(svc.db, caller, space.id, q.after ?? ['', '', ''], q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    links: page.map((r) => ({ source: { space: space.slug, path: r.sourcePath }, target: { space: r.targetSpace, path: r.targetPath } })),
    next: rows.length > q.limit ? [last.sourcePath, last.targetSpace, last.targetPath] : null,
  };
}
