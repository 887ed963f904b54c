import type { Services } from '../../services.ts';
import type { Caller } from '../access.ts';
import { loadReadablePage } from '../pages.ts';
import { resolveSpace } from '../spaces.ts';
import { backlinks, brokenLinks, outboundLinks } from '../../store/links.ts';

// Reading the link index. A target the caller may not read is absent for that caller, exactly
// like a page that does not exist: `exists: false` in outbound links, and a broken link in the
// space's report. Saying anything else would tell the caller that the page exists.

export type PageLinks = {
  outbound: Array<{ space: string; path: string; exists: boolean }>;
  backlinks: Array<{ space: string; path: string; title: string }>;
};

/** GET /pages/:space/:path/links (404 when the page is absent for the caller). */
export function pageLinks(svc: Services, caller: Caller, slug: string, path: string): PageLinks {
  const { space, page } = loadReadablePage(svc, caller, slug, path);
  return {
    outbound: outboundLinks(svc.db, caller, page.id).map((r) => ({ space: r.space, path: r.path, exists: r.exists === 1 })),
    backlinks: backlinks(svc.db, caller, { space: space.slug, path: page.path }),
  };
}

export type BrokenLink = { source: { space: string; path: string }; target: { space: string; path: string } };

/** GET /spaces/:slug/links/broken: links from the space's readable pages to absent pages. */
export function brokenLinksOf(svc: Services, caller: Caller, slug: string): BrokenLink[] {
  const space = resolveSpace(svc, caller, slug);
  return brokenLinks(svc.db, caller, space.id).map((r) => ({
    source: { space: space.slug, path: r.sourcePath },
    target: { space: r.targetSpace, path: r.targetPath },
  }));
}
