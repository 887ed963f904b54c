import type { Services } from '../services.ts';
import { canReadPage, canSeeSpace, type Caller } from './access.ts';
import { resolveWikilink, type WikiLookup } from './links/wikilinks.ts';
import { livePagesTitled, readAcl } from '../store/pages.ts';
import { findSpaceBySlug, hasAclGrantInSpace } from '../store/spaces.ts';
import { invalidField } from './errors.ts';
import { renderMarkdown } from './links/render.ts';
import { resolveSpace } from './spaces.ts';
import { readableTargets } from '../store/links.ts';
import type { PageRef } from '../model.ts';

// The web app's HTML of a page (view and preview): links to pages the caller cannot read are
// marked broken, exactly like pages that do not exist, so the HTML reveals nothing.

export function renderForCaller(svc: Services, caller: Caller, from: PageRef, content: string): string {
  let lookup: WikiLookup | null = null;
  return renderMarkdown({
    content,
    from,
    baseUrls: [svc.config.baseUrl],
    existing: (targets) => readableTargets(svc.db, caller, targets),
    wiki: (target, at) => resolveWikilink(target, at, (lookup ??= callerLookup(svc, caller))),
  });
}

/**
 * Wikilinks as the reader finds them: only pages and spaces the reader may read count, so the
 * HTML never points at a page the reader cannot read, nor picks one because of it.
 */
function callerLookup(svc: Services, caller: Caller): WikiLookup {
  const db = svc.db;
  return {
    page: (ref) => readableTargets(db, caller, [ref]).size > 0,
    titled(slug, title) {
      const space = findSpaceBySlug(db, slug);
      if (!space || space.deleted_at) return [];
      return livePagesTitled(db, space.id, title, 16)
        .filter((p) => canReadPage(caller, space, p, p.has_acl ? readAcl(db, p.id) : []))
        .map((p) => ({ space: slug, path: p.path }));
    },
    space(slug) {
      const space = findSpaceBySlug(db, slug);
      return !!space && !space.deleted_at && canSeeSpace(caller, space, () => hasAclGrantInSpace(db, space.id, caller.id));
    },
  };
}

/** POST /render: Markdown that is not (yet) a page, as if it were the page at `path` of `space`. */
export function renderPreview(svc: Services, caller: Caller, input: { space: string; path: string; content: string }): string {
  resolveSpace(svc, caller, input.space); // 404 unless the caller may see the space
  if (input.content.length > svc.config.limits.pageBytes) throw invalidField('content', 'max', `at most ${svc.config.limits.pageBytes} bytes`);
  return renderForCaller(svc, caller, { space: input.space, path: input.path }, input.content);
}
